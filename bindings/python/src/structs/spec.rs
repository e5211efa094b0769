//! A message class's layout (`Spec`) and the table that finds it from the class quickly.

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
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
        if let Some(i) = self.names.iter().position(|n| n.is(key)) {
            return Ok(&self.fields[i]);
        }
        let name = key.downcast::<PyString>()?.to_str()?;
        match self.fields.iter().find(|f| f.name == name) {
            Some(f) => Ok(f),
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

/// The spec of a message class (`_nerve_spec_`).
pub(super) fn spec_ref<'py>(cls: &Bound<'py, PyType>) -> PyResult<&'py Spec> {
    if let Some(s) = remembered_spec(cls) {
        return Ok(s);
    }
    let spec = spec_of(cls)?;
    // SAFETY: specs are never freed: each one made by `struct_classes` is leaked (and a
    // class's attribute holds its spec while the class lives; a caller holds the class).
    Ok(unsafe { &*std::ptr::from_ref(spec.get()) })
}

pub(super) fn spec_of<'py>(cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, Spec>> {
    match cls.getattr(intern!(cls.py(), "_nerve_spec_")) {
        Ok(s) => Ok(s.downcast_into::<Spec>()?),
        Err(_) => Err(PyTypeError::new_err(
            "nerve.Struct is the base of nerve's message classes: create a message \
             (nerve.CmdVel(...), nerve.Imu(), ...)",
        )),
    }
}

/// The default bytes of a message class's instances.
pub(crate) fn template_of(cls: &Bound<'_, PyType>) -> PyResult<Vec<u8>> {
    Ok(spec_ref(cls)?.template.clone())
}
