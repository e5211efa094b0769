//! Sensor messages. Fixed: [`Imu`], [`BatteryState`], [`CameraInfo`], [`NavSatFix`],
//! [`Range`], [`Temperature`], [`FluidPressure`], [`RelativeHumidity`], [`Illuminance`],
//! [`MagneticField`], [`Joy`], [`RegionOfInterest`]. Chunked (a fixed header plus any number of
//! elements in a shared chunk, no hidden caps): [`JointState`], [`LaserScan`], [`Image`],
//! [`DepthImage`], [`CompressedImage`], and the clouds of [`point_cloud`](crate::point_cloud).
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
use crate::limits::{read_list, read_text, write_list, write_text, TextError, TooMany};
use crate::std_msgs::Header;

/// Inertial measurement: 344 bytes.
///
/// Covariances are row-major 3×3 over (x, y, z), in the squared units of the value. Set
/// element 0 of a covariance to -1 when the sensor does not provide that quantity (then
/// ignore the value), all zeroes when the covariance is unknown. `Default` has the
/// identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Imu", ros2 = "sensor_msgs/msg/Imu")]
#[repr(C)]
pub struct Imu {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Orientation of the sensor frame.
    pub orientation: Quaternion,
    /// Orientation covariance about x, y, z, rad².
    #[field(unit = "rad²")]
    pub orientation_covariance: [f64; 9],
    /// Angular velocity, rad/s.
    #[field(unit = "rad/s")]
    pub angular_velocity: Vector3,
    /// Angular velocity covariance, (rad/s)².
    #[field(unit = "(rad/s)²")]
    pub angular_velocity_covariance: [f64; 9],
    /// Linear acceleration (gravity included), m/s².
    #[field(unit = "m/s²")]
    pub linear_acceleration: Vector3,
    /// Linear acceleration covariance, (m/s²)².
    #[field(unit = "(m/s²)²")]
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
#[message(
    crate = "crate",
    name = "nerve/BatteryState",
    ros2 = "sensor_msgs/msg/BatteryState",
    default = "zeroed"
)]
#[repr(C)]
pub struct BatteryState {
    /// Stamp and frame.
    pub header: Header,
    /// Terminal voltage, V.
    #[field(unit = "V")]
    pub voltage: f32,
    /// Current, A; negative while discharging.
    #[field(unit = "A")]
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
    #[field(unit = "1")]
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
#[message(
    crate = "crate",
    name = "nerve/CameraInfo",
    ros2 = "sensor_msgs/msg/CameraInfo",
    default = "zeroed"
)]
#[repr(C)]
pub struct CameraInfo {
    /// Stamp and camera optical frame.
    pub header: Header,
    /// Image width the calibration is for, pixels.
    #[field(unit = "px")]
    pub width: u32,
    /// Image height, pixels.
    #[field(unit = "px")]
    pub height: u32,
    /// A [`DistortionModel`] code.
    #[field(codes = DistortionModel)]
    pub distortion_model: u32,
    /// Number of valid coefficients in `d` (at most [`CameraInfo::D_MAX`]).
    pub d_len: u32,
    /// Intrinsic matrix K (3×3): fx, 0, cx; 0, fy, cy; 0, 0, 1. Pixels.
    #[field(unit = "px")]
    pub k: [f64; 9],
    /// Distortion coefficients; the first `d_len` are valid.
    pub d: [f64; 8],
    /// Rectification rotation R (3×3, stereo); identity for a monocular camera.
    pub r: [f64; 9],
    /// Projection matrix P (3×4) of the rectified image, pixels.
    #[field(unit = "px")]
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
    #[field(unit = "rad or m")]
    pub position: f64,
    /// Velocity, rad/s or m/s.
    #[field(unit = "rad/s or m/s")]
    pub velocity: f64,
    /// Effort, N·m or N.
    #[field(unit = "N·m or N")]
    pub effort: f64,
}

