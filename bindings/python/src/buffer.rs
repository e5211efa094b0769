//! The buffer protocol (PEP 3118), both ways: reading the bytes of whatever exports a buffer
//! (`bytes`, `bytearray`, `memoryview`, numpy arrays, nerve's messages) and exporting nerve's
//! memory (loans, samples, messages) to numpy, `memoryview` and ctypes without a copy.
//!
//! # Why this is sound
//! - **Reading** ([`with_buffer`]). `PyObject_GetBuffer` with `PyBUF_SIMPLE` hands out one
//!   contiguous block of `len` bytes that stays valid until `PyBuffer_Release` (an exporter
//!   refuses to resize or free its memory while a buffer is exported: `bytearray` raises
//!   `BufferError`). `with_buffer` takes and releases the buffer around its closure, so the
//!   slice the closure sees cannot outlive it, and the slice is shared (`&[u8]`): nerve only
//!   reads it. Someone else can write a mutable exporter's bytes (a `bytearray`) only from
//!   another Python thread, that is while this thread has let the GIL go; the closures in this
//!   crate never do (they copy the bytes, or publish them with the GIL held).
//! - **Exporting** ([`fill_buffer`]). The filled `Py_buffer` holds a strong reference to the
//!   exporting object (`view->obj`), dropped by the interpreter when the last consumer lets
//!   go, so the exported memory only has to stay valid while that object lives: a loan's
//!   memory (`LoanMemory` in `lent.rs`, which also exports a loan's and its header views'
//!   buffers) keeps its topic's memory mapped and its unsent chunk out of the pool, a `Sample`
//!   pins its chunk, a message owns its bytes or holds what keeps them alive (`Chunk` in
//!   `chunk.rs`, `Keep` in `structs`). `PyBuffer_FillInfo` refuses a writable request for a
//!   read-only export (a received chunk, a loan once sent or discarded). An export allocates
//!   nothing, so releasing one frees nothing (the classes' `__releasebuffer__` are empty).

use std::os::raw::{c_int, c_void};

use pyo3::ffi;
use pyo3::prelude::*;

/// Runs `f` on the bytes of `obj`'s buffer (one contiguous block, read-only).
///
/// `f` must not let the GIL go while it holds the slice (see the module's notes): another
/// Python thread could then write a `bytearray`'s bytes under it.
pub(crate) fn with_buffer<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    let mut view = std::mem::MaybeUninit::<ffi::Py_buffer>::uninit();
    // SAFETY: `obj` is a live object (we hold the GIL) and `view` is writable storage for a
    // Py_buffer; on success the exporter filled it in, and it is released below.
    let rc = unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), view.as_mut_ptr(), ffi::PyBUF_SIMPLE) };
    if rc != 0 {
        return Err(PyErr::fetch(obj.py()));
    }
    // SAFETY: PyObject_GetBuffer succeeded, so the view is initialised.
    let mut view = unsafe { view.assume_init() };
    let len = view.len.max(0) as usize;
    let r = if len == 0 || view.buf.is_null() {
        f(&[])
    } else {
        // SAFETY: a PyBUF_SIMPLE request returns one contiguous block of `len` bytes, valid and
        // unchanged (the module's notes) until PyBuffer_Release below.
        f(unsafe { std::slice::from_raw_parts(view.buf.cast::<u8>(), len) })
    };
    // SAFETY: releases the view obtained above, once.
    unsafe { ffi::PyBuffer_Release(&mut view) };
    Ok(r)
}

/// Fills `view` with a one-dimensional byte buffer over `[ptr, ptr + len)` owned by `obj`.
///
/// # Safety
/// `view` must be the `Py_buffer` the interpreter passed to `bf_getbuffer`, and the bytes must
/// stay valid while `obj` lives (the exporter holds what keeps them mapped); if `readonly`,
/// nobody may write them while they are exported.
pub(crate) unsafe fn fill_buffer(
    obj: &Bound<'_, PyAny>,
    view: *mut ffi::Py_buffer,
    ptr: *const u8,
    len: usize,
    readonly: bool,
    flags: c_int,
) -> PyResult<()> {
    // SAFETY: per the contract above; PyBuffer_FillInfo takes a new reference to `obj` (stored
    // in view->obj, released by the interpreter with the buffer) and fails on a writable
    // request for a read-only buffer.
    let rc = unsafe {
        ffi::PyBuffer_FillInfo(
            view,
            obj.as_ptr(),
            ptr.cast_mut().cast::<c_void>(),
            len as ffi::Py_ssize_t,
            c_int::from(readonly),
            flags,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(obj.py()))
    }
}
