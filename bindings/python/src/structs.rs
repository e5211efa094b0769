//! Standard messages as native Python classes.
//!
//! Every fixed message and every chunk header is a Python class deriving from
//! `_nerve.Struct`, built at import from the Rust layout ([`crate::layout`]). An instance holds
//! the exact bytes of the Rust `#[repr(C)]` struct, so sending is one memcpy and receiving one
//! allocation and one memcpy. The classes are C-level types (`PyType_FromSpecWithBases`) with
//! their own `tp_new` (keywords read in place) and one getset descriptor per field ([`Field`])
//! reading and writing those bytes:
//! - numbers read as `int`/`float` and are range- and type-checked when written;
//! - a nested struct (`imu.header`) is a *view* sharing its parent's bytes, so
//!   `imu.header.stamp_ns = t` changes `imu` (and keeps `imu` alive);
//! - fixed arrays (`imu.orientation_covariance`) read as numpy views of the same bytes and are
//!   written from any sequence of the right length;
//! - frame names (`frame_id`, `child_frame_id`) read and write as `str`.
//!
//! A struct can also view a chunk's header in shared memory (a loan being filled, a received
//! sample, read-only); the view keeps the chunk mapped.
//!
//! Measured on the project VM (Python 3.11): `CmdVel(stamp_ns=.., linear=.., angular=..)`
//! ~0.2 µs against ~1.2 µs for the ctypes structs this replaces; `Imu()` with three nested
//! fields set ~0.5 µs against ~4.7 µs.

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::convert::Infallible;
use std::ptr::NonNull;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::impl_::pyclass_init::PyObjectInit;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use pyo3::{intern, PyClassInitializer};

use crate::layout::all_structs;

/// A number field's type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prim {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

fn infallible<T>(r: Result<T, Infallible>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => match e {},
    }
}

impl Prim {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "u8" => Self::U8,
            "u16" => Self::U16,
            "u32" => Self::U32,
            "u64" => Self::U64,
            "i8" => Self::I8,
            "i16" => Self::I16,
            "i32" => Self::I32,
            "i64" => Self::I64,
            "f32" => Self::F32,
            "f64" => Self::F64,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 => 2,
            Self::U32 | Self::I32 | Self::F32 => 4,
            Self::U64 | Self::I64 | Self::F64 => 8,
        }
    }

    /// numpy's type string (little-endian: the only byte order nerve runs on).
    fn typestr(self) -> &'static str {
        match self {
            Self::U8 => "<u1",
            Self::U16 => "<u2",
            Self::U32 => "<u4",
            Self::U64 => "<u8",
            Self::I8 => "<i1",
            Self::I16 => "<i2",
            Self::I32 => "<i4",
            Self::I64 => "<i8",
            Self::F32 => "<f4",
            Self::F64 => "<f8",
        }
    }

    /// Reads the number at `p`.
    ///
    /// # Safety
    /// `p` must point at `self.size()` readable bytes.
    unsafe fn read<'py>(self, py: Python<'py>, p: *const u8) -> Bound<'py, PyAny> {
        macro_rules! rd {
            ($t:ty) => {{
                // SAFETY: per the contract; fields need not be aligned in a view.
                let v = unsafe { p.cast::<$t>().read_unaligned() };
                infallible(v.into_pyobject(py)).into_any()
            }};
        }
        match self {
            Self::U8 => rd!(u8),
            Self::U16 => rd!(u16),
            Self::U32 => rd!(u32),
            Self::U64 => rd!(u64),
            Self::I8 => rd!(i8),
            Self::I16 => rd!(i16),
            Self::I32 => rd!(i32),
            Self::I64 => rd!(i64),
            Self::F32 => rd!(f32),
            Self::F64 => rd!(f64),
        }
    }

    /// Converts `v` (an `int` for integer fields, out-of-range refused; any real number for
    /// float fields) and writes it at `p`. Nothing is written on error.
    ///
    /// # Safety
    /// `p` must point at `self.size()` writable bytes that nothing else references.
    unsafe fn write(self, v: &Bound<'_, PyAny>, p: *mut u8) -> PyResult<()> {
        macro_rules! wr {
            ($t:ty) => {{
                let x: $t = v.extract()?;
                // SAFETY: per the contract; fields need not be aligned in a view.
                unsafe { p.cast::<$t>().write_unaligned(x) };
            }};
        }
        match self {
            Self::U8 => wr!(u8),
            Self::U16 => wr!(u16),
            Self::U32 => wr!(u32),
            Self::U64 => wr!(u64),
            Self::I8 => wr!(i8),
            Self::I16 => wr!(i16),
            Self::I32 => wr!(i32),
            Self::I64 => wr!(i64),
            Self::F32 => wr!(f32),
            Self::F64 => wr!(f64),
        }
        Ok(())
    }
}

