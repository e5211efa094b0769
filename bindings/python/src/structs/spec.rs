//! A message class's layout (`Spec`) and the table that finds it from the class quickly.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyType};

use super::field::Field;
use crate::errors::guard;

/// A message class's layout: its fields, size and default bytes (Rust's `Default`).
#[pyclass(module = "nerve._nerve", frozen)]
pub(crate) struct Spec {
    pub(super) name: String,
    pub(super) size: usize,
    pub(super) align: usize,
    pub(super) template: Vec<u8>,
    /// Never changed after the class is built: the getset closures point at its elements.
    pub(super) fields: Vec<Field>,
    /// The fields' names, interned: keyword names at call sites are the same objects, so the
    /// lookup is a pointer comparison (string comparison as a fallback).
    pub(super) names: Vec<Py<PyString>>,
}

impl Spec {
    /// The field named `key` (a keyword of a message class's call).
    pub(super) fn field(&self, key: &Bound<'_, PyAny>) -> PyResult<&Field> {
        self.field_at(key).map(|i| &self.fields[i])
    }

    /// The index (declaration order) of the field named `key`.
    pub(super) fn field_at(&self, key: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Some(i) = self.names.iter().position(|n| n.is(key)) {
            return Ok(i);
        }
        let name = key.downcast::<PyString>()?.to_str()?;
        match self.fields.iter().position(|f| f.name == name) {
            Some(i) => Ok(i),
            None => {
                let known: Vec<&str> = self.fields.iter().map(|f| &*f.name).collect();
                Err(PyTypeError::new_err(format!(
                    "{}() has no field {name:?}; its fields: {}",
                    self.name,
                    known.join(", ")
                )))
            }
        }
    }
}

#[pymethods]
impl Spec {
    #[getter]
    fn name(&self) -> PyResult<&str> {
        guard("Spec.name", || Ok(self.name.as_str()))
    }
    #[getter]
    fn size(&self) -> PyResult<usize> {
        guard("Spec.size", || Ok(self.size))
    }
    #[getter]
    fn align(&self) -> PyResult<usize> {
        guard("Spec.align", || Ok(self.align))
    }
    /// `[(name, offset, kind)]` in declaration order.
    #[getter]
    fn fields(&self) -> PyResult<Vec<(String, usize, String)>> {
        guard("Spec.fields", || {
            Ok(self
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.offset, f.kind_name.clone()))
                .collect())
        })
    }
    /// The default bytes.
    #[getter]
    fn default<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        guard("Spec.default", || Ok(PyBytes::new(py, &self.template)))
    }
}

/// The specs of the standard message classes by type address, filled by `struct_classes`
/// (whose classes and specs are never freed): open addressing, a miss falls back to the
/// class attribute. `spec_of` runs for every message made; the attribute lookup through the
/// type's MRO cost as much as the rest of a small message's `tp_new`.
static SPECS: [SpecSlot; 512] = [const { SpecSlot::new() }; 512];

struct SpecSlot {
    ty: std::sync::atomic::AtomicUsize,
    spec: std::sync::atomic::AtomicPtr<Spec>,
}

impl SpecSlot {
    const fn new() -> Self {
        Self {
            ty: std::sync::atomic::AtomicUsize::new(0),
            spec: std::sync::atomic::AtomicPtr::new(std::ptr::null_mut()),
        }
    }
}

fn spec_home(ty: usize) -> usize {
    (ty >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55 // 9 bits: 0..512
}

/// Records `cls`'s spec. Both must live for the rest of the process.
pub(super) fn remember_spec(cls: &Bound<'_, PyType>, spec: &'static Spec) {
    use std::sync::atomic::Ordering;
    let ty = cls.as_ptr() as usize;
    for i in 0..SPECS.len() {
        let slot = &SPECS[(spec_home(ty) + i) % SPECS.len()];
        if slot.ty.load(Ordering::Relaxed) == 0 {
            // Writers hold the GIL (`struct_classes`), so no two race for a slot.
            slot.spec
                .store(std::ptr::from_ref(spec).cast_mut(), Ordering::Relaxed);
            // Release pairs with the Acquire in `remembered_spec`: a reader that sees `ty`
            // sees `spec` (stored first).
            slot.ty.store(ty, Ordering::Release);
            return;
        }
    }
    OVERFLOW
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((ty, std::ptr::from_ref(spec) as usize));
}

fn remembered_spec(cls: &Bound<'_, PyType>) -> Option<&'static Spec> {
    use std::sync::atomic::Ordering;
    let ty = cls.as_ptr() as usize;
    for i in 0..SPECS.len() {
        let slot = &SPECS[(spec_home(ty) + i) % SPECS.len()];
        // Acquire: pairs with the Release in `remember_spec`.
        match slot.ty.load(Ordering::Acquire) {
            0 => return None,
            t if t == ty => {
                // SAFETY: stored from a `&'static Spec` before `ty` was published.
                return Some(unsafe { &*slot.spec.load(Ordering::Relaxed) });
            }
            _ => {}
        }
    }
    None
}

/// Specs that did not fit `SPECS`, by type address (the classes' addresses and their leaked
/// specs', as `usize`).
static OVERFLOW: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());

/// The spec recorded for exactly this class.
fn registered(cls: &Bound<'_, PyType>) -> Option<&'static Spec> {
    if let Some(s) = remembered_spec(cls) {
        return Some(s);
    }
    let ty = cls.as_ptr() as usize;
    let overflow = OVERFLOW.lock().unwrap_or_else(|e| e.into_inner());
    overflow.iter().find(|(t, _)| *t == ty).map(|&(_, spec)| {
        // SAFETY: stored from a `&'static Spec` by `remember_spec`.
        unsafe { &*(spec as *const Spec) }
    })
}

/// The spec of a message class: the one recorded when nerve built it, or, for a Python
/// subclass of a message class, its nearest built base's (a subclass adds no storage, and
/// its getsets are the base's). Never the `_nerve_spec_` attribute itself: a program that set
/// another class's spec there would have the base's field offsets applied to a struct of
/// another size.
pub(super) fn spec_of<'py>(cls: &Bound<'py, PyType>) -> PyResult<&'static Spec> {
    if let Some(s) = registered(cls) {
        return Ok(s);
    }
    for base in cls.mro() {
        if let Ok(base) = base.downcast::<PyType>() {
            if let Some(s) = registered(base) {
                return Ok(s);
            }
        }
    }
    Err(PyTypeError::new_err(
        "nerve.Struct is the base of nerve's message classes: create a message \
         (nerve.CmdVel(...), nerve.Imu(), ...)",
    ))
}

/// [`spec_of`] (the name `tp_new` uses).
pub(super) fn spec_ref<'py>(cls: &Bound<'py, PyType>) -> PyResult<&'static Spec> {
    spec_of(cls)
}

/// The default bytes of a message class's instances.
pub(crate) fn template_of(cls: &Bound<'_, PyType>) -> PyResult<Vec<u8>> {
    Ok(spec_of(cls)?.template.clone())
}
