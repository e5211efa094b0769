//! Sensor messages. Fixed: [`Imu`], [`BatteryState`], [`CameraInfo`]. Chunked (a fixed header
//! plus any number of elements in a shared chunk, no hidden caps): [`JointState`],
//! [`LaserScan`], [`Image`], [`DepthImage`], [`PointCloud`].
//!
//! Instants are `u64` nanoseconds (in [`Header::stamp_ns`]); short durations measured by a
//! sensor (`time_increment`, `scan_time`) are `f32` seconds. Multi-byte pixel and point values
//! in payloads are little-endian (the byte order of every platform nerve runs on).
//!
//! Payload elements of `u8` payloads may be reinterpreted with `bytemuck`
//! (`bytemuck::cast_slice::<u8, PointXYZ>(data)`); that cast checks alignment and length and
//! fails rather than misreads. Use `bytemuck::pod_read_unaligned` per element where the chunk
//! allocator does not guarantee the element's alignment.

use core::fmt;

use crate::geometry_msgs::{Quaternion, Vector3};
use crate::std_msgs::Header;

/// Inertial measurement: 344 bytes.
///
/// Covariances are row-major 3×3 over (x, y, z), in the squared units of the value. Set
/// element 0 of a covariance to -1 when the sensor does not provide that quantity (then
/// ignore the value), all zeroes when the covariance is unknown. `Default` has the
/// identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Imu")]
#[repr(C)]
pub struct Imu {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Orientation of the sensor frame.
    pub orientation: Quaternion,
    /// Orientation covariance about x, y, z, rad².
    pub orientation_covariance: [f64; 9],
    /// Angular velocity, rad/s.
    #[field(unit = "rad/s")]
    pub angular_velocity: Vector3,
    /// Angular velocity covariance, (rad/s)².
    pub angular_velocity_covariance: [f64; 9],
    /// Linear acceleration (gravity included), m/s².
    #[field(unit = "m/s²")]
    pub linear_acceleration: Vector3,
    /// Linear acceleration covariance, (m/s²)².
    pub linear_acceleration_covariance: [f64; 9],
}

impl Default for Imu {
    fn default() -> Self {
        Self {
            header: Header::default(),
            orientation: Quaternion::IDENTITY,
            orientation_covariance: [0.0; 9],
            angular_velocity: Vector3::default(),
            angular_velocity_covariance: [0.0; 9],
            linear_acceleration: Vector3::default(),
            linear_acceleration_covariance: [0.0; 9],
        }
    }
}

/// State of a battery or power supply: 104 bytes. Unknown `f32` quantities are NaN.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/BatteryState", default = "zeroed")]
#[repr(C)]
pub struct BatteryState {
    /// Stamp and frame.
    pub header: Header,
    /// Terminal voltage, V.
    #[field(unit = "V")]
    pub voltage: f32,
    /// Current, A; negative while discharging.
    pub current: f32,
    /// Remaining charge, Ah.
    #[field(unit = "Ah")]
    pub charge: f32,
    /// Capacity when full (as of now, wear included), Ah.
    #[field(unit = "Ah")]
    pub capacity: f32,
    /// Capacity when new, Ah.
    #[field(unit = "Ah")]
    pub design_capacity: f32,
    /// Charge as a fraction, 0.0 to 1.0.
    pub percentage: f32,
    /// Temperature, °C.
    #[field(unit = "°C")]
    pub temperature: f32,
    /// Lowest cell voltage, V.
    #[field(unit = "V")]
    pub cell_voltage_min: f32,
    /// Highest cell voltage, V.
    #[field(unit = "V")]
    pub cell_voltage_max: f32,
    /// Estimated time until empty at the present load, s.
    #[field(unit = "s")]
    pub time_to_empty_s: f32,
    /// Estimated time until full while charging, s.
    #[field(unit = "s")]
    pub time_to_full_s: f32,
    /// Number of cells in series (0 = unknown).
    pub cell_count: u32,
    /// `BatteryState::STATUS_*`.
    pub power_supply_status: u8,
    /// `BatteryState::HEALTH_*`.
    pub power_supply_health: u8,
    /// `BatteryState::TECHNOLOGY_*`.
    pub power_supply_technology: u8,
    /// 1 if a battery is present, 0 if not.
    pub present: u8,
    /// Explicit padding; write zero.
    pub _pad: u32,
}

