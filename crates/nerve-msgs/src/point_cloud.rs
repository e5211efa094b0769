//! Point clouds: [`PointCloud`] (chunked: a header and any number of points of one of the
//! point structs [`PointXYZ`], [`PointXYZI`], [`PointXYZRGB`], as [`PointFormat`] says), and
//! [`PointCloud2`], whose points have any named fields ([`PointField`]) as in ROS 2.
//! Multi-byte values are little-endian.

use crate::limits::{read_text, write_text, TextError, TooMany};
use crate::std_msgs::Header;

/// A point with position: 12 bytes ([`PointFormat::Xyz`]).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", default = "zeroed")]
#[repr(C)]
pub struct PointXYZ {
    /// x, m.
    #[field(unit = "m")]
    pub x: f32,
    /// y, m.
    #[field(unit = "m")]
    pub y: f32,
    /// z, m.
    #[field(unit = "m")]
    pub z: f32,
}

/// A point with position and intensity: 16 bytes ([`PointFormat::Xyzi`]).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", default = "zeroed")]
#[repr(C)]
pub struct PointXYZI {
    /// x, m.
    #[field(unit = "m")]
    pub x: f32,
    /// y, m.
    #[field(unit = "m")]
    pub y: f32,
    /// z, m.
    #[field(unit = "m")]
    pub z: f32,
    /// Return intensity, sensor units.
    pub intensity: f32,
}

/// A point with position and colour: 16 bytes ([`PointFormat::Xyzrgb`]).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", default = "zeroed")]
#[repr(C)]
pub struct PointXYZRGB {
    /// x, m.
    #[field(unit = "m")]
    pub x: f32,
    /// y, m.
    #[field(unit = "m")]
    pub y: f32,
    /// z, m.
    #[field(unit = "m")]
    pub z: f32,
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Alpha (255 = opaque; most sensors write 255).
    pub a: u8,
}

/// Point layout of a [`PointCloud`] (`PointCloudHeader::format` holds the raw `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum PointFormat {
    /// [`PointXYZ`].
    Xyz = 1,
    /// [`PointXYZI`].
    Xyzi = 2,
    /// [`PointXYZRGB`].
    Xyzrgb = 3,
}

impl PointFormat {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            1 => Some(Self::Xyz),
            2 => Some(Self::Xyzi),
            3 => Some(Self::Xyzrgb),
            _ => None,
        }
    }

    /// Lower-case name: `"xyz"`, `"xyzi"`, `"xyzrgb"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Xyz => "xyz",
            Self::Xyzi => "xyzi",
            Self::Xyzrgb => "xyzrgb",
        }
    }

    /// Bytes of one packed point: the size of its point struct.
    pub fn point_size(self) -> usize {
        match self {
            Self::Xyz => core::mem::size_of::<PointXYZ>(),
            Self::Xyzi => core::mem::size_of::<PointXYZI>(),
            Self::Xyzrgb => core::mem::size_of::<PointXYZRGB>(),
        }
    }
}

/// Fixed part of a [`PointCloud`]: 72 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/PointCloud", ros2 = "sensor_msgs/msg/PointCloud2", chunked(elem = u8, message = PointCloud, doc = "A point cloud of any size (chunked; header 72 bytes, payload `u8`: `width × height` points of `point_step` bytes each, the point struct of `format` first in each).  With `point_step` equal to the point struct's size, cast the payload with `bytemuck::cast_slice::<u8, PointXYZ>(data)` (or `try_cast_slice`, which reports misalignment instead of panicking)."), default = "zeroed")]
#[repr(C)]
pub struct PointCloudHeader {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Points per row (all points for an unorganised cloud).
    pub width: u32,
    /// Rows (1 for an unorganised cloud).
    pub height: u32,
    /// A [`PointFormat`] code.
    #[field(codes = PointFormat)]
    pub format: u32,
    /// Bytes per point (≥ the point struct's size).
    #[field(unit = "B")]
    pub point_step: u32,
    /// 1 if no point is invalid (NaN), 0 if some may be.
    pub is_dense: u32,
    /// Explicit padding; write zero.
    pub _pad: u32,
}

impl PointCloudHeader {
    /// A header for an unorganised cloud of `points` packed points.
    pub fn new(header: Header, format: PointFormat, points: u32) -> Self {
        Self {
            header,
            width: points,
            height: 1,
            format: format as u32,
            point_step: format.point_size() as u32,
            is_dense: 0,
            _pad: 0,
        }
    }

    /// The decoded format; `None` for an unknown code.
    pub fn format(&self) -> Option<PointFormat> {
        PointFormat::from_raw(self.format)
    }

    /// Number of points: `width × height`.
    pub fn point_count(&self) -> usize {
        (self.width as usize).saturating_mul(self.height as usize)
    }

    /// Payload bytes the header describes: `width × height × point_step`.
    pub fn data_len(&self) -> usize {
        self.point_count().saturating_mul(self.point_step as usize)
    }
}

impl crate::schema::Codes for PointFormat {
    const VALUES: &'static [(&'static str, i64)] = &[("xyz", 1), ("xyzi", 2), ("xyzrgb", 3)];
}

// ---------------------------------------------------------------------------------------------
// Clouds with arbitrary named fields

/// Type of one value of a [`PointField`] (`PointField::datatype` holds the raw `u8`; the
/// values are ROS's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PointFieldType {
    /// `i8`.
    Int8 = 1,
    /// `u8`.
    Uint8 = 2,
    /// `i16`.
    Int16 = 3,
    /// `u16`.
    Uint16 = 4,
    /// `i32`.
    Int32 = 5,
    /// `u32`.
    Uint32 = 6,
    /// `f32`.
    Float32 = 7,
    /// `f64`.
    Float64 = 8,
}

