//! `docs/messages.md` is generated from the schemas of the standard set and the ROS 2 mapping
//! below, so the nerve side of every table is exact; this test fails when the file is out of
//! date. Regenerate with `NERVE_BLESS=1 cargo test -p nerve-msgs --test messages_doc`.

use nerve_msgs::schema::{FieldType, Schema, SchemaKind};
use nerve_msgs::STANDARD;

/// (nerve type, nerve field path, ROS 2 field, conversion) for every field whose ROS 2
/// counterpart is not the same path with the generic conversion.
const FIELDS: &[(&str, &str, &str, &str)] = &[
    ("nerve/Time", "ns", "sec, nanosec", "sec = ns / 10⁹, nanosec = ns % 10⁹"),
    ("nerve/CmdVel", "stamp_ns", "—", "dropped (Twist has no stamp); 0 from ROS 2"),
    ("nerve/CmdVel", "linear", "linear.x", "f32 ↔ f64; linear.y, linear.z are 0"),
    ("nerve/CmdVel", "angular", "angular.z", "f32 ↔ f64; angular.x, angular.y are 0"),
    ("nerve/Clock", "sim_ns", "clock.sec, clock.nanosec", "as `Time`"),
    ("nerve/Clock", "real_time_factor", "—", "not in ROS 2; NaN from ROS 2"),
    ("nerve/Pose", "position", "position", "Vector3 ↔ Point (same x, y, z)"),
    ("nerve/Odometry", "pose", "pose.pose", ""),
    ("nerve/Odometry", "pose_covariance", "pose.covariance", "same 6×6 row-major layout"),
    ("nerve/Odometry", "twist", "twist.twist", ""),
    ("nerve/Odometry", "twist_covariance", "twist.covariance", "same 6×6 row-major layout"),
    ("nerve/BatteryState", "charge", "charge", "f32, Ah"),
    ("nerve/BatteryState", "cell_voltage_min", "cell_voltage[]", "ROS 2 has one voltage per cell: min ↔ min of the list"),
    ("nerve/BatteryState", "cell_voltage_max", "cell_voltage[]", "max of the list"),
    ("nerve/BatteryState", "time_to_empty_s", "—", "not in ROS 2 (NaN from ROS 2)"),
    ("nerve/BatteryState", "time_to_full_s", "—", "not in ROS 2 (NaN from ROS 2)"),
    ("nerve/BatteryState", "cell_count", "cell_voltage[]", "length of the list"),
    ("nerve/BatteryState", "present", "present", "u8 0/1 ↔ bool"),
    ("nerve/CameraInfo", "distortion_model", "distortion_model", "code ↔ string (`plumb_bob`, `rational_polynomial`, `equidistant`; `none` ↔ \"\")"),
    ("nerve/CameraInfo", "d_len", "d[]", "length of d"),
    ("nerve/CameraInfo", "d", "d", "first d_len entries ↔ the list (more than 8: refused)"),
    ("nerve/JointState", "names_hash", "name[]", "not carried: hash of the names (JointStateHeader::hash_names); the bridge needs the names from configuration"),
    ("nerve/JointState", "(elements) JointSample.position", "position[i]", "one element per joint, in name order"),
    ("nerve/JointState", "(elements) JointSample.velocity", "velocity[i]", "NaN ↔ missing (ROS 2 may send an empty list)"),
    ("nerve/JointState", "(elements) JointSample.effort", "effort[i]", "NaN ↔ missing"),
    ("nerve/LaserScan", "(elements) f32", "ranges[]", "one element per beam; intensities[] not carried"),
    ("nerve/Image", "encoding", "encoding", "code ↔ string (`rgb8`, `bgr8`, `rgba8`, `bgra8`, `mono8`, `mono16`, `16UC1`, `32FC1`; other ROS encodings cannot be expressed)"),
    ("nerve/Image", "(elements) u8", "data[]", "the bytes, little-endian (is_bigendian = 0)"),
    ("nerve/DepthImage", "encoding", "encoding", "`16UC1` or `32FC1`"),
    ("nerve/DepthImage", "depth_scale", "—", "not in ROS 2: 0.001 for 16UC1 (mm), 1.0 for 32FC1 (m)"),
    ("nerve/DepthImage", "(elements) u8", "data[]", "the bytes, little-endian"),
    ("nerve/PointCloud", "format", "fields[]", "xyz ↔ x, y, z FLOAT32 at 0, 4, 8; xyzi adds intensity FLOAT32 at 12; xyzrgb adds rgb FLOAT32 (packed r, g, b, a bytes) at 12"),
    ("nerve/PointCloud", "is_dense", "is_dense", "u32 0/1 ↔ bool"),
    ("nerve/PointCloud", "(elements) u8", "data[]", "row_step = width × point_step; is_bigendian = false"),
    ("nerve/Bool", "data", "data", "u8 0/1 ↔ bool (non-zero reads as true)"),
    ("nerve/Text", "(elements) u8", "data", "the UTF-8 bytes ↔ string"),
    ("nerve/Polygon", "(elements) Point32", "points[]", "one element per vertex"),
    ("nerve/PolygonStamped", "(elements) Point32", "polygon.points[]", "one element per vertex"),
    ("nerve/CompressedImage", "(elements) u8", "data[]", "the encoded bytes"),
    ("nerve/PointCloud2", "fields_len", "fields[]", "length of fields (more than 16: refused)"),
    ("nerve/PointCloud2", "fields", "fields", "first fields_len entries ↔ the list"),
    ("nerve/PointCloud2", "is_bigendian", "is_bigendian", "u8 0/1 ↔ bool"),
    ("nerve/PointCloud2", "is_dense", "is_dense", "u8 0/1 ↔ bool"),
    ("nerve/PointCloud2", "(elements) u8", "data[]", "the bytes, unchanged"),
    ("nerve/OccupancyGrid", "info.map_load_time_ns", "info.map_load_time", "as `header.stamp_ns`"),
    ("nerve/OccupancyGrid", "(elements) i8", "data[]", "one element per cell, row-major from (0, 0)"),
    ("nerve/MapMetaData", "map_load_time_ns", "map_load_time", "as `header.stamp_ns`"),
    ("nerve/Path", "(elements) PoseStamped", "poses[]", "one element per pose"),
    ("nerve/TFMessage", "(elements) TransformStamped", "transforms[]", "one element per transform"),
    ("nerve/DiagnosticStatus", "(elements) KeyValue", "values[]", "one element per pair"),
    ("nerve/DiagnosticArray", "(elements) DiagnosticEntry", "status[]", "each `status` entry ↔ one status (level, name, message, hardware_id), each `value` entry after it ↔ one of its values[] (name ↔ key, message ↔ value)"),
    ("nerve/Joy", "axes_len", "axes[]", "length of axes (more than 32: refused)"),
    ("nerve/Joy", "buttons_len", "buttons[]", "length of buttons (more than 64: refused)"),
    ("nerve/Joy", "axes", "axes", "first axes_len entries ↔ the list"),
    ("nerve/Joy", "buttons", "buttons", "first buttons_len entries ↔ the list"),
    ("nerve/RegionOfInterest", "do_rectify", "do_rectify", "u8 0/1 ↔ bool"),
    ("nerve/BoundingBox2D", "center_x", "center.position.x", ""),
    ("nerve/BoundingBox2D", "center_y", "center.position.y", ""),
    ("nerve/BoundingBox2D", "theta", "center.theta", ""),
    ("nerve/Detection2D", "results_len", "results[]", "length of results (more than 4: refused)"),
    ("nerve/Detection2D", "results", "results", "first results_len entries ↔ the list"),
    ("nerve/Detection2D", "bbox.center_x", "bbox.center.position.x", ""),
    ("nerve/Detection2D", "bbox.center_y", "bbox.center.position.y", ""),
    ("nerve/Detection2D", "bbox.theta", "bbox.center.theta", ""),
    ("nerve/Detection3D", "results_len", "results[]", "length of results (more than 4: refused)"),
    ("nerve/Detection3D", "results", "results", "first results_len entries ↔ the list"),
    ("nerve/Detection2DArray", "(elements) Detection2D", "detections[]", "one element per detection (each as nerve/Detection2D)"),
    ("nerve/Detection3DArray", "(elements) Detection3D", "detections[]", "one element per detection (each as nerve/Detection3D)"),
    ("nerve/Marker", "marker_type", "type", "same integer"),
    ("nerve/Marker", "lifetime_ns", "lifetime", "Duration sec = ns / 10⁹, nanosec = ns % 10⁹ (negative durations cannot be expressed)"),
    ("nerve/Marker", "frame_locked", "frame_locked", "u8 0/1 ↔ bool"),
    ("nerve/Marker", "mesh_use_embedded_materials", "mesh_use_embedded_materials", "u8 0/1 ↔ bool"),
    ("nerve/Marker", "uses_point_colors", "colors[]", "1 ↔ colors has one entry per point; 0 ↔ colors empty"),
    ("nerve/Marker", "(elements) MarkerPoint.point", "points[i]", "one element per point"),
    ("nerve/Marker", "(elements) MarkerPoint.color", "colors[i]", "only when uses_point_colors = 1 (else zero)"),
];

