//! Chunks seen from Python: a `Loan` being filled and a received `Sample`, and the views made
//! of both (header structs, numpy arrays, image arrays, buffers) through one [`Chunk`] trait.

use std::os::raw::c_int;
use std::sync::Mutex;

use nerve::msgs::ImageHeader;
use nerve::raw::{MappingGuard, RawLoan, RawSample};
use nerve::sys::lock;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::types::{PyBytes, PyType};
use pyo3::PyClass;

use crate::arrays;
use crate::buffer::fill_buffer;
use crate::errors::{guard, send_err};
use crate::structs;

/// A chunk loaned from the pool: fill the header and payload in place, then `send()`.
#[pyclass(module = "nerve._nerve", frozen)]
pub(crate) struct Loan {
    raw: Mutex<Option<RawLoan>>,
    #[pyo3(get)]
    header_ptr: usize,
    #[pyo3(get)]
    header_len: usize,
    #[pyo3(get)]
    data_ptr: usize,
    #[pyo3(get)]
    data_len: usize,
    /// Keeps the memory behind exported buffers mapped after `send` (which hands the chunk to
    /// the ring) and after the publisher is gone.
    _mapping: MappingGuard,
}

impl Loan {
    /// The loan of `raw`, its header set to `header` followed by zeros (a recycled chunk still
    /// holds the previous message's header). `header` is at most the loan's header length.
    pub(crate) fn new(mut raw: RawLoan, header: &[u8]) -> Loan {
        let h = raw.header_mut();
        let (given, rest) = h.split_at_mut(header.len());
        given.copy_from_slice(header);
        rest.fill(0);
        let header_len = h.len();
        Loan {
            header_ptr: raw.header_ptr() as usize,
            header_len,
            data_ptr: raw.data_ptr() as usize,
            data_len: raw.data_len(),
            _mapping: raw.mapping(),
            raw: Mutex::new(Some(raw)),
        }
    }
}

/// A received chunk, pinned in shared memory while this object lives.
#[pyclass(module = "nerve._nerve", frozen)]
pub(crate) struct Sample {
    raw: RawSample,
}

impl Sample {
    pub(crate) fn new(raw: RawSample) -> Sample {
        Sample { raw }
    }
}

/// A chunk that Python views are made of: a loan being filled (writable) or a received
/// sample (read-only). Every view has the chunk's Python object as its base, so the views of
/// both are made by the same functions below.
///
/// # Safety
/// The bytes `chunk()` and `header()` return must stay mapped while the object lives, and be
/// written by nobody else while it does if `WRITABLE` (the loan's owner fills them, with the
/// GIL held) or by nobody at all if not (a received chunk is pinned).
pub(crate) unsafe trait Chunk: PyClass<Frozen = True> + Sync {
    const WRITABLE: bool;
    /// The header's bytes: (start, length).
    fn header(&self) -> (*mut u8, usize);
    /// The chunk's bytes from the header's start to the payload's end: (start, length).
    fn chunk(&self) -> (*mut u8, usize);
    /// Where the payload starts, in bytes from the header's start.
    fn payload_offset(&self) -> usize;
}

// SAFETY: `_mapping` keeps the chunk mapped while the loan lives (also after `send`); until it
// is sent, only the loan's owner writes it.
unsafe impl Chunk for Loan {
    const WRITABLE: bool = true;
    fn header(&self) -> (*mut u8, usize) {
        (self.header_ptr as *mut u8, self.header_len)
    }
    fn chunk(&self) -> (*mut u8, usize) {
        (
            self.header_ptr as *mut u8,
            self.data_ptr + self.data_len - self.header_ptr,
        )
    }
    fn payload_offset(&self) -> usize {
        self.data_ptr - self.header_ptr
    }
}

// SAFETY: the sample pins its chunk (nobody writes it) and keeps it mapped while it lives.
unsafe impl Chunk for Sample {
    const WRITABLE: bool = false;
    fn header(&self) -> (*mut u8, usize) {
        let h = self.raw.header();
        (h.as_ptr().cast_mut(), h.len())
    }
    fn chunk(&self) -> (*mut u8, usize) {
        let start = self.raw.header().as_ptr();
        let len = self.raw.data_ptr() as usize + self.raw.data_len() - start as usize;
        (start.cast_mut(), len)
    }
    fn payload_offset(&self) -> usize {
        self.raw.data_ptr() as usize - self.raw.header().as_ptr() as usize
    }
}