/// Fixed part of a [`JointState`]: 56 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/JointState", ros2 = "sensor_msgs/msg/JointState", chunked(elem = JointSample, message = JointState, doc = "Positions, velocities and efforts of any number of joints (chunked; header 56 bytes, one 24-byte [`JointSample`] per joint).  Joint names are not carried inline (they would make every message variable-length text): the publisher documents its joint order once (parameter, URDF, or a latched names topic) and stamps each message with [`JointStateHeader::names_hash`] = [`JointStateHeader::hash_names`] of that list, so a subscriber with a different list detects it instead of misassigning joints."), default = "zeroed")]
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
#[message(crate = "crate", name = "nerve/LaserScan", ros2 = "sensor_msgs/msg/LaserScan", chunked(elem = f32, message = LaserScan, doc = "A planar laser scan with any number of ranges (chunked; header 80 bytes, one `f32` range in metres per beam). A range outside `[range_min, range_max]` (or NaN / inf) is not a valid return."), default = "zeroed")]
#[repr(C)]
pub struct LaserScanHeader {
    /// Stamp of the first beam, and the scanner frame.
    pub header: Header,
    /// Angle of the first beam, rad (0 = +x, counter-clockwise positive).
    #[field(unit = "rad")]
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
// Satellite navigation

/// Fix status of a [`NavSatStatus`] (`NavSatStatus::status` holds the raw `i8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i8)]
pub enum NavSatFixStatus {
    /// Unable to fix position.
    NoFix = -1,
    /// Unaugmented fix.
    Fix = 0,
    /// With satellite-based augmentation.
    SbasFix = 1,
    /// With ground-based augmentation.
    GbasFix = 2,
}

impl NavSatFixStatus {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: i8) -> Option<Self> {
        match raw {
            -1 => Some(Self::NoFix),
            0 => Some(Self::Fix),
            1 => Some(Self::SbasFix),
            2 => Some(Self::GbasFix),
            _ => None,
        }
    }
}

impl crate::schema::Codes for NavSatFixStatus {
    const VALUES: &'static [(&'static str, i64)] =
        &[("no_fix", -1), ("fix", 0), ("sbas_fix", 1), ("gbas_fix", 2)];
}

/// Satellite fix status: 4 bytes. `service` is a bit set, not a code: several systems may
/// contribute (`NavSatStatus::SERVICE_GPS | NavSatStatus::SERVICE_GALILEO`).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    ros2 = "sensor_msgs/msg/NavSatStatus",
    default = "zeroed"
)]
#[repr(C)]
pub struct NavSatStatus {
    /// A [`NavSatFixStatus`] code.
    #[field(codes = NavSatFixStatus)]
    pub status: i8,
    /// Explicit padding; write zero.
    pub _pad: u8,
    /// Which systems were used: `NavSatStatus::SERVICE_*` bits.
    pub service: u16,
}

impl NavSatStatus {
    /// GPS.
    pub const SERVICE_GPS: u16 = 1;
    /// GLONASS.
    pub const SERVICE_GLONASS: u16 = 2;
    /// BeiDou (ROS calls it COMPASS).
    pub const SERVICE_COMPASS: u16 = 4;
    /// Galileo.
    pub const SERVICE_GALILEO: u16 = 8;

    /// The decoded fix status; `None` for an unknown code.
    pub fn fix_status(&self) -> Option<NavSatFixStatus> {
        NavSatFixStatus::from_raw(self.status)
    }
}

/// How a [`NavSatFix`]'s covariance was obtained (`NavSatFix::position_covariance_type`
/// holds the raw `u8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CovarianceType {
    /// Unknown; ignore the covariance.
    Unknown = 0,
    /// Approximated (e.g. from the dilution of precision).
    Approximated = 1,
    /// Only the diagonal is known.
    DiagonalKnown = 2,
    /// Fully known.
    Known = 3,
}

impl CovarianceType {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u8) -> Option<Self> {
        match raw {
            0 => Some(Self::Unknown),
            1 => Some(Self::Approximated),
            2 => Some(Self::DiagonalKnown),
            3 => Some(Self::Known),
            _ => None,
        }
    }
}

impl crate::schema::Codes for CovarianceType {
    const VALUES: &'static [(&'static str, i64)] = &[
        ("unknown", 0),
        ("approximated", 1),
        ("diagonal_known", 2),
        ("known", 3),
    ];
}