/// What the ROS 2 message has that nerve cannot carry, per type.
const CANNOT: &[(&str, &str)] = &[
    ("nerve/Header", "ROS 2's Header has no `seq` (0 from ROS 2, dropped to ROS 2); a `frame_id` longer than 31 bytes is refused."),
    ("nerve/CmdVel", "Only the planar part of a Twist (linear.x, angular.z); use nerve/Twist for the rest."),
    ("nerve/BatteryState", "`cell_voltage[]` and `cell_temperature[]` per cell (only min/max voltage), `location`, `serial_number`."),
    ("nerve/CameraInfo", "`binning_x`, `binning_y` and `roi` (assume 0 and the full image); more than 8 distortion coefficients."),
    ("nerve/JointState", "Joint names (carried as a hash); lists of unequal lengths (a missing value is NaN)."),
    ("nerve/LaserScan", "`intensities[]`."),
    ("nerve/Image", "Encodings other than the eight codes; `is_bigendian = 1` (convert first)."),
    ("nerve/DepthImage", "Non-depth encodings (use nerve/Image)."),
    ("nerve/PointCloud", "Any other field set (use nerve/PointCloud2)."),
    ("nerve/PointCloud2", "More than 16 fields; field names longer than 31 bytes."),
    ("nerve/MultiArray", "More than 8 dimensions; dimension labels longer than 31 bytes."),
    ("nerve/CompressedImage", "A `format` longer than 31 bytes."),
    ("nerve/Joy", "More than 32 axes or 64 buttons."),
    ("nerve/DiagnosticStatus", "name or hardware_id longer than 63 bytes, message longer than 127, keys longer than 63, values longer than 127."),
    ("nerve/DiagnosticArray", "As nerve/DiagnosticStatus."),
    ("nerve/Detection2D", "More than 4 hypotheses; class or tracking ids longer than 31 bytes."),
    ("nerve/Detection3D", "More than 4 hypotheses; class or tracking ids longer than 31 bytes."),
    ("nerve/Marker", "`texture_resource`, `texture`, `uv_coordinates` (always empty); `ns` longer than 31 bytes, `text` or `mesh_resource` longer than 127; negative lifetimes."),
];