/// The chunk's header as an instance of the message class `cls` (read-only unless a loan).
pub(crate) fn header_view<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    cls: &Bound<'py, PyType>,
) -> PyResult<Bound<'py, PyAny>> {
    let (ptr, len) = slf.get().header();
    // SAFETY: `Chunk`'s contract; the view keeps `slf` alive.
    unsafe { structs::view_of(cls, ptr, len, !C::WRITABLE, slf.as_any()) }
}

/// A numpy array over the chunk `offset` bytes after the header's start (see `arrays::view`).
fn chunk_array<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    offset: usize,
    shape: &[isize],
    strides: Option<&[isize]>,
    dtype: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (start, total) = slf.get().chunk();
    // SAFETY: `Chunk`'s contract; `slf` becomes the array's base.
    unsafe {
        arrays::view(
            slf.as_any(),
            start,
            total,
            offset,
            shape,
            strides,
            dtype,
            C::WRITABLE,
        )
    }
}

/// The pixels of the image whose header is `img`, as a numpy array (`arrays::image_layout`),
/// its extent checked against the chunk whatever the header says.
pub(crate) fn image_array<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    img: &ImageHeader,
) -> PyResult<Bound<'py, PyAny>> {
    let (t, shape, strides) = arrays::image_layout(img);
    let me = slf.get();
    let (start, total) = me.chunk();
    // SAFETY: `Chunk`'s contract; `slf` becomes the array's base.
    unsafe {
        arrays::view_of_type(
            slf.as_any(),
            start,
            total,
            me.payload_offset(),
            &shape,
            Some(&strides),
            t,
            C::WRITABLE,
        )
    }
}

/// The pixels of the image in the chunk, laid out as its own header says (`image_array`).
pub(crate) fn image_in<'py, C: Chunk>(slf: &Bound<'py, C>) -> PyResult<Bound<'py, PyAny>> {
    let (ptr, len) = slf.get().header();
    let need = size_of::<ImageHeader>();
    if len < need {
        return Err(PyValueError::new_err(format!(
            "the chunk's header holds {len} bytes; an image header is {need}"
        )));
    }
    // SAFETY: `Chunk`'s contract: `len >= need` header bytes at `ptr`, mapped; read unaligned.
    let img = unsafe { ptr.cast::<ImageHeader>().read_unaligned() };
    image_array(slf, &img)
}

/// The buffer protocol for a chunk: its bytes from the header to the payload's end.
///
/// # Safety
/// `view` must be the `Py_buffer` the interpreter passed to `bf_getbuffer`.
unsafe fn chunk_buffer<C: Chunk>(
    slf: &Bound<'_, C>,
    view: *mut pyo3::ffi::Py_buffer,
    flags: c_int,
) -> PyResult<()> {
    let (ptr, len) = slf.get().chunk();
    // SAFETY: per the contract and `Chunk`'s; the view holds `slf`.
    unsafe { fill_buffer(slf.as_any(), view, ptr, len, !C::WRITABLE, flags) }
}