/// What a field holds.
enum Kind {
    Prim(Prim),
    /// `[T; N]`, read as a numpy view.
    Array(Prim, usize),
    /// A NUL-padded UTF-8 name of at most `N - 1` bytes.
    Frame(usize),
    /// A nested struct of this class and size.
    Nested(Py<PyType>, usize),
}

impl Kind {
    fn size(&self) -> usize {
        match self {
            Kind::Prim(p) => p.size(),
            Kind::Array(p, n) => p.size() * n,
            Kind::Frame(n) => *n,
            Kind::Nested(_, n) => *n,
        }
    }
}

/// One field of a message class: where it lies and what it holds. The class reads and writes
/// it through a getset descriptor whose closure is this `Field` (in the class's spec, which is
/// never changed nor freed, so its address never changes).
pub struct Field {
    owner: String,
    name: String,
    offset: usize,
    kind_name: String,
    kind: Kind,
}

/// `numpy.ndarray`, looked up once.
static NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

impl Field {
    /// The field's value in the struct whose bytes start at `base`; `obj` is that struct
    /// (nested views and arrays keep it alive).
    fn get<'py>(&self, obj: &Bound<'py, Struct>) -> PyResult<Bound<'py, PyAny>> {
        let py = obj.py();
        let s = obj.get();
        // SAFETY: `offset + kind.size() <= s.size` (checked when the class was built) and the
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
                let ndarray = NDARRAY.get_or_try_init(py, || {
                    py.import("numpy")?.getattr("ndarray").map(Bound::unbind)
                })?;
                // Shares the struct's buffer (writable unless the struct is read-only).
                ndarray
                    .bind(py)
                    .call1(((*n,), t.typestr(), obj, self.offset))
            }
            Kind::Nested(cls, size) => {
                let view = Struct {
                    ptr: NonNull::new(p).expect("inside a live struct"),
                    size: *size,
                    readonly: s.readonly,
                    _keep: Keep::Parent(obj.clone().into_any().unbind()),
                    inline: UnsafeCell::new([0; INLINE_BYTES / 8]),
                };
                // SAFETY: nested classes are message classes, built from `Struct`.
                unsafe { new_of_type(py, cls.bind(py), view) }
            }
        }
    }

    /// Writes `value` into the field of the struct whose bytes start at `base`; nothing is
    /// written on error.
    ///
    /// # Safety
    /// `base` must point at the struct's bytes (at least `offset + size` of them), writable,
    /// and referenced only through raw pointers while the GIL is held.
    unsafe fn set(&self, base: *mut u8, value: &Bound<'_, PyAny>) -> PyResult<()> {
        // SAFETY: per the contract.
        let p = unsafe { base.add(self.offset) };
        let r = match &self.kind {
            // SAFETY: per the contract.
            Kind::Prim(t) => unsafe { t.write(value, p) },
            Kind::Frame(n) => self.set_frame(p, *n, value),
            Kind::Array(t, n) => self.set_array(p, *t, *n, value),
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

    /// The value for `repr`: arrays as lists (a numpy repr would wrap).
    fn repr_value<'py>(&self, obj: &Bound<'py, Struct>) -> PyResult<Bound<'py, PyAny>> {
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

/// A message class's layout: its fields, size and default bytes (Rust's `Default`).
#[pyclass(module = "nerve._nerve", frozen)]
pub struct Spec {
    name: String,
    size: usize,
    align: usize,
    template: Vec<u8>,
    /// Never changed after the class is built: the getset closures point at its elements.
    fields: Vec<Field>,
    /// The fields' names, interned: keyword names at call sites are the same objects, so the
    /// lookup is a pointer comparison (string comparison as a fallback).
    names: Vec<Py<PyString>>,
}

impl Spec {
    fn field(&self, key: &Bound<'_, PyAny>) -> PyResult<&Field> {
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
    fn name(&self) -> &str {
        &self.name
    }
    #[getter]
    fn size(&self) -> usize {
        self.size
    }
    #[getter]
    fn align(&self) -> usize {
        self.align
    }
    /// `[(name, offset, kind)]` in declaration order.
    #[getter]
    fn fields(&self) -> Vec<(String, usize, String)> {
        self.fields
            .iter()
            .map(|f| (f.name.clone(), f.offset, f.kind_name.clone()))
            .collect()
    }
    /// The default bytes.
    #[getter]
    fn default<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.template)
    }
}