impl BatteryState {
    /// Status unknown.
    pub const STATUS_UNKNOWN: u8 = 0;
    /// Charging.
    pub const STATUS_CHARGING: u8 = 1;
    /// Discharging.
    pub const STATUS_DISCHARGING: u8 = 2;
    /// Plugged in, not charging.
    pub const STATUS_NOT_CHARGING: u8 = 3;
    /// Full.
    pub const STATUS_FULL: u8 = 4;

    /// Health unknown.
    pub const HEALTH_UNKNOWN: u8 = 0;
    /// Good.
    pub const HEALTH_GOOD: u8 = 1;
    /// Overheating.
    pub const HEALTH_OVERHEAT: u8 = 2;
    /// Dead.
    pub const HEALTH_DEAD: u8 = 3;
    /// Over voltage.
    pub const HEALTH_OVERVOLTAGE: u8 = 4;
    /// Unspecified failure.
    pub const HEALTH_UNSPEC_FAILURE: u8 = 5;
    /// Too cold.
    pub const HEALTH_COLD: u8 = 6;
    /// Watchdog timer expired.
    pub const HEALTH_WATCHDOG_TIMER_EXPIRE: u8 = 7;
    /// Safety timer expired.
    pub const HEALTH_SAFETY_TIMER_EXPIRE: u8 = 8;

    /// Technology unknown.
    pub const TECHNOLOGY_UNKNOWN: u8 = 0;
    /// Nickel-metal hydride.
    pub const TECHNOLOGY_NIMH: u8 = 1;
    /// Lithium-ion.
    pub const TECHNOLOGY_LION: u8 = 2;
    /// Lithium-polymer.
    pub const TECHNOLOGY_LIPO: u8 = 3;
    /// Lithium iron phosphate.
    pub const TECHNOLOGY_LIFE: u8 = 4;
    /// Nickel-cadmium.
    pub const TECHNOLOGY_NICD: u8 = 5;
    /// Lithium manganese.
    pub const TECHNOLOGY_LIMN: u8 = 6;
}

/// Lens distortion model of a [`CameraInfo`] (`CameraInfo::distortion_model` holds the raw
/// `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum DistortionModel {
    /// No distortion (rectified images); `d_len` = 0.
    None = 0,
    /// Brown-Conrady "plumb_bob": k1, k2, t1, t2, k3 (5 coefficients).
    PlumbBob = 1,
    /// "rational_polynomial": k1, k2, t1, t2, k3, k4, k5, k6 (8 coefficients).
    RationalPolynomial = 2,
    /// Fisheye "equidistant": k1, k2, k3, k4 (4 coefficients).
    Equidistant = 3,
}

impl DistortionModel {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            0 => Some(Self::None),
            1 => Some(Self::PlumbBob),
            2 => Some(Self::RationalPolynomial),
            3 => Some(Self::Equidistant),
            _ => None,
        }
    }

    /// The ROS name (`"plumb_bob"`, ...); `"none"` for [`DistortionModel::None`].
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::PlumbBob => "plumb_bob",
            Self::RationalPolynomial => "rational_polynomial",
            Self::Equidistant => "equidistant",
        }
    }

    /// Parses a ROS name.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Self::None,
            Self::PlumbBob,
            Self::RationalPolynomial,
            Self::Equidistant,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }

    /// Number of coefficients the model uses.
    pub fn coefficient_count(self) -> usize {
        match self {
            Self::None => 0,
            Self::PlumbBob => 5,
            Self::RationalPolynomial => 8,
            Self::Equidistant => 4,
        }
    }
}