fn type_name(t: &FieldType) -> String {
    match t {
        FieldType::Array { elem, len } => format!("[{}; {len}]", type_name(elem)),
        FieldType::Text { len } => format!("text[{len}]"),
        FieldType::Enum { repr, values } => {
            let names: Vec<String> = values.iter().map(|(n, v)| format!("{n}={v}")).collect();
            format!("{} code ({})", type_name(repr), names.join(", "))
        }
        FieldType::Struct(s) => s.name.to_owned(),
        other => format!("{other:?}").to_lowercase(),
    }
}

fn generic(name: &str, path: &str, t: &FieldType) -> (String, String) {
    if let Some((_, _, ros, conv)) = FIELDS.iter().find(|(n, p, ..)| *n == name && *p == path) {
        return (ros.to_string(), conv.to_string());
    }
    let leaf = path.rsplit('.').next().unwrap_or(path);
    if leaf == "stamp_ns" {
        let ros = path.replace("stamp_ns", "stamp");
        return (
            format!("{ros}.sec, {ros}.nanosec"),
            "sec = ns / 10⁹, nanosec = ns % 10⁹".into(),
        );
    }
    if leaf == "dim_count" {
        return (
            "layout.dim[]".into(),
            "length of dim (more than 8: refused)".into(),
        );
    }
    if leaf == "dim" {
        return (
            "layout.dim".into(),
            "first dim_count entries ↔ the list".into(),
        );
    }
    if leaf == "seq" && (path.contains("header") || name == "nerve/Header") {
        return ("—".into(), "not in ROS 2: dropped; 0 from ROS 2".into());
    }
    if path.ends_with("child_frame_id") || path.ends_with("frame_id") {
        return (
            path.into(),
            "text ↔ string (at most 31 bytes; longer is refused)".into(),
        );
    }
    let conv = match t {
        FieldType::Text { len } => format!(
            "text ↔ string (at most {} bytes; longer is refused)",
            len - 1
        ),
        FieldType::Enum { .. } => "same integer (ROS 2 constants)".into(),
        FieldType::Array { len: 36, .. } => "6×6 row-major, same layout".into(),
        FieldType::Array { len: 9, .. } => "3×3 row-major, same layout".into(),
        FieldType::Array { len, .. } => format!("fixed array [{len}] ↔ fixed array"),
        _ => String::new(),
    };
    (path.into(), conv)
}

fn has_ros2(name: &str) -> bool {
    STANDARD
        .iter()
        .any(|s| s.name == name && !s.ros2.is_empty())
}