/// What keeps a struct's bytes alive.
enum Keep {
    /// They are `Struct::inline` (an owned struct of at most `INLINE_BYTES`: most fixed
    /// messages, such as CmdVel or Twist, need no allocation of their own).
    Inline,
    /// Its own 8-aligned allocation (`Box<[u64]>` of this many words, freed on drop).
    Heap(usize),
    /// A parent struct (nested view) or a chunk (`Loan`, `Sample`) that keeps the memory
    /// mapped.
    Parent(#[allow(dead_code)] Py<PyAny>),
}

/// Base of every nerve message class: the struct's bytes, owned or viewed.
#[pyclass(module = "nerve._nerve", subclass, frozen)]
pub struct Struct {
    /// The bytes, unless `Keep::Inline` (then dangling: see `base`).
    ptr: NonNull<u8>,
    size: usize,
    readonly: bool,
    _keep: Keep,
    /// The bytes of a `Keep::Inline` struct. Their address is only taken once the struct is
    /// in its Python object (which never moves), by `base`.
    inline: UnsafeCell<[u64; INLINE_BYTES / 8]>,
}

/// Owned structs up to this size keep their bytes inside their Python object.
const INLINE_BYTES: usize = 64;

// SAFETY: the bytes (behind `ptr`, or in `inline`'s cell) are only read or written with the
// GIL held (every access is a Python method or descriptor call; the publisher copies them
// before releasing the GIL), like a `bytearray`'s, and what keeps them alive (`Keep`) is itself
// Send + Sync.
unsafe impl Send for Struct {}
// SAFETY: as above.
unsafe impl Sync for Struct {}

impl Drop for Struct {
    fn drop(&mut self) {
        if let Keep::Heap(words) = self._keep {
            // SAFETY: `ptr` came from `Box::into_raw` of a `[u64]` of `words` elements
            // (`owned`), freed only here.
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.ptr.as_ptr().cast::<u64>(),
                    words,
                ))
            });
        }
    }
}

/// Creates an instance of `cls` holding `value`.
///
/// # Safety
/// `cls` must be `Struct` or a class derived from it.
unsafe fn new_of_type<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    value: Struct,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: per the contract, `cls` lays out a `Struct`; `into_new_object` allocates with
    // its `tp_alloc` and moves `value` in, returning a new reference.
    unsafe {
        let obj = PyClassInitializer::from(value).into_new_object(py, cls.as_type_ptr())?;
        Ok(Bound::from_owned_ptr(py, obj))
    }
}