#[pymethods]
impl Loan {
    /// The buffer protocol: the chunk's bytes from the header to the end of the payload,
    /// writable (numpy arrays and ctypes headers are made on it without copying).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        guard("Loan.__getbuffer__", || {
            // SAFETY: `view` comes from the interpreter.
            unsafe { chunk_buffer(&slf, view, flags) }
        })
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}

    /// The chunk's header as an instance of the message class `cls`, viewing the chunk
    /// (writes go straight into shared memory).
    fn header_as<'py>(
        slf: &Bound<'py, Self>,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Loan.header_as", || header_view(slf, cls))
    }

    /// Where the payload starts, in bytes from the header's start.
    #[getter]
    fn data_offset(&self) -> PyResult<usize> {
        guard("Loan.data_offset", || Ok(self.payload_offset()))
    }

    /// A writable numpy array over the chunk, starting `offset` bytes after the header's start
    /// (`strides` in bytes; C order when omitted; `dtype` a type string such as `"u1"` or a
    /// numpy dtype).
    #[pyo3(signature = (offset, shape, dtype, strides=None))]
    fn array<'py>(
        slf: &Bound<'py, Self>,
        offset: usize,
        shape: Vec<isize>,
        dtype: &Bound<'py, PyAny>,
        strides: Option<Vec<isize>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Loan.array", || {
            chunk_array(slf, offset, &shape, strides.as_deref(), dtype)
        })
    }

    /// The payload as the pixels of the image the chunk's header describes (shape and dtype
    /// from its size and encoding; flat bytes for an unknown encoding).
    fn image_array<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        guard("Loan.image_array", || image_in(slf))
    }

    /// Publishes the chunk (no copy). A loan is sent at most once. `seal`: a numpy array
    /// over the chunk made read-only once it is sent (subscribers read it from then on).
    #[pyo3(signature = (seal=None))]
    fn send(&self, seal: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        guard("Loan.send", || {
            let loan = lock(&self.raw).take().ok_or_else(|| {
                PyRuntimeError::new_err("this loan was already sent or discarded")
            })?;
            loan.send().map_err(send_err)?;
            seal.map_or(Ok(()), arrays::seal)
        })
    }
    /// Returns the chunk to the pool unsent.
    fn discard(&self) -> PyResult<()> {
        guard("Loan.discard", || {
            lock(&self.raw).take();
            Ok(())
        })
    }
    /// True until sent or discarded.
    #[getter]
    fn active(&self) -> PyResult<bool> {
        guard("Loan.active", || Ok(lock(&self.raw).is_some()))
    }
}

#[pymethods]
impl Sample {
    /// The buffer protocol: the chunk's bytes from the header to the end of the payload,
    /// read-only (pinned while this sample, held by every view, lives).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        guard("Sample.__getbuffer__", || {
            // SAFETY: `view` comes from the interpreter.
            unsafe { chunk_buffer(&slf, view, flags) }
        })
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}

    /// The chunk's header as a read-only instance of the message class `cls`, viewing the
    /// chunk (pinned while the view lives).
    fn header_as<'py>(
        slf: &Bound<'py, Self>,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Sample.header_as", || header_view(slf, cls))
    }

    /// Where the payload starts, in bytes from the header's start.
    #[getter]
    fn data_offset(&self) -> PyResult<usize> {
        guard("Sample.data_offset", || Ok(self.payload_offset()))
    }

    /// A read-only numpy array over the chunk, starting `offset` bytes after the header's
    /// start (as `Loan.array`).
    #[pyo3(signature = (offset, shape, dtype, strides=None))]
    fn array<'py>(
        slf: &Bound<'py, Self>,
        offset: usize,
        shape: Vec<isize>,
        dtype: &Bound<'py, PyAny>,
        strides: Option<Vec<isize>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Sample.array", || {
            chunk_array(slf, offset, &shape, strides.as_deref(), dtype)
        })
    }

    /// The payload as the pixels of the image the chunk's header describes (shape and dtype
    /// from its size and encoding; flat bytes for an unknown encoding).
    fn image_array<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        guard("Sample.image_array", || image_in(slf))
    }

    /// Address of the header: the start of the exported buffer.
    #[getter]
    fn header_ptr(&self) -> PyResult<usize> {
        guard("Sample.header_ptr", || {
            Ok(self.raw.header().as_ptr() as usize)
        })
    }

    /// The header bytes (a copy; headers are small).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        guard("Sample.header", || Ok(PyBytes::new(py, self.raw.header())))
    }
    #[getter]
    fn data_ptr(&self) -> PyResult<usize> {
        guard("Sample.data_ptr", || Ok(self.raw.data_ptr() as usize))
    }
    #[getter]
    fn data_len(&self) -> PyResult<usize> {
        guard("Sample.data_len", || Ok(self.raw.data_len()))
    }
    /// Number of elements.
    fn __len__(&self) -> PyResult<usize> {
        guard("Sample.__len__", || Ok(self.raw.len()))
    }
}
