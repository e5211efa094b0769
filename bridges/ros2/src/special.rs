//! The standard types whose ROS 2 counterpart is shaped differently (docs/messages.md's rows
//! that are more than a rename): before the generic conversion, a nerve value gains the ROS 2
//! fields built from its own ([`to_ros_shape`]); after CDR is read back, a ROS 2 value gains
//! the nerve fields built from its own ([`to_nerve_shape`]).

use nerve::msgs::dynamic::{Value, DATA};

fn set(v: &mut Value, key: &str, x: Value) {
    if let Value::Struct(fields) = v {
        match fields.iter_mut().find(|(k, _)| k == key) {
            Some((_, slot)) => *slot = x,
            None => fields.push((key.to_owned(), x)),
        }
    }
}

fn num(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

fn list(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::List(items)) => items.clone(),
        _ => Vec::new(),
    }
}

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Text(t)) => t.clone(),
        _ => String::new(),
    }
}

/// `(name, offset)` of each field of a nerve point format, all FLOAT32.
fn point_fields(format: &str) -> &'static [(&'static str, u64)] {
    match format {
        "xyzi" => &[("x", 0), ("y", 4), ("z", 8), ("intensity", 12)],
        "xyzrgb" => &[("x", 0), ("y", 4), ("z", 8), ("rgb", 12)],
        _ => &[("x", 0), ("y", 4), ("z", 8)],
    }
}

/// sensor_msgs PointField's FLOAT32.
const FLOAT32: u64 = 7;

/// Every nerve `BoundingBox2D` in `v` (`center_x`, `center_y`, `theta`) as vision_msgs has it
/// (`center.position.x`, `center.position.y`, `center.theta`), or back (`to_ros` false).
fn boxes_2d(v: &mut Value, to_ros: bool) {
    match v {
        Value::Struct(fields) => {
            let flat = fields.iter().any(|(k, _)| k == "center_x");
            let nested = fields
                .iter()
                .any(|(k, x)| k == "center" && x.get("theta").is_some());
            if to_ros && flat {
                let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, x)| x.clone());
                let zero = Value::Float(0.0);
                let center = Value::Struct(vec![
                    (
                        "position".into(),
                        Value::Struct(vec![
                            ("x".into(), get("center_x").unwrap_or(zero.clone())),
                            ("y".into(), get("center_y").unwrap_or(zero.clone())),
                        ]),
                    ),
                    ("theta".into(), get("theta").unwrap_or(zero)),
                ]);
                fields.retain(|(k, _)| !matches!(k.as_str(), "center_x" | "center_y" | "theta"));
                fields.insert(0, ("center".into(), center));
            } else if !to_ros && nested {
                let center = fields
                    .iter()
                    .find(|(k, _)| k == "center")
                    .map(|(_, c)| c.clone())
                    .unwrap_or(Value::Null);
                let pos = |k: &str| center.path(&format!("position.{k}")).cloned();
                fields.retain(|(k, _)| k != "center");
                fields.push(("center_x".into(), pos("x").unwrap_or(Value::Float(0.0))));
                fields.push(("center_y".into(), pos("y").unwrap_or(Value::Float(0.0))));
                fields.push((
                    "theta".into(),
                    center.get("theta").cloned().unwrap_or(Value::Float(0.0)),
                ));
            }
            for (_, x) in fields.iter_mut() {
                boxes_2d(x, to_ros);
            }
        }
        Value::List(items) => items.iter_mut().for_each(|x| boxes_2d(x, to_ros)),
        _ => {}
    }
}

/// The types shaped here.
const SHAPED: &[&str] = &[
    "nerve/BoundingBox2D",
    "nerve/Detection2D",
    "nerve/Detection2DArray",
    "nerve/CameraInfo",
    "nerve/BatteryState",
    "nerve/PointCloud",
    "nerve/JointState",
    "nerve/DiagnosticArray",
    "nerve/Marker",
];

/// A nerve value with the fields its ROS 2 counterpart has and it does not (the value itself,
/// uncopied, for the types that need nothing).
pub fn to_ros_shape<'a>(nerve_type: &str, v: &'a Value) -> std::borrow::Cow<'a, Value> {
    if !SHAPED.contains(&nerve_type) {
        return std::borrow::Cow::Borrowed(v);
    }
    std::borrow::Cow::Owned(shape_to_ros(nerve_type, v))
}