/// `inherited`: the unit of the struct field being flattened, for its fields without one.
fn rows(name: &str, s: &Schema, prefix: &str, inherited: &str, out: &mut Vec<String>) {
    for f in s.fields.iter().filter(|f| !f.padding) {
        let path = format!("{prefix}{}", f.name);
        let overridden = FIELDS.iter().any(|(n, p, ..)| *n == name && *p == path);
        match f.ty {
            FieldType::Struct(inner) if !overridden => rows(
                name,
                inner,
                &format!("{path}."),
                if f.unit.is_empty() { inherited } else { f.unit },
                out,
            ),
            _ => {
                let (ros, conv) = if has_ros2(name) {
                    generic(name, &path, &f.ty)
                } else {
                    ("—".into(), String::new())
                };
                let unit = if f.unit.is_empty() { inherited } else { f.unit };
                out.push(format!(
                    "| `{path}` | {} | {unit} | `{ros}` | {conv} |",
                    type_name(&f.ty)
                ));
            }
        }
    }
}

fn render() -> String {
    let mut md = String::from(
        "# Standard messages and their ROS 2 counterparts\n\n\
         Generated from the schemas of the standard set (`crates/nerve-msgs/tests/messages_doc.rs`; \
         regenerate with `NERVE_BLESS=1 cargo test -p nerve-msgs --test messages_doc`). A recorder and \
         a ROS 2 bridge convert through these tables.\n\n\
         ## Conventions of every table\n\n\
         - Nested structs are flattened to dotted paths; `_pad` fields are not listed (write zero).\n\
         - A ROS 2 field with the same path and no conversion is copied as is (f64 ↔ float64, \
         f32 ↔ float32, i32 ↔ int32, ...).\n\
         - `*.stamp_ns` (u64 ns since the epoch) ↔ `*.stamp.sec` (int32) and `*.stamp.nanosec` \
         (uint32): sec = ns / 10⁹, nanosec = ns % 10⁹. Stamps before 1970 cannot be expressed.\n\
         - `header.seq` has no ROS 2 counterpart: dropped towards ROS 2, 0 from ROS 2.\n\
         - Fixed text (`text[N]`, NUL-padded UTF-8) ↔ `string`: at most N − 1 bytes; a longer ROS 2 \
         string is refused, never truncated.\n\
         - A bounded list `x[N]` with a count `x_len` ↔ the ROS 2 array `x[]`: the first `x_len` \
         entries; a longer ROS 2 array is refused.\n\
         - Codes are the same integers as the ROS 2 constants; a `u8` 0/1 flag ↔ `bool`.\n\
         - Covariances keep ROS 2's row-major layout and units.\n\
         - `(elements)` rows are the chunk's elements (chunked messages) ↔ the ROS 2 array named.\n\
         - nerve/Heartbeat and nerve/Tensor have no ROS 2 counterpart. A tensor is closest to the \
         `std_msgs/msg/<T>MultiArray` of its element type (shape as `layout.dim[i].size`, strides \
         as `layout.dim[i].stride` in elements); tools that write ROS 2 formats convert it so, or \
         keep nerve's own schema.\n",
    );
    for s in STANDARD {
        md += &format!("\n## `{}`", s.name);
        if !s.ros2.is_empty() {
            md += &format!(" ↔ `{}`", s.ros2);
        }
        let kind = match s.kind {
            SchemaKind::Chunked { elem } => format!(
                "chunked: {}-byte header, elements `{}`",
                s.size,
                type_name(elem)
            ),
            _ => format!("fixed, {} bytes", s.size),
        };
        let first = s.doc.lines().next().unwrap_or("");
        md += &format!("\n\n{first} ({kind}).\n\n| nerve | type | unit | ROS 2 | conversion |\n|---|---|---|---|---|\n");
        let mut out = Vec::new();
        rows(s.name, s, "", "", &mut out);
        if let SchemaKind::Chunked { elem } = s.kind {
            let mut listed = false;
            for (n, p, ros, conv) in FIELDS {
                if *n == s.name && p.starts_with("(elements)") {
                    out.push(format!(
                        "| {p} | {} | | `{ros}` | {conv} |",
                        type_name(elem)
                    ));
                    listed = true;
                }
            }
            if !listed && s.name.ends_with("MultiArray") {
                out.push(format!(
                    "| (elements) | {} | | `data[]` | one element per value |",
                    type_name(elem)
                ));
            }
        }
        md += &out.join("\n");
        md += "\n";
        let key = if s.name.ends_with("MultiArray") {
            "nerve/MultiArray"
        } else {
            s.name
        };
        if let Some((_, text)) = CANNOT.iter().find(|(n, _)| *n == key) {
            md += &format!("\nCannot be expressed: {text}\n");
        }
    }
    md
}

#[test]
fn messages_md_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/messages.md");
    let md = render();
    if std::env::var_os("NERVE_BLESS").is_some() {
        std::fs::write(path, &md).unwrap();
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(on_disk == md, "docs/messages.md is out of date: NERVE_BLESS=1 cargo test -p nerve-msgs --test messages_doc");
}