/// More distortion coefficients than [`CameraInfo::D_MAX`] were given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyCoefficients {
    /// Coefficients given.
    pub len: usize,
}

impl fmt::Display for TooManyCoefficients {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} distortion coefficients given, CameraInfo holds at most {}; \
             use a model with fewer coefficients",
            self.len,
            CameraInfo::D_MAX
        )
    }
}

impl std::error::Error for TooManyCoefficients {}

/// Calibration of a pinhole camera: 368 bytes. Matrices are row-major. All-zero `k`
/// means "uncalibrated".
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/CameraInfo", default = "zeroed")]
#[repr(C)]
pub struct CameraInfo {
    /// Stamp and camera optical frame.
    pub header: Header,
    /// Image width the calibration is for, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// A [`DistortionModel`] code.
    #[field(codes = DistortionModel)]
    pub distortion_model: u32,
    /// Number of valid coefficients in `d` (at most [`CameraInfo::D_MAX`]).
    pub d_len: u32,
    /// Intrinsic matrix K (3×3): fx, 0, cx; 0, fy, cy; 0, 0, 1. Pixels.
    pub k: [f64; 9],
    /// Distortion coefficients; the first `d_len` are valid.
    pub d: [f64; 8],
    /// Rectification rotation R (3×3, stereo); identity for a monocular camera.
    pub r: [f64; 9],
    /// Projection matrix P (3×4) of the rectified image, pixels.
    pub p: [f64; 12],
}

impl CameraInfo {
    /// Capacity of `d`.
    pub const D_MAX: usize = 8;

    /// The decoded distortion model; `None` for an unknown code.
    pub fn model(&self) -> Option<DistortionModel> {
        DistortionModel::from_raw(self.distortion_model)
    }

    /// The valid distortion coefficients; `None` if `d_len` is larger than [`Self::D_MAX`]
    /// (a corrupt message).
    pub fn d(&self) -> Option<&[f64]> {
        self.d.get(..self.d_len as usize)
    }

