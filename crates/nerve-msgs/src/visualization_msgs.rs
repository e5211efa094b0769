//! Shapes for viewers (ROS 2 `visualization_msgs`): [`Marker`].

use crate::geometry_msgs::{Point, Pose, Vector3};
use crate::limits::{read_text, write_text, TextError};
use crate::std_msgs::{ColorRGBA, Header};

/// Bytes of [`MarkerHeader::ns`].
pub const MARKER_NS_LEN: usize = 32;
/// Bytes of [`MarkerHeader::text`].
pub const MARKER_TEXT_LEN: usize = 128;
/// Bytes of [`MarkerHeader::mesh_resource`].
pub const MARKER_MESH_RESOURCE_LEN: usize = 128;

/// Shape of a [`Marker`] (`MarkerHeader::marker_type` holds the raw `i32`; the values are
/// ROS's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum MarkerType {
    /// An arrow from the pose (or from the first to the second point).
    Arrow = 0,
    /// A box.
    Cube = 1,
    /// A sphere (an ellipsoid when the scale differs per axis).
    Sphere = 2,
    /// A cylinder along z.
    Cylinder = 3,
    /// Line segments joining the points in order.
    LineStrip = 4,
    /// One line segment per pair of points.
    LineList = 5,
    /// One box per point.
    CubeList = 6,
    /// One sphere per point.
    SphereList = 7,
    /// One square dot per point.
    Points = 8,
    /// `text`, facing the viewer.
    TextViewFacing = 9,
    /// The mesh at `mesh_resource`.
    MeshResource = 10,
    /// One triangle per three points.
    TriangleList = 11,
    /// Arrows joining the points in order.
    ArrowStrip = 12,
}

impl MarkerType {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: i32) -> Option<Self> {
        match raw {
            0 => Some(Self::Arrow),
            1 => Some(Self::Cube),
            2 => Some(Self::Sphere),
            3 => Some(Self::Cylinder),
            4 => Some(Self::LineStrip),
            5 => Some(Self::LineList),
            6 => Some(Self::CubeList),
            7 => Some(Self::SphereList),
            8 => Some(Self::Points),
            9 => Some(Self::TextViewFacing),
            10 => Some(Self::MeshResource),
            11 => Some(Self::TriangleList),
            12 => Some(Self::ArrowStrip),
            _ => None,
        }
    }
}

impl crate::schema::Codes for MarkerType {
    const VALUES: &'static [(&'static str, i64)] = &[
        ("arrow", 0),
        ("cube", 1),
        ("sphere", 2),
        ("cylinder", 3),
        ("line_strip", 4),
        ("line_list", 5),
        ("cube_list", 6),
        ("sphere_list", 7),
        ("points", 8),
        ("text_view_facing", 9),
        ("mesh_resource", 10),
        ("triangle_list", 11),
        ("arrow_strip", 12),
    ];
}

/// What a viewer does with a [`Marker`] (`MarkerHeader::action` holds the raw `i32`; the
/// values are ROS's, whose `MODIFY` is `ADD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum MarkerAction {
    /// Create the marker, or replace the one with the same `ns` and `id`.
    Add = 0,
    /// Remove the marker with this `ns` and `id`.
    Delete = 2,
    /// Remove every marker (of this `ns` if it is not empty).
    DeleteAll = 3,
}

impl MarkerAction {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: i32) -> Option<Self> {
        match raw {
            0 => Some(Self::Add),
            2 => Some(Self::Delete),
            3 => Some(Self::DeleteAll),
            _ => None,
        }
    }
}

impl crate::schema::Codes for MarkerAction {
    const VALUES: &'static [(&'static str, i64)] = &[("add", 0), ("delete", 2), ("deleteall", 3)];
}

/// One point of a [`Marker`] with its colour: 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", default = "zeroed")]
#[repr(C)]
pub struct MarkerPoint {
    /// The point, in the marker's frame (scaled and posed as its type says), m.
    #[field(unit = "m")]
    pub point: Point,
    /// Its colour; used only when `MarkerHeader::uses_point_colors` is 1.
    pub color: ColorRGBA,
}

