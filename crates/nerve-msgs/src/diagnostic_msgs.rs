//! Diagnostics: [`KeyValue`], [`DiagnosticStatus`], [`DiagnosticArray`].
//!
//! ROS 2's `DiagnosticArray` is a list of statuses, each holding a list of key/value pairs: two
//! levels of variable-length lists, where a chunk carries one header and one list of elements.
//! nerve maps them so:
//! - [`DiagnosticStatus`] (one status): the header holds the level, name, message and hardware
//!   id; the elements are its [`KeyValue`]s.
//! - [`DiagnosticArray`] (many statuses): the header holds the stamp; the elements are flat
//!   [`DiagnosticEntry`]s, each a status or a value. A [`EntryKind::Status`] entry opens a
//!   status; the [`EntryKind::Value`] entries after it (up to the next status entry) are its
//!   key/value pairs, in order. [`DiagnosticEntry::group`] walks them back into statuses.
//!
//! Text fields have fixed capacities ([`DIAG_NAME_LEN`], [`DIAG_MESSAGE_LEN`],
//! [`DIAG_HARDWARE_ID_LEN`], [`KEY_LEN`], [`VALUE_LEN`], each holding one byte less than its
//! length); the setters refuse longer text rather than truncate it.

use crate::limits::{read_text, write_text, TextError};
use crate::std_msgs::Header;

/// Bytes of a status name (and of a [`DiagnosticEntry::name`]).
pub const DIAG_NAME_LEN: usize = 64;
/// Bytes of a status message (and of a [`DiagnosticEntry::message`]).
pub const DIAG_MESSAGE_LEN: usize = 128;
/// Bytes of a hardware id.
pub const DIAG_HARDWARE_ID_LEN: usize = 64;
/// Bytes of a [`KeyValue::key`]: equal to [`DIAG_NAME_LEN`], so a key fits an entry's name.
pub const KEY_LEN: usize = DIAG_NAME_LEN;
/// Bytes of a [`KeyValue::value`]: equal to [`DIAG_MESSAGE_LEN`], so a value fits an entry's
/// message.
pub const VALUE_LEN: usize = DIAG_MESSAGE_LEN;

/// Level of a diagnostic status (`level` fields hold the raw `u8`; the values are ROS's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DiagnosticLevel {
    /// Fine.
    Ok = 0,
    /// Working, but something needs attention.
    Warn = 1,
    /// Not working.
    Error = 2,
    /// No recent update.
    Stale = 3,
}

impl DiagnosticLevel {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u8) -> Option<Self> {
        match raw {
            0 => Some(Self::Ok),
            1 => Some(Self::Warn),
            2 => Some(Self::Error),
            3 => Some(Self::Stale),
            _ => None,
        }
    }
}

impl crate::schema::Codes for DiagnosticLevel {
    const VALUES: &'static [(&'static str, i64)] =
        &[("ok", 0), ("warn", 1), ("error", 2), ("stale", 3)];
}

/// A key and a value, both text: 192 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    ros2 = "diagnostic_msgs/msg/KeyValue",
    default = "zeroed"
)]
#[repr(C)]
pub struct KeyValue {
    /// The key, NUL-padded UTF-8 of at most [`KEY_LEN`] − 1 bytes.
    #[field(text)]
    pub key: [u8; KEY_LEN],
    /// The value, NUL-padded UTF-8 of at most [`VALUE_LEN`] − 1 bytes.
    #[field(text)]
    pub value: [u8; VALUE_LEN],
}

impl KeyValue {
    /// A pair; a key or value that does not fit (or contains NUL) is refused.
    pub fn new(key: &str, value: &str) -> Result<Self, TextError> {
        let mut kv = Self::default();
        write_text(&mut kv.key, "key", key)?;
        write_text(&mut kv.value, "value", value)?;
        Ok(kv)
    }

    /// The key.
    pub fn key(&self) -> &str {
        read_text(&self.key)
    }

    /// The value.
    pub fn value(&self) -> &str {
        read_text(&self.value)
    }
}

/// Fixed part of a [`DiagnosticStatus`]: 260 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/DiagnosticStatus", ros2 = "diagnostic_msgs/msg/DiagnosticStatus", chunked(elem = KeyValue, message = DiagnosticStatus, doc = "The state of one component (chunked; header 260 bytes with its level, name, message and hardware id, one 192-byte [`KeyValue`] per value)."), default = "zeroed")]
#[repr(C)]
pub struct DiagnosticStatusHeader {
    /// A [`DiagnosticLevel`] code.
    #[field(codes = DiagnosticLevel)]
    pub level: u8,
    /// Explicit padding; write zero.
    pub _pad: [u8; 3],
    /// Name of the component, NUL-padded UTF-8 of at most [`DIAG_NAME_LEN`] − 1 bytes.
    #[field(text)]
    pub name: [u8; DIAG_NAME_LEN],
    /// Description of the state, NUL-padded UTF-8 of at most [`DIAG_MESSAGE_LEN`] − 1 bytes.
    #[field(text)]
    pub message: [u8; DIAG_MESSAGE_LEN],
    /// Identifier of the hardware, NUL-padded UTF-8 of at most [`DIAG_HARDWARE_ID_LEN`] − 1
    /// bytes.
    #[field(text)]
    pub hardware_id: [u8; DIAG_HARDWARE_ID_LEN],
}

