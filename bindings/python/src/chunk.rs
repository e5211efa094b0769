//! Chunks seen from Python: a `Loan` being filled and a received `Sample`, and the views made
//! of both (header structs, numpy arrays, image arrays, buffers) through one [`Chunk`] trait.
//!
//! A `Loan` is a handle: the views of a loan belong to its [`LoanMemory`] (`lent.rs`), which
//! `send()` and `discard()` close. Views of a `Sample` are read-only and pin its chunk.

use std::os::raw::c_int;
use std::sync::Arc;

use nerve::msgs::{ImageHeader, TensorHeader};
use nerve::raw::{RawPublisher, RawSample};
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyRuntimeWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyType};
use pyo3::PyClass;

use crate::arrays;
use crate::buffer::fill_buffer;
use crate::errors::{guard, send_err};
use crate::lent::{Lent, LoanMemory};
use crate::structs::{self, Keep};

/// A chunk of shared memory being filled: write ``header`` fields and ``data`` in place, then
/// ``send()`` (no copy). Used once: ``send()`` or ``discard()`` makes ``data`` (and every array
/// nerve made of the loan) read-only and freezes ``header``. A view you made yourself
/// (``v = loan.data[10:20]``) and kept alive across ``send()`` cannot be made read-only: nerve
/// then sends a copy (with a ``RuntimeWarning``) so that writing through it changes nothing
/// anyone receives; drop such views before ``send()`` to stay zero-copy. As a context manager
/// (``with pub.loan_image(...) as loan:``) it is sent at the end of the block, or discarded if
/// the block raised.
#[pyclass(module = "nerve._nerve", name = "Loan", frozen)]
pub(crate) struct Loan {
    /// What the views hold (never given to Python code: its reference count counts views).
    memory: Py<LoanMemory>,
    /// The payload array handed to Python code (`data`): set once, by the call that loaned
    /// the chunk (`Publisher.loan_image`, ...) or by nerve's Python layer (`_attach`) for the
    /// message classes whose views it makes.
    data: PyOnceLock<Py<PyAny>>,
    /// The header's message class, and its view (`header`), made the first time it is asked
    /// for: a loan whose header was written by the call that loaned it (`stamp_ns=`) often
    /// never needs one.
    header_cls: PyOnceLock<Py<PyType>>,
    header: PyOnceLock<Py<PyAny>>,
    /// The publisher that loaned the chunk: `send` loans a copy from it when views the loan
    /// cannot close are alive.
    publisher: Arc<RawPublisher>,
    #[pyo3(get)]
    header_ptr: usize,
    #[pyo3(get)]
    header_len: usize,
    #[pyo3(get)]
    data_ptr: usize,
    #[pyo3(get)]
    data_len: usize,
}

impl Loan {
    /// The handle of a loan of `publisher`, whose views hold `memory`.
    pub(crate) fn new(memory: Py<LoanMemory>, publisher: Arc<RawPublisher>) -> Loan {
        let m = memory.get();
        let (header_ptr, header_len) = m.header();
        Loan {
            header_ptr: header_ptr as usize,
            header_len,
            data_ptr: header_ptr as usize + m.payload_offset(),
            data_len: m.payload_len(),
            memory,
            data: PyOnceLock::new(),
            header_cls: PyOnceLock::new(),
            header: PyOnceLock::new(),
            publisher,
        }
    }

    /// Sets the `data` Python code sees and the class of its `header` (once).
    pub(crate) fn set_views(
        &self,
        py: Python<'_>,
        header_cls: &Bound<'_, PyType>,
        data: Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let once = || PyRuntimeError::new_err("this loan's header and data are already set");
        self.header_cls
            .set(py, header_cls.clone().unbind())
            .map_err(|_| once())?;
        self.data.set(py, data.unbind()).map_err(|_| once())
    }

    /// The loan's memory, for views (refused once the loan is closed).
    pub(crate) fn open_memory<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, LoanMemory>> {
        let m = self.memory.bind(py);
        m.get().check_open()?;
        Ok(m)
    }

    /// Sends a copy of the chunk instead of the chunk itself (views nerve cannot close are
    /// alive), keeping the original for them; warns that the send was not zero-copy.
    fn send_copy(&self, py: Python<'_>, views: usize) -> PyResult<()> {
        let m = self.memory.get();
        let (header, header_len) = m.header();
        let mut copy = self
            .publisher
            .loan(header_len, m.payload_len())
            .map_err(send_err)?;
        // SAFETY: the original chunk holds `header_len` header bytes and `payload_len` payload
        // bytes, mapped while `m` lives; the copy has the same layout.
        unsafe {
            copy.header_mut()
                .copy_from_slice(std::slice::from_raw_parts(header, header_len));
            copy.data_mut().copy_from_slice(std::slice::from_raw_parts(
                header.add(m.payload_offset()),
                m.payload_len(),
            ));
        }
        copy.send().map_err(send_err)?;
        let topic = self.publisher.topic();
        let warning = std::ffi::CString::new(format!(
            "topic '{topic}': {views} view(s) of this loan made from its arrays or buffer (a \
             slice of loan.data, a memoryview, ...) were still alive at send(): nerve sent a \
             copy, so that writing through them cannot change the message. Drop such views \
             before send() to send without a copy."
        ))
        .unwrap_or_default();
        PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), &warning, 2)
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

