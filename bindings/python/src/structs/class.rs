//! The class machinery: every message class built at import as a C-level type with a native
//! `tp_new` and one getset descriptor per field.

use std::collections::HashMap;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::impl_::pyclass_init::PyObjectInit;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use pyo3::PyClassInitializer;

use super::field::{Field, Kind};
use super::prim::Prim;
use super::spec::{remember_spec, spec_ref, Spec};
use super::storage::Struct;
use crate::errors::guard;
use crate::layout::all_structs;

/// The classes made so far by key (a standard class name, or a key a description gives its
/// structs), with their sizes: what a field of a later class may nest.
pub(crate) type Made = HashMap<String, (Py<PyType>, usize)>;

/// The standard classes, once `struct_classes` has built them (classes made from
/// descriptions nest them).
static STANDARD: PyOnceLock<Made> = PyOnceLock::new();

/// The standard message classes by name (empty before `struct_classes` ran).
pub(crate) fn standard_classes(py: Python<'_>) -> Made {
    STANDARD.get(py).map_or_else(HashMap::new, |m| {
        m.iter()
            .map(|(k, (c, n))| (k.clone(), (c.clone_ref(py), *n)))
            .collect()
    })
}

/// Builds every standard message class, dependencies first: `[(name, class)]`. Once per
/// process (a second call returns the same classes).
#[pyfunction]
pub(crate) fn struct_classes(py: Python<'_>) -> PyResult<Vec<(String, Py<PyType>)>> {
    guard("struct_classes", || {
        let mut made = Made::new();
        let mut out = Vec::new();
        if let Some(done) = STANDARD.get(py) {
            for (name, ..) in all_structs() {
                out.push((name.clone(), done[&name].0.clone_ref(py)));
            }
            return Ok(out);
        }
        for (name, size, align, fields, default) in all_structs() {
            let cls = build_class(py, &name, size, align, fields, default, None, &made)?;
            if let Some(doc) = crate::layout::standard_doc(&name) {
                cls.setattr("_nerve_doc_", pyo3::types::PyBytes::new(py, &doc))?;
            }
            made.insert(name.clone(), (cls.clone().unbind(), size));
            out.push((name, cls.unbind()));
        }
        let _ = STANDARD.set(py, made);
        Ok(out)
    })
}

/// Builds the message class `name` (a `Struct` subclass) of `size` bytes with these fields
/// (`(name, offset, kind)`, nested kinds found in `made`), whose instances start as
/// `template`, with `defaults` (field → value) written over it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_class<'py>(
    py: Python<'py>,
    name: &str,
    size: usize,
    align: usize,
    fields: Vec<(String, usize, String)>,
    mut template: Vec<u8>,
    defaults: Option<&Bound<'py, PyDict>>,
    made: &Made,
) -> PyResult<Bound<'py, PyType>> {
    let base = py.get_type::<Struct>();
    if template.len() != size {
        return Err(PyValueError::new_err(format!(
            "nerve: {name}'s default is {} bytes, not {size}",
            template.len()
        )));
    }
    let mut fs = Vec::new();
    let mut names = Vec::new();
    for (f, off, kind_name) in fields {
        let kind = parse_kind(py, &f, &kind_name, made)?;
        if off + kind.size() > size {
            return Err(PyValueError::new_err(format!(
                "nerve: {name}.{f} lies outside the struct"
            )));
        }
        let key = PyString::intern(py, &f);
        fs.push(Field {
            owner: name.to_owned(),
            name: f,
            offset: off,
            kind_name,
            kind,
        });
        names.push(key.unbind());
    }
    let mut spec = Spec {
        name: name.to_owned(),
        size,
        align,
        template: Vec::new(),
        fields: fs,
        names,
    };
    if let Some(defaults) = defaults {
        for (k, v) in defaults.iter() {
            // SAFETY: `template` holds the struct's `size` bytes (checked above), owned here.
            unsafe { spec.field(&k)?.set(template.as_mut_ptr(), &v)? };
        }
    }
    spec.template = template;
    let spec = Py::new(py, spec)?;
    let cls = make_class(py, &base, name, size, &spec)?;
    cls.setattr("_nerve_spec_", &spec)?;
    // The class lives for ever (one leaked reference), as does its spec (`make_class`).
    std::mem::forget(cls.clone());
    // SAFETY: the spec is leaked by `make_class`.
    remember_spec(&cls, unsafe { &*std::ptr::from_ref(spec.get()) });
    Ok(cls)
}

