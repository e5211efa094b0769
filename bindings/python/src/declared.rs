//! Message classes from descriptions: a type declared in Python (`@nerve.message`) gets the
//! layout and the fingerprint that Rust's `#[derive(Message)]` gives the same definition
//! (`#[repr(C)]` offsets, no implicit padding, the same schema hash), and a topic joined by
//! name gets a class from the description it carries.

use std::collections::HashMap;

use nerve::msgs::declare::{Declaration, DeclareError, DeclaredKind, FieldSpec};
use nerve::msgs::described::{KindDoc, TypeDoc, TypeRef};
use nerve::MAX_FIXED_BYTES;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use crate::errors::guard;
use crate::layout::{kind_of, standard_key};

/// Most structs one description may make classes of.
const MAX_CLASSES: usize = 256;
use crate::structs::{build_class, standard_classes, template_of, Made};

/// A field's type from what Python declared: a kind string (`"f64"`, `"u32[3]"`,
/// `"text[32]"`), a nested class's description (bytes), or `(description, n)` for `n` of
/// them.
fn field_spec(spec: &Bound<'_, PyAny>) -> PyResult<FieldSpec> {
    if let Ok(kind) = spec.extract::<String>() {
        return Ok(FieldSpec::Kind(kind));
    }
    if let Ok(bytes) = spec.downcast::<PyBytes>() {
        let doc = TypeDoc::from_bytes(bytes.as_bytes())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        return Ok(FieldSpec::Doc(doc));
    }
    if let Ok(t) = spec.downcast::<PyTuple>() {
        if t.len() == 2 {
            let elem = field_spec(&t.get_item(0)?)?;
            let len: u32 = t.get_item(1)?.extract()?;
            if len > 0 {
                return Ok(FieldSpec::Array(Box::new(elem), len));
            }
        }
    }
    Err(PyTypeError::new_err(format!(
        "a field is a kind string, a message class's description or (description, n), got {}",
        spec.repr()?
    )))
}

/// The description of a type declared in Python: `kind` is `"fixed"` (a message),
/// `"struct"` (a plain struct other types nest) or `"chunked"` (a header whose messages
/// carry any number of `elem`); `fields` are `(name, type)` in order (see `field_spec`);
/// `ros2` the ROS 2 message it corresponds to (tools read it; not part of the fingerprint).
/// Fields are laid out as `#[repr(C)]` lays them out (`nerve::msgs::declare`); a gap Rust
/// would fill with implicit padding is an error naming the field and the `_pad` field to add.
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
        let mut specs = Vec::with_capacity(fields.len());
        for (fname, spec) in &fields {
            let spec = field_spec(spec)
                .map_err(|e| PyTypeError::new_err(format!("{name}.{fname}: {}", e.value(py))))?;
            specs.push((fname.clone(), spec));
        }
        let kind = match (kind, elem) {
            ("fixed", None) => DeclaredKind::Fixed,
            ("struct", None) => DeclaredKind::Struct,
            ("chunked", Some(e)) => DeclaredKind::Chunked(field_spec(&e)?),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "{name}: kind is 'fixed', 'struct' or 'chunked' (chunked with an element \
                     type), got {kind:?}"
                )))
            }
        };
        let decl = Declaration {
            name,
            kind,
            fields: specs,
            doc,
            ros2,
        };
        let made = nerve::msgs::declare::declare(&decl, &pad_field).map_err(|e| match e {
            DeclareError::Kind(s) => PyTypeError::new_err(s),
            DeclareError::Layout(s) => PyValueError::new_err(s),
        })?;
        Ok(PyBytes::new(py, &made.to_bytes()))
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