/// A chunk that Python views are made of: a loan's memory being filled (writable until the
/// loan is closed) or a received sample (read-only). Every view holds the chunk's Python
/// object (as its keeper, its exporter, or its base array's base), so the views of both are
/// made by the same functions below.
///
/// # Safety
/// The bytes `chunk()` and `header()` return must stay mapped while the object lives, and be
/// written by nobody else while `writable()` holds (the loan's owner fills them, with the GIL
/// held); while it does not, views only read them.
pub(crate) unsafe trait Chunk: PyClass<Frozen = True> + Sync {
    /// Whether views made now are writable.
    fn writable(&self) -> bool;
    /// The header's bytes: (start, length).
    fn header(&self) -> (*mut u8, usize);
    /// The chunk's bytes from the header's start to the payload's end: (start, length).
    fn chunk(&self) -> (*mut u8, usize);
    /// Where the payload starts, in bytes from the header's start.
    fn payload_offset(&self) -> usize;
    /// What keeps a header view of `slf` alive.
    fn keep(slf: &Bound<'_, Self>) -> Keep;
    /// The base of the numpy arrays made of `slf` (it keeps them valid).
    fn array_base<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Ok(slf.clone().into_any())
    }
    /// Records a numpy array made of the chunk (a loan closes it with the loan).
    fn made(&self, _array: &Bound<'_, PyAny>) -> PyResult<()> {
        Ok(())
    }
}

// SAFETY: `_mapping` keeps the chunk mapped while the memory lives (also after `send`); while
// it is open only the loan's owner writes it (with the GIL). Once closed its views are read-only
// and no new ones are made (`Loan::open_memory`); a sent chunk may then carry a later message
// under them (docs/design/python.md: the transport cannot pin a sent chunk yet).
unsafe impl Chunk for LoanMemory {
    fn writable(&self) -> bool {
        self.is_open()
    }
    fn header(&self) -> (*mut u8, usize) {
        LoanMemory::header(self)
    }
    fn chunk(&self) -> (*mut u8, usize) {
        LoanMemory::chunk(self)
    }
    fn payload_offset(&self) -> usize {
        LoanMemory::payload_offset(self)
    }
    fn keep(slf: &Bound<'_, Self>) -> Keep {
        Keep::loan(slf.clone().unbind())
    }
    fn array_base<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        LoanMemory::base_array(slf)
    }
    fn made(&self, array: &Bound<'_, PyAny>) -> PyResult<()> {
        self.track_array(array)
    }
}

// SAFETY: the sample pins its chunk (nobody writes it) and keeps it mapped while it lives;
// its views are never writable.
unsafe impl Chunk for Sample {
    fn writable(&self) -> bool {
        false
    }
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
    fn keep(slf: &Bound<'_, Self>) -> Keep {
        Keep::Chunk(slf.clone().into_any().unbind())
    }
}

/// The chunk's header as an instance of the message class `cls` (read-only unless a loan).
pub(crate) fn header_view<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    cls: &Bound<'py, PyType>,
) -> PyResult<Bound<'py, PyAny>> {
    let me = slf.get();
    let (ptr, len) = me.header();
    // SAFETY: `Chunk`'s contract; the view keeps `slf` alive.
    unsafe { structs::view_of(cls, ptr, len, !me.writable(), C::keep(slf)) }
}

/// A numpy array over the chunk `offset` bytes after the header's start (see `arrays::view`).
fn chunk_array<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    offset: usize,
    shape: &[isize],
    strides: Option<&[isize]>,
    dtype: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let me = slf.get();
    let (start, total) = me.chunk();
    let base = C::array_base(slf)?;
    // SAFETY: `Chunk`'s contract; `base`, which keeps `slf` alive, becomes the array's base.
    let array = unsafe {
        arrays::view(
            &base,
            start,
            total,
            offset,
            shape,
            strides,
            dtype,
            me.writable(),
        )?
    };
    me.made(&array)?;
    Ok(array)
}