fn parse_kind(py: Python<'_>, field: &str, kind: &str, made: &Made) -> PyResult<Kind> {
    let bad = || PyValueError::new_err(format!("nerve: {field} has a bad kind {kind}"));
    if let Some(p) = Prim::parse(kind) {
        return Ok(Kind::Prim(p));
    }
    if let Some((base, n)) = kind.strip_suffix(']').and_then(|k| k.split_once('[')) {
        let n: usize = n.parse().map_err(|_| bad())?;
        if base == "text" {
            return Ok(Kind::Frame(n));
        }
        if let Some(p) = Prim::parse(base) {
            return Ok(Kind::Array(p, n));
        }
        return match made.get(base) {
            Some((cls, size)) => Ok(Kind::Structs(cls.clone_ref(py), *size, n)),
            None => Err(bad()),
        };
    }
    match made.get(kind) {
        Some((cls, size)) => Ok(Kind::Nested(cls.clone_ref(py), *size)),
        None => Err(PyValueError::new_err(format!(
            "nerve: {field} has kind {kind}, which is not described before it"
        ))),
    }
}

/// Runs a C-level slot body (`op` names it): the GIL is held (the interpreter calls slots with
/// it), errors are raised as Python exceptions and a panic becomes `InternalError` (`guard`),
/// never unwinding into the interpreter.
///
/// # Safety
/// Must be called from a slot function, with the GIL held.
unsafe fn slot<R>(err: R, op: &'static str, body: impl FnOnce(Python<'_>) -> PyResult<R>) -> R {
    // SAFETY: the interpreter holds the GIL while it calls slot functions.
    let py = unsafe { Python::assume_attached() };
    match guard(op, || body(py)) {
        Ok(r) => r,
        Err(e) => {
            e.restore(py);
            err
        }
    }
}

/// `tp_new` of every message class: `Message(field=value, ...)` or `Message(value, ...)` (the
/// fields in declaration order; keywords may follow for later fields) without the argument
/// parsing of a generic `#[new]` (that copies the keywords into a second dict; this reads the
/// interpreter's dict in place). Rust's defaults for the fields not given. Positional values
/// spare the call its keyword dict (~100 ns of a small message's ~160 ns here).
unsafe extern "C" fn message_new(
    subtype: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwds: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: called by the interpreter as `tp_new`, with the GIL held.
    unsafe {
        slot(std::ptr::null_mut(), "message class __new__", |py| {
            let cls =
                Bound::from_borrowed_ptr(py, subtype.cast()).downcast_into_unchecked::<PyType>();
            let spec = spec_ref(&cls)?;
            let s = Struct::owned(&spec.template);
            let given = if args.is_null() {
                0
            } else {
                let args = Bound::from_borrowed_ptr(py, args).downcast_into_unchecked::<PyTuple>();
                if args.len() > spec.fields.len() {
                    return Err(PyTypeError::new_err(format!(
                        "{}() takes at most {} positional arguments (its fields in order: {}), \
                         got {}",
                        spec.name,
                        spec.fields.len(),
                        field_list(spec),
                        args.len()
                    )));
                }
                for (field, value) in spec.fields.iter().zip(args.iter_borrowed()) {
                    // `s` owns its fresh bytes; nothing else references them yet.
                    field.set(s.base(), &value)?;
                }
                args.len()
            };
            if !kwds.is_null() {
                let mut pos: ffi::Py_ssize_t = 0;
                let mut k: *mut ffi::PyObject = std::ptr::null_mut();
                let mut v: *mut ffi::PyObject = std::ptr::null_mut();
                // PyDict_Next hands out borrowed references, valid while the dict is unchanged
                // (nothing here changes it).
                while ffi::PyDict_Next(kwds, &mut pos, &mut k, &mut v) != 0 {
                    let key = Bound::from_borrowed_ptr(py, k);
                    let value = Bound::from_borrowed_ptr(py, v);
                    let i = spec.field_at(&key)?;
                    if i < given {
                        return Err(PyTypeError::new_err(format!(
                            "{}() got field {:?} both by position and by keyword",
                            spec.name, spec.fields[i].name
                        )));
                    }
                    // `s` owns its fresh bytes; nothing else references them yet.
                    spec.fields[i].set(s.base(), &value)?;
                }
            }
            // `subtype` is a message class (this slot is only installed on them), laid out
            // as a `Struct`.
            PyClassInitializer::from(s).into_new_object(py, subtype)
        })
    }
}

/// `a, b, c`: a class's field names in declaration order.
fn field_list(spec: &Spec) -> String {
    let names: Vec<&str> = spec.fields.iter().map(|f| &*f.name).collect();
    names.join(", ")
}

