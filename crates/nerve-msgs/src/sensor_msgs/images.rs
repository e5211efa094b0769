//! Images: raw, depth and compressed.

use super::*;
// ---------------------------------------------------------------------------------------------
// Images

/// Pixel encoding of an [`Image`] or [`DepthImage`] (`encoding` fields hold the raw `u32`).
/// Names are the ROS `sensor_msgs/image_encodings` strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Encoding {
    /// 8-bit red, green, blue.
    Rgb8 = 1,
    /// 8-bit blue, green, red.
    Bgr8 = 2,
    /// 8-bit red, green, blue, alpha.
    Rgba8 = 3,
    /// 8-bit blue, green, red, alpha.
    Bgra8 = 4,
    /// 8-bit grey.
    Mono8 = 5,
    /// 16-bit grey.
    Mono16 = 6,
    /// `16UC1`: one unsigned 16-bit channel (depth in sensor units, see
    /// [`DepthImageHeader::depth_scale`]).
    U16C1 = 7,
    /// `32FC1`: one 32-bit float channel (depth in metres).
    F32C1 = 8,
}

impl Encoding {
    /// Every encoding.
    pub const ALL: [Encoding; 8] = [
        Self::Rgb8,
        Self::Bgr8,
        Self::Rgba8,
        Self::Bgra8,
        Self::Mono8,
        Self::Mono16,
        Self::U16C1,
        Self::F32C1,
    ];

    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|e| *e as u32 == raw)
    }

    /// The raw value stored in headers.
    pub fn raw(self) -> u32 {
        self as u32
    }

    /// The ROS name: `"rgb8"`, `"bgr8"`, `"rgba8"`, `"bgra8"`, `"mono8"`, `"mono16"`,
    /// `"16UC1"`, `"32FC1"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rgb8 => "rgb8",
            Self::Bgr8 => "bgr8",
            Self::Rgba8 => "rgba8",
            Self::Bgra8 => "bgra8",
            Self::Mono8 => "mono8",
            Self::Mono16 => "mono16",
            Self::U16C1 => "16UC1",
            Self::F32C1 => "32FC1",
        }
    }

    /// Parses a ROS name (exact match, case-sensitive as in ROS).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Bytes per pixel.
    pub fn bytes_per_pixel(self) -> usize {
        match self {
            Self::Mono8 => 1,
            Self::Mono16 | Self::U16C1 => 2,
            Self::Rgb8 | Self::Bgr8 => 3,
            Self::Rgba8 | Self::Bgra8 | Self::F32C1 => 4,
        }
    }

    /// Channels per pixel.
    pub fn channels(self) -> usize {
        match self {
            Self::Mono8 | Self::Mono16 | Self::U16C1 | Self::F32C1 => 1,
            Self::Rgb8 | Self::Bgr8 => 3,
            Self::Rgba8 | Self::Bgra8 => 4,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Fixed part of an [`Image`]: 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Image", ros2 = "sensor_msgs/msg/Image", chunked(elem = u8, message = Image, doc = "A camera image of any size (chunked; header 64 bytes, payload `u8`: `height` rows of `step` bytes, row-major, top row first)."), default = "zeroed")]
#[repr(C)]
pub struct ImageHeader {
    /// Stamp (exposure) and camera optical frame.
    pub header: Header,
    /// Width, pixels.
    #[field(unit = "px")]
    pub width: u32,
    /// Height, pixels (rows).
    #[field(unit = "px")]
    pub height: u32,
    /// Bytes per row (≥ width × bytes per pixel; may include row padding).
    #[field(unit = "B")]
    pub step: u32,
    /// An [`Encoding`] code.
    #[field(codes = Encoding)]
    pub encoding: u32,
}

impl ImageHeader {
    /// A header for a tightly packed image (`step` = width × bytes per pixel).
    pub fn new(header: Header, width: u32, height: u32, encoding: Encoding) -> Self {
        Self {
            header,
            width,
            height,
            step: width.saturating_mul(encoding.bytes_per_pixel() as u32),
            encoding: encoding.raw(),
        }
    }

    /// The decoded encoding; `None` for an unknown code.
    pub fn encoding(&self) -> Option<Encoding> {
        Encoding::from_raw(self.encoding)
    }

    /// Payload bytes the header describes: `step × height`.
    pub fn data_len(&self) -> usize {
        (self.step as usize).saturating_mul(self.height as usize)
    }
}

/// A [`DepthImage`] was given an encoding other than `16UC1` or `32FC1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotADepthEncoding(pub Encoding);

impl fmt::Display for NotADepthEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not a depth encoding; a DepthImage is 16UC1 or 32FC1 (use Image for {})",
            self.0, self.0
        )
    }
}

impl std::error::Error for NotADepthEncoding {}

