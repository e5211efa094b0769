//! The memory of one loan as Python sees it ([`LoanMemory`]): what every view nerve makes of a
//! loan (numpy arrays, header views, buffers) holds, so that a loan is used once.
//!
//! Every view of a loan holds this object, never the `Loan` handle Python code holds: header
//! views keep it, buffers are exported by it, and numpy arrays have as their base one
//! read-only array of the whole chunk (the *base array*) whose base is this object. That
//! gives three things:
//! - **It is freed last.** The chunk a loan holds (unsent, or discarded) goes back to the pool
//!   only when the last view of it is gone, since every view holds this object and this
//!   object holds the chunk.
//! - **It closes.** `send()` and `discard()` close it: the arrays nerve handed out are made
//!   read-only, header views refuse writes, and buffers exported from then on are read-only,
//!   so numpy refuses to make any view of the loan writable again.
//! - **It counts.** numpy gives a view of an array (a slice, a reshape, `.view()`) the base
//!   of that array when that base is an array too: every numpy view made from an array nerve
//!   handed out has the base array as its base. Python frames never hold the base array or
//!   this object (only `array.base` reaches them), so their reference counts are exact: the
//!   base array's is one per array nerve made (it tracks them) plus one per view made from
//!   those; this object's is the `Loan` handle, the base array, one per header view (counted)
//!   plus one per buffer of the loan or of a header view. Views nerve did not make, it
//!   cannot close; `send()` sees they exist and sends a copy instead, keeping the original
//!   chunk for them (`chunk.rs`). A buffer taken of an array nerve made (`memoryview(data)`,
//!   ctypes, DLPack) holds that array, not the base: it is not counted.
//!
//! `docs/design/python.md` says what this guarantees and what it cannot.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use nerve::raw::{ChunkPin, MappingGuard, RawLoan};
use nerve::sys::lock;
use numpy::npyffi::NPY_TYPES;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyWeakrefMethods, PyWeakrefReference};

use crate::arrays;
use crate::buffer::fill_buffer;
use crate::errors::guard;

/// Where a loan's chunk is.
pub(crate) enum Lent {
    /// Being filled: ours alone.
    Loaned(RawLoan),
    /// Sent: the ring and the subscribers have it; the pin keeps the chunk out of the pool
    /// while this object (and so any view of the loan) lives, so a view never shows a later
    /// message.
    Sent(#[allow(dead_code)] Option<ChunkPin>),
    /// Never sent (discarded, or a copy was sent instead): held only to be dropped, which
    /// returns it to the pool, when this object is freed after the last view.
    Kept(#[allow(dead_code)] RawLoan),
}

/// The memory of one loan, seen by its views (module notes).
#[pyclass(module = "nerve._nerve", frozen)]
pub(crate) struct LoanMemory {
    header_ptr: usize,
    header_len: usize,
    data_ptr: usize,
    data_len: usize,
    chunk: Mutex<Lent>,
    /// Writable: true until `send` or `discard`. Read and written with the GIL held.
    open: AtomicBool,
    /// The base array of the arrays nerve makes (module notes), while one lives.
    base: Mutex<Option<Py<PyWeakrefReference>>>,
    /// The numpy arrays nerve made of the chunk, each holding one reference to the base array.
    arrays: Mutex<Vec<Py<PyWeakrefReference>>>,
    /// Live header views (`Struct`s kept by this object), each holding one reference to it.
    header_views: AtomicUsize,
    /// Keeps the topic's memory mapped while a view lives, also after the chunk is sent.
    _mapping: MappingGuard,
}

impl LoanMemory {
    /// The memory of `raw`, its header set to `header` followed by zeros (a recycled chunk
    /// still holds the previous message's header). `header` is at most the loan's header
    /// length.
    pub(crate) fn new(mut raw: RawLoan, header: &[u8]) -> LoanMemory {
        let h = raw.header_mut();
        let (given, rest) = h.split_at_mut(header.len());
        given.copy_from_slice(header);
        rest.fill(0);
        let header_len = h.len();
        LoanMemory {
            header_ptr: raw.header_ptr() as usize,
            header_len,
            data_ptr: raw.data_ptr() as usize,
            data_len: raw.data_len(),
            _mapping: raw.mapping(),
            chunk: Mutex::new(Lent::Loaned(raw)),
            open: AtomicBool::new(true),
            base: Mutex::new(None),
            arrays: Mutex::new(Vec::new()),
            header_views: AtomicUsize::new(0),
        }
    }

    /// True until the loan is sent or discarded.
    pub(crate) fn is_open(&self) -> bool {
        self.open.load(Relaxed)
    }

    /// The header's bytes: (start, length).
    pub(crate) fn header(&self) -> (*mut u8, usize) {
        (self.header_ptr as *mut u8, self.header_len)
    }

    /// The chunk's bytes from the header's start to the payload's end: (start, length).
    pub(crate) fn chunk(&self) -> (*mut u8, usize) {
        (
            self.header_ptr as *mut u8,
            self.data_ptr + self.data_len - self.header_ptr,
        )
    }

    /// Where the payload starts, in bytes from the header's start.
    pub(crate) fn payload_offset(&self) -> usize {
        self.data_ptr - self.header_ptr
    }

    /// Payload bytes.
    pub(crate) fn payload_len(&self) -> usize {
        self.data_len
    }

    /// Refuses to make a view of a closed loan.
    pub(crate) fn check_open(&self) -> PyResult<()> {
        if self.is_open() {
            Ok(())
        } else {
            Err(closed_error())
        }
    }

    /// The base array of the arrays nerve makes of the chunk (module notes): a read-only
    /// array of the chunk's bytes whose base is this object, made when none lives.
    pub(crate) fn base_array<'py>(slf: &Bound<'py, LoanMemory>) -> PyResult<Bound<'py, PyAny>> {
        let me = slf.get();
        let mut base = lock(&me.base);
        if let Some(b) = base.as_ref().and_then(|w| w.bind(slf.py()).upgrade()) {
            return Ok(b);
        }
        let (start, total) = me.chunk();
        // SAFETY: the chunk's bytes, mapped while `slf` (the array's base) lives; read-only.
        let array = unsafe {
            arrays::view_of_type(
                slf.as_any(),
                start,
                total,
                0,
                &[total as isize],
                None,
                NPY_TYPES::NPY_UBYTE,
                false,
            )?
        };
        *base = Some(PyWeakrefReference::new(&array)?.unbind());
        Ok(array)
    }

