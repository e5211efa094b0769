//! Types declared at run time, by a language with no `#[derive(Message)]` (Python's
//! `@nerve.message`, C's `NERVE_STRUCT`): a field list becomes the [`TypeDoc`] the Rust derive
//! gives the same definition — `#[repr(C)]` offsets, no implicit padding, the same hash — so a
//! type declared in any language and the Rust type are one type on a topic.

use std::collections::HashSet;

use crate::described::{FieldDoc, KindDoc, StructDoc, TypeDoc, TypeRef};
use crate::standard::STANDARD_STRUCTS;

/// Largest fixed part a message may have (1 MiB, as topics allow).
pub const MAX_DECLARED_BYTES: u32 = 1 << 20;

/// A field's type as a declaring language gives it.
#[derive(Clone, Debug)]
pub enum FieldSpec {
    /// A kind string: `u8` … `u64`, `i8` … `i64`, `f32`, `f64`, `bool`, `text[N]`, a standard
    /// struct's class name (`Header`, `Vector3`), any of them followed by `[N]` (an array;
    /// `f64[3][3]` nests).
    Kind(String),
    /// A struct declared elsewhere, by its description.
    Doc(TypeDoc),
    /// `n` of a type.
    Array(Box<FieldSpec>, u32),
}

/// What a declared type is.
#[derive(Clone, Debug)]
pub enum DeclaredKind {
    /// A fixed message.
    Fixed,
    /// A plain struct other types nest.
    Struct,
    /// A chunked message's header, followed by elements of this type.
    Chunked(FieldSpec),
}

/// Why a declaration is refused: a kind that names no type (`Kind`), or a layout or name
/// Rust would not give (`Layout`). The text names the type and field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclareError {
    /// An unknown field kind or a malformed field type.
    Kind(String),
    /// A bad name, a duplicate field, a gap Rust would pad, a type too large.
    Layout(String),
}

impl core::fmt::Display for DeclareError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DeclareError::Kind(s) | DeclareError::Layout(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for DeclareError {}

/// A declaration: the type's name, what it is, its fields in order, its doc comment and ROS 2
/// counterpart (read by tools, not part of the fingerprint).
#[derive(Clone, Debug)]
pub struct Declaration<'a> {
    /// Type name (`demo/WheelCmd`); a plain struct's is its class name.
    pub name: &'a str,
    /// Fixed, struct or chunked.
    pub kind: DeclaredKind,
    /// `(name, type)` in order.
    pub fields: Vec<(String, FieldSpec)>,
    /// Doc comment.
    pub doc: &'a str,
    /// ROS 2 counterpart, or "".
    pub ros2: &'a str,
}

/// The primitive type a kind string names.
pub fn prim(kind: &str) -> Option<TypeRef> {
    Some(match kind {
        "bool" => TypeRef::Bool,
        "u8" => TypeRef::U8,
        "i8" => TypeRef::I8,
        "u16" => TypeRef::U16,
        "i16" => TypeRef::I16,
        "u32" => TypeRef::U32,
        "i32" => TypeRef::I32,
        "u64" => TypeRef::U64,
        "i64" => TypeRef::I64,
        "f32" => TypeRef::F32,
        "f64" => TypeRef::F64,
        _ => return None,
    })
}

/// Adds `doc`'s structs to `structs` (a struct already there, same name and fingerprint, is
/// reused) and returns the index of its root.
pub fn merge(doc: &TypeDoc, structs: &mut Vec<StructDoc>) -> u32 {
    let mut index = Vec::with_capacity(doc.structs.len());
    for (i, s) in doc.structs.iter().enumerate() {
        let hash = doc.hash_of(i as u32);
        let found = (0..structs.len()).find(|&k| {
            structs[k].name == s.name && {
                let probe = TypeDoc {
                    root: k as u32,
                    structs: structs.clone(),
                };
                probe.hash() == hash
            }
        });
        index.push(found.map_or_else(
            || {
                structs.push(s.clone());
                (structs.len() - 1, true)
            },
            |k| (k, false),
        ));
    }
    // Renumber the nested references of the structs just added.
    for &(k, added) in &index {
        if added {
            let s = &mut structs[k];
            for f in &mut s.fields {
                renumber(&mut f.ty, &index);
            }
            if let KindDoc::Chunked(e) = &mut s.kind {
                renumber(e, &index);
            }
        }
    }
    index[doc.root as usize].0 as u32
}

fn renumber(t: &mut TypeRef, index: &[(usize, bool)]) {
    match t {
        TypeRef::Struct(i) => *i = index[*i as usize].0 as u32,
        TypeRef::Array { elem, .. } | TypeRef::Enum { repr: elem, .. } => renumber(elem, index),
        _ => {}
    }
}

/// The type a kind string names (see [`FieldSpec::Kind`]).
fn kind_ref(kind: &str, structs: &mut Vec<StructDoc>) -> Result<TypeRef, DeclareError> {
    if let Some(t) = prim(kind) {
        return Ok(t);
    }
    let parsed = kind
        .strip_suffix(']')
        .and_then(|k| k.rsplit_once('['))
        .and_then(|(base, n)| Some((base, n.parse::<u32>().ok()?)));
    match parsed {
        Some(("text", n)) if n > 0 => return Ok(TypeRef::Text { len: n }),
        Some((base, n)) if n > 0 => {
            return Ok(TypeRef::Array {
                elem: Box::new(kind_ref(base, structs)?),
                len: n,
            })
        }
        _ => {}
    }
    if let Some(s) = STANDARD_STRUCTS.iter().find(|s| s.class == kind) {
        return Ok(TypeRef::Struct(merge(&TypeDoc::of(s.schema), structs)));
    }
    Err(DeclareError::Kind(format!(
        "unknown field kind {kind:?}: use u8 … u64, i8 … i64, f32, f64, bool, text[N], a \
         standard struct (Header, Vector3, …) or any of them as T[N]"
    )))
}