/// Fixed part of a [`Marker`]: 456 bytes. `Default` has the identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Marker", ros2 = "visualization_msgs/msg/Marker", chunked(elem = MarkerPoint, message = Marker, doc = "A shape for a viewer (chunked; header 456 bytes, one 40-byte [`MarkerPoint`] per point of the list types, none for single shapes)."))]
#[repr(C)]
pub struct MarkerHeader {
    /// Stamp and frame of the pose.
    pub header: Header,
    /// Namespace; with `id`, names the marker. NUL-padded UTF-8 of at most
    /// [`MARKER_NS_LEN`] − 1 bytes.
    #[field(text)]
    pub ns: [u8; MARKER_NS_LEN],
    /// Id within the namespace.
    pub id: i32,
    /// A [`MarkerType`] code (ROS's `type`).
    #[field(codes = MarkerType)]
    pub marker_type: i32,
    /// A [`MarkerAction`] code.
    #[field(codes = MarkerAction)]
    pub action: i32,
    /// 1 to keep the marker attached to its frame as the frame moves, 0 to leave it where
    /// it was drawn.
    pub frame_locked: u8,
    /// 1 if each point's own colour is used (ROS's `colors` filled), 0 if `color` is used for
    /// the whole marker (`colors` empty).
    pub uses_point_colors: u8,
    /// 1 to use the materials embedded in the mesh (mesh markers only).
    pub mesh_use_embedded_materials: u8,
    /// Explicit padding; write zero.
    pub _pad: u8,
    /// Pose of the shape in the frame.
    pub pose: Pose,
    /// Size of the shape along its axes, m (1 = 1 m); its meaning depends on the type.
    #[field(unit = "m")]
    pub scale: Vector3,
    /// Colour of the whole marker.
    pub color: ColorRGBA,
    /// How long the marker stays without an update, nanoseconds; 0 = forever.
    pub lifetime_ns: u64,
    /// Text of a [`MarkerType::TextViewFacing`] marker, NUL-padded UTF-8 of at most
    /// [`MARKER_TEXT_LEN`] − 1 bytes.
    #[field(text)]
    pub text: [u8; MARKER_TEXT_LEN],
    /// Mesh of a [`MarkerType::MeshResource`] marker (`package://…`, `file://…`), NUL-padded
    /// UTF-8 of at most [`MARKER_MESH_RESOURCE_LEN`] − 1 bytes.
    #[field(text)]
    pub mesh_resource: [u8; MARKER_MESH_RESOURCE_LEN],
}

impl Default for MarkerHeader {
    fn default() -> Self {
        Self {
            header: Header::default(),
            ns: [0; MARKER_NS_LEN],
            id: 0,
            marker_type: MarkerType::Arrow as i32,
            action: MarkerAction::Add as i32,
            frame_locked: 0,
            uses_point_colors: 0,
            mesh_use_embedded_materials: 0,
            _pad: 0,
            pose: Pose::default(),
            scale: Vector3::default(),
            color: ColorRGBA::default(),
            lifetime_ns: 0,
            text: [0; MARKER_TEXT_LEN],
            mesh_resource: [0; MARKER_MESH_RESOURCE_LEN],
        }
    }
}

impl MarkerHeader {
    /// The decoded type; `None` for an unknown code.
    pub fn marker_type(&self) -> Option<MarkerType> {
        MarkerType::from_raw(self.marker_type)
    }

    /// The decoded action; `None` for an unknown code.
    pub fn action(&self) -> Option<MarkerAction> {
        MarkerAction::from_raw(self.action)
    }

    /// The namespace.
    pub fn ns(&self) -> &str {
        read_text(&self.ns)
    }

    /// Sets the namespace; too long or containing NUL: an error, nothing changed.
    pub fn set_ns(&mut self, ns: &str) -> Result<(), TextError> {
        write_text(&mut self.ns, "ns", ns)
    }

    /// The text.
    pub fn text(&self) -> &str {
        read_text(&self.text)
    }

    /// Sets the text; too long or containing NUL: an error, nothing changed.
    pub fn set_text(&mut self, text: &str) -> Result<(), TextError> {
        write_text(&mut self.text, "text", text)
    }

    /// The mesh resource.
    pub fn mesh_resource(&self) -> &str {
        read_text(&self.mesh_resource)
    }

    /// Sets the mesh resource; too long or containing NUL: an error, nothing changed.
    pub fn set_mesh_resource(&mut self, uri: &str) -> Result<(), TextError> {
        write_text(&mut self.mesh_resource, "mesh_resource", uri)
    }
}