/// A numpy array of type `t`, `shape` and byte `strides` (C order when `None`) over the
/// chunk's payload, its extent checked against the chunk.
fn payload_array<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    t: numpy::npyffi::NPY_TYPES,
    shape: &[isize],
    strides: Option<&[isize]>,
) -> PyResult<Bound<'py, PyAny>> {
    let me = slf.get();
    let (start, total) = me.chunk();
    let base = C::array_base(slf)?;
    // SAFETY: `Chunk`'s contract; `base`, which keeps `slf` alive, becomes the array's base.
    let array = unsafe {
        arrays::view_of_type(
            &base,
            start,
            total,
            me.payload_offset(),
            shape,
            strides,
            t,
            me.writable(),
        )?
    };
    me.made(&array)?;
    Ok(array)
}

/// The chunk's header read as an `H` (`what` names it in the error when the header is
/// shorter).
fn header_as<H: bytemuck::Pod, C: Chunk>(slf: &Bound<'_, C>, what: &str) -> PyResult<H> {
    let (ptr, len) = slf.get().header();
    let need = size_of::<H>();
    if len < need {
        return Err(PyValueError::new_err(format!(
            "the chunk's header holds {len} bytes; {what} is {need}"
        )));
    }
    // SAFETY: `Chunk`'s contract: `len >= need` header bytes at `ptr`, mapped; read unaligned
    // (`H` is Pod: any bytes are a value).
    Ok(unsafe { ptr.cast::<H>().read_unaligned() })
}

/// The pixels of the image whose header is `img`, as a numpy array (`arrays::image_layout`),
/// its extent checked against the chunk whatever the header says.
pub(crate) fn image_array<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    img: &ImageHeader,
) -> PyResult<Bound<'py, PyAny>> {
    let (t, shape, strides) = arrays::image_layout(img);
    payload_array(slf, t, &shape, Some(&strides))
}

/// The elements of the tensor whose header is `h`, as a numpy array of its shape, type and
/// strides (`arrays::tensor_layout`), its extent checked against the chunk.
pub(crate) fn tensor_array<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    h: &TensorHeader,
) -> PyResult<Bound<'py, PyAny>> {
    let (t, shape, strides) = arrays::tensor_layout(h).map_err(PyValueError::new_err)?;
    payload_array(slf, t, &shape, strides.as_deref())
}

/// The elements of the tensor in the chunk, laid out as its own header says.
pub(crate) fn tensor_in<'py, C: Chunk>(slf: &Bound<'py, C>) -> PyResult<Bound<'py, PyAny>> {
    tensor_array(slf, &header_as::<TensorHeader, C>(slf, "a tensor header")?)
}

/// The pixels of the image in the chunk, laid out as its own header says (`image_array`).
pub(crate) fn image_in<'py, C: Chunk>(slf: &Bound<'py, C>) -> PyResult<Bound<'py, PyAny>> {
    image_array(slf, &header_as::<ImageHeader, C>(slf, "an image header")?)
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
    let me = slf.get();
    let (ptr, len) = me.chunk();
    // SAFETY: per the contract and `Chunk`'s; the view holds `slf`.
    unsafe { fill_buffer(slf.as_any(), view, ptr, len, !me.writable(), flags) }
}