/// The specs of the standard message classes by type address, filled by `struct_classes`
/// (whose classes and specs are never freed): open addressing, a miss falls back to the
/// class attribute. `spec_of` runs for every message made; the attribute lookup through the
/// type's MRO cost as much as the rest of a small message's `tp_new`.
static SPECS: [SpecSlot; 128] = [const { SpecSlot::new() }; 128];

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
    (ty >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57 // 7 bits: 0..128
}

/// Records `cls`'s spec. Both must live for the rest of the process.
fn remember_spec(cls: &Bound<'_, PyType>, spec: &'static Spec) {
    use std::sync::atomic::Ordering;
    let ty = cls.as_ptr() as usize;
    for i in 0..SPECS.len() {
        let slot = &SPECS[(spec_home(ty) + i) % SPECS.len()];
        if slot.ty.load(Ordering::Relaxed) == 0 {
            // Release: a reader that sees `ty` sees `spec` (stored first). Writers hold the
            // GIL (`struct_classes`), so no two race for a slot.
            slot.spec
                .store(std::ptr::from_ref(spec).cast_mut(), Ordering::Relaxed);
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
fn spec_ref<'py>(cls: &Bound<'py, PyType>) -> PyResult<&'py Spec> {
    if let Some(s) = remembered_spec(cls) {
        return Ok(s);
    }
    let spec = spec_of(cls)?;
    // SAFETY: specs are never freed: each one made by `struct_classes` is leaked (and a
    // class's attribute holds its spec while the class lives; a caller holds the class).
    Ok(unsafe { &*std::ptr::from_ref(spec.get()) })
}

fn spec_of<'py>(cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, Spec>> {
    match cls.getattr(intern!(cls.py(), "_nerve_spec_")) {
        Ok(s) => Ok(s.downcast_into::<Spec>()?),
        Err(_) => Err(PyTypeError::new_err(
            "nerve.Struct is the base of nerve's message classes: create a message \
             (nerve.CmdVel(...), nerve.Imu(), ...)",
        )),
    }
}

impl Struct {
    /// A struct owning a copy of `bytes`.
    pub(crate) fn owned(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE_BYTES {
            let mut inline = [0u64; INLINE_BYTES / 8];
            bytemuck::cast_slice_mut::<u64, u8>(&mut inline)[..bytes.len()].copy_from_slice(bytes);
            return Struct {
                ptr: NonNull::dangling(),
                size: bytes.len(),
                readonly: false,
                _keep: Keep::Inline,
                inline: UnsafeCell::new(inline),
            };
        }
        let words = bytes.len().div_ceil(8).max(1);
        let raw = Box::into_raw(vec![0u64; words].into_boxed_slice()).cast::<u8>();
        // SAFETY: the allocation holds `words * 8 >= bytes.len()` bytes, fresh.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), raw, bytes.len()) };
        Struct {
            ptr: NonNull::new(raw).expect("Box never returns null"),
            size: bytes.len(),
            readonly: false,
            _keep: Keep::Heap(words),
            inline: UnsafeCell::new([0; INLINE_BYTES / 8]),
        }
    }

    /// A struct viewing `size` bytes at `ptr`, kept valid by `keep`.
    ///
    /// # Safety
    /// `ptr..ptr + size` must stay valid (and, unless `readonly`, writable by this struct
    /// alone with the GIL held) while `keep` lives.
    pub(crate) unsafe fn view(ptr: *mut u8, size: usize, readonly: bool, keep: Py<PyAny>) -> Self {
        Struct {
            ptr: NonNull::new(ptr).expect("a view of mapped memory"),
            size,
            readonly,
            _keep: Keep::Parent(keep),
            inline: UnsafeCell::new([0; INLINE_BYTES / 8]),
        }
    }