/// A satellite navigation fix (WGS 84): 152 bytes. Unknown `latitude`, `longitude` or
/// `altitude` are NaN.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/NavSatFix",
    ros2 = "sensor_msgs/msg/NavSatFix",
    default = "zeroed"
)]
#[repr(C)]
pub struct NavSatFix {
    /// Stamp of the fix, and the frame of the antenna.
    pub header: Header,
    /// Fix status and the systems used.
    pub status: NavSatStatus,
    /// A [`CovarianceType`] code.
    #[field(codes = CovarianceType)]
    pub position_covariance_type: u8,
    /// Explicit padding; write zero.
    pub _pad: [u8; 3],
    /// Latitude, degrees; positive north of the equator.
    #[field(unit = "deg")]
    pub latitude: f64,
    /// Longitude, degrees; positive east of the prime meridian.
    #[field(unit = "deg")]
    pub longitude: f64,
    /// Altitude above the WGS 84 ellipsoid, m.
    #[field(unit = "m")]
    pub altitude: f64,
    /// Position covariance, 3×3 row-major over east, north, up (ENU), m².
    #[field(unit = "m²")]
    pub position_covariance: [f64; 9],
}

impl NavSatFix {
    /// The decoded covariance type; `None` for an unknown code.
    pub fn covariance_type(&self) -> Option<CovarianceType> {
        CovarianceType::from_raw(self.position_covariance_type)
    }
}

// ---------------------------------------------------------------------------------------------
// Single-value sensors

/// Radiation of a [`Range`] sensor (`Range::radiation_type` holds the raw `u8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RadiationType {
    /// Sound (sonar).
    Ultrasound = 0,
    /// Light (infrared rangefinder).
    Infrared = 1,
}

impl RadiationType {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u8) -> Option<Self> {
        match raw {
            0 => Some(Self::Ultrasound),
            1 => Some(Self::Infrared),
            _ => None,
        }
    }
}

impl crate::schema::Codes for RadiationType {
    const VALUES: &'static [(&'static str, i64)] = &[("ultrasound", 0), ("infrared", 1)];
}

/// One distance from a single-beam rangefinder: 72 bytes. `range` below `min_range` or
/// above `max_range` is not a valid reading; −inf means an object closer than detectable,
/// +inf nothing in range (as in ROS).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Range",
    ros2 = "sensor_msgs/msg/Range",
    default = "zeroed"
)]
#[repr(C)]
pub struct Range {
    /// Stamp and frame of the sensor (the beam along +x).
    pub header: Header,
    /// A [`RadiationType`] code.
    #[field(codes = RadiationType)]
    pub radiation_type: u8,
    /// Explicit padding; write zero.
    pub _pad: [u8; 3],
    /// Full opening angle of the beam, rad.
    #[field(unit = "rad")]
    pub field_of_view: f32,
    /// Shortest valid range, m.
    #[field(unit = "m")]
    pub min_range: f32,
    /// Longest valid range, m.
    #[field(unit = "m")]
    pub max_range: f32,
    /// The measured distance, m.
    #[field(unit = "m")]
    pub range: f32,
    /// Variance of `range`, m² (0 = unknown).
    #[field(unit = "m²")]
    pub variance: f32,
}

impl Range {
    /// The decoded radiation type; `None` for an unknown code.
    pub fn radiation(&self) -> Option<RadiationType> {
        RadiationType::from_raw(self.radiation_type)
    }
}

/// A temperature: 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Temperature",
    ros2 = "sensor_msgs/msg/Temperature",
    default = "zeroed"
)]
#[repr(C)]
pub struct Temperature {
    /// Stamp and frame of the sensor.
    pub header: Header,
    /// Temperature, °C (as ROS; not kelvin).
    #[field(unit = "°C")]
    pub temperature: f64,
    /// Variance, °C² (0 = unknown).
    #[field(unit = "°C²")]
    pub variance: f64,
}

/// A pressure of a fluid (air, water): 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/FluidPressure",
    ros2 = "sensor_msgs/msg/FluidPressure",
    default = "zeroed"
)]
#[repr(C)]
pub struct FluidPressure {
    /// Stamp and frame of the sensor.
    pub header: Header,
    /// Absolute pressure, Pa.
    #[field(unit = "Pa")]
    pub fluid_pressure: f64,
    /// Variance, Pa² (0 = unknown).
    #[field(unit = "Pa²")]
    pub variance: f64,
}

/// Relative humidity of the air: 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/RelativeHumidity",
    ros2 = "sensor_msgs/msg/RelativeHumidity",
    default = "zeroed"
)]
#[repr(C)]
pub struct RelativeHumidity {
    /// Stamp and frame of the sensor.
    pub header: Header,
    /// Relative humidity as a fraction, 0.0 (dry) to 1.0 (saturated); not percent.
    #[field(unit = "1")]
    pub relative_humidity: f64,
    /// Variance (0 = unknown).
    #[field(unit = "1")]
    pub variance: f64,
}

