//! One field of a message class: where it lies, what it holds, and how Python reads and
//! writes it.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyList, PyString, PyType};

use super::prim::Prim;
use super::storage::{new_of_type, Keep, Struct};

/// What a field holds.
pub(super) enum Kind {
    Prim(Prim),
    /// `[T; N]`, read as a numpy view.
    Array(Prim, usize),
    /// A NUL-padded UTF-8 name of at most `N - 1` bytes.
    Frame(usize),
    /// A nested struct of this class and size.
    Nested(Py<PyType>, usize),
    /// A fixed array of `N` structs of this class and size, read as a tuple of views.
    Structs(Py<PyType>, usize, usize),
}

impl Kind {
    pub(super) fn size(&self) -> usize {
        match self {
            Kind::Prim(p) => p.size(),
            Kind::Array(p, n) => p.size() * n,
            Kind::Frame(n) => *n,
            Kind::Nested(_, n) => *n,
            Kind::Structs(_, size, n) => size * n,
        }
    }
}

/// One field of a message class: where it lies and what it holds. The class reads and writes
/// it through a getset descriptor whose closure is this `Field` (in the class's spec, which is
/// never changed nor freed, so its address never changes).
pub(super) struct Field {
    pub(super) owner: String,
    pub(super) name: String,
    pub(super) offset: usize,
    pub(super) kind_name: String,
    pub(super) kind: Kind,
}

/// `numpy.ndarray`, looked up once.
static NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

