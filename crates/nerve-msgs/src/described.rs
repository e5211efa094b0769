//! A type's description as data that can travel: [`TypeDoc`], the owned form of a
//! [`Schema`] (with every nested struct it uses), encoded to bytes that a topic's segment
//! carries, and decoded — from hostile bytes — by any process that opens the topic, so a tool
//! that was never compiled against the type can read it ([`crate::dynamic`]).
//!
//! The hash of a `TypeDoc` equals the hash of the `Schema` it was made from: a description
//! received from another process (or declared in Python) is checked against a compiled type
//! by comparing hashes, and the first difference is named by [`TypeDoc::first_difference`].

use serde::{Deserialize, Serialize};

use crate::fingerprint::{fnv1a, mix};
use crate::schema::{FieldType, Schema, SchemaKind};

/// Largest encoded description a topic carries.
pub const MAX_DOC_BYTES: usize = 64 << 10;
/// Deepest nesting of arrays and structs a description may have.
pub const MAX_NESTING: u32 = 32;

/// The type of a field, owned; nested structs by index into [`TypeDoc::structs`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TypeRef {
    /// `bool`.
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
        elem: Box<TypeRef>,
        /// How many.
        len: u32,
    },
    /// NUL-padded UTF-8 in `len` bytes.
    Text {
        /// Bytes reserved.
        len: u32,
    },
    /// An integer code with named values.
    Enum {
        /// The integer type.
        repr: Box<TypeRef>,
        /// (name, value) of every code.
        values: Vec<(String, i64)>,
    },
    /// The struct at this index of [`TypeDoc::structs`].
    Struct(u32),
}

/// One field, owned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldDoc {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: TypeRef,
    /// Bytes from the start of the struct.
    pub offset: u32,
    /// Padding (skipped by decoders).
    pub padding: bool,
    /// Doc comment.
    pub doc: String,
    /// Unit, or "".
    pub unit: String,
}

/// How a struct crosses a topic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum KindDoc {
    /// A plain struct.
    Struct,
    /// A fixed message.
    Fixed,
    /// A chunked message's header, followed by elements of this type.
    Chunked(TypeRef),
}

/// One struct, owned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StructDoc {
    /// Type name.
    pub name: String,
    /// How it crosses a topic.
    pub kind: KindDoc,
    /// `size_of`.
    pub size: u32,
    /// `align_of`.
    pub align: u32,
    /// Fields in order.
    pub fields: Vec<FieldDoc>,
    /// Doc comment.
    pub doc: String,
    /// ROS 2 counterpart, or "".
    pub ros2: String,
}

/// A message type's whole description: the root struct and every struct it nests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeDoc {
    /// Index of the message's own struct in `structs`.
    pub root: u32,
    /// Every struct the description uses.
    pub structs: Vec<StructDoc>,
}

/// Why bytes are not a valid description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocError(pub String);

impl core::fmt::Display for DocError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "invalid type description: {}", self.0)
    }
}

impl std::error::Error for DocError {}

impl TypeDoc {
    /// The description of `schema` and every struct it nests.
    pub fn of(schema: &Schema) -> TypeDoc {
        let mut structs = Vec::new();
        let root = add_struct(&mut structs, schema);
        TypeDoc { root, structs }
    }

    /// The root struct.
    pub fn root(&self) -> &StructDoc {
        &self.structs[self.root as usize]
    }

    /// Encoded for a segment (MessagePack).
    pub fn to_bytes(&self) -> Vec<u8> {
        rmp_serde::to_vec(self).unwrap_or_default()
    }

    /// Decodes and validates a description read from shared memory (hostile input): sizes,
    /// indices, nesting depth, and that every field lies inside its struct.
    pub fn from_bytes(bytes: &[u8]) -> Result<TypeDoc, DocError> {
        if bytes.len() > MAX_DOC_BYTES {
            return Err(DocError(format!(
                "{} bytes, at most {MAX_DOC_BYTES}",
                bytes.len()
            )));
        }
        let doc: TypeDoc = rmp_serde::from_slice(bytes).map_err(|e| DocError(e.to_string()))?;
        doc.validate()?;
        Ok(doc)
    }