fn type_ref(spec: &FieldSpec, structs: &mut Vec<StructDoc>) -> Result<TypeRef, DeclareError> {
    match spec {
        FieldSpec::Kind(k) => kind_ref(k, structs),
        FieldSpec::Doc(doc) => Ok(TypeRef::Struct(merge(doc, structs))),
        FieldSpec::Array(_, 0) => Err(DeclareError::Kind("an array of 0 elements".into())),
        FieldSpec::Array(elem, n) => Ok(TypeRef::Array {
            elem: Box::new(type_ref(elem, structs)?),
            len: *n,
        }),
    }
}

/// `align_of` a field type.
pub fn align_of(t: &TypeRef, structs: &[StructDoc]) -> u32 {
    match t {
        TypeRef::Array { elem, .. } | TypeRef::Enum { repr: elem, .. } => align_of(elem, structs),
        TypeRef::Text { .. } | TypeRef::Bool | TypeRef::U8 | TypeRef::I8 => 1,
        TypeRef::U16 | TypeRef::I16 => 2,
        TypeRef::U32 | TypeRef::I32 | TypeRef::F32 => 4,
        TypeRef::U64 | TypeRef::I64 | TypeRef::F64 => 8,
        TypeRef::Struct(i) => structs.get(*i as usize).map_or(1, |s| s.align),
    }
}

/// The description of `decl`, laid out as `#[repr(C)]` lays it out. A gap Rust would fill with
/// implicit padding is an error naming the field and, through `pad_hint(field_index, bytes)`,
/// how the declaring language spells the padding field to add.
pub fn declare(
    decl: &Declaration<'_>,
    pad_hint: &dyn Fn(usize, u32) -> String,
) -> Result<TypeDoc, DeclareError> {
    let Declaration { name, .. } = *decl;
    let layout = |s: String| DeclareError::Layout(s);
    // A topic stores the type's name in 96 bytes.
    if name.is_empty() || name.len() > 96 || name.contains('\0') {
        return Err(layout(format!(
            "a message type name is 1 to 96 bytes without NUL, got {name:?}"
        )));
    }
    if decl.fields.is_empty() {
        return Err(layout(format!("{name} declares no fields")));
    }
    let mut structs = vec![StructDoc {
        name: name.to_owned(),
        kind: KindDoc::Struct,
        size: 0,
        align: 1,
        fields: Vec::new(),
        doc: decl.doc.to_owned(),
        ros2: decl.ros2.to_owned(),
    }];
    let mut out = Vec::new();
    let (mut offset, mut align) = (0u32, 1u32);
    let mut seen = HashSet::new();
    for (fname, spec) in &decl.fields {
        if !seen.insert(fname.as_str()) {
            return Err(layout(format!("{name}.{fname} is declared twice")));
        }
        let in_field = |e: DeclareError| match e {
            DeclareError::Kind(s) => DeclareError::Kind(format!("{name}.{fname}: {s}")),
            DeclareError::Layout(s) => DeclareError::Layout(format!("{name}.{fname}: {s}")),
        };
        let ty = type_ref(spec, &mut structs).map_err(in_field)?;
        let a = align_of(&ty, &structs);
        let probe = TypeDoc {
            root: 0,
            structs: structs.clone(),
        };
        let size = probe
            .size_of(&ty, 0)
            .map_err(|e| layout(format!("{name}.{fname}: {e}")))?;
        if offset % a != 0 {
            return Err(layout(format!(
                "{name}.{fname} would start at byte {offset}, but it needs {a}-byte alignment: \
                 declare {} bytes of padding before it, as the Rust definition must: {}",
                a - offset % a,
                pad_hint(out.len(), a - offset % a)
            )));
        }
        out.push(FieldDoc {
            name: fname.clone(),
            ty,
            offset,
            padding: fname.starts_with("_pad"),
            doc: String::new(),
            unit: String::new(),
        });
        offset = offset.saturating_add(size);
        align = align.max(a);
    }
    if offset > MAX_DECLARED_BYTES {
        return Err(layout(format!(
            "{name} is {offset} bytes, above the {MAX_DECLARED_BYTES} bytes (1 MiB) a message's \
             fixed part may take: carry large data as a chunked message's elements"
        )));
    }
    if offset % align != 0 {
        return Err(layout(format!(
            "{name} ends at byte {offset}, but its alignment is {align}: declare {} bytes of \
             padding at the end, as the Rust definition must: {}",
            align - offset % align,
            pad_hint(out.len(), align - offset % align)
        )));
    }
    let kind = match &decl.kind {
        DeclaredKind::Fixed => KindDoc::Fixed,
        DeclaredKind::Struct => KindDoc::Struct,
        DeclaredKind::Chunked(e) => KindDoc::Chunked(type_ref(e, &mut structs)?),
    };
    let root = &mut structs[0];
    root.kind = kind;
    root.size = offset;
    root.align = align;
    root.fields = out;
    let doc = TypeDoc { root: 0, structs };
    // Checked as any process reading it will check it.
    TypeDoc::from_bytes(&doc.to_bytes()).map_err(|e| layout(format!("{name}: {e}")))?;
    Ok(doc)
}