/// A field's getter (`closure` is its `Field`, owned by the class's spec).
unsafe extern "C" fn field_get(
    obj: *mut ffi::PyObject,
    closure: *mut std::os::raw::c_void,
) -> *mut ffi::PyObject {
    // SAFETY: called by the interpreter's getset descriptor with the GIL held, on an instance
    // of the class that owns the descriptor (it checks), so `obj` is a `Struct`; `closure` was
    // set to the field, which the class keeps alive.
    unsafe {
        slot(std::ptr::null_mut(), "message field get", |py| {
            let field = &*closure.cast::<Field>();
            let obj = Bound::from_borrowed_ptr(py, obj);
            field
                .get(obj.downcast_unchecked::<Struct>())
                .map(Bound::into_ptr)
        })
    }
}

/// A field's setter (`closure` is its `Field`); `value` is null for `del`.
unsafe extern "C" fn field_set(
    obj: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
    closure: *mut std::os::raw::c_void,
) -> std::os::raw::c_int {
    // SAFETY: as in `field_get`; a writable struct's bytes are only touched through raw
    // pointers with the GIL held.
    unsafe {
        slot(-1, "message field set", |py| {
            let field = &*closure.cast::<Field>();
            let obj = Bound::from_borrowed_ptr(py, obj);
            let s = obj.downcast_unchecked::<Struct>().get();
            if value.is_null() {
                return Err(PyTypeError::new_err(format!(
                    "{}.{} is a message field: it cannot be deleted",
                    field.owner, field.name
                )));
            }
            s.check_writable(&field.owner, &field.name)?;
            field.set(s.base(), &Bound::from_borrowed_ptr(py, value))?;
            Ok(0)
        })
    }
}

/// Creates the message class `name`, derived from `Struct`, with a native `tp_new` and one
/// getset descriptor per field.
///
/// The type's name, docstring, getset table and spec are leaked: the interpreter keeps
/// pointers to them for the life of the class, and the classes are made once per process.
fn make_class<'py>(
    py: Python<'py>,
    base: &Bound<'py, PyType>,
    name: &str,
    size: usize,
    spec: &Py<Spec>,
) -> PyResult<Bound<'py, PyType>> {
    let leak = |s: String| -> *const std::os::raw::c_char {
        std::ffi::CString::new(s)
            .expect("names have no NUL")
            .into_raw()
            .cast_const()
    };
    let mut getsets: Vec<ffi::PyGetSetDef> = spec
        .get()
        .fields
        .iter()
        .map(|field| ffi::PyGetSetDef {
            name: leak(field.name.clone()),
            get: Some(field_get),
            set: Some(field_set),
            doc: leak(format!("{} at byte {}", field.kind_name, field.offset)),
            closure: (field as *const Field).cast_mut().cast(),
        })
        .collect();
    getsets.push(ffi::PyGetSetDef::default());
    // The getset closures point into the spec's fields: keep them for ever, whatever happens
    // to the class's `_nerve_spec_` attribute.
    std::mem::forget(spec.clone_ref(py));
    let getsets = Box::leak(getsets.into_boxed_slice());
    let mut slots = [
        ffi::PyType_Slot {
            slot: ffi::Py_tp_new,
            pfunc: message_new as *mut std::os::raw::c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_getset,
            pfunc: getsets.as_mut_ptr().cast(),
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_doc,
            pfunc: leak(format!(
                "nerve's {name}: {size} bytes, the layout of Rust's `nerve::msgs::{name}`. \
                 Create with keywords, or with values in field order; fields left out keep \
                 Rust's defaults."
            ))
            .cast_mut()
            .cast(),
        },
        ffi::PyType_Slot {
            slot: 0,
            pfunc: std::ptr::null_mut(),
        },
    ];
    let mut type_spec = ffi::PyType_Spec {
        name: leak(format!("nerve.msgs.{name}")),
        // Inherit `Struct`'s instance size: message classes add no storage.
        basicsize: 0,
        itemsize: 0,
        flags: (ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE) as std::os::raw::c_uint,
        slots: slots.as_mut_ptr(),
    };
    let bases = PyTuple::new(py, [base])?;
    // SAFETY: the spec, its slots and everything they point at are valid for the call (the
    // name, docstring and getsets for ever, leaked above); `bases` is a tuple holding the
    // `Struct` type. The getset closures point at `Field`s owned by `spec`, leaked above.
    let t = unsafe { ffi::PyType_FromSpecWithBases(&mut type_spec, bases.as_ptr()) };
    if t.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: a new reference to a type object.
    Ok(unsafe { Bound::from_owned_ptr(py, t).downcast_into_unchecked::<PyType>() })
}
