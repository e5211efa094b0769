//! Satellite navigation fixes.

use super::*;
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