fn shape_to_ros(nerve_type: &str, v: &Value) -> Value {
    let mut v = v.clone();
    match nerve_type {
        "nerve/BoundingBox2D" | "nerve/Detection2D" | "nerve/Detection2DArray" => {
            boxes_2d(&mut v, true);
        }
        "nerve/CameraInfo" if text(v.get("distortion_model")) == "none" => {
            set(&mut v, "distortion_model", Value::Text(String::new()));
        }
        "nerve/BatteryState" => {
            // One voltage per cell: the lowest first, the others at the highest (the count,
            // the minimum and the maximum survive).
            let n = num(v.get("cell_count")) as usize;
            let (lo, hi) = (
                num(v.get("cell_voltage_min")),
                num(v.get("cell_voltage_max")),
            );
            let cells = (0..n)
                .map(|i| Value::Float(if i == 0 { lo } else { hi }))
                .collect();
            set(&mut v, "cell_voltage", Value::List(cells));
        }
        "nerve/PointCloud" => {
            let fields = point_fields(&text(v.get("format")))
                .iter()
                .map(|(name, offset)| {
                    Value::Struct(vec![
                        ("name".into(), Value::Text((*name).into())),
                        ("offset".into(), Value::UInt(*offset)),
                        ("datatype".into(), Value::UInt(FLOAT32)),
                        ("count".into(), Value::UInt(1)),
                    ])
                })
                .collect();
            set(&mut v, "fields", Value::List(fields));
            let row = num(v.get("width")) * num(v.get("point_step"));
            set(&mut v, "row_step", Value::UInt(row as u64));
        }
        "nerve/JointState" => {
            let samples = list(v.get(DATA));
            let column = |k: &str| {
                let c: Vec<Value> = samples.iter().filter_map(|s| s.get(k).cloned()).collect();
                // A column of NaN is a value ROS 2 leaves out.
                if c.iter().all(|x| x.as_f64().is_some_and(f64::is_nan)) {
                    Value::List(Vec::new())
                } else {
                    Value::List(c)
                }
            };
            let (p, vel, e) = (column("position"), column("velocity"), column("effort"));
            set(&mut v, "position", p);
            set(&mut v, "velocity", vel);
            set(&mut v, "effort", e);
        }
        "nerve/DiagnosticArray" => {
            let mut statuses: Vec<Value> = Vec::new();
            for e in list(v.get(DATA)) {
                if text(e.get("kind")) == "status" {
                    // The level's code by name (a code inside the elements).
                    let level = match e.get("level") {
                        Some(Value::Text(t)) => ["ok", "warn", "error", "stale"]
                            .iter()
                            .position(|n| n == t)
                            .unwrap_or(0) as u64,
                        Some(x) => x.as_f64().unwrap_or(0.0) as u64,
                        None => 0,
                    };
                    statuses.push(Value::Struct(vec![
                        ("level".into(), Value::UInt(level)),
                        ("name".into(), Value::Text(text(e.get("name")))),
                        ("message".into(), Value::Text(text(e.get("message")))),
                        (
                            "hardware_id".into(),
                            Value::Text(text(e.get("hardware_id"))),
                        ),
                        ("values".into(), Value::List(Vec::new())),
                    ]));
                } else if let Some(Value::Struct(s)) = statuses.last_mut() {
                    if let Some((_, Value::List(values))) =
                        s.iter_mut().find(|(k, _)| k == "values")
                    {
                        values.push(Value::Struct(vec![
                            ("key".into(), Value::Text(text(e.get("name")))),
                            ("value".into(), Value::Text(text(e.get("message")))),
                        ]));
                    }
                }
            }
            set(&mut v, "status", Value::List(statuses));
        }
        "nerve/Marker" => {
            let samples = list(v.get(DATA));
            let points = samples
                .iter()
                .filter_map(|s| s.get("point").cloned())
                .collect();
            let colors = if num(v.get("uses_point_colors")) != 0.0 {
                samples
                    .iter()
                    .filter_map(|s| s.get("color").cloned())
                    .collect()
            } else {
                Vec::new()
            };
            set(&mut v, "points", Value::List(points));
            set(&mut v, "colors", Value::List(colors));
        }
        _ => {}
    }
    v
}

/// A decoded ROS 2 value with the fields its nerve counterpart has and it does not (the value
/// itself, uncopied, for a type shaped alike on both sides).
pub fn to_nerve_shape<'a>(nerve_type: &str, ros: &'a Value) -> std::borrow::Cow<'a, Value> {
    if !SHAPED.contains(&nerve_type) {
        return std::borrow::Cow::Borrowed(ros);
    }
    std::borrow::Cow::Owned(shape_to_nerve(nerve_type, ros))
}

