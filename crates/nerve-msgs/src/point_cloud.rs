//! Point clouds: [`PointCloud`] (chunked: a header and any number of points of one of the
//! point structs [`PointXYZ`], [`PointXYZI`], [`PointXYZRGB`], as [`PointFormat`] says).
//! Multi-byte values are little-endian.

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
#[message(crate = "crate", name = "nerve/PointCloud", chunked(elem = u8, message = PointCloud, doc = "A point cloud of any size (chunked; header 72 bytes, payload `u8`: `width × height` points of `point_step` bytes each, the point struct of `format` first in each).  With `point_step` equal to the point struct's size, cast the payload with `bytemuck::cast_slice::<u8, PointXYZ>(data)` (or `try_cast_slice`, which reports misalignment instead of panicking)."), default = "zeroed")]
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
