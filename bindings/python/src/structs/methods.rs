//! What every message offers Python (`from_bytes`, `copy`, `==`, `hash`, pickling, the buffer
//! protocol, `repr`) and the crate's helpers over message classes.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use super::prim::infallible;
use super::spec::spec_of;
use super::storage::{new_of_type, Keep, Struct};
use crate::buffer::{fill_buffer, with_buffer};
use crate::errors::guard;

#[pymethods]
impl Struct {
    /// Message classes are built with their own `tp_new` (`message_new`); this one only
    /// answers `Struct(...)` and classes derived from `Struct` without a layout.
    #[new]
    #[classmethod]
    #[pyo3(signature = (**_fields))]
    fn new(cls: &Bound<'_, PyType>, _fields: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        guard("Struct.__new__", || {
            spec_of(cls)?;
            Err(PyTypeError::new_err(format!(
                "{} has no message layout: create a message class's instance",
                cls.name()?
            )))
        })
    }

    /// A message of this class from its bytes (a copy).
    #[classmethod]
    fn from_bytes<'py>(
        cls: &Bound<'py, PyType>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Struct.from_bytes", || {
            let spec = spec_of(cls)?;
            let size = spec.size;
            let s = with_buffer(data, |b| {
                if b.len() == size {
                    Ok(Struct::owned(b))
                } else {
                    Err(PyValueError::new_err(format!(
                        "{} is {size} bytes, got {}",
                        spec.name,
                        b.len()
                    )))
                }
            })??;
            // SAFETY: `cls` has a spec, so it is a message class derived from `Struct`.
            unsafe { new_of_type(cls.py(), cls, s) }
        })
    }

    /// The message's bytes, exactly as they cross the ring.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        guard("Struct.to_bytes", || Ok(PyBytes::new(py, self.bytes())))
    }

    /// A writable copy with its own bytes (of a view, a received header, ...).
    fn copy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        guard("Struct.copy", || {
            // SAFETY: `slf`'s class derives from `Struct`.
            unsafe { Struct::new_owned(slf.py(), &slf.get_type(), slf.get().bytes()) }
        })
    }

    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        guard("Struct.__copy__", || Self::copy(slf))
    }

    fn __deepcopy__<'py>(
        slf: &Bound<'py, Self>,
        _memo: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Struct.__deepcopy__", || Self::copy(slf))
    }

    /// Pickles as `(cls.from_bytes, (bytes,))`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        guard("Struct.__reduce__", || {
            let py = slf.py();
            let from = slf.get_type().getattr(intern!(py, "from_bytes"))?;
            let args = PyTuple::new(py, [PyBytes::new(py, slf.get().bytes())])?;
            PyTuple::new(py, [from, args.into_any()])
        })
    }

    /// True when the message views read-only shared memory (a received chunk's header).
    #[getter]
    fn readonly(&self) -> PyResult<bool> {
        guard("Struct.readonly", || Ok(self.is_readonly()))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        guard("Struct.__repr__", || {
            let spec = spec_of(&slf.get_type())?;
            let mut parts = Vec::new();
            for f in &spec.fields {
                if f.name.starts_with("_pad") {
                    continue;
                }
                parts.push(format!("{}={}", f.name, f.repr_value(slf)?.repr()?));
            }
            Ok(format!("{}({})", spec.name, parts.join(", ")))
        })
    }

    fn __richcmp__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        guard("Struct.__richcmp__", || {
            let py = slf.py();
            if !other.get_type().is(slf.get_type()) || !matches!(op, CompareOp::Eq | CompareOp::Ne)
            {
                return Ok(py.NotImplemented());
            }
            let same = slf.get().bytes() == other.downcast::<Struct>()?.get().bytes();
            Ok(
                infallible((same == matches!(op, CompareOp::Eq)).into_pyobject(py))
                    .to_owned()
                    .into_any()
                    .unbind(),
            )
        })
    }

    fn __hash__(slf: &Bound<'_, Self>) -> PyResult<isize> {
        guard("Struct.__hash__", || {
            let key = (
                slf.get_type().name()?,
                PyBytes::new(slf.py(), slf.get().bytes()),
            );
            key.into_pyobject(slf.py())?.hash()
        })
    }

    /// The buffer protocol: the struct's bytes (read-only for a received header).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: std::os::raw::c_int,
    ) -> PyResult<()> {
        guard("Struct.__getbuffer__", || {
            let s = slf.get();
            let (ptr, len, ro) = (s.base().cast_const(), s.size(), s.is_readonly());
            // A loan's header is exported by the loan's memory, which then counts the buffer
            // as a view of the loan (`lent.rs`); it keeps the bytes mapped as `slf` does.
            let owner = match s.loan() {
                Some(memory) => memory.bind(slf.py()).clone().into_any(),
                None => slf.clone().into_any(),
            };
            // SAFETY: `view` comes from the interpreter; the bytes live while `owner`
            // (referenced by the view) lives.
            unsafe { fill_buffer(&owner, view, ptr, len, ro, flags) }
        })
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}
}

/// The size of a message class's instances.
pub(crate) fn size_of(cls: &Bound<'_, PyType>) -> PyResult<usize> {
    Ok(spec_of(cls)?.size)
}

/// A `cls` (a message class) viewing the `available` bytes at `ptr`, kept valid by `keep`.
///
/// # Safety
/// `ptr..ptr + available` must stay valid while `keep` lives, and (unless `readonly` or a
/// closed loan's) be written by nobody else while the GIL is not held by its writer.
pub(crate) unsafe fn view_of<'py>(
    cls: &Bound<'py, PyType>,
    ptr: *mut u8,
    available: usize,
    readonly: bool,
    keep: Keep,
) -> PyResult<Bound<'py, PyAny>> {
    if !cls.is_subclass_of::<Struct>()? {
        return Err(PyTypeError::new_err(format!(
            "{} is not a nerve message class",
            cls.name()?
        )));
    }
    let spec = spec_of(cls)?;
    let size = spec.size;
    if size > available {
        return Err(PyValueError::new_err(format!(
            "{} is {size} bytes; the chunk's header holds {available}",
            spec.name
        )));
    }
    // SAFETY: per the contract; `cls` derives from `Struct` (checked above).
    unsafe {
        let view = Struct::view(ptr, size, readonly, keep);
        new_of_type(cls.py(), cls, view)
    }
}

/// Refuses a class that is not a message class (typed endpoints rely on its layout).
pub(crate) fn check_message_class(py: Python<'_>, cls: Option<&Py<PyType>>) -> PyResult<()> {
    match cls {
        Some(c) if !c.bind(py).is_subclass_of::<Struct>()? => Err(PyTypeError::new_err(format!(
            "{} is not a nerve message class",
            c.bind(py).name()?
        ))),
        _ => Ok(()),
    }
}