    /// Where the struct's bytes start: valid for `size` bytes while `self` lives (in place, in
    /// its Python object, for an inline struct); read and written only with the GIL held.
    pub(crate) fn base(&self) -> *mut u8 {
        match self._keep {
            Keep::Inline => self.inline.get().cast(),
            _ => self.ptr.as_ptr(),
        }
    }

    /// The struct's bytes. Valid while `self` lives; only read with the GIL held.
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr..ptr + size` is valid while `self` lives (owned, or kept by `_keep`);
        // writers hold the GIL, as does every reader of this slice.
        unsafe { std::slice::from_raw_parts(self.base(), self.size) }
    }

    fn check_writable(&self, owner: &str, field: &str) -> PyResult<()> {
        if self.readonly {
            return Err(PyTypeError::new_err(format!(
                "{owner}.{field}: this message is read-only (it views a received message in \
                 shared memory); .copy() gives a writable copy"
            )));
        }
        Ok(())
    }

    /// A new instance of the message class `cls` holding a copy of `bytes`.
    ///
    /// # Safety
    /// `cls` must be `Struct` or a class derived from it.
    pub(crate) unsafe fn new_owned<'py>(
        py: Python<'py>,
        cls: &Bound<'py, PyType>,
        bytes: &[u8],
    ) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: per the contract.
        unsafe { new_of_type(py, cls, Struct::owned(bytes)) }
    }
}

#[pymethods]
impl Struct {
    /// Message classes are built with their own `tp_new` (`message_new`); this one only
    /// answers `Struct(...)` and classes derived from `Struct` without a layout.
    #[new]
    #[classmethod]
    #[pyo3(signature = (**_fields))]
    fn new(cls: &Bound<'_, PyType>, _fields: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        spec_of(cls)?;
        Err(PyTypeError::new_err(format!(
            "{} has no message layout: create a message class's instance",
            cls.name()?
        )))
    }

    /// A message of this class from its bytes (a copy).
    #[classmethod]
    fn from_bytes<'py>(
        cls: &Bound<'py, PyType>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let spec = spec_of(cls)?;
        let size = spec.get().size;
        let s = crate::buffer::with_buffer(data, |b| {
            if b.len() == size {
                Ok(Struct::owned(b))
            } else {
                Err(PyValueError::new_err(format!(
                    "{} is {size} bytes, got {}",
                    spec.get().name,
                    b.len()
                )))
            }
        })??;
        // SAFETY: `cls` has a spec, so it is a message class derived from `Struct`.
        unsafe { new_of_type(cls.py(), cls, s) }
    }

    /// The message's bytes, exactly as they cross the ring.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.bytes())
    }

    /// A writable copy with its own bytes (of a view, a received header, ...).
    fn copy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: `slf`'s class derives from `Struct`.
        unsafe { Struct::new_owned(slf.py(), &slf.get_type(), slf.get().bytes()) }
    }

    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::copy(slf)
    }

    fn __deepcopy__<'py>(
        slf: &Bound<'py, Self>,
        _memo: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Self::copy(slf)
    }

    /// Pickles as `(cls.from_bytes, (bytes,))`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let from = slf.get_type().getattr(intern!(py, "from_bytes"))?;
        let args = PyTuple::new(py, [PyBytes::new(py, slf.get().bytes())])?;
        PyTuple::new(py, [from, args.into_any()])
    }

    /// True when the message views read-only shared memory (a received chunk's header).
    #[getter]
    fn readonly(&self) -> bool {
        self.readonly
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let spec = spec_of(&slf.get_type())?;
        let mut parts = Vec::new();
        for f in &spec.get().fields {
            if f.name.starts_with("_pad") {
                continue;
            }
            parts.push(format!("{}={}", f.name, f.repr_value(slf)?.repr()?));
        }
        Ok(format!("{}({})", spec.get().name, parts.join(", ")))
    }

    fn __richcmp__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if !other.get_type().is(slf.get_type()) || !matches!(op, CompareOp::Eq | CompareOp::Ne) {
            return Ok(py.NotImplemented());
        }
        let same = slf.get().bytes() == other.downcast::<Struct>()?.get().bytes();
        Ok(
            infallible((same == matches!(op, CompareOp::Eq)).into_pyobject(py))
                .to_owned()
                .into_any()
                .unbind(),
        )
    }

    fn __hash__(slf: &Bound<'_, Self>) -> PyResult<isize> {
        let key = (
            slf.get_type().name()?,
            PyBytes::new(slf.py(), slf.get().bytes()),
        );
        key.into_pyobject(slf.py())?.hash()
    }

    /// The buffer protocol: the struct's bytes (read-only for a received header).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: std::os::raw::c_int,
    ) -> PyResult<()> {
        let (ptr, len, ro) = {
            let s = slf.get();
            (s.base().cast_const(), s.size, s.readonly)
        };
        // SAFETY: `view` comes from the interpreter; the bytes live while `slf` (referenced by
        // the view) lives.
        unsafe { crate::buffer::fill_buffer(slf.as_any(), view, ptr, len, ro, flags) }
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}
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

/// The size of a message class's instances.
pub(crate) fn size_of(cls: &Bound<'_, PyType>) -> PyResult<usize> {
    Ok(spec_of(cls)?.get().size)
}

/// A `cls` (a message class) viewing the `available` bytes at `ptr`, kept valid by `keep`.
///
/// # Safety
/// `ptr..ptr + available` must stay valid while `keep` lives, and (unless `readonly`) be
/// written by nobody else while the GIL is not held by its writer.
pub(crate) unsafe fn view_of<'py>(
    cls: &Bound<'py, PyType>,
    ptr: *mut u8,
    available: usize,
    readonly: bool,
    keep: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if !cls.is_subclass_of::<Struct>()? {
        return Err(PyTypeError::new_err(format!(
            "{} is not a nerve message class",
            cls.name()?
        )));
    }
    let spec = spec_of(cls)?;
    let size = spec.get().size;
    if size > available {
        return Err(PyValueError::new_err(format!(
            "{} is {size} bytes; the chunk's header holds {available}",
            spec.get().name
        )));
    }
    // SAFETY: per the contract; `cls` derives from `Struct` (checked above).
    unsafe {
        let view = Struct::view(ptr, size, readonly, keep.clone().unbind());
        new_of_type(cls.py(), cls, view)
    }
}

/// Builds every message class, dependencies first: `[(name, class)]`.
#[pyfunction]
pub fn struct_classes(py: Python<'_>) -> PyResult<Vec<(String, Py<PyType>)>> {
    let base = py.get_type::<Struct>();
    let mut made: HashMap<&'static str, (Py<PyType>, usize)> = HashMap::new();
    let mut out = Vec::new();
    for (name, size, align, fields, default) in all_structs() {
        let mut fs = Vec::new();
        let mut names = Vec::new();
        for (f, off, kind_name) in fields {
            let kind = parse_kind(py, f, &kind_name, &made)?;
            if off + kind.size() > size {
                return Err(PyValueError::new_err(format!(
                    "nerve: {name}.{f} lies outside the struct"
                )));
            }
            let field = Field {
                owner: name.to_string(),
                name: f.to_string(),
                offset: off,
                kind_name,
                kind,
            };
            let key = PyString::intern(py, f);
            fs.push(field);
            names.push(key.unbind());
        }
        let spec = Spec {
            name: name.to_string(),
            size,
            align,
            template: default,
            fields: fs,
            names,
        };
        let spec = Py::new(py, spec)?;
        let cls = make_class(py, &base, name, size, &spec)?;
        cls.setattr("_nerve_spec_", &spec)?;
        // The class lives for ever (one leaked reference), as does its spec (`make_class`).
        std::mem::forget(cls.clone());
        // SAFETY: the spec is leaked by `make_class`.
        remember_spec(&cls, unsafe { &*std::ptr::from_ref(spec.get()) });
        made.insert(name, (cls.clone().unbind(), size));
        out.push((name.to_string(), cls.unbind()));
    }
    Ok(out)
}

fn parse_kind(
    py: Python<'_>,
    field: &str,
    kind: &str,
    made: &HashMap<&'static str, (Py<PyType>, usize)>,
) -> PyResult<Kind> {
    if let Some(p) = Prim::parse(kind) {
        return Ok(Kind::Prim(p));
    }
    if let Some((base, n)) = kind.strip_suffix(']').and_then(|k| k.split_once('[')) {
        let n: usize = n
            .parse()
            .map_err(|_| PyValueError::new_err(format!("nerve: bad array kind {kind}")))?;
        let p = Prim::parse(base)
            .ok_or_else(|| PyValueError::new_err(format!("nerve: bad array kind {kind}")))?;
        if p == Prim::U8 && matches!(field, "frame_id" | "child_frame_id") {
            return Ok(Kind::Frame(n));
        }
        return Ok(Kind::Array(p, n));
    }
    match made.get(kind) {
        Some((cls, size)) => Ok(Kind::Nested(cls.clone_ref(py), *size)),
        None => Err(PyValueError::new_err(format!(
            "nerve: {field} has kind {kind}, which is not described before it"
        ))),
    }
}

/// Runs a C-level slot body: the GIL is held (the interpreter calls slots with it), errors are
/// raised as Python exceptions and panics never unwind into the interpreter.
///
/// # Safety
/// Must be called from a slot function, with the GIL held.
unsafe fn slot<R>(err: R, body: impl FnOnce(Python<'_>) -> PyResult<R>) -> R {
    // SAFETY: the interpreter holds the GIL while it calls slot functions.
    let py = unsafe { Python::assume_attached() };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(py))) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            e.restore(py);
            err
        }
        Err(_) => {
            PyRuntimeError::new_err("nerve: internal error (panic) in a message class").restore(py);
            err
        }
    }
}

/// `tp_new` of every message class: `Message(field=value, ...)` without the argument parsing
/// of a generic `#[new]` (that copies the keywords into a second dict; this reads the
/// interpreter's dict in place). Rust's defaults for the fields not given.
unsafe extern "C" fn message_new(
    subtype: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwds: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: called by the interpreter as `tp_new`, with the GIL held.
    unsafe {
        slot(std::ptr::null_mut(), |py| {
            let cls =
                Bound::from_borrowed_ptr(py, subtype.cast()).downcast_into_unchecked::<PyType>();
            let spec = spec_ref(&cls)?;
            if !args.is_null() && ffi::PyTuple_Size(args) != 0 {
                return Err(PyTypeError::new_err(format!(
                    "{}() takes keyword arguments only (field=value)",
                    spec.name
                )));
            }
            let s = Struct::owned(&spec.template);
            if !kwds.is_null() {
                let mut pos: ffi::Py_ssize_t = 0;
                let mut k: *mut ffi::PyObject = std::ptr::null_mut();
                let mut v: *mut ffi::PyObject = std::ptr::null_mut();
                // PyDict_Next hands out borrowed references, valid while the dict is unchanged
                // (nothing here changes it).
                while ffi::PyDict_Next(kwds, &mut pos, &mut k, &mut v) != 0 {
                    let key = Bound::from_borrowed_ptr(py, k);
                    let value = Bound::from_borrowed_ptr(py, v);
                    // `s` owns its fresh bytes; nothing else references them yet.
                    spec.field(&key)?.set(s.base(), &value)?;
                }
            }
            // `subtype` is a message class (this slot is only installed on them), laid out
            // as a `Struct`.
            PyClassInitializer::from(s).into_new_object(py, subtype)
        })
    }
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
        slot(std::ptr::null_mut(), |py| {
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
        slot(-1, |py| {
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
                 Create with keywords; fields left out keep Rust's defaults."
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