    fn validate(&self) -> Result<(), DocError> {
        if self.root as usize >= self.structs.len() {
            return Err(DocError(format!(
                "root {} of {} structs",
                self.root,
                self.structs.len()
            )));
        }
        // No struct nests itself and nesting is at most MAX_NESTING deep, so decoders may
        // recurse.
        let mut depth = vec![None; self.structs.len()];
        for k in 0..self.structs.len() {
            self.nest_depth(k, 0, &mut depth)?;
        }
        for s in &self.structs {
            if !s.align.is_power_of_two() || s.align > 4096 || s.size % s.align != 0 {
                return Err(DocError(format!(
                    "{}: alignment {} for {} bytes (a power of two up to 4096 that divides the \
                     size)",
                    s.name, s.align, s.size
                )));
            }
            for f in &s.fields {
                let size = self.size_of(&f.ty, 0)?;
                if u64::from(f.offset) + u64::from(size) > u64::from(s.size) {
                    return Err(DocError(format!(
                        "{}.{}: {} bytes at {} past the struct's {}",
                        s.name, f.name, size, f.offset, s.size
                    )));
                }
            }
            if let KindDoc::Chunked(elem) = &s.kind {
                self.size_of(elem, 0)?;
            }
        }
        Ok(())
    }

    /// How deep struct `k` nests structs (memoised in `memo`); an error for a cycle, a bad
    /// index or more than MAX_NESTING levels.
    fn nest_depth(&self, k: usize, level: u32, memo: &mut [Option<u32>]) -> Result<u32, DocError> {
        if level > MAX_NESTING {
            return Err(DocError(format!(
                "structs nest deeper than {MAX_NESTING} (or in a cycle)"
            )));
        }
        if let Some(d) = memo[k] {
            return Ok(d);
        }
        let s = &self.structs[k];
        let mut nested = Vec::new();
        for f in &s.fields {
            collect_structs(&f.ty, &mut nested);
        }
        if let KindDoc::Chunked(elem) = &s.kind {
            collect_structs(elem, &mut nested);
        }
        let mut deepest = 0;
        for i in nested {
            if i as usize >= self.structs.len() {
                return Err(DocError(format!("{} nests struct index {i}", s.name)));
            }
            deepest = deepest.max(self.nest_depth(i as usize, level + 1, memo)? + 1);
        }
        memo[k] = Some(deepest);
        Ok(deepest)
    }

    /// Bytes one value of `t` takes, checking indices and depth.
    pub fn size_of(&self, t: &TypeRef, depth: u32) -> Result<u32, DocError> {
        if depth > MAX_NESTING {
            return Err(DocError(format!("nested deeper than {MAX_NESTING}")));
        }
        Ok(match t {
            TypeRef::Bool | TypeRef::U8 | TypeRef::I8 => 1,
            TypeRef::U16 | TypeRef::I16 => 2,
            TypeRef::U32 | TypeRef::I32 | TypeRef::F32 => 4,
            TypeRef::U64 | TypeRef::I64 | TypeRef::F64 => 8,
            TypeRef::Array { elem, len } => self
                .size_of(elem, depth + 1)?
                .checked_mul(*len)
                .ok_or_else(|| DocError("array size overflows".into()))?,
            TypeRef::Text { len } => *len,
            TypeRef::Enum { repr, .. } => self.size_of(repr, depth + 1)?,
            TypeRef::Struct(i) => self
                .structs
                .get(*i as usize)
                .map(|s| s.size)
                .ok_or_else(|| DocError(format!("struct index {i}")))?,
        })
    }

    /// The same hash as [`Schema::hash`] of the schema this was made from.
    pub fn hash(&self) -> u64 {
        self.struct_hash(self.root, 0)
    }

    /// The hash of struct `i` (as [`TypeDoc::hash`] of a description rooted there).
    pub fn hash_of(&self, i: u32) -> u64 {
        self.struct_hash(i, 0)
    }

