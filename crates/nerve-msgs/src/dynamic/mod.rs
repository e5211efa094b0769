//! Messages as values, for tools that were never compiled against a type (`topic echo` and
//! `pub`, recorders, bridges, Python dicts): [`decode`] reads the bytes of any described type
//! into a [`Value`], [`encode`] writes a value back.
//!
//! A value is what the description says the bytes hold: structs as ordered fields (padding
//! left out), fixed arrays as lists (`u8` payloads as bytes), text as strings, named codes as
//! their names, numbers as numbers — NaN included. `Value` implements serde's traits, so any
//! self-describing format reads and writes it (JSON, YAML, MessagePack); a JSON `null` is a
//! NaN.
//!
//! ```
//! use nerve_msgs::described::TypeDoc;
//! use nerve_msgs::dynamic::{decode, encode, Value};
//! use nerve_msgs::{CmdVel, Message};
//!
//! let doc = TypeDoc::of(CmdVel::DESCRIPTION.unwrap());
//! let cmd = CmdVel { stamp_ns: 5, linear: 0.5, angular: -0.25 };
//! let value = decode(&doc, bytemuck::bytes_of(&cmd), &[], usize::MAX).unwrap();
//! assert_eq!(value.path("linear"), Some(&Value::Float(0.5)));
//!
//! let (fixed, _) = encode(&doc, &value).unwrap();
//! assert_eq!(fixed, bytemuck::bytes_of(&cmd));
//! ```
//!
//! Both directions read untrusted input: bytes of any length (too short is an error, never a
//! read past the end), values of any shape (every error names the field and what it wants).

mod decode;
mod encode;
mod serde_impl;

pub use decode::decode;
pub use encode::encode;

/// Where a value sits in a message (`pose.covariance.3`), spelled out only when shown (in an
/// error): a decoder or encoder walking a message builds no string per field.
#[derive(Clone, Copy, Debug)]
pub enum FieldPath<'a> {
    /// The message itself.
    Root,
    /// A field of the struct at the first path.
    Field(&'a FieldPath<'a>, &'a str),
    /// An element of the list at the first path.
    Index(&'a FieldPath<'a>, usize),
}

impl std::fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldPath::Root => Ok(()),
            FieldPath::Field(FieldPath::Root, name) => write!(f, "{name}"),
            FieldPath::Field(up, name) => write!(f, "{up}.{name}"),
            FieldPath::Index(up, i) => write!(f, "{up}.{i}"),
        }
    }
}

/// A message, or any part of one, as data.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Nothing (JSON `null`); encodes as NaN into a float, as zero elsewhere.
    Null,
    /// `bool`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float.
    Float(f64),
    /// Text, or the name of a code.
    Text(String),
    /// Raw bytes (a `u8` payload).
    Bytes(Vec<u8>),
    /// A fixed array or a payload's elements.
    List(Vec<Value>),
    /// A struct: its fields in order.
    Struct(Vec<(String, Value)>),
}

/// The key of a chunked message's elements in its value: the header's fields come first,
/// then `data`.
pub const DATA: &str = "data";
/// When a decode shows fewer elements than the message has, the key of how many it has.
pub const DATA_LEN: &str = "data_len";

/// Why bytes or a value do not fit a description; the message names the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueError(pub String);

impl core::fmt::Display for ValueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ValueError {}

impl Value {
    /// The field of a struct.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value at a dotted path: `pose.position.x`, `orientation_covariance.4`, `data.0`.
    pub fn path(&self, path: &str) -> Option<&Value> {
        path.split('.').try_fold(self, |v, part| match v {
            Value::Struct(_) => v.get(part),
            Value::List(items) => items.get(part.parse::<usize>().ok()?),
            _ => None,
        })
    }

    /// The value as a float, if it is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::UInt(u) => Some(u as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }
}
