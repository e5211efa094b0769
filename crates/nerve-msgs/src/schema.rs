//! Runtime descriptions of message types: every field's name, type, offset, unit and meaning,
//! built as constant data from the one definition of the type (`#[derive(Message)]`), so a
//! process that was never compiled against a type can still read it.
//!
//! A [`Schema`] is plain `&'static` data: no allocation, no registration at start-up, nested
//! types referring to each other's constants. Its [`hash`](Schema::hash) is the type's layout
//! fingerprint: it covers names, types, offsets, array lengths and nested schemas, and leaves
//! out docs and units (fixing a comment must not break a running system).
//!
//! ```
//! use nerve_msgs::schema::{Describe, FieldType};
//! use nerve_msgs::Vector3;
//! let s = Vector3::SCHEMA;
//! assert_eq!(s.size, 24);
//! assert_eq!(s.fields[1].name, "y");
//! assert_eq!(s.fields[1].offset, 8);
//! assert!(matches!(s.fields[1].ty, FieldType::F64));
//! ```
//!
//! The derive refuses what another process could not read the same way — implicit padding:
//!
//! ```compile_fail
//! #[derive(Clone, Copy, nerve_msgs::Message)]
//! #[message(crate = "nerve_msgs")]
//! #[repr(C)]
//! struct Padded { a: u64, b: f32 }
//! ```
//!
//! and a layout Rust may reorder:
//!
//! ```compile_fail
//! #[derive(Clone, Copy, nerve_msgs::Message)]
//! #[message(crate = "nerve_msgs")]
//! struct NotReprC { a: u64 }
//! ```

use crate::fingerprint::{fnv1a, mix, Fingerprint, MessageKind};

/// The type of one field.
#[derive(Clone, Copy, Debug)]
pub enum FieldType {
    /// `bool` stored as one byte (0 or 1).
    Bool,
    /// `u8`.
    U8,
    /// `i8`.
    I8,
    /// `u16`.
    U16,
    /// `i16`.
    I16,
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `u64`.
    U64,
    /// `i64`.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// A fixed number of elements.
    Array {
        /// The element type.
        elem: &'static FieldType,
        /// How many.
        len: u32,
    },
    /// Text in a fixed byte array: UTF-8, NUL-padded (frame ids).
    Text {
        /// Bytes reserved.
        len: u32,
    },
    /// An integer code with named values (an encoding, a status).
    Enum {
        /// The integer type it is stored as.
        repr: &'static FieldType,
        /// (name, value) of every code the type defines.
        values: &'static [(&'static str, i64)],
    },
    /// A nested struct.
    Struct(&'static Schema),
}

/// One field of a struct.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Its name in the source.
    pub name: &'static str,
    /// Its type.
    pub ty: FieldType,
    /// Bytes from the start of the struct.
    pub offset: u32,
    /// Padding (named `_pad…`): written as zeros, skipped by decoders.
    pub padding: bool,
    /// Its doc comment.
    pub doc: &'static str,
    /// Its unit (SI, as written in `#[field(unit = "…")]`), or "".
    pub unit: &'static str,
}

/// How a message crosses a topic, as its schema says.
#[derive(Clone, Copy, Debug)]
pub enum SchemaKind {
    /// A plain struct (a field type, a chunk header or a chunk element).
    Struct,
    /// A message copied into a ring slot.
    Fixed,
    /// A message whose fields are the chunk's header, followed by elements.
    Chunked {
        /// The element type.
        elem: &'static FieldType,
    },
}

/// The description of a `#[repr(C)]` type.
#[derive(Clone, Copy, Debug)]
pub struct Schema {
    /// The message's type name (`nerve/Imu`), or the struct's name for a plain struct.
    pub name: &'static str,
    /// How it crosses a topic.
    pub kind: SchemaKind,
    /// `size_of` (for a chunked message: of its header).
    pub size: u32,
    /// `align_of`.
    pub align: u32,
    /// Every field, in order, padding included.
    pub fields: &'static [Field],
    /// Its doc comment.
    pub doc: &'static str,
    /// The ROS 2 message it corresponds to (`sensor_msgs/msg/Imu`), or "".
    pub ros2: &'static str,
}

/// A type with a schema: every `#[derive(Message)]` type.
pub trait Describe {
    /// Its schema.
    const SCHEMA: Schema;
}

/// An integer code type whose values have names (an encoding, a status): `#[field(codes =
/// Encoding)]` puts them in the field's schema.
pub trait Codes {
    /// (name, value) of every code.
    const VALUES: &'static [(&'static str, i64)];
}

/// A type that can be the type of a field: the primitives, arrays of them, and every
/// `#[derive(Message)]` struct.
pub trait FieldTyped {
    /// The field type.
    const TYPE: FieldType;
}

macro_rules! primitive_field_types {
    ($($t:ty => $v:ident),*) => {
        $( impl FieldTyped for $t { const TYPE: FieldType = FieldType::$v; } )*
    };
}
primitive_field_types!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32,
    u64 => U64, i64 => I64, f32 => F32, f64 => F64);

impl<T: FieldTyped, const N: usize> FieldTyped for [T; N] {
    const TYPE: FieldType = FieldType::Array {
        elem: &T::TYPE,
        len: N as u32,
    };
}

const fn hash_str(h: u64, s: &str) -> u64 {
    mix(h, fnv1a(s))
}