fn shape_to_nerve(nerve_type: &str, ros: &Value) -> Value {
    let mut r = ros.clone();
    match nerve_type {
        "nerve/BoundingBox2D" | "nerve/Detection2D" | "nerve/Detection2DArray" => {
            boxes_2d(&mut r, false);
        }
        "nerve/CameraInfo" if text(r.get("distortion_model")).is_empty() => {
            set(&mut r, "distortion_model", Value::Text("none".into()));
        }
        "nerve/BatteryState" => {
            let cells: Vec<f64> = list(r.get("cell_voltage"))
                .iter()
                .filter_map(Value::as_f64)
                .collect();
            let lo = cells.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = cells.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let (lo, hi) = if cells.is_empty() {
                (0.0, 0.0)
            } else {
                (lo, hi)
            };
            set(&mut r, "cell_voltage_min", Value::Float(lo));
            set(&mut r, "cell_voltage_max", Value::Float(hi));
            set(&mut r, "cell_count", Value::UInt(cells.len() as u64));
            set(&mut r, "time_to_empty_s", Value::Float(f64::NAN));
            set(&mut r, "time_to_full_s", Value::Float(f64::NAN));
        }
        "nerve/PointCloud" => {
            let names: Vec<String> = list(r.get("fields"))
                .iter()
                .map(|f| text(f.get("name")))
                .collect();
            let format = if names.iter().any(|n| n == "intensity") {
                "xyzi"
            } else if names.iter().any(|n| n == "rgb") {
                "xyzrgb"
            } else {
                "xyz"
            };
            set(&mut r, "format", Value::Text(format.into()));
        }
        "nerve/JointState" => {
            let (p, vel, e) = (
                list(r.get("position")),
                list(r.get("velocity")),
                list(r.get("effort")),
            );
            let n = p.len().max(vel.len()).max(e.len());
            let at = |c: &[Value], i: usize| c.get(i).cloned().unwrap_or(Value::Float(f64::NAN));
            let samples = (0..n)
                .map(|i| {
                    Value::Struct(vec![
                        ("position".into(), at(&p, i)),
                        ("velocity".into(), at(&vel, i)),
                        ("effort".into(), at(&e, i)),
                    ])
                })
                .collect();
            set(&mut r, DATA, Value::List(samples));
            let names: Vec<String> = list(r.get("name")).iter().map(|x| text(Some(x))).collect();
            let hash = if names.is_empty() {
                0
            } else {
                nerve::msgs::JointStateHeader::hash_names(&names)
            };
            set(&mut r, "names_hash", Value::UInt(hash));
        }
        "nerve/DiagnosticArray" => {
            let mut entries = Vec::new();
            for s in list(r.get("status")) {
                entries.push(Value::Struct(vec![
                    ("kind".into(), Value::Text("status".into())),
                    (
                        "level".into(),
                        s.get("level").cloned().unwrap_or(Value::UInt(0)),
                    ),
                    ("name".into(), Value::Text(text(s.get("name")))),
                    ("message".into(), Value::Text(text(s.get("message")))),
                    (
                        "hardware_id".into(),
                        Value::Text(text(s.get("hardware_id"))),
                    ),
                ]));
                for kv in list(s.get("values")) {
                    entries.push(Value::Struct(vec![
                        ("kind".into(), Value::Text("value".into())),
                        ("level".into(), Value::UInt(0)),
                        ("name".into(), Value::Text(text(kv.get("key")))),
                        ("message".into(), Value::Text(text(kv.get("value")))),
                        ("hardware_id".into(), Value::Text(String::new())),
                    ]));
                }
            }
            set(&mut r, DATA, Value::List(entries));
        }
        "nerve/Marker" => {
            let points = list(r.get("points"));
            let colors = list(r.get("colors"));
            let with_colors = !colors.is_empty();
            let samples = points
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let mut s = vec![("point".to_owned(), p.clone())];
                    if let Some(c) = colors.get(i) {
                        s.push(("color".to_owned(), c.clone()));
                    }
                    Value::Struct(s)
                })
                .collect();
            set(&mut r, DATA, Value::List(samples));
            set(
                &mut r,
                "uses_point_colors",
                Value::UInt(u64::from(with_colors)),
            );
        }
        _ => {}
    }
    r
}
