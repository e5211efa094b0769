//! Single-value sensors, joysticks and regions of interest.

use super::*;
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