/// Illuminance (light falling on a surface): 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Illuminance",
    ros2 = "sensor_msgs/msg/Illuminance",
    default = "zeroed"
)]
#[repr(C)]
pub struct Illuminance {
    /// Stamp and frame of the sensor.
    pub header: Header,
    /// Illuminance, lx.
    #[field(unit = "lx")]
    pub illuminance: f64,
    /// Variance, lx² (0 = unknown).
    #[field(unit = "lx²")]
    pub variance: f64,
}

/// A magnetic field vector: 144 bytes. Set element 0 of the covariance to −1 when unknown,
/// as for [`Imu`].
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/MagneticField",
    ros2 = "sensor_msgs/msg/MagneticField",
    default = "zeroed"
)]
#[repr(C)]
pub struct MagneticField {
    /// Stamp and frame of the sensor.
    pub header: Header,
    /// Field, T (tesla; not gauss).
    #[field(unit = "T")]
    pub magnetic_field: Vector3,
    /// Covariance, 3×3 row-major over x, y, z, T².
    #[field(unit = "T²")]
    pub magnetic_field_covariance: [f64; 9],
}

// ---------------------------------------------------------------------------------------------
// Joysticks and regions of interest

/// A joystick or gamepad: 440 bytes. At most [`Joy::AXES_MAX`] axes and
/// [`Joy::BUTTONS_MAX`] buttons; [`Joy::set_axes`] and [`Joy::set_buttons`] refuse more.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Joy",
    ros2 = "sensor_msgs/msg/Joy",
    default = "zeroed"
)]
#[repr(C)]
pub struct Joy {
    /// Stamp of the reading, and the frame (usually empty).
    pub header: Header,
    /// Number of valid entries in `axes`.
    pub axes_len: u32,
    /// Number of valid entries in `buttons`.
    pub buttons_len: u32,
    /// Axis positions, −1.0 to 1.0 (no unit); the first `axes_len` are valid, the rest zero.
    #[field(unit = "1")]
    pub axes: [f32; Joy::AXES_MAX],
    /// Button states (0 = released, 1 = pressed); the first `buttons_len` are valid.
    pub buttons: [i32; Joy::BUTTONS_MAX],
}

impl Joy {
    /// Capacity of `axes`.
    pub const AXES_MAX: usize = 32;
    /// Capacity of `buttons`.
    pub const BUTTONS_MAX: usize = 64;

    /// The valid axes; `None` if `axes_len` exceeds [`Self::AXES_MAX`] (a corrupt message).
    pub fn axes(&self) -> Option<&[f32]> {
        read_list(&self.axes, self.axes_len)
    }

    /// The valid buttons; `None` if `buttons_len` exceeds [`Self::BUTTONS_MAX`].
    pub fn buttons(&self) -> Option<&[i32]> {
        read_list(&self.buttons, self.buttons_len)
    }

    /// Sets the axes and `axes_len`; more than [`Self::AXES_MAX`]: an error, nothing changed.
    pub fn set_axes(&mut self, axes: &[f32]) -> Result<(), TooMany> {
        self.axes_len = write_list(&mut self.axes, "axes", axes)?;
        Ok(())
    }

    /// Sets the buttons and `buttons_len`; more than [`Self::BUTTONS_MAX`]: an error,
    /// nothing changed.
    pub fn set_buttons(&mut self, buttons: &[i32]) -> Result<(), TooMany> {
        self.buttons_len = write_list(&mut self.buttons, "buttons", buttons)?;
        Ok(())
    }
}

/// A rectangle of an image (a crop, a detection): 20 bytes. All zero means the full image.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/RegionOfInterest",
    ros2 = "sensor_msgs/msg/RegionOfInterest",
    default = "zeroed"
)]
#[repr(C)]
pub struct RegionOfInterest {
    /// Leftmost column, pixels.
    #[field(unit = "px")]
    pub x_offset: u32,
    /// Top row, pixels.
    #[field(unit = "px")]
    pub y_offset: u32,
    /// Height, pixels.
    #[field(unit = "px")]
    pub height: u32,
    /// Width, pixels.
    #[field(unit = "px")]
    pub width: u32,
    /// 1 if the region is in the rectified image, 0 if in the raw image (ROS `bool`).
    pub do_rectify: u8,
    /// Explicit padding; write zero.
    pub _pad: [u8; 3],
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