    fn struct_hash(&self, i: u32, depth: u32) -> u64 {
        let Some(s) = self.structs.get(i as usize) else {
            return 0;
        };
        if depth > MAX_NESTING {
            return 0;
        }
        let mut h = mix(fnv1a("nerve-schema"), fnv1a(&s.name));
        h = mix(h, s.size as u64);
        h = mix(h, s.align as u64);
        h = match &s.kind {
            KindDoc::Struct => mix(h, fnv1a("struct")),
            KindDoc::Fixed => mix(h, fnv1a("fixed")),
            KindDoc::Chunked(elem) => {
                mix(mix(h, fnv1a("chunked")), self.type_hash(elem, depth + 1))
            }
        };
        for f in &s.fields {
            h = mix(h, fnv1a(&f.name));
            h = mix(h, self.type_hash(&f.ty, depth + 1));
            h = mix(h, f.offset as u64);
        }
        h
    }

    fn type_hash(&self, t: &TypeRef, depth: u32) -> u64 {
        let h = fnv1a("nerve-field-type");
        let tag = |s: &str| mix(h, fnv1a(s));
        match t {
            TypeRef::Bool => tag("bool"),
            TypeRef::U8 => tag("u8"),
            TypeRef::I8 => tag("i8"),
            TypeRef::U16 => tag("u16"),
            TypeRef::I16 => tag("i16"),
            TypeRef::U32 => tag("u32"),
            TypeRef::I32 => tag("i32"),
            TypeRef::U64 => tag("u64"),
            TypeRef::I64 => tag("i64"),
            TypeRef::F32 => tag("f32"),
            TypeRef::F64 => tag("f64"),
            TypeRef::Array { elem, len } => mix(
                mix(tag("array"), self.type_hash(elem, depth + 1)),
                *len as u64,
            ),
            TypeRef::Text { len } => mix(tag("text"), *len as u64),
            TypeRef::Enum { repr, values } => {
                let mut h = mix(tag("enum"), self.type_hash(repr, depth + 1));
                for (name, v) in values {
                    h = mix(mix(h, fnv1a(name)), *v as u64);
                }
                h
            }
            TypeRef::Struct(i) => mix(tag("struct"), self.struct_hash(*i, depth + 1)),
        }
    }

    /// The first difference from `other` that the fingerprint covers, naming the field, or
    /// None when the two agree.
    pub fn first_difference(&self, other: &TypeDoc) -> Option<String> {
        self.first_difference_as(other, ("here", "there"))
    }

    /// [`first_difference`](Self::first_difference) with the two sides named by `sides`
    /// (this, other): "field `x`: f64 in this endpoint's type, f32 in the topic's".
    pub fn first_difference_as(&self, other: &TypeDoc, sides: (&str, &str)) -> Option<String> {
        self.diff_struct(self.root, other, other.root, "", 0, sides)
    }

    fn describe(&self, t: &TypeRef) -> String {
        match t {
            TypeRef::Array { elem, len } => format!("[{}; {len}]", self.describe(elem)),
            TypeRef::Text { len } => format!("text[{len}]"),
            TypeRef::Enum { repr, .. } => format!("enum {}", self.describe(repr)),
            TypeRef::Struct(i) => self
                .structs
                .get(*i as usize)
                .map_or_else(|| "?".into(), |s| s.name.clone()),
            other => format!("{other:?}").to_lowercase(),
        }
    }