impl DiagnosticStatusHeader {
    /// A status header; text that does not fit (or contains NUL) is refused.
    pub fn new(
        level: DiagnosticLevel,
        name: &str,
        message: &str,
        hardware_id: &str,
    ) -> Result<Self, TextError> {
        let mut s = Self {
            level: level as u8,
            ..Self::default()
        };
        write_text(&mut s.name, "name", name)?;
        write_text(&mut s.message, "message", message)?;
        write_text(&mut s.hardware_id, "hardware_id", hardware_id)?;
        Ok(s)
    }

    /// The decoded level; `None` for an unknown code.
    pub fn level(&self) -> Option<DiagnosticLevel> {
        DiagnosticLevel::from_raw(self.level)
    }

    /// The component name.
    pub fn name(&self) -> &str {
        read_text(&self.name)
    }

    /// The message.
    pub fn message(&self) -> &str {
        read_text(&self.message)
    }

    /// The hardware id.
    pub fn hardware_id(&self) -> &str {
        read_text(&self.hardware_id)
    }
}

/// What a [`DiagnosticEntry`] is (`DiagnosticEntry::kind` holds the raw `u8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EntryKind {
    /// Opens a status: `level`, `name`, `message` and `hardware_id` are the status's.
    Status = 1,
    /// A key/value pair of the status opened before it: `name` is the key, `message` the
    /// value; `level` and `hardware_id` are zero.
    Value = 2,
}

impl EntryKind {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u8) -> Option<Self> {
        match raw {
            1 => Some(Self::Status),
            2 => Some(Self::Value),
            _ => None,
        }
    }
}

impl crate::schema::Codes for EntryKind {
    const VALUES: &'static [(&'static str, i64)] = &[("status", 1), ("value", 2)];
}

/// One element of a [`DiagnosticArray`]: a status or one of its values (module docs), 260
/// bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", default = "zeroed")]
#[repr(C)]
pub struct DiagnosticEntry {
    /// An [`EntryKind`] code.
    #[field(codes = EntryKind)]
    pub kind: u8,
    /// A status's [`DiagnosticLevel`] code; 0 for a value.
    #[field(codes = DiagnosticLevel)]
    pub level: u8,
    /// Explicit padding; write zero.
    pub _pad: [u8; 2],
    /// A status's name, or a value's key: NUL-padded UTF-8 of at most [`DIAG_NAME_LEN`] − 1
    /// bytes.
    #[field(text)]
    pub name: [u8; DIAG_NAME_LEN],
    /// A status's message, or a value's value: NUL-padded UTF-8 of at most
    /// [`DIAG_MESSAGE_LEN`] − 1 bytes.
    #[field(text)]
    pub message: [u8; DIAG_MESSAGE_LEN],
    /// A status's hardware id; empty for a value.
    #[field(text)]
    pub hardware_id: [u8; DIAG_HARDWARE_ID_LEN],
}

impl DiagnosticEntry {
    /// The entry that opens a status.
    pub fn status(status: &DiagnosticStatusHeader) -> Self {
        Self {
            kind: EntryKind::Status as u8,
            level: status.level,
            _pad: [0; 2],
            name: status.name,
            message: status.message,
            hardware_id: status.hardware_id,
        }
    }

    /// The entry of one value of the status before it.
    pub fn value(kv: &KeyValue) -> Self {
        Self {
            kind: EntryKind::Value as u8,
            name: kv.key,
            message: kv.value,
            ..Self::default()
        }
    }

    /// The decoded kind; `None` for an unknown code.
    pub fn kind(&self) -> Option<EntryKind> {
        EntryKind::from_raw(self.kind)
    }

    /// The status an entry of kind [`EntryKind::Status`] opens.
    pub fn as_status(&self) -> DiagnosticStatusHeader {
        DiagnosticStatusHeader {
            level: self.level,
            _pad: [0; 3],
            name: self.name,
            message: self.message,
            hardware_id: self.hardware_id,
        }
    }

    /// The pair an entry of kind [`EntryKind::Value`] holds.
    pub fn as_value(&self) -> KeyValue {
        KeyValue {
            key: self.name,
            value: self.message,
        }
    }

    /// Groups a [`DiagnosticArray`]'s entries back into statuses: each status with its values.
    /// `Err(i)` names the first entry that fits nowhere: a value before any status, or an
    /// unknown kind.
    pub fn group(
        entries: &[DiagnosticEntry],
    ) -> Result<Vec<(DiagnosticStatusHeader, Vec<KeyValue>)>, usize> {
        let mut out: Vec<(DiagnosticStatusHeader, Vec<KeyValue>)> = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            match (e.kind(), out.last_mut()) {
                (Some(EntryKind::Status), _) => out.push((e.as_status(), Vec::new())),
                (Some(EntryKind::Value), Some((_, values))) => values.push(e.as_value()),
                _ => return Err(i),
            }
        }
        Ok(out)
    }
}

/// Fixed part of a [`DiagnosticArray`]: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/DiagnosticArray", ros2 = "diagnostic_msgs/msg/DiagnosticArray", chunked(elem = DiagnosticEntry, message = DiagnosticArray, doc = "The states of any number of components, each with any number of values (chunked; header 48 bytes, 260-byte [`DiagnosticEntry`] elements: a status entry followed by its value entries, for each status; see the `diagnostic_msgs` module docs)."), default = "zeroed")]
#[repr(C)]
pub struct DiagnosticArrayHeader {
    /// Stamp of the report.
    pub header: Header,
}
