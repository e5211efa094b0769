//! The layout of every standard message, read from the standard set's schemas
//! (`nerve::msgs::STANDARD_STRUCTS`): the native message classes (`structs/`) are built from
//! this, so a standard type added, or a field added, removed, reordered or retyped in Rust,
//! changes the Python classes with no edit here.

use std::collections::HashSet;

use nerve::msgs::described::{KindDoc, TypeDoc, TypeRef};
use nerve::msgs::schema::{FieldType, Schema};
use nerve::msgs::{standard_struct, StandardStruct, STANDARD_STRUCTS};
use nerve::raw;
use pyo3::prelude::*;

use crate::errors::guard;

/// (name, size, align, [(field, offset, kind)], the bytes of Rust's `Default`)
pub(crate) type StructDesc = (String, usize, usize, Vec<(String, usize, String)>, Vec<u8>);

/// The Python-side name of a field's type: `u8` … `f64`, `bool`, `text[N]` (NUL-padded
/// UTF-8), `T[N]` (an array of numbers or of structs; arrays of arrays or of text as their
/// bytes), or the class key of a struct (`keys`: the standard class name of each struct of
/// the description, or a key of its own for a struct declared elsewhere).
/// The kind string of a field type, nested structs by their key in `keys`.
pub(crate) fn kind_of(t: &TypeRef, keys: &[String], doc: &TypeDoc) -> String {
    if let Some(p) = prim_name(t) {
        return p.into();
    }
    match t {
        TypeRef::Text { len } => format!("text[{len}]"),
        TypeRef::Enum { repr, .. } => kind_of(repr, keys, doc),
        TypeRef::Struct(i) => keys[*i as usize].clone(),
        TypeRef::Array { elem, len } => match &**elem {
            TypeRef::Array { .. } | TypeRef::Text { .. } => {
                format!("u8[{}]", doc.size_of(t, 0).unwrap_or(0))
            }
            e => format!("{}[{len}]", kind_of(e, keys, doc)),
        },
        _ => "u8".into(),
    }
}

/// The kind string of a primitive `TypeRef` (the inverse of `nerve::msgs::declare::prim`).
fn prim_name(t: &TypeRef) -> Option<&'static str> {
    Some(match t {
        TypeRef::Bool => "bool",
        TypeRef::U8 => "u8",
        TypeRef::I8 => "i8",
        TypeRef::U16 => "u16",
        TypeRef::I16 => "i16",
        TypeRef::U32 => "u32",
        TypeRef::I32 => "i32",
        TypeRef::U64 => "u64",
        TypeRef::I64 => "i64",
        TypeRef::F32 => "f32",
        TypeRef::F64 => "f64",
        _ => return None,
    })
}

/// The standard class a described struct is, if any (same name and fingerprint).
pub(crate) fn standard_key(doc: &TypeDoc, i: usize) -> Option<&'static str> {
    let s = &doc.structs[i];
    let hash = doc.hash_of(i as u32);
    STANDARD_STRUCTS
        .iter()
        .find(|st| st.schema.name == s.name && st.schema.hash() == hash)
        .and_then(|st| standard_struct(st.schema))
        .map(|st| st.class)
}

/// The kind strings of a standard schema's fields and of its chunk element, as a
/// description gives them (the same strings classes made from any description use).
fn standard_kinds(schema: &Schema) -> (Vec<(String, usize, String)>, Option<String>) {
    let doc = TypeDoc::of(schema);
    let keys: Vec<String> = (0..doc.structs.len())
        .map(|i| standard_key(&doc, i).unwrap_or("<not standard>").to_owned())
        .collect();
    let fields = doc
        .root()
        .fields
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                f.offset as usize,
                kind_of(&f.ty, &keys, &doc),
            )
        })
        .collect();
    let elem = match &doc.root().kind {
        KindDoc::Chunked(e) => Some(kind_of(e, &keys, &doc)),
        _ => None,
    };
    (fields, elem)
}

/// The class a nested struct is shown as: its standard struct's (every struct nested in a
/// standard type is standard: checked by nerve-msgs' tests).
fn class_of(s: &Schema) -> &'static str {
    standard_struct(s).map_or("<not standard>", |s| s.class)
}