    /// Sets the distortion coefficients and `d_len`; unused entries are zeroed. More than
    /// [`Self::D_MAX`]: an error, nothing changed.
    pub fn set_d(&mut self, coefficients: &[f64]) -> Result<(), TooManyCoefficients> {
        if coefficients.len() > Self::D_MAX {
            return Err(TooManyCoefficients {
                len: coefficients.len(),
            });
        }
        self.d = [0.0; 8];
        self.d[..coefficients.len()].copy_from_slice(coefficients);
        self.d_len = coefficients.len() as u32;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Joint states

/// One joint of a [`JointState`]: 24 bytes. Unknown values are NaN.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", default = "zeroed")]
#[repr(C)]
pub struct JointSample {
    /// Position, rad (revolute) or m (prismatic).
    pub position: f64,
    /// Velocity, rad/s or m/s.
    pub velocity: f64,
    /// Effort, N·m or N.
    pub effort: f64,
}

/// Fixed part of a [`JointState`]: 56 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/JointState", chunked(elem = JointSample, message = JointState, doc = "Positions, velocities and efforts of any number of joints (chunked; header 56 bytes, one 24-byte [`JointSample`] per joint).  Joint names are not carried inline (they would make every message variable-length text): the publisher documents its joint order once (parameter, URDF, or a latched names topic) and stamps each message with [`JointStateHeader::names_hash`] = [`JointStateHeader::hash_names`] of that list, so a subscriber with a different list detects it instead of misassigning joints."), default = "zeroed")]
#[repr(C)]
pub struct JointStateHeader {
    /// Stamp and frame.
    pub header: Header,
    /// [`JointStateHeader::hash_names`] of the joint names, in payload order.
    pub names_hash: u64,
}

impl JointStateHeader {
    /// Hash of an ordered list of joint names (FNV-1a of the names joined by NUL).
    pub fn hash_names<S: AsRef<str>>(names: &[S]) -> u64 {
        let joined: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
        crate::fnv1a(&joined.join("\0"))
    }
}

// ---------------------------------------------------------------------------------------------
// Laser scans

/// Fixed part of a [`LaserScan`]: 80 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/LaserScan", chunked(elem = f32, message = LaserScan, doc = "A planar laser scan with any number of ranges (chunked; header 80 bytes, one `f32` range in metres per beam). A range outside `[range_min, range_max]` (or NaN / inf) is not a valid return."), default = "zeroed")]
#[repr(C)]
pub struct LaserScanHeader {
    /// Stamp of the first beam, and the scanner frame.
    pub header: Header,
    /// Angle of the first beam, rad (0 = +x, counter-clockwise positive).
    pub angle_min: f32,
    /// Angle of the last beam, rad.
    #[field(unit = "rad")]
    pub angle_max: f32,
    /// Angle between beams, rad.
    #[field(unit = "rad")]
    pub angle_increment: f32,
    /// Time between beams, s.
    #[field(unit = "s")]
    pub time_increment: f32,
    /// Time between scans, s.
    #[field(unit = "s")]
    pub scan_time: f32,
    /// Shortest valid range, m.
    #[field(unit = "m")]
    pub range_min: f32,
    /// Longest valid range, m.
    #[field(unit = "m")]
    pub range_max: f32,
    /// Explicit padding; write zero.
    pub _pad: u32,
}

impl LaserScan {
    /// Ranges in the benchmark's seed scan (1° resolution): header + 360 × 4 B = 1520 B. Not a
    /// limit: a scan has any number of ranges.
    pub const SEED_RANGES: usize = 360;
}

impl LaserScanHeader {
    /// Number of ranges the angles describe: `round((angle_max - angle_min) /
    /// angle_increment) + 1`; `None` if that is not finite (increment 0, NaN angles) or
    /// negative (increment of the wrong sign).
    pub fn expected_ranges(&self) -> Option<usize> {
        let n = ((self.angle_max - self.angle_min) / self.angle_increment).round();
        (n.is_finite() && n >= 0.0).then(|| n as usize + 1)
    }

    /// Angle of beam `i`, rad.
    pub fn angle(&self, i: usize) -> f32 {
        self.angle_min + self.angle_increment * i as f32
    }

    /// Payload bytes for `ranges` beams.
    pub fn data_len(ranges: usize) -> usize {
        ranges.saturating_mul(core::mem::size_of::<f32>())
    }
}

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
#[message(crate = "crate", name = "nerve/Image", chunked(elem = u8, message = Image, doc = "A camera image of any size (chunked; header 64 bytes, payload `u8`: `height` rows of `step` bytes, row-major, top row first)."), default = "zeroed")]
#[repr(C)]
pub struct ImageHeader {
    /// Stamp (exposure) and camera optical frame.
    pub header: Header,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels (rows).
    pub height: u32,
    /// Bytes per row (≥ width × bytes per pixel; may include row padding).
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
#[message(crate = "crate", name = "nerve/DepthImage", chunked(elem = u8, message = DepthImage, doc = "A depth image of any size (chunked; header 72 bytes, payload `u8`: `height` rows of `step` bytes).  The payload is bytes rather than `u16`/`f32` so one type carries both encodings; cast rows with `bytemuck` or read pixels with [`DepthImageHeader::depth_m`]."), default = "zeroed")]
#[repr(C)]
pub struct DepthImageHeader {
    /// Stamp and camera optical frame.
    pub header: Header,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels (rows).
    pub height: u32,
    /// Bytes per row.
    pub step: u32,
    /// [`Encoding::U16C1`] or [`Encoding::F32C1`] code.
    #[field(codes = Encoding)]
    pub encoding: u32,
    /// Metres per unit of a pixel value: e.g. 0.001 for `16UC1` in millimetres, 1.0
    /// for `32FC1` in metres. A pixel value of 0 (or NaN) means no measurement.
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
