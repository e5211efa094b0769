//! Message classes from descriptions: a type declared in Python (`@nerve.message`) gets the
//! layout and the fingerprint that Rust's `#[derive(Message)]` gives the same definition
//! (`#[repr(C)]` offsets, no implicit padding, the same schema hash), and a topic joined by
//! name gets a class from the description it carries.

use std::collections::HashMap;

use nerve::msgs::described::{FieldDoc, KindDoc, StructDoc, TypeDoc, TypeRef};
use nerve::topic::MAX_FIXED_BYTES;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use crate::errors::guard;
use crate::layout::{kind_of, prim_name, standard_key};

/// Most structs one description may make classes of.
const MAX_CLASSES: usize = 256;
use crate::structs::{build_class, standard_classes, template_of, Made};

fn prim(kind: &str) -> Option<TypeRef> {
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
fn merge(doc: &TypeDoc, structs: &mut Vec<StructDoc>) -> u32 {
    let mut index = Vec::with_capacity(doc.structs.len());
    for (i, s) in doc.structs.iter().enumerate() {
        let hash = sub_hash(doc, i);
        let found = (0..structs.len())
            .find(|&k| structs[k].name == s.name && sub_hash_of(structs, k) == hash);
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

/// The fingerprint of struct `i` of `doc`.
fn sub_hash(doc: &TypeDoc, i: usize) -> u64 {
    doc.hash_of(i as u32)
}

/// The fingerprint of struct `k` of a list being built.
fn sub_hash_of(structs: &[StructDoc], k: usize) -> u64 {
    TypeDoc {
        root: k as u32,
        structs: structs.to_vec(),
    }
    .hash()
}

/// A field's type from what Python declared: a kind string (`"f64"`, `"u32[3]"`,
/// `"text[32]"`), a nested class's description (bytes), or `(description, n)` for `n` of
/// them.
fn type_ref(spec: &Bound<'_, PyAny>, structs: &mut Vec<StructDoc>) -> PyResult<TypeRef> {
    if let Ok(kind) = spec.extract::<String>() {
        if let Some(t) = prim(&kind) {
            return Ok(t);
        }
        let parsed = kind
            .strip_suffix(']')
            .and_then(|k| k.split_once('['))
            .and_then(|(base, n)| Some((base, n.parse::<u32>().ok()?)));
        return match parsed {
            Some(("text", n)) if n > 0 => Ok(TypeRef::Text { len: n }),
            Some((base, n)) if n > 0 => match prim(base) {
                Some(elem) => Ok(TypeRef::Array {
                    elem: Box::new(elem),
                    len: n,
                }),
                None => Err(PyTypeError::new_err(format!("unknown field kind {kind:?}"))),
            },
            _ => Err(PyTypeError::new_err(format!(
                "unknown field kind {kind:?}: use u8 … u64, i8 … i64, f32, f64, bool, \
                 text[N] or T[N]"
            ))),
        };
    }
    if let Ok(bytes) = spec.downcast::<PyBytes>() {
        let doc = TypeDoc::from_bytes(bytes.as_bytes())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        return Ok(TypeRef::Struct(merge(&doc, structs)));
    }
    if let Ok(t) = spec.downcast::<PyTuple>() {
        if t.len() == 2 {
            let elem = type_ref(&t.get_item(0)?, structs)?;
            let len: u32 = t.get_item(1)?.extract()?;
            if len > 0 {
                return Ok(TypeRef::Array {
                    elem: Box::new(elem),
                    len,
                });
            }
        }
    }
    Err(PyTypeError::new_err(format!(
        "a field is a kind string, a message class's description or (description, n), got {}",
        spec.repr()?
    )))
}

fn align_of(t: &TypeRef, structs: &[StructDoc]) -> u32 {
    match t {
        TypeRef::Array { elem, .. } | TypeRef::Enum { repr: elem, .. } => align_of(elem, structs),
        TypeRef::Text { .. } => 1,
        TypeRef::Struct(i) => structs[*i as usize].align,
        other => prim_name(other).map_or(1, |p| match p {
            "bool" | "u8" | "i8" => 1,
            "u16" | "i16" => 2,
            "u32" | "i32" | "f32" => 4,
            _ => 8,
        }),
    }
}

/// The description of a type declared in Python: `kind` is `"fixed"` (a message),
/// `"struct"` (a plain struct other types nest) or `"chunked"` (a header whose messages
/// carry any number of `elem`); `fields` are `(name, type)` in order (see `type_ref`); `ros2`
/// the ROS 2 message it corresponds to (tools read it; not part of the fingerprint).
/// Fields are laid out as `#[repr(C)]` lays them out; a gap Rust would fill with implicit
/// padding is an error naming the field and the `_pad` field to add.
#[pyfunction]
#[pyo3(signature = (name, kind, fields, elem=None, doc="", ros2=""))]
pub(crate) fn declare<'py>(
    py: Python<'py>,
    name: &str,
    kind: &str,
    fields: Vec<(String, Bound<'py, PyAny>)>,
    elem: Option<Bound<'py, PyAny>>,
    doc: &str,
    ros2: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    guard("declare", || {
        // A topic stores the type's name in 96 bytes.
        if name.is_empty() || name.len() > 96 || name.contains('\0') {
            return Err(PyValueError::new_err(format!(
                "a message type name is 1 to 96 bytes without NUL, got {name:?}"
            )));
        }
        if fields.is_empty() {
            return Err(PyValueError::new_err(format!("{name} declares no fields")));
        }
        let mut structs = vec![StructDoc {
            name: name.to_owned(),
            kind: KindDoc::Struct,
            size: 0,
            align: 1,
            fields: Vec::new(),
            doc: doc.to_owned(),
            ros2: ros2.to_owned(),
        }];
        let mut out = Vec::new();
        let (mut offset, mut align) = (0u32, 1u32);
        let mut seen = std::collections::HashSet::new();
        for (fname, spec) in &fields {
            if !seen.insert(fname.clone()) {
                return Err(PyValueError::new_err(format!(
                    "{name}.{fname} is declared twice"
                )));
            }
            let ty = type_ref(spec, &mut structs)
                .map_err(|e| PyTypeError::new_err(format!("{name}.{fname}: {}", e.value(py))))?;
            let a = align_of(&ty, &structs);
            let probe = TypeDoc {
                root: 0,
                structs: structs.clone(),
            };
            let size = probe
                .size_of(&ty, 0)
                .map_err(|e| PyValueError::new_err(format!("{name}.{fname}: {e}")))?;
            if offset % a != 0 {
                return Err(PyValueError::new_err(format!(
                    "{name}.{fname} would start at byte {offset}, but it needs {a}-byte \
                     alignment: declare {} bytes of padding before it, as the Rust definition \
                     must: {}",
                    a - offset % a,
                    pad_field(out.len(), a - offset % a)
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
            offset = offset
                .checked_add(size)
                .ok_or_else(|| PyValueError::new_err(format!("{name} is too large")))?;
            align = align.max(a);
        }
        if offset > MAX_FIXED_BYTES {
            return Err(PyValueError::new_err(format!(
                "{name} is {offset} bytes, above the {MAX_FIXED_BYTES} bytes (1 MiB) a message's \
                 fixed part may take: carry large data as a chunked message's elements \
                 (@nerve.message(..., elem=...))"
            )));
        }
        if offset % align != 0 {
            return Err(PyValueError::new_err(format!(
                "{name} ends at byte {offset}, but its alignment is {align}: declare {} bytes \
                 of padding at the end, as the Rust definition must: {}",
                align - offset % align,
                pad_field(out.len(), align - offset % align)
            )));
        }
        let kind_doc = match (kind, elem) {
            ("fixed", None) => KindDoc::Fixed,
            ("struct", None) => KindDoc::Struct,
            ("chunked", Some(e)) => KindDoc::Chunked(type_ref(&e, &mut structs)?),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "{name}: kind is 'fixed', 'struct' or 'chunked' (chunked with an element \
                     type), got {kind:?}"
                )))
            }
        };
        let root = &mut structs[0];
        root.kind = kind_doc;
        root.size = offset;
        root.align = align;
        root.fields = out;
        let doc = TypeDoc { root: 0, structs };
        // Checked as any process reading it will check it.
        let bytes = doc.to_bytes();
        TypeDoc::from_bytes(&bytes).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
        Ok(PyBytes::new(py, &bytes))
    })
}

/// How to declare `n` bytes of padding as field number `i`.
fn pad_field(i: usize, n: u32) -> String {
    match n {
        1 | 2 | 4 | 8 => format!("`_pad{i}: nerve.u{}`", 8 * n),
        _ => format!("`_pad{i}: Annotated[bytes, nerve.array(\"u8\", {n})]`"),
    }
}

/// The last segment of a type name: `demo/WheelCmd` → `WheelCmd`.
fn short(name: &str) -> &str {
    name.rsplit(['/', ':']).next().unwrap_or(name)
}

/// The classes of a description (from `declare` or a topic): every struct it holds gets a
/// class (standard ones are the standard classes), the root named `class_name` with
/// `defaults` (field → value) over zeroes and the defaults of the structs it nests. Returns
/// `(root class, element kind of a chunked root: a kind string or a class)`. Each class made
/// carries its own description as `_nerve_doc_`.
#[pyfunction]
#[pyo3(signature = (doc, class_name, defaults=None))]
pub(crate) fn classes_from_doc<'py>(
    py: Python<'py>,
    doc: &[u8],
    class_name: &str,
    defaults: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyType>, Option<Bound<'py, PyAny>>)> {
    guard("classes_from_doc", || {
        let doc = TypeDoc::from_bytes(doc).map_err(|e| PyValueError::new_err(e.to_string()))?;
        // Only the structs the message uses get classes; a hostile description may list
        // thousands, or claim gigabytes: every class's default is allocated, so refuse what no
        // topic carries, and names no class can have.
        let used = reachable(&doc);
        let bad = |why: String| PyValueError::new_err(format!("invalid type description: {why}"));
        if used.len() > MAX_CLASSES {
            return Err(bad(format!(
                "{} structs, at most {MAX_CLASSES}",
                used.len()
            )));
        }
        let mut total = 0u64;
        for &i in &used {
            let s = &doc.structs[i];
            total += u64::from(s.size);
            if s.size > MAX_FIXED_BYTES || total > u64::from(MAX_FIXED_BYTES) * 4 {
                return Err(bad(format!(
                    "struct {} of {} bytes: its structs take more than a message's fixed part \
                     may ({MAX_FIXED_BYTES} bytes)",
                    s.name, s.size
                )));
            }
            let named = |n: &str| !n.is_empty() && !n.contains('\0') && n.len() <= 255;
            if !named(&s.name) || !s.fields.iter().all(|f| named(&f.name)) {
                return Err(bad(format!(
                    "a struct or field name in {:?} no class can have",
                    s.name
                )));
            }
        }
        let mut made: Made = standard_classes(py);
        let n = doc.structs.len();
        let keys: Vec<String> = (0..n)
            .map(|i| standard_key(&doc, i).map_or_else(|| format!("#{i}"), str::to_owned))
            .collect();
        let mut classes: HashMap<usize, Py<PyType>> = HashMap::new();
        // Build in dependency order: a struct once every struct it nests exists.
        let mut pending: Vec<usize> = used
            .iter()
            .copied()
            .filter(|&i| !made.contains_key(&keys[i]))
            .collect();
        while !pending.is_empty() {
            let before = pending.len();
            let mut rest = Vec::new();
            for i in pending {
                let s = &doc.structs[i];
                let nested_ready = s.fields.iter().all(|f| {
                    nested_keys(&f.ty, &keys)
                        .iter()
                        .all(|k| made.contains_key(k))
                });
                if !nested_ready {
                    rest.push(i);
                    continue;
                }
                let fields: Vec<(String, usize, String)> = s
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
                let mut template = vec![0u8; s.size as usize];
                for f in &s.fields {
                    fill_defaults(py, &f.ty, f.offset as usize, &keys, &made, &mut template)?;
                }
                let root = i == doc.root as usize;
                let name = if root { class_name } else { short(&s.name) };
                let cls = build_class(
                    py,
                    name,
                    s.size as usize,
                    s.align as usize,
                    fields,
                    template,
                    if root { defaults } else { None },
                    &made,
                )?;
                let own = TypeDoc {
                    root: i as u32,
                    structs: doc.structs.clone(),
                };
                cls.setattr("_nerve_doc_", PyBytes::new(py, &own.to_bytes()))?;
                made.insert(keys[i].clone(), (cls.clone().unbind(), s.size as usize));
                classes.insert(i, cls.unbind());
            }
            if rest.len() == before {
                return Err(PyValueError::new_err(
                    "a description whose structs nest in a cycle",
                ));
            }
            pending = rest;
        }
        let root = doc.root as usize;
        let cls = made[&keys[root]].0.clone_ref(py).into_bound(py);
        let elem = match &doc.root().kind {
            KindDoc::Chunked(e) => Some(match e {
                TypeRef::Struct(j) => made[&keys[*j as usize]]
                    .0
                    .clone_ref(py)
                    .into_bound(py)
                    .into_any(),
                other => kind_of(other, &keys, &doc).into_pyobject(py)?.into_any(),
            }),
            _ => None,
        };
        Ok((cls, elem))
    })
}

/// The structs a description's message uses (its root and what it nests), in index order.
fn reachable(doc: &TypeDoc) -> Vec<usize> {
    fn visit(t: &TypeRef, out: &mut Vec<u32>) {
        match t {
            TypeRef::Struct(i) => out.push(*i),
            TypeRef::Array { elem, .. } | TypeRef::Enum { repr: elem, .. } => visit(elem, out),
            _ => {}
        }
    }
    let mut seen = vec![false; doc.structs.len()];
    let mut stack = vec![doc.root];
    while let Some(i) = stack.pop() {
        let Some(s) = doc.structs.get(i as usize) else {
            continue;
        };
        if std::mem::replace(&mut seen[i as usize], true) {
            continue;
        }
        for f in &s.fields {
            visit(&f.ty, &mut stack);
        }
        if let KindDoc::Chunked(e) = &s.kind {
            visit(e, &mut stack);
        }
    }
    (0..doc.structs.len()).filter(|&i| seen[i]).collect()
}

fn nested_keys(t: &TypeRef, keys: &[String]) -> Vec<String> {
    match t {
        TypeRef::Struct(i) => vec![keys[*i as usize].clone()],
        TypeRef::Array { elem, .. } => nested_keys(elem, keys),
        _ => Vec::new(),
    }
}

/// Copies the defaults of the structs a field of type `t` at `offset` holds into `template`.
fn fill_defaults(
    py: Python<'_>,
    t: &TypeRef,
    offset: usize,
    keys: &[String],
    made: &Made,
    template: &mut [u8],
) -> PyResult<()> {
    match t {
        TypeRef::Struct(i) => {
            let (cls, size) = &made[&keys[*i as usize]];
            let bytes = template_of(cls.bind(py))?;
            if let Some(dst) = template.get_mut(offset..offset + size) {
                dst.copy_from_slice(&bytes[..*size]);
            }
        }
        TypeRef::Array { elem, len } => {
            if let TypeRef::Struct(i) = &**elem {
                let size = made[&keys[*i as usize]].1;
                for k in 0..*len as usize {
                    fill_defaults(py, elem, offset + k * size, keys, made, template)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A stored type as Python sees it.
type Stored = (String, u32, u32, u32, u32, u64);

/// The stored type of a message described by `doc`: `(name, kind, size, align, elem_size,
/// layout_hash)`, what a Rust type with the same definition stores; None for a plain struct.
#[pyfunction]
pub(crate) fn stored_type_of(doc: &[u8]) -> PyResult<Option<Stored>> {
    guard("stored_type_of", || {
        let doc = TypeDoc::from_bytes(doc).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let root = doc.root();
        let (kind, elem_size) = match &root.kind {
            KindDoc::Struct => return Ok(None),
            KindDoc::Fixed => (nerve::msgs::MessageKind::Fixed, 0),
            KindDoc::Chunked(e) => (
                nerve::msgs::MessageKind::Chunked,
                doc.size_of(e, 0)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            ),
        };
        Ok(Some((
            root.name.clone(),
            kind as u32,
            root.size,
            root.align,
            elem_size,
            doc.hash(),
        )))
    })
}