/// Fixed part of a [`DepthImage`]: 72 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/DepthImage", ros2 = "sensor_msgs/msg/Image", chunked(elem = u8, message = DepthImage, doc = "A depth image of any size (chunked; header 72 bytes, payload `u8`: `height` rows of `step` bytes).  The payload is bytes rather than `u16`/`f32` so one type carries both encodings; cast rows with `bytemuck` or read pixels with [`DepthImageHeader::depth_m`]."), default = "zeroed")]
#[repr(C)]
pub struct DepthImageHeader {
    /// Stamp and camera optical frame.
    pub header: Header,
    /// Width, pixels.
    #[field(unit = "px")]
    pub width: u32,
    /// Height, pixels (rows).
    #[field(unit = "px")]
    pub height: u32,
    /// Bytes per row.
    #[field(unit = "B")]
    pub step: u32,
    /// [`Encoding::U16C1`] or [`Encoding::F32C1`] code.
    #[field(codes = Encoding)]
    pub encoding: u32,
    /// Metres per unit of a pixel value: e.g. 0.001 for `16UC1` in millimetres, 1.0
    /// for `32FC1` in metres. A pixel value of 0 (or NaN) means no measurement.
    #[field(unit = "m")]
    pub depth_scale: f32,
    /// Explicit padding; write zero.
    pub _pad: u32,
}

impl DepthImageHeader {
    /// A header for a tightly packed depth image.
    pub fn new(
        header: Header,
        width: u32,
        height: u32,
        encoding: Encoding,
        depth_scale: f32,
    ) -> Result<Self, NotADepthEncoding> {
        if !matches!(encoding, Encoding::U16C1 | Encoding::F32C1) {
            return Err(NotADepthEncoding(encoding));
        }
        Ok(Self {
            header,
            width,
            height,
            step: width.saturating_mul(encoding.bytes_per_pixel() as u32),
            encoding: encoding.raw(),
            depth_scale,
            _pad: 0,
        })
    }

    /// The decoded encoding; `None` for an unknown code.
    pub fn encoding(&self) -> Option<Encoding> {
        Encoding::from_raw(self.encoding)
    }

    /// Payload bytes the header describes: `step × height`.
    pub fn data_len(&self) -> usize {
        (self.step as usize).saturating_mul(self.height as usize)
    }

    /// Depth at pixel (`x`, `y`) in metres, read from `data` at any alignment. `None` when
    /// out of bounds, the encoding is not a depth encoding, or there is no measurement
    /// (raw 0 or NaN).
    pub fn depth_m(&self, data: &[u8], x: u32, y: u32) -> Option<f32> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let encoding = self.encoding()?;
        let bpp = encoding.bytes_per_pixel();
        let at = (y as usize)
            .checked_mul(self.step as usize)?
            .checked_add((x as usize).checked_mul(bpp)?)?;
        let px = data.get(at..at.checked_add(bpp)?)?;
        let raw = match encoding {
            Encoding::U16C1 => f32::from(u16::from_le_bytes([px[0], px[1]])),
            Encoding::F32C1 => f32::from_le_bytes([px[0], px[1], px[2], px[3]]),
            _ => return None,
        };
        (raw != 0.0 && !raw.is_nan()).then_some(raw * self.depth_scale)
    }
}

impl crate::schema::Codes for DistortionModel {
    const VALUES: &'static [(&'static str, i64)] = &[
        ("none", 0),
        ("plumb_bob", 1),
        ("rational_polynomial", 2),
        ("equidistant", 3),
    ];
}

impl crate::schema::Codes for Encoding {
    const VALUES: &'static [(&'static str, i64)] = &[
        ("rgb8", 1),
        ("bgr8", 2),
        ("rgba8", 3),
        ("bgra8", 4),
        ("mono8", 5),
        ("mono16", 6),
        ("16UC1", 7),
        ("32FC1", 8),
    ];
}

// ---------------------------------------------------------------------------------------------
// Compressed images

/// Bytes of [`CompressedImageHeader::format`]: NUL-padded UTF-8, at most 31 bytes.
pub const IMAGE_FORMAT_LEN: usize = 32;

/// Fixed part of a [`CompressedImage`]: 80 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/CompressedImage", ros2 = "sensor_msgs/msg/CompressedImage", chunked(elem = u8, message = CompressedImage, doc = "A compressed image (chunked; header 80 bytes, payload `u8`: the encoded file, e.g. a whole JPEG or PNG)."), default = "zeroed")]
#[repr(C)]
pub struct CompressedImageHeader {
    /// Stamp (exposure) and camera optical frame.
    pub header: Header,
    /// The compression, as in ROS: `"jpeg"`, `"png"`, or `"<pixel encoding>; <compression>
    /// compressed <encoding>"` as image_transport writes it. NUL-padded UTF-8 of at most
    /// [`IMAGE_FORMAT_LEN`] − 1 bytes; see [`CompressedImageHeader::set_format`].
    #[field(text)]
    pub format: [u8; IMAGE_FORMAT_LEN],
}

impl CompressedImageHeader {
    /// The format.
    pub fn format(&self) -> &str {
        read_text(&self.format)
    }

    /// Sets the format; longer than [`IMAGE_FORMAT_LEN`] − 1 bytes or containing NUL: an
    /// error, nothing changed.
    pub fn set_format(&mut self, format: &str) -> Result<(), TextError> {
        write_text(&mut self.format, "format", format)
    }
}
