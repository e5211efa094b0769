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

mod images;
mod navsat;
mod scans;
mod single;

pub use images::*;
pub use navsat::*;
pub use scans::*;
pub use single::*;

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