impl Field {
    /// The field's value in the struct whose bytes start at `base`; `obj` is that struct
    /// (nested views and arrays keep it alive).
    pub(super) fn get<'py>(&self, obj: &Bound<'py, Struct>) -> PyResult<Bound<'py, PyAny>> {
        let py = obj.py();
        let s = obj.get();
        // SAFETY: `offset + kind.size() <= s.size()` (checked when the class was built) and the
        // struct's bytes stay valid while `obj` lives.
        let p = unsafe { s.base().add(self.offset) };
        match &self.kind {
            // SAFETY: see above.
            Kind::Prim(t) => Ok(unsafe { t.read(py, p) }),
            Kind::Frame(n) => {
                // SAFETY: see above.
                let bytes = unsafe { std::slice::from_raw_parts(p, *n) };
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                Ok(PyString::new(py, &String::from_utf8_lossy(&bytes[..end])).into_any())
            }
            Kind::Array(t, n) => {
                if let Some(memory) = s.loan() {
                    // A loan's header: an array of the loan's memory, closed with the loan.
                    let size = t.size() * n;
                    // SAFETY: the field's bytes lie within the header (checked when the class
                    // was built), which lies in the loan's chunk, kept mapped by `memory`.
                    return unsafe {
                        crate::lent::array_of(memory.bind(py), p, size, &[*n as isize], t.typestr())
                    };
                }
                let ndarray = NDARRAY.get_or_try_init(py, || {
                    py.import("numpy")?.getattr("ndarray").map(Bound::unbind)
                })?;
                // Shares the struct's buffer (writable unless the struct is read-only).
                ndarray
                    .bind(py)
                    .call1(((*n,), t.typestr(), obj, self.offset))
            }
            Kind::Structs(cls, size, n) => {
                let items = (0..*n)
                    .map(|i| {
                        let keep = Keep::Struct(obj.clone().unbind());
                        // SAFETY: as for `Nested`: element `i`'s bytes lie within the field.
                        unsafe {
                            let view =
                                Struct::view(p.add(i * size), *size, s.made_readonly(), keep);
                            new_of_type(py, cls.bind(py), view)
                        }
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(pyo3::types::PyTuple::new(py, items)?.into_any())
            }
            Kind::Nested(cls, size) => {
                let keep = Keep::Struct(obj.clone().unbind());
                // SAFETY: the nested struct's `size` bytes lie within its parent's (checked
                // when the class was built), valid while the parent, kept by the view, lives;
                // the view is read-only exactly when the parent is (made so, or a closed
                // loan's, which it looks up through the parent). Nested classes are message
                // classes, built from `Struct`.
                unsafe {
                    let view = Struct::view(p, *size, s.made_readonly(), keep);
                    new_of_type(py, cls.bind(py), view)
                }
            }
        }
    }

    /// Writes `value` into the field of the struct whose bytes start at `base`; nothing is
    /// written on error.
    ///
    /// # Safety
    /// `base` must point at the struct's bytes (at least `offset + size` of them), writable,
    /// and referenced only through raw pointers while the GIL is held.
    pub(super) unsafe fn set(&self, base: *mut u8, value: &Bound<'_, PyAny>) -> PyResult<()> {
        // SAFETY: per the contract.
        let p = unsafe { base.add(self.offset) };
        let r = match &self.kind {
            // SAFETY: per the contract.
            Kind::Prim(t) => unsafe { t.write(value, p) },
            Kind::Frame(n) => self.set_frame(p, *n, value),
            Kind::Array(t, n) => self.set_array(p, *t, *n, value),
            Kind::Structs(cls, size, n) => self.set_structs(p, cls, *size, *n, value),
            Kind::Nested(cls, size) => {
                let py = value.py();
                if !value.get_type().is(cls.bind(py)) {
                    return Err(PyTypeError::new_err(format!(
                        "{}.{} is a {}, got a {}",
                        self.owner,
                        self.name,
                        cls.bind(py).name()?,
                        value.get_type().name()?
                    )));
                }
                let src = value.downcast::<Struct>()?.get();
                // SAFETY: `src` holds `size` bytes (same class); `copy` allows the overlap of
                // `m.header = m.header`.
                unsafe { std::ptr::copy(src.base(), p, *size) };
                Ok(())
            }
        };
        r.map_err(|e| {
            let py = value.py();
            PyErr::from_type(
                e.get_type(py),
                format!("{}.{}: {}", self.owner, self.name, e.value(py)),
            )
        })
    }

    fn set_frame(&self, p: *mut u8, n: usize, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let raw: Vec<u8> = if let Ok(s) = value.downcast::<PyString>() {
            s.to_str()?.as_bytes().to_vec()
        } else if let Ok(b) = value.downcast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else {
            return Err(PyTypeError::new_err(format!(
                "a frame name is a str, got a {}",
                value.get_type().name()?
            )));
        };
        if raw.len() >= n || raw.contains(&0) {
            return Err(PyValueError::new_err(format!(
                "frame name {} is {} bytes; at most {} bytes without NUL fit (names are never \
                 truncated)",
                value.repr()?,
                raw.len(),
                n - 1
            )));
        }
        let mut padded = vec![0u8; n];
        padded[..raw.len()].copy_from_slice(&raw);
        // SAFETY: `p` points at the field's `n` writable bytes (caller's contract).
        unsafe { std::ptr::copy_nonoverlapping(padded.as_ptr(), p, n) };
        Ok(())
    }

    fn set_array(&self, p: *mut u8, t: Prim, n: usize, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let got = value.len()?;
        if got != n {
            return Err(PyValueError::new_err(format!(
                "takes {n} values, got {got}"
            )));
        }
        // Converted into a scratch buffer first: a bad element leaves the field unchanged.
        let mut tmp = vec![0u8; n * t.size()];
        for (i, item) in value.try_iter()?.enumerate().take(n) {
            // SAFETY: `tmp` holds `n` elements of `t.size()` bytes.
            unsafe { t.write(&item?, tmp.as_mut_ptr().add(i * t.size()))? };
        }
        // SAFETY: `p` points at the field's `n * t.size()` writable bytes (caller's contract).
        unsafe { std::ptr::copy_nonoverlapping(tmp.as_ptr(), p, tmp.len()) };
        Ok(())
    }

    fn set_structs(
        &self,
        p: *mut u8,
        cls: &Py<PyType>,
        size: usize,
        n: usize,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let py = value.py();
        let got = value.len()?;
        if got != n {
            return Err(PyValueError::new_err(format!(
                "takes {n} {}, got {got}",
                cls.bind(py).name()?
            )));
        }
        // Checked and gathered first: a bad element leaves the field unchanged.
        let mut tmp = vec![0u8; n * size];
        for (i, item) in value.try_iter()?.enumerate().take(n) {
            let item = item?;
            if !item.get_type().is(cls.bind(py)) {
                return Err(PyTypeError::new_err(format!(
                    "item {i} is a {}, not a {}",
                    item.get_type().name()?,
                    cls.bind(py).name()?
                )));
            }
            let src = item.downcast::<Struct>()?.get();
            // SAFETY: `src` holds `size` bytes (same class); `tmp` has room for element `i`.
            unsafe {
                std::ptr::copy_nonoverlapping(src.base(), tmp.as_mut_ptr().add(i * size), size)
            };
        }
        // SAFETY: `p` points at the field's `n * size` writable bytes (caller's contract).
        unsafe { std::ptr::copy_nonoverlapping(tmp.as_ptr(), p, tmp.len()) };
        Ok(())
    }

    /// The value for `repr`: arrays as lists (a numpy repr would wrap).
    pub(super) fn repr_value<'py>(&self, obj: &Bound<'py, Struct>) -> PyResult<Bound<'py, PyAny>> {
        if let Kind::Array(t, n) = &self.kind {
            let py = obj.py();
            // SAFETY: as in `get`.
            let p = unsafe { obj.get().base().add(self.offset) };
            let items = (0..*n)
                // SAFETY: element `i` lies within the field.
                .map(|i| unsafe { t.read(py, p.add(i * t.size())) })
                .collect::<Vec<_>>();
            return Ok(PyList::new(py, items)?.into_any());
        }
        self.get(obj)
    }
}