impl FieldType {
    /// The fingerprint of this type (recursively).
    pub const fn hash(&self) -> u64 {
        let h = fnv1a("nerve-field-type");
        match self {
            FieldType::Bool => hash_str(h, "bool"),
            FieldType::U8 => hash_str(h, "u8"),
            FieldType::I8 => hash_str(h, "i8"),
            FieldType::U16 => hash_str(h, "u16"),
            FieldType::I16 => hash_str(h, "i16"),
            FieldType::U32 => hash_str(h, "u32"),
            FieldType::I32 => hash_str(h, "i32"),
            FieldType::U64 => hash_str(h, "u64"),
            FieldType::I64 => hash_str(h, "i64"),
            FieldType::F32 => hash_str(h, "f32"),
            FieldType::F64 => hash_str(h, "f64"),
            FieldType::Array { elem, len } => {
                mix(mix(hash_str(h, "array"), elem.hash()), *len as u64)
            }
            FieldType::Text { len } => mix(hash_str(h, "text"), *len as u64),
            FieldType::Enum { repr, values } => {
                // The named values are part of the contract: a code one side does not know is
                // a disagreement.
                let mut h = mix(hash_str(h, "enum"), repr.hash());
                let mut i = 0;
                while i < values.len() {
                    h = mix(hash_str(h, values[i].0), values[i].1 as u64);
                    i += 1;
                }
                h
            }
            FieldType::Struct(s) => mix(hash_str(h, "struct"), s.hash()),
        }
    }

    /// Bytes one value takes.
    pub const fn size(&self) -> u32 {
        match self {
            FieldType::Bool | FieldType::U8 | FieldType::I8 => 1,
            FieldType::U16 | FieldType::I16 => 2,
            FieldType::U32 | FieldType::I32 | FieldType::F32 => 4,
            FieldType::U64 | FieldType::I64 | FieldType::F64 => 8,
            FieldType::Array { elem, len } => elem.size() * *len,
            FieldType::Text { len } => *len,
            FieldType::Enum { repr, .. } => repr.size(),
            FieldType::Struct(s) => s.size,
        }
    }
}

impl Schema {
    /// The layout fingerprint: names, kinds, sizes, field names, types, offsets and nested
    /// schemas — not docs, units or the ROS 2 name.
    pub const fn hash(&self) -> u64 {
        let mut h = hash_str(fnv1a("nerve-schema"), self.name);
        h = mix(h, self.size as u64);
        h = mix(h, self.align as u64);
        h = match self.kind {
            SchemaKind::Struct => hash_str(h, "struct"),
            SchemaKind::Fixed => hash_str(h, "fixed"),
            SchemaKind::Chunked { elem } => mix(hash_str(h, "chunked"), elem.hash()),
        };
        let mut i = 0;
        while i < self.fields.len() {
            let f = &self.fields[i];
            h = hash_str(h, f.name);
            h = mix(h, f.ty.hash());
            h = mix(h, f.offset as u64);
            i += 1;
        }
        h
    }

    /// The fingerprint a topic of this message stores (what `Message::FINGERPRINT` is for the
    /// type it describes); `None` for a plain struct, which crosses no topic by itself.
    pub const fn fingerprint(&self) -> Option<Fingerprint> {
        let (kind, elem_size) = match self.kind {
            SchemaKind::Struct => return None,
            SchemaKind::Fixed => (MessageKind::Fixed, 0),
            SchemaKind::Chunked { elem } => (MessageKind::Chunked, elem.size()),
        };
        Some(Fingerprint {
            name: self.name,
            kind,
            size: self.size,
            align: self.align,
            elem_size,
            layout_hash: self.hash(),
        })
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The first difference between two schemas, as a sentence naming the field ("field
    /// `accel.x`: f64 here, f32 there"), or None when they agree on everything the fingerprint
    /// covers.
    pub fn first_difference(&self, other: &Schema) -> Option<String> {
        diff(self, other, "")
    }
}

fn describe(t: &FieldType) -> String {
    match t {
        FieldType::Array { elem, len } => format!("[{}; {len}]", describe(elem)),
        FieldType::Text { len } => format!("text[{len}]"),
        FieldType::Enum { repr, .. } => format!("enum {}", describe(repr)),
        FieldType::Struct(s) => s.name.to_owned(),
        other => format!("{other:?}").to_lowercase(),
    }
}

fn diff(a: &Schema, b: &Schema, prefix: &str) -> Option<String> {
    if a.name != b.name && prefix.is_empty() {
        return Some(format!("type name: {} here, {} there", a.name, b.name));
    }
    for (i, fa) in a.fields.iter().enumerate() {
        let path = format!("{prefix}{}", fa.name);
        let Some(fb) = b.fields.get(i) else {
            return Some(format!("field `{path}` is missing there"));
        };
        if fa.name != fb.name {
            return Some(format!(
                "field {i}: `{path}` here, `{prefix}{}` there",
                fb.name
            ));
        }
        if fa.offset != fb.offset {
            return Some(format!(
                "field `{path}`: offset {} here, {} there",
                fa.offset, fb.offset
            ));
        }
        if fa.ty.hash() != fb.ty.hash() {
            if let (FieldType::Struct(sa), FieldType::Struct(sb)) = (fa.ty, fb.ty) {
                if let Some(d) = diff(sa, sb, &format!("{path}.")) {
                    return Some(d);
                }
            }
            return Some(format!(
                "field `{path}`: {} here, {} there",
                describe(&fa.ty),
                describe(&fb.ty)
            ));
        }
    }
    if b.fields.len() > a.fields.len() {
        return Some(format!(
            "field `{prefix}{}` is missing here",
            b.fields[a.fields.len()].name
        ));
    }
    if a.hash() != b.hash() {
        return Some(format!(
            "{}: size, alignment or kind differs",
            if prefix.is_empty() { a.name } else { prefix }
        ));
    }
    None
}