    fn diff_struct(
        &self,
        a: u32,
        other: &TypeDoc,
        b: u32,
        prefix: &str,
        depth: u32,
        (here, there): (&str, &str),
    ) -> Option<String> {
        let (sa, sb) = (
            self.structs.get(a as usize)?,
            other.structs.get(b as usize)?,
        );
        if depth > MAX_NESTING {
            return None;
        }
        if sa.name != sb.name && prefix.is_empty() {
            return Some(format!(
                "type name: {} {here}, {} {there}",
                sa.name, sb.name
            ));
        }
        for (i, fa) in sa.fields.iter().enumerate() {
            let path = format!("{prefix}{}", fa.name);
            let Some(fb) = sb.fields.get(i) else {
                return Some(format!("field `{path}` is missing {there}"));
            };
            if fa.name != fb.name {
                return Some(format!(
                    "field {i}: `{path}` {here}, `{prefix}{}` {there}",
                    fb.name
                ));
            }
            if fa.offset != fb.offset {
                return Some(format!(
                    "field `{path}`: offset {} {here}, {} {there}",
                    fa.offset, fb.offset
                ));
            }
            if self.type_hash(&fa.ty, 0) != other.type_hash(&fb.ty, 0) {
                if let (TypeRef::Struct(x), TypeRef::Struct(y)) = (&fa.ty, &fb.ty) {
                    if let Some(d) = self.diff_struct(
                        *x,
                        other,
                        *y,
                        &format!("{path}."),
                        depth + 1,
                        (here, there),
                    ) {
                        return Some(d);
                    }
                }
                return Some(format!(
                    "field `{path}`: {} {here}, {} {there}",
                    self.describe(&fa.ty),
                    other.describe(&fb.ty)
                ));
            }
        }
        if sb.fields.len() > sa.fields.len() {
            return Some(format!(
                "field `{prefix}{}` is missing {here}",
                sb.fields[sa.fields.len()].name
            ));
        }
        if self.struct_hash(a, depth) != other.struct_hash(b, depth) {
            return Some(format!(
                "{}: size, alignment or kind differs",
                if prefix.is_empty() { &sa.name } else { prefix }
            ));
        }
        None
    }
}

fn collect_structs(t: &TypeRef, out: &mut Vec<u32>) {
    match t {
        TypeRef::Struct(i) => out.push(*i),
        TypeRef::Array { elem, .. } => collect_structs(elem, out),
        TypeRef::Enum { repr, .. } => collect_structs(repr, out),
        _ => {}
    }
}

fn add_struct(structs: &mut Vec<StructDoc>, s: &Schema) -> u32 {
    // One entry per distinct struct (same name and layout): nested types repeat.
    if let Some(i) = structs
        .iter()
        .position(|d| d.name == s.name && d.size == s.size)
    {
        return i as u32;
    }
    let index = structs.len() as u32;
    structs.push(StructDoc {
        name: s.name.to_owned(),
        kind: KindDoc::Struct,
        size: s.size,
        align: s.align,
        fields: Vec::new(),
        doc: s.doc.to_owned(),
        ros2: s.ros2.to_owned(),
    });
    let kind = match s.kind {
        SchemaKind::Struct => KindDoc::Struct,
        SchemaKind::Fixed => KindDoc::Fixed,
        SchemaKind::Chunked { elem } => KindDoc::Chunked(type_ref(structs, elem)),
    };
    let fields = s
        .fields
        .iter()
        .map(|f| FieldDoc {
            name: f.name.to_owned(),
            ty: type_ref(structs, &f.ty),
            offset: f.offset,
            padding: f.padding,
            doc: f.doc.to_owned(),
            unit: f.unit.to_owned(),
        })
        .collect();
    let entry = &mut structs[index as usize];
    entry.kind = kind;
    entry.fields = fields;
    index
}

fn type_ref(structs: &mut Vec<StructDoc>, t: &FieldType) -> TypeRef {
    match t {
        FieldType::Bool => TypeRef::Bool,
        FieldType::U8 => TypeRef::U8,
        FieldType::I8 => TypeRef::I8,
        FieldType::U16 => TypeRef::U16,
        FieldType::I16 => TypeRef::I16,
        FieldType::U32 => TypeRef::U32,
        FieldType::I32 => TypeRef::I32,
        FieldType::U64 => TypeRef::U64,
        FieldType::I64 => TypeRef::I64,
        FieldType::F32 => TypeRef::F32,
        FieldType::F64 => TypeRef::F64,
        FieldType::Array { elem, len } => TypeRef::Array {
            elem: Box::new(type_ref(structs, elem)),
            len: *len,
        },
        FieldType::Text { len } => TypeRef::Text { len: *len },
        FieldType::Enum { repr, values } => TypeRef::Enum {
            repr: Box::new(type_ref(structs, repr)),
            values: values.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect(),
        },
        FieldType::Struct(s) => TypeRef::Struct(add_struct(structs, s)),
    }
}