#[pymethods]
impl Loan {
    /// The buffer protocol: the chunk's bytes from the header to the end of the payload,
    /// writable (numpy arrays and ctypes headers are made on it without copying); refused
    /// once the loan is sent or discarded.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        guard("Loan.__getbuffer__", || {
            let memory = slf
                .get()
                .open_memory(slf.py())
                .map_err(|e| PyBufferError::new_err(e.value(slf.py()).to_string()))?;
            // SAFETY: `view` comes from the interpreter; exported by the loan's memory, which
            // the buffer then holds (and counts as a view of the loan).
            unsafe { chunk_buffer(memory, view, flags) }
        })
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}

    /// The chunk's header as an instance of the message class `cls`, viewing the chunk
    /// (writes go straight into shared memory until the loan is sent or discarded).
    fn header_as<'py>(
        &self,
        py: Python<'py>,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Loan.header_as", || header_view(self.open_memory(py)?, cls))
    }

    /// Where the payload starts, in bytes from the header's start.
    #[getter]
    fn data_offset(&self) -> PyResult<usize> {
        guard("Loan.data_offset", || {
            Ok(self.memory.get().payload_offset())
        })
    }

    /// A writable numpy array over the chunk, starting `offset` bytes after the header's start
    /// (`strides` in bytes; C order when omitted; `dtype` a type string such as `"u1"` or a
    /// numpy dtype). Read-only from `send()` or `discard()` on.
    #[pyo3(signature = (offset, shape, dtype, strides=None))]
    fn array<'py>(
        &self,
        py: Python<'py>,
        offset: usize,
        shape: Vec<isize>,
        dtype: &Bound<'py, PyAny>,
        strides: Option<Vec<isize>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard("Loan.array", || {
            chunk_array(
                self.open_memory(py)?,
                offset,
                &shape,
                strides.as_deref(),
                dtype,
            )
        })
    }

    /// The payload as the pixels of the image the chunk's header describes (shape and dtype
    /// from its size and encoding; flat bytes for an unknown encoding).
    fn image_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard("Loan.image_array", || image_in(self.open_memory(py)?))
    }

    /// The payload as the tensor the loan's header describes (as `Sample.tensor_array`).
    fn tensor_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard("Loan.tensor_array", || tensor_in(self.open_memory(py)?))
    }

    /// Publishes the chunk (no copy), once. Every view of the loan is closed first: the arrays
    /// nerve made become read-only, header views refuse writes. If views made from those
    /// (slices, buffers) are still alive, nerve cannot close them: it sends a copy instead
    /// (with a `RuntimeWarning`), and the original chunk stays theirs.
    fn send(&self, py: Python<'_>) -> PyResult<()> {
        guard("Loan.send", || {
            let memory = self.memory.get();
            let taken = std::mem::replace(&mut *memory.lent(), Lent::Sent(None));
            let raw = match taken {
                Lent::Loaned(raw) => raw,
                other => {
                    *memory.lent() = other;
                    return Err(PyRuntimeError::new_err(
                        "this loan was already sent or discarded",
                    ));
                }
            };
            let views = match LoanMemory::close(&self.memory, py) {
                Ok(views) => views,
                Err(e) => {
                    *memory.lent() = Lent::Kept(raw);
                    return Err(e);
                }
            };
            if views == 0 {
                let (sent, pin) = raw.send_pinned();
                *memory.lent() = Lent::Sent(Some(pin));
                return sent.map_err(send_err);
            }
            *memory.lent() = Lent::Kept(raw);
            self.send_copy(py, views)
        })
    }

    /// Returns the chunk unsent: every view of the loan is closed (as by `send`), and the
    /// chunk goes back to the pool when the last of them is gone. Does nothing once sent.
    fn discard(&self, py: Python<'_>) -> PyResult<()> {
        guard("Loan.discard", || {
            let memory = self.memory.get();
            let mut lent = memory.lent();
            if let Lent::Loaned(_) = &*lent {
                if let Lent::Loaned(raw) = std::mem::replace(&mut *lent, Lent::Sent(None)) {
                    *lent = Lent::Kept(raw);
                }
                drop(lent);
                LoanMemory::close(&self.memory, py)?;
            }
            Ok(())
        })
    }

    /// True until sent or discarded.
    #[getter]
    fn active(&self) -> PyResult<bool> {
        guard("Loan.active", || Ok(self.memory.get().is_open()))
    }

    /// A view of the chunk's header as its message class's header (writes go into shared
    /// memory until the loan is sent); None for a loan of bare bytes (`header_as` makes one).
    #[getter]
    fn header(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard("Loan.header", || {
            let Some(cls) = self.header_cls.get(py) else {
                return Ok(py.None());
            };
            // Made once; once the loan is closed, a view made now is read-only (the chunk
            // stays pinned, or kept, while the memory lives).
            self.header
                .get_or_try_init(py, || {
                    header_view(self.memory.bind(py), cls.bind(py)).map(Bound::unbind)
                })
                .map(|h| h.clone_ref(py))
        })
    }

    /// The payload as a writable numpy array (an image's pixels, a tensor's elements, ...);
    /// read-only from `send()` or `discard()` on. None for a loan of bare bytes (`array`
    /// makes one).
    #[getter]
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard("Loan.data", || {
            Ok(self
                .data
                .get(py)
                .map_or_else(|| py.None(), |d| d.clone_ref(py)))
        })
    }

    /// Sets `header` (a view `header_as` made) and `data` (nerve's Python layer, for the
    /// loans whose views it makes).
    fn _attach(
        &self,
        py: Python<'_>,
        header: Bound<'_, PyAny>,
        data: Bound<'_, PyAny>,
    ) -> PyResult<()> {
        guard("Loan._attach", || {
            self.set_views(py, &header.get_type(), data)?;
            self.header
                .set(py, header.unbind())
                .map_err(|_| PyRuntimeError::new_err("this loan's header is already set"))
        })
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        guard("Loan.__enter__", || Ok(slf))
    }

    /// The end of a `with` block: sends the loan, or discards it when the block raised (does
    /// nothing if it was sent or discarded in the block).
    #[pyo3(signature = (exc_type, _exc=None, _tb=None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: Option<Bound<'_, PyAny>>,
        _exc: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        guard("Loan.__exit__", || {
            if self.memory.get().is_open() {
                if exc_type.is_none() {
                    self.send(py)?;
                } else {
                    self.discard(py)?;
                }
            }
            Ok(false)
        })
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

    /// The payload as the tensor the chunk's header describes (shape, element type and
    /// strides from the header).
    fn tensor_array<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        guard("Sample.tensor_array", || tensor_in(slf))
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