    /// Records a numpy array made of the chunk (its base is the base array), to close it with
    /// the loan.
    pub(crate) fn track_array(&self, array: &Bound<'_, PyAny>) -> PyResult<()> {
        let weak = PyWeakrefReference::new(array)?.unbind();
        let mut arrays = lock(&self.arrays);
        if arrays.len() >= 16 && arrays.len().is_power_of_two() {
            // Forget the dead ones now and then (a loan viewed many times stays small).
            arrays.retain(|w| w.bind(array.py()).upgrade().is_some());
        }
        arrays.push(weak);
        Ok(())
    }

    /// A header view (a `Struct` kept by this object) was made (`+1`) or freed (`-1`).
    pub(crate) fn count_header_view(&self, made: bool) {
        if made {
            self.header_views.fetch_add(1, Relaxed);
        } else {
            self.header_views.fetch_sub(1, Relaxed);
        }
    }

    /// Closes the loan: the arrays nerve made become read-only, header views refuse writes
    /// and exports are read-only from now on. Returns how many views nerve did not make
    /// (numpy views of its arrays, buffers of the loan) are still alive: those stay writable.
    ///
    /// `slf` must be borrowed from the `Loan` handle's reference, with no other reference
    /// taken by the caller: the counts are reference counts minus the references nerve knows
    /// of (module notes).
    pub(crate) fn close(slf: &Py<LoanMemory>, py: Python<'_>) -> PyResult<usize> {
        let me = slf.get();
        me.open.store(false, Relaxed);
        let mut tracked = 0;
        let arrays = std::mem::take(&mut *lock(&me.arrays));
        let mut sealed = Ok(());
        for w in &arrays {
            if let Some(a) = w.bind(py).upgrade() {
                tracked += 1;
                sealed = sealed.and(arrays::seal(&a));
            }
        }
        sealed?;
        let refs = |o: &Bound<'_, PyAny>| usize::try_from(o.get_refcnt()).unwrap_or(0);
        // The base array's references: ours (`upgrade`), one per live array nerve made, the
        // rest numpy views of those.
        let base = lock(&me.base).as_ref().and_then(|w| w.bind(py).upgrade());
        let derived = base
            .as_ref()
            .map_or(0, |b| refs(b).saturating_sub(1 + tracked));
        // This object's: the handle's, the base array's, the header views', the rest buffers.
        let known = 1 + usize::from(base.is_some()) + me.header_views.load(Relaxed);
        let buffers = refs(slf.bind(py).as_any()).saturating_sub(known);
        Ok(derived + buffers)
    }

    /// The chunk's state, to send it or keep it.
    pub(crate) fn lent(&self) -> std::sync::MutexGuard<'_, Lent> {
        lock(&self.chunk)
    }
}

/// A numpy array of `shape` items of `dtype` (a type string) over the `size` bytes at `ptr`,
/// with the loan's memory as its base: writable and closed with the loan while it is open,
/// read-only once it is closed. For a field array of a loan's header view.
///
/// # Safety
/// `ptr..ptr + size` must lie within the loan's chunk.
pub(crate) unsafe fn array_of<'py>(
    memory: &Bound<'py, LoanMemory>,
    ptr: *mut u8,
    size: usize,
    shape: &[isize],
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let me = memory.get();
    let open = me.is_open();
    let dtype = PyString::new(memory.py(), dtype);
    let base = LoanMemory::base_array(memory)?;
    // SAFETY: the bytes lie in the chunk (the contract), mapped while `memory` (the base
    // array's base) lives; written only by the loan's owner, with the GIL, while it is open.
    let array = unsafe { arrays::view(&base, ptr, size, 0, shape, None, dtype.as_any(), open)? };
    if open {
        me.track_array(&array)?;
    }
    Ok(array)
}

/// The error of a view asked of a loan already sent or discarded.
pub(crate) fn closed_error() -> PyErr {
    PyRuntimeError::new_err(
        "this loan was already sent or discarded: its memory is no longer yours to view or \
         write; loan a new chunk",
    )
}

#[pymethods]
impl LoanMemory {
    /// The buffer protocol: the chunk's bytes, writable while the loan is open, read-only
    /// once closed (numpy asks this before it lets an array of the loan be writable again).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        guard("LoanMemory.__getbuffer__", || {
            let me = slf.get();
            let (ptr, len) = me.chunk();
            // SAFETY: `view` comes from the interpreter; the chunk stays mapped while `slf`
            // (held by the view) lives, and only the loan's owner writes it while it is open.
            unsafe { fill_buffer(slf.as_any(), view, ptr, len, !me.is_open(), flags) }
        })
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}
}