impl PointFieldType {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u8) -> Option<Self> {
        match raw {
            1 => Some(Self::Int8),
            2 => Some(Self::Uint8),
            3 => Some(Self::Int16),
            4 => Some(Self::Uint16),
            5 => Some(Self::Int32),
            6 => Some(Self::Uint32),
            7 => Some(Self::Float32),
            8 => Some(Self::Float64),
            _ => None,
        }
    }

    /// Bytes of one value.
    pub fn size(self) -> usize {
        match self {
            Self::Int8 | Self::Uint8 => 1,
            Self::Int16 | Self::Uint16 => 2,
            Self::Int32 | Self::Uint32 | Self::Float32 => 4,
            Self::Float64 => 8,
        }
    }
}

impl crate::schema::Codes for PointFieldType {
    const VALUES: &'static [(&'static str, i64)] = &[
        ("int8", 1),
        ("uint8", 2),
        ("int16", 3),
        ("uint16", 4),
        ("int32", 5),
        ("uint32", 6),
        ("float32", 7),
        ("float64", 8),
    ];
}

/// Bytes of [`PointField::name`]: NUL-padded UTF-8, at most 31 bytes.
pub const POINT_FIELD_NAME_LEN: usize = 32;

/// One named field of the points of a [`PointCloud2`]: 44 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    ros2 = "sensor_msgs/msg/PointField",
    default = "zeroed"
)]
#[repr(C)]
pub struct PointField {
    /// Name (`"x"`, `"intensity"`, `"rgb"`), NUL-padded UTF-8 of at most
    /// [`POINT_FIELD_NAME_LEN`] − 1 bytes; see [`PointField::new`].
    #[field(text)]
    pub name: [u8; POINT_FIELD_NAME_LEN],
    /// Bytes from the start of the point to this field.
    #[field(unit = "B")]
    pub offset: u32,
    /// A [`PointFieldType`] code.
    #[field(codes = PointFieldType)]
    pub datatype: u8,
    /// Explicit padding; write zero.
    pub _pad: [u8; 3],
    /// Number of values of `datatype` in the field (1 for a scalar).
    pub count: u32,
}

impl PointField {
    /// A field; a name longer than [`POINT_FIELD_NAME_LEN`] − 1 bytes or containing NUL is
    /// refused.
    pub fn new(
        name: &str,
        offset: u32,
        datatype: PointFieldType,
        count: u32,
    ) -> Result<Self, TextError> {
        let mut f = Self {
            offset,
            datatype: datatype as u8,
            count,
            ..Self::default()
        };
        write_text(&mut f.name, "name", name)?;
        Ok(f)
    }

    /// The name.
    pub fn name(&self) -> &str {
        read_text(&self.name)
    }

    /// The decoded datatype; `None` for an unknown code.
    pub fn datatype(&self) -> Option<PointFieldType> {
        PointFieldType::from_raw(self.datatype)
    }
}

/// Fixed part of a [`PointCloud2`]: 776 bytes. At most [`PointCloud2Header::FIELDS_MAX`] point
/// fields; [`PointCloud2Header::set_fields`] refuses more.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/PointCloud2", ros2 = "sensor_msgs/msg/PointCloud2", chunked(elem = u8, message = PointCloud2, doc = "A point cloud whose points have any named fields, as ROS 2's `PointCloud2` (chunked; header 776 bytes describing the fields, payload `u8`: `height` rows of `row_step` bytes, each `width` points of `point_step` bytes). Use [`PointCloud`] when the points are one of the point structs."), default = "zeroed")]
#[repr(C)]
pub struct PointCloud2Header {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Rows (1 for an unorganised cloud).
    pub height: u32,
    /// Points per row (all points for an unorganised cloud).
    pub width: u32,
    /// Bytes per point.
    #[field(unit = "B")]
    pub point_step: u32,
    /// Bytes per row.
    #[field(unit = "B")]
    pub row_step: u32,
    /// Number of valid entries in `fields`.
    pub fields_len: u32,
    /// 1 if multi-byte values in the payload are big-endian, 0 if little-endian.
    pub is_bigendian: u8,
    /// 1 if no point is invalid (NaN), 0 if some may be.
    pub is_dense: u8,
    /// Explicit padding; write zero.
    pub _pad: [u8; 2],
    /// The fields of each point; the first `fields_len` are valid, the rest zero.
    pub fields: [PointField; PointCloud2Header::FIELDS_MAX],
}

impl PointCloud2Header {
    /// Capacity of `fields`.
    pub const FIELDS_MAX: usize = 16;

    /// The valid fields; `None` if `fields_len` exceeds [`Self::FIELDS_MAX`] (a corrupt
    /// message).
    pub fn fields(&self) -> Option<&[PointField]> {
        crate::limits::read_list(&self.fields, self.fields_len)
    }

    /// Sets the fields and `fields_len`; unused entries are zeroed. More than
    /// [`Self::FIELDS_MAX`]: an error, nothing changed.
    pub fn set_fields(&mut self, fields: &[PointField]) -> Result<(), TooMany> {
        self.fields_len = crate::limits::write_list(&mut self.fields, "point fields", fields)?;
        Ok(())
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&PointField> {
        self.fields()?.iter().find(|f| f.name() == name)
    }

    /// Payload bytes the header describes: `row_step × height`.
    pub fn data_len(&self) -> usize {
        (self.row_step as usize).saturating_mul(self.height as usize)
    }
}