/// The structs `s` holds (directly or in arrays).
fn nested(s: &Schema) -> impl Iterator<Item = &'static Schema> + '_ {
    s.fields.iter().filter_map(|f| {
        let mut ty = &f.ty;
        while let FieldType::Array { elem, .. } = ty {
            ty = elem;
        }
        match ty {
            FieldType::Struct(inner) => Some(*inner),
            _ => None,
        }
    })
}

/// The standard structs, each after every struct it holds (Python builds them in order).
fn in_dependency_order() -> Vec<&'static StandardStruct> {
    let mut done: HashSet<&'static str> = HashSet::new();
    let mut out = Vec::new();
    while out.len() < STANDARD_STRUCTS.len() {
        let before = out.len();
        for s in STANDARD_STRUCTS {
            if !done.contains(s.class) && nested(s.schema).all(|n| done.contains(class_of(n))) {
                done.insert(s.class);
                out.push(s);
            }
        }
        if out.len() == before {
            // A struct holding a non-standard one: left out (nerve-msgs' tests forbid it).
            break;
        }
    }
    out
}

/// Every standard struct's layout, dependencies first.
pub(crate) fn all_structs() -> Vec<StructDesc> {
    in_dependency_order()
        .into_iter()
        .map(|s| {
            let (fields, _) = standard_kinds(s.schema);
            (
                s.class.to_owned(),
                s.schema.size as usize,
                s.schema.align as usize,
                fields,
                (s.default)(),
            )
        })
        .collect()
}

type Stored = (String, u32, u32, u32, u32, u64);

/// `(class name, stored type, header struct, element kind)`.
type MessageType = (String, Stored, Option<String>, Option<String>);

fn stored(t: raw::StoredType) -> Stored {
    (t.name, t.kind, t.size, t.align, t.elem_size, t.layout_hash)
}

/// Every message type: `(class name, stored type, header struct, element kind)`; fixed
/// messages have their own struct as header and no element kind. Plus `"Msgpack"`.
#[pyfunction]
pub fn message_types() -> PyResult<Vec<MessageType>> {
    guard("message_types", || Ok(all_message_types()))
}

/// `message_types()`'s list.
fn all_message_types() -> Vec<MessageType> {
    let mut v: Vec<MessageType> = STANDARD_STRUCTS
        .iter()
        .filter_map(|s| {
            let stored = stored(raw::stored_type_of(&s.schema.fingerprint()?));
            Some(match (s.chunked, standard_kinds(s.schema).1) {
                (Some(message), Some(elem)) => (
                    message.to_owned(),
                    stored,
                    Some(s.class.to_owned()),
                    Some(elem),
                ),
                _ => (s.class.to_owned(), stored, Some(s.class.to_owned()), None),
            })
        })
        .collect();
    v.push(("Msgpack".into(), stored(raw::msgpack_type()), None, None));
    v
}

/// `(doc, ROS 2 name, [(field, doc, unit)])` of a standard struct.
type StructDocs = (String, String, Vec<(String, String, String)>);

/// The docs of every standard struct by class name (for the generated stubs and `help()`).
#[pyfunction]
pub fn struct_docs() -> PyResult<Vec<(String, StructDocs)>> {
    guard("struct_docs", || {
        Ok(STANDARD_STRUCTS
            .iter()
            .map(|s| {
                let fields = s
                    .schema
                    .fields
                    .iter()
                    .map(|f| (f.name.to_owned(), f.doc.to_owned(), f.unit.to_owned()))
                    .collect();
                let docs = (s.schema.doc.to_owned(), s.schema.ros2.to_owned(), fields);
                (s.class.to_owned(), docs)
            })
            .collect())
    })
}

/// The description of the standard struct shown as class `class` (what a type declared in
/// Python nests it as).
pub(crate) fn standard_doc(class: &str) -> Option<Vec<u8>> {
    STANDARD_STRUCTS
        .iter()
        .find(|s| s.class == class)
        .map(|s| nerve::msgs::described::TypeDoc::of(s.schema).to_bytes())
}
