//! `nerve._nerve`: the Rust half of nerve's Python package, a thin layer over [`nerve::raw`].
//!
//! The pure-Python package `nerve` builds the user-facing classes (numpy views, asyncio
//! helpers) on top of what this module exposes:
//! - `Topic`, `Publisher`, `Subscriber`, `Loan`, `Sample`: untyped endpoints;
//! - `Struct` and `struct_classes()`: every standard message as a native class with the exact
//!   bytes of its Rust struct, generated from the Rust types so they can never drift apart;
//! - `message_types()`: every message type's stored identity (name, kind, layout hash);
//! - one exception class per Rust error variant, named like it, with the same message.
#![deny(unsafe_op_in_unsafe_fn)]

use std::time::{Duration, Instant};

use nerve::msgs::MessageKind;
use nerve::raw::{
    self, MappingGuard, RawLoan, RawMessage, RawPublisher, RawSample, RawSubscriber, RawTopic,
};
use nerve::{OpenError, RecvError, Reliability, SendError, TransportPath};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};
use pyo3::PyClass;

mod action;
mod arrays;
mod layout;
mod rpc;
mod structs;

/// One exception class per error variant, named like it (`nerve.TypeMismatch`, ...).
mod exc {
    use pyo3::create_exception;
    use pyo3::exceptions::PyException;

    create_exception!(
        nerve,
        NerveError,
        PyException,
        "Base class of every nerve error."
    );
    create_exception!(
        nerve,
        OpenError,
        NerveError,
        "Opening a topic, publisher or subscriber failed."
    );
    create_exception!(
        nerve,
        InvalidName,
        OpenError,
        "The topic name is not valid."
    );
    create_exception!(
        nerve,
        TypeMismatch,
        OpenError,
        "The topic exists with another message type."
    );
    create_exception!(
        nerve,
        QosMismatch,
        OpenError,
        "The topic exists with another QoS than the one requested."
    );
    create_exception!(
        nerve,
        Corrupt,
        OpenError,
        "The shared-memory segment failed validation."
    );
    create_exception!(
        nerve,
        TooManyEndpoints,
        OpenError,
        "Every endpoint record of the topic is in use."
    );
    create_exception!(
        nerve,
        InvalidConfig,
        OpenError,
        "A configuration value is out of range."
    );
    create_exception!(nerve, Io, OpenError, "The operating system refused.");
    create_exception!(nerve, SendError, NerveError, "Sending failed.");
    create_exception!(
        nerve,
        Full,
        SendError,
        "Reliable topic: the slowest subscriber stayed a full ring behind."
    );
    create_exception!(
        nerve,
        TooLarge,
        SendError,
        "The message does not fit a chunk of the topic."
    );
    create_exception!(
        nerve,
        PoolExhausted,
        SendError,
        "Every chunk of the topic's pool is in use."
    );
    create_exception!(
        nerve,
        Encode,
        SendError,
        "The message could not be encoded."
    );
    create_exception!(nerve, RecvError, NerveError, "Receiving failed.");
    create_exception!(
        nerve,
        Timeout,
        RecvError,
        "No message arrived within the timeout."
    );
    create_exception!(nerve, Decode, RecvError, "A message could not be decoded.");
}
use exc::*;

fn open_err(e: OpenError) -> PyErr {
    let msg = e.to_string();
    match e {
        OpenError::InvalidName { .. } => InvalidName::new_err(msg),
        OpenError::TypeMismatch { .. } => TypeMismatch::new_err(msg),
        OpenError::QosMismatch { .. } => QosMismatch::new_err(msg),
        OpenError::Corrupt { .. } => Corrupt::new_err(msg),
        OpenError::TooManyEndpoints { .. } => TooManyEndpoints::new_err(msg),
        OpenError::InvalidConfig { .. } => InvalidConfig::new_err(msg),
        OpenError::Io { .. } => Io::new_err(msg),
    }
}

fn send_err<T>(e: SendError<T>) -> PyErr {
    let msg = e.to_string();
    match e {
        SendError::Full { .. } => Full::new_err(msg),
        SendError::TooLarge { .. } => TooLarge::new_err(msg),
        SendError::PoolExhausted { .. } => PoolExhausted::new_err(msg),
        SendError::Encode { .. } => Encode::new_err(msg),
    }
}

fn recv_err(e: RecvError) -> PyErr {
    let msg = e.to_string();
    match e {
        RecvError::Timeout { .. } => Timeout::new_err(msg),
        RecvError::Decode { .. } => Decode::new_err(msg),
    }
}

/// Runs `f` on the bytes of `obj`'s buffer (PEP 3118), writable or not.
pub(crate) fn with_buffer<R>(
    obj: &Bound<'_, PyAny>,
    writable: bool,
    f: impl FnOnce(&mut [u8]) -> R,
) -> PyResult<R> {
    let mut view = std::mem::MaybeUninit::<pyo3::ffi::Py_buffer>::uninit();
    let flags = if writable {
        pyo3::ffi::PyBUF_WRITABLE
    } else {
        pyo3::ffi::PyBUF_SIMPLE
    };
    // SAFETY: `obj` is a live object (we hold the GIL) and `view` is writable storage for a
    // Py_buffer; on success the exporter filled it in and we release it below.
    let rc = unsafe { pyo3::ffi::PyObject_GetBuffer(obj.as_ptr(), view.as_mut_ptr(), flags) };
    if rc != 0 {
        return Err(PyErr::fetch(obj.py()));
    }
    // SAFETY: PyObject_GetBuffer succeeded, so the view is initialised.
    let mut view = unsafe { view.assume_init() };
    let len = view.len.max(0) as usize;
    let r = if len == 0 || view.buf.is_null() {
        f(&mut [])
    } else {
        // SAFETY: a PyBUF_SIMPLE/WRITABLE request returns one contiguous block of `len` bytes,
        // valid until PyBuffer_Release; a read-only export is only read through the slice
        // (callers pass `writable = false` exactly when they only read).
        f(unsafe { std::slice::from_raw_parts_mut(view.buf as *mut u8, len) })
    };
    // SAFETY: releases the view obtained above, once.
    unsafe { pyo3::ffi::PyBuffer_Release(&mut view) };
    Ok(r)
}

fn reliability(name: &str) -> PyResult<Reliability> {
    Ok(match name {
        "best_effort" => Reliability::BestEffort,
        "reliable" => Reliability::Reliable,
        "latest_only" => Reliability::LatestOnly,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown reliability {other:?}: use 'best_effort', 'reliable' or 'latest_only'"
            )))
        }
    })
}

fn reliability_name(r: Reliability) -> &'static str {
    match r {
        Reliability::BestEffort => "best_effort",
        Reliability::Reliable => "reliable",
        Reliability::LatestOnly => "latest_only",
    }
}

fn path_str(p: &TransportPath) -> String {
    match p {
        TransportPath::Shm(p) => p.display().to_string(),
        TransportPath::Heap => "heap".into(),
    }
}

/// An open untyped topic.
#[pyclass(module = "nerve._nerve", frozen)]
struct Topic {
    raw: RawTopic,
}

#[pymethods]
impl Topic {
    #[new]
    #[pyo3(signature = (name, stored_type, *, depth=None, reliability=None, domain=None, in_process=false, max_message_bytes=None, chunks=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        name: &str,
        stored_type: (String, u32, u32, u32, u32, u64),
        depth: Option<u32>,
        reliability: Option<&str>,
        domain: Option<u32>,
        in_process: bool,
        max_message_bytes: Option<usize>,
        chunks: Option<u32>,
    ) -> PyResult<Self> {
        let (name_t, kind, size, align, elem_size, layout_hash) = stored_type;
        let st = raw::StoredType {
            name: name_t,
            kind,
            size,
            align,
            elem_size,
            layout_hash,
        };
        let mut b = RawTopic::builder(name, st);
        if let Some(d) = depth {
            b = b.depth(d);
        }
        if let Some(r) = reliability {
            b = b.reliability(self::reliability(r)?);
        }
        if let Some(d) = domain {
            b = b.domain(d);
        }
        if in_process {
            b = b.in_process();
        }
        if let Some(m) = max_message_bytes {
            b = b.max_message_bytes(m);
        }
        if let Some(c) = chunks {
            b = b.chunks(c);
        }
        let raw = py.detach(|| b.open()).map_err(open_err)?;
        Ok(Topic { raw })
    }

    #[getter]
    fn name(&self) -> &str {
        self.raw.name()
    }
    #[getter]
    fn type_name(&self) -> &str {
        &self.raw.stored_type().name
    }
    #[getter]
    fn kind(&self) -> u32 {
        self.raw.kind() as u32
    }
    #[getter]
    fn depth(&self) -> u64 {
        self.raw.depth()
    }
    #[getter]
    fn reliability(&self) -> &'static str {
        reliability_name(self.raw.reliability())
    }
    #[getter]
    fn path(&self) -> String {
        path_str(self.raw.path())
    }
    #[getter]
    fn max_payload_bytes(&self) -> usize {
        self.raw.max_payload_bytes()
    }

    #[pyo3(signature = (cls=None))]
    fn publisher(&self, py: Python<'_>, cls: Option<Py<PyType>>) -> PyResult<Publisher> {
        check_message_class(py, &cls)?;
        Ok(Publisher {
            reliable: self.raw.reliability() == Reliability::Reliable,
            raw: self.raw.publisher().map_err(open_err)?,
            cls,
        })
    }

    /// A subscriber. `cls`: the message class of a fixed topic (received as its instances).
    /// `chunk`: the class of a chunked topic's messages, made from each received `Sample` by
    /// `chunk._from_sample(sample)`, or, given `image_header` (its header class), here as
    /// `chunk(header view, pixel array, sample)`. Neither: bytes or a `Sample`.
    #[pyo3(signature = (cls=None, history=0, chunk=None, image_header=None))]
    fn subscriber(
        &self,
        py: Python<'_>,
        cls: Option<Py<PyType>>,
        history: u64,
        chunk: Option<Bound<'_, PyType>>,
        image_header: Option<Py<PyType>>,
    ) -> PyResult<Subscriber> {
        check_message_class(py, &cls)?;
        check_message_class(py, &image_header)?;
        let cls_size = match &cls {
            Some(c) => structs::size_of(c.bind(py))?,
            None => 0,
        };
        let make = match (chunk, image_header) {
            (Some(cls), Some(header_cls)) => Some(Make::Image {
                cls: cls.unbind(),
                header_cls,
            }),
            (Some(cls), None) => Some(Make::Other {
                from_sample: cls.getattr(intern!(py, "_from_sample"))?.unbind(),
            }),
            (None, None) => None,
            (None, Some(_)) => {
                return Err(PyTypeError::new_err("image_header needs the chunk class"))
            }
        };
        Ok(Subscriber {
            raw: self.raw.subscriber(history).map_err(open_err)?,
            kind: self.raw.kind(),
            cls,
            cls_size,
            make,
        })
    }
}

/// A typed endpoint's class must be a message class (`send` and receive rely on its layout).
fn check_message_class(py: Python<'_>, cls: &Option<Py<PyType>>) -> PyResult<()> {
    match cls {
        Some(c) if !c.bind(py).is_subclass_of::<structs::Struct>()? => Err(PyTypeError::new_err(
            format!("{} is not a nerve message class", c.bind(py).name()?),
        )),
        _ => Ok(()),
    }
}

/// Publishes untyped messages.
#[pyclass(module = "nerve._nerve", frozen)]
struct Publisher {
    raw: RawPublisher,
    cls: Option<Py<PyType>>,
    reliable: bool,
}

#[pymethods]
impl Publisher {
    /// Sends a fixed message (an instance of the topic's message class): one memcpy of its
    /// bytes into the ring.
    fn send(&self, py: Python<'_>, msg: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(cls) = &self.cls else {
            // Untyped: the bytes of any buffer (their length is checked against the topic's).
            return with_buffer(msg, false, |b| self.raw.send_bytes(b))?.map_err(send_err);
        };
        if !msg.get_type().is(cls.bind(py)) {
            return Err(PyTypeError::new_err(format!(
                "topic '{}' carries {}, got a {}",
                self.raw.topic(),
                cls.bind(py).name()?,
                msg.get_type().name()?
            )));
        }
        // The class is a message class (checked when the publisher was made).
        let bytes = msg.downcast::<structs::Struct>()?.get().bytes();
        if self.reliable {
            // A reliable send may wait for room: let other Python threads run meanwhile, on a
            // copy (they may write the message's fields while we wait).
            let mut buf = [0u8; 1024];
            let raw = &self.raw;
            let r = if bytes.len() <= buf.len() {
                let copy = &mut buf[..bytes.len()];
                copy.copy_from_slice(bytes);
                py.detach(|| raw.send_bytes(copy))
            } else {
                let copy = bytes.to_vec();
                py.detach(|| raw.send_bytes(&copy))
            };
            r.map_err(send_err)
        } else {
            self.raw.send_bytes(bytes).map_err(send_err)
        }
    }

    /// Publishes already-serialized bytes (MessagePack) through a chunk.
    fn send_serialized(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        with_buffer(data, false, |bytes| self.raw.send_serialized(bytes))?.map_err(send_err)
    }

    /// Loans a chunk with `header_bytes` of header (zeroed: a recycled chunk still holds the
    /// previous message's) and `payload_bytes` of payload (as it was).
    fn loan(&self, header_bytes: usize, payload_bytes: usize) -> PyResult<Loan> {
        self.loan_zeroed(header_bytes, payload_bytes)
    }

    /// Loans a chunk for an image and writes its header, in one call: `(loan, header view,
    /// pixel array)`. `header_cls` is `ImageHeader`, or `DepthImageHeader` when `depth_scale`
    /// is given (then the encoding must be `16UC1` or `32FC1`). Rows are packed (`step` =
    /// width × bytes per pixel).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (header_cls, width, height, encoding, stamp_ns, frame_id, depth_scale=None))]
    fn loan_image<'py>(
        &self,
        py: Python<'py>,
        header_cls: &Bound<'py, PyType>,
        width: u32,
        height: u32,
        encoding: u32,
        stamp_ns: u64,
        frame_id: &str,
        depth_scale: Option<f32>,
    ) -> PyResult<(Bound<'py, Loan>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        use nerve::msgs::{DepthImageHeader, Encoding, Header, ImageHeader};
        let topic = self.raw.topic();
        let enc = Encoding::from_raw(encoding).ok_or_else(|| {
            PyValueError::new_err(format!("topic '{topic}': unknown encoding code {encoding}"))
        })?;
        let header = Header::new(stamp_ns, 0, frame_id)
            .map_err(|e| PyValueError::new_err(format!("topic '{topic}': frame_id: {e}")))?;
        let img = ImageHeader::new(header, width, height, enc);
        if img.step as usize != width as usize * enc.bytes_per_pixel() {
            return Err(PyValueError::new_err(format!(
                "topic '{topic}': a {width}-pixel row of {enc} does not fit 4 GiB"
            )));
        }
        let payload = img.data_len();
        let loan = match depth_scale {
            None => {
                let l = self.loan_zeroed(size_of::<ImageHeader>(), payload)?;
                // SAFETY: the loan owns its chunk's header (at least `ImageHeader`'s size,
                // checked by `loan`) until sent; headers are written unaligned.
                unsafe { (l.header_ptr as *mut ImageHeader).write_unaligned(img) };
                l
            }
            Some(depth_scale) => {
                if !matches!(enc, Encoding::U16C1 | Encoding::F32C1) {
                    return Err(PyValueError::new_err(format!(
                        "topic '{topic}': {}",
                        nerve::msgs::NotADepthEncoding(enc)
                    )));
                }
                let h = DepthImageHeader {
                    header,
                    width,
                    height,
                    step: img.step,
                    encoding,
                    depth_scale,
                    _pad: 0,
                };
                let l = self.loan_zeroed(size_of::<DepthImageHeader>(), payload)?;
                // SAFETY: as above, for `DepthImageHeader`.
                unsafe { (l.header_ptr as *mut DepthImageHeader).write_unaligned(h) };
                l
            }
        };
        let loan = Bound::new(py, loan)?;
        let header = header_view(&loan, header_cls)?;
        let data = image_array(&loan, &img)?;
        Ok((loan, header, data))
    }

    #[getter]
    fn topic(&self) -> &str {
        self.raw.topic()
    }
}

impl Publisher {
    fn loan_zeroed(&self, header_bytes: usize, payload_bytes: usize) -> PyResult<Loan> {
        let loan = self
            .raw
            .loan(header_bytes, payload_bytes)
            .map_err(send_err)?;
        // SAFETY: the loan owns its chunk until sent, and the chunk holds `header_bytes` of
        // header at `header_ptr` (checked by `loan`); nobody else reads it yet.
        unsafe { std::ptr::write_bytes(loan.header_ptr(), 0, header_bytes) };
        Ok(Loan {
            header_ptr: loan.header_ptr() as usize,
            data_ptr: loan.data_ptr() as usize,
            data_len: loan.data_len(),
            header_len: header_bytes,
            _mapping: loan.mapping(),
            raw: std::sync::Mutex::new(Some(loan)),
        })
    }
}

/// A chunk loaned from the pool: fill the header and payload in place, then `send()`.
#[pyclass(module = "nerve._nerve", frozen)]
struct Loan {
    raw: std::sync::Mutex<Option<RawLoan>>,
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

/// Fills `view` with a one-dimensional byte buffer over `[ptr, ptr + len)` owned by `obj`.
///
/// # Safety
/// `view` must be the `Py_buffer` the interpreter passed to `bf_getbuffer`, and the bytes must
/// stay valid while `obj` lives (the exporter holds what keeps them mapped).
pub(crate) unsafe fn fill_buffer(
    obj: &Bound<'_, PyAny>,
    view: *mut pyo3::ffi::Py_buffer,
    ptr: *const u8,
    len: usize,
    readonly: bool,
    flags: std::os::raw::c_int,
) -> PyResult<()> {
    // SAFETY: per the contract above; PyBuffer_FillInfo takes a new reference to `obj` (stored
    // in view->obj, released by the interpreter with the buffer) and fails on a writable
    // request for a read-only buffer.
    let rc = unsafe {
        pyo3::ffi::PyBuffer_FillInfo(
            view,
            obj.as_ptr(),
            ptr as *mut std::os::raw::c_void,
            len as pyo3::ffi::Py_ssize_t,
            std::os::raw::c_int::from(readonly),
            flags,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(obj.py()))
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
unsafe trait Chunk: PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync {
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
fn header_view<'py, C: Chunk>(
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
fn image_array<'py, C: Chunk>(
    slf: &Bound<'py, C>,
    img: &nerve::msgs::ImageHeader,
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
fn image_in<'py, C: Chunk>(slf: &Bound<'py, C>) -> PyResult<Bound<'py, PyAny>> {
    let (ptr, len) = slf.get().header();
    let need = size_of::<nerve::msgs::ImageHeader>();
    if len < need {
        return Err(PyValueError::new_err(format!(
            "the chunk's header holds {len} bytes; an image header is {need}"
        )));
    }
    // SAFETY: `Chunk`'s contract: `len >= need` header bytes at `ptr`, mapped; read unaligned.
    let img = unsafe { ptr.cast::<nerve::msgs::ImageHeader>().read_unaligned() };
    image_array(slf, &img)
}

/// The buffer protocol for a chunk: its bytes from the header to the payload's end.
///
/// # Safety
/// `view` must be the `Py_buffer` the interpreter passed to `bf_getbuffer`.
unsafe fn chunk_buffer<C: Chunk>(
    slf: &Bound<'_, C>,
    view: *mut pyo3::ffi::Py_buffer,
    flags: std::os::raw::c_int,
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
        flags: std::os::raw::c_int,
    ) -> PyResult<()> {
        // SAFETY: `view` comes from the interpreter.
        unsafe { chunk_buffer(&slf, view, flags) }
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}

    /// The chunk's header as an instance of the message class `cls`, viewing the chunk
    /// (writes go straight into shared memory).
    fn header_as<'py>(
        slf: &Bound<'py, Self>,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<Bound<'py, PyAny>> {
        header_view(slf, cls)
    }

    /// Where the payload starts, in bytes from the header's start.
    #[getter]
    fn data_offset(&self) -> usize {
        self.payload_offset()
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
        chunk_array(slf, offset, &shape, strides.as_deref(), dtype)
    }

    /// The payload as the pixels of the image the chunk's header describes (shape and dtype
    /// from its size and encoding; flat bytes for an unknown encoding).
    fn image_array<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        image_in(slf)
    }

    /// Publishes the chunk (no copy). A loan is sent at most once. `seal`: a numpy array
    /// over the chunk made read-only once it is sent (subscribers read it from then on).
    #[pyo3(signature = (seal=None))]
    fn send(&self, seal: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let loan = self
            .raw
            .lock()
            .map_err(|_| PyRuntimeError::new_err("loan lock poisoned"))?
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this loan was already sent or discarded"))?;
        loan.send().map_err(send_err)?;
        seal.map_or(Ok(()), arrays::seal)
    }
    /// Returns the chunk to the pool unsent.
    fn discard(&self) {
        if let Ok(mut l) = self.raw.lock() {
            l.take();
        }
    }
    /// True until sent or discarded.
    #[getter]
    fn active(&self) -> bool {
        self.raw.lock().map(|l| l.is_some()).unwrap_or(false)
    }
}

/// A received chunk, pinned in shared memory while this object lives.
#[pyclass(module = "nerve._nerve", frozen)]
struct Sample {
    raw: RawSample,
}

#[pymethods]
impl Sample {
    /// The buffer protocol: the chunk's bytes from the header to the end of the payload,
    /// read-only (pinned while this sample, held by every view, lives).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: std::os::raw::c_int,
    ) -> PyResult<()> {
        // SAFETY: `view` comes from the interpreter.
        unsafe { chunk_buffer(&slf, view, flags) }
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}

    /// The chunk's header as a read-only instance of the message class `cls`, viewing the
    /// chunk (pinned while the view lives).
    fn header_as<'py>(
        slf: &Bound<'py, Self>,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<Bound<'py, PyAny>> {
        header_view(slf, cls)
    }

    /// Where the payload starts, in bytes from the header's start.
    #[getter]
    fn data_offset(&self) -> usize {
        self.payload_offset()
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
        chunk_array(slf, offset, &shape, strides.as_deref(), dtype)
    }

    /// The payload as the pixels of the image the chunk's header describes (shape and dtype
    /// from its size and encoding; flat bytes for an unknown encoding).
    fn image_array<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        image_in(slf)
    }

    /// Address of the header: the start of the exported buffer.
    #[getter]
    fn header_ptr(&self) -> usize {
        self.raw.header().as_ptr() as usize
    }

    /// The header bytes (a copy; headers are small).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.raw.header())
    }
    #[getter]
    fn data_ptr(&self) -> usize {
        self.raw.data_ptr() as usize
    }
    #[getter]
    fn data_len(&self) -> usize {
        self.raw.data_len()
    }
    /// Number of elements.
    fn __len__(&self) -> usize {
        self.raw.len()
    }
}

enum Got {
    Fixed,
    Chunk(RawSample),
}

fn own(m: Option<RawMessage<'_>>) -> Option<Got> {
    m.map(|m| match m {
        RawMessage::Fixed(_) => Got::Fixed,
        RawMessage::Chunk(s) => Got::Chunk(s),
    })
}

/// Serialized payloads up to this size are handed to Python as `bytes` (one small copy, the
/// chunk freed at once); larger ones as a pinned `Sample` decoded in place.
const SERIALIZED_COPY_MAX: usize = 64 * 1024;

/// Longest a blocking receive waits with the GIL released before checking for signals.
const SIGNAL_SLICE: Duration = Duration::from_millis(50);

/// How a subscriber of a chunked topic makes its messages from received samples.
enum Make {
    /// An image class: the header view and the pixel array are made here (from the header's
    /// size and encoding), then `cls(header, data, sample)`.
    Image {
        cls: Py<PyType>,
        header_cls: Py<PyType>,
    },
    /// Any other chunked class: `cls._from_sample(sample)`.
    Other { from_sample: Py<PyAny> },
}

impl Make {
    fn make<'py>(&self, sample: Bound<'py, Sample>, topic: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = sample.py();
        match self {
            Make::Other { from_sample } => from_sample.bind(py).call1((sample,)),
            Make::Image { cls, header_cls } => {
                let in_topic = |e: PyErr| {
                    PyErr::from_type(e.get_type(py), format!("topic '{topic}': {}", e.value(py)))
                };
                let header = header_view(&sample, header_cls.bind(py)).map_err(in_topic)?;
                let data = image_in(&sample).map_err(in_topic)?;
                cls.bind(py).call1((header, data, sample))
            }
        }
    }
}

/// Receives messages: fixed ones as instances of their class (or bytes), chunked ones as
/// their class's instances (or `Sample`s), serialized ones as bytes or `Sample`s.
#[pyclass(module = "nerve._nerve")]
struct Subscriber {
    raw: RawSubscriber,
    kind: MessageKind,
    cls: Option<Py<PyType>>,
    /// The size of `cls`'s instances.
    cls_size: usize,
    make: Option<Make>,
}

impl Subscriber {
    fn convert(&self, py: Python<'_>, got: Option<Got>) -> PyResult<Option<Py<PyAny>>> {
        let Some(got) = got else { return Ok(None) };
        Ok(Some(match got {
            Got::Fixed => {
                let bytes = self.raw.fixed_buffer();
                match &self.cls {
                    Some(cls) => {
                        let cls = cls.bind(py);
                        let size = self.cls_size;
                        if size != bytes.len() {
                            return Err(PyTypeError::new_err(format!(
                                "{} is {size} bytes, the topic's messages {}",
                                cls.name()?,
                                bytes.len()
                            )));
                        }
                        // SAFETY: a message class (checked when the subscriber was made).
                        unsafe { structs::Struct::new_owned(py, cls, bytes)? }.unbind()
                    }
                    None => PyBytes::new(py, bytes).into_any().unbind(),
                }
            }
            Got::Chunk(s) => {
                if self.kind == MessageKind::Serialized && s.data_len() <= SERIALIZED_COPY_MAX {
                    PyBytes::new(py, s.data()).into_any().unbind()
                } else {
                    let sample = Bound::new(py, Sample { raw: s })?;
                    match &self.make {
                        Some(make) => make.make(sample, self.raw.topic())?.unbind(),
                        None => sample.into_any().unbind(),
                    }
                }
            }
        }))
    }
}

#[pymethods]
impl Subscriber {
    /// The next message if one is there, else None. Never blocks; keeps the GIL (it is
    /// faster than releasing it).
    fn try_recv(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let got = own(self.raw.try_recv().map_err(recv_err)?);
        self.convert(py, got)
    }

    /// Waits up to `timeout` seconds (None: forever) with the GIL released, checking for
    /// signals (Ctrl-C) every 50 ms. Returns None on timeout.
    #[pyo3(signature = (timeout=None))]
    fn recv(&mut self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Py<PyAny>>> {
        let got = own(self.raw.try_recv().map_err(recv_err)?);
        if got.is_some() {
            return self.convert(py, got);
        }
        let deadline = match timeout {
            Some(t) if !(t >= 0.0 && t.is_finite()) => {
                return Err(PyValueError::new_err(format!(
                    "timeout must be a finite number of seconds >= 0, got {t}"
                )))
            }
            Some(t) => Some(Instant::now() + Duration::from_secs_f64(t)),
            None => None,
        };
        loop {
            let slice = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Ok(None);
                    }
                    (d - now).min(SIGNAL_SLICE)
                }
                None => SIGNAL_SLICE,
            };
            let raw = &mut self.raw;
            let got = py
                .detach(|| raw.recv_timeout(slice).map(own))
                .map_err(recv_err)?;
            if got.is_some() {
                return self.convert(py, got);
            }
            py.check_signals()?;
        }
    }

    /// Like `recv`, but a timeout raises `Timeout` naming the topic.
    fn recv_deadline(&mut self, py: Python<'_>, timeout: f64) -> PyResult<Py<PyAny>> {
        match self.recv(py, Some(timeout))? {
            Some(m) => Ok(m),
            None => Err(recv_err(
                self.raw.timeout_error(Duration::from_secs_f64(timeout)),
            )),
        }
    }

    /// (received, lost, dropped).
    fn stats(&self) -> (u64, u64, u64) {
        let s = self.raw.stats();
        (s.received, s.lost, s.dropped)
    }

    /// How long a blocking receive spins before sleeping, seconds.
    fn set_spin(&mut self, seconds: f64) -> PyResult<()> {
        if !(seconds >= 0.0 && seconds.is_finite()) {
            return Err(PyValueError::new_err("spin must be >= 0 seconds"));
        }
        self.raw.set_spin(Duration::from_secs_f64(seconds));
        Ok(())
    }

    #[getter]
    fn topic(&self) -> &str {
        self.raw.topic()
    }
}

/// Topics of `domain` (default `$NERVE_DOMAIN` or 0) as dicts.
#[pyfunction]
#[pyo3(signature = (domain=None))]
fn topics(py: Python<'_>, domain: Option<u32>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let domain = domain.unwrap_or_else(nerve::default_domain);
    let list = py.detach(|| nerve::registry::list(domain));
    list.into_iter()
        .map(|t| {
            let d = PyDict::new(py);
            d.set_item("name", &t.name)?;
            d.set_item("type_name", &t.type_name)?;
            d.set_item("path", path_str(&t.path))?;
            d.set_item("reliability", reliability_name(t.reliability))?;
            d.set_item("depth", t.depth)?;
            d.set_item("published", t.published)?;
            d.set_item("publishers", t.publishers())?;
            d.set_item("subscribers", t.subscribers())?;
            d.set_item("pids", t.pids())?;
            d.set_item("error", t.error)?;
            Ok(d)
        })
        .collect()
}

/// The domain from `$NERVE_DOMAIN`, or 0.
#[pyfunction]
fn default_domain() -> u32 {
    nerve::default_domain()
}

#[pymodule]
fn _nerve(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Rust `tracing`/`log` records go to Python's `logging` (logger names = Rust targets).
    let _ = pyo3_log::try_init();
    let py = m.py();
    m.add_class::<Topic>()?;
    m.add_class::<Publisher>()?;
    m.add_class::<Subscriber>()?;
    m.add_class::<Loan>()?;
    m.add_class::<Sample>()?;
    m.add_function(wrap_pyfunction!(topics, m)?)?;
    m.add_function(wrap_pyfunction!(default_domain, m)?)?;
    m.add_function(wrap_pyfunction!(layout::message_types, m)?)?;
    m.add_class::<structs::Struct>()?;
    m.add_class::<structs::Spec>()?;
    m.add_function(wrap_pyfunction!(structs::struct_classes, m)?)?;
    m.add("NerveError", py.get_type::<NerveError>())?;
    m.add("OpenError", py.get_type::<exc::OpenError>())?;
    m.add("InvalidName", py.get_type::<InvalidName>())?;
    m.add("TypeMismatch", py.get_type::<TypeMismatch>())?;
    m.add("QosMismatch", py.get_type::<QosMismatch>())?;
    m.add("Corrupt", py.get_type::<Corrupt>())?;
    m.add("TooManyEndpoints", py.get_type::<TooManyEndpoints>())?;
    m.add("InvalidConfig", py.get_type::<InvalidConfig>())?;
    m.add("Io", py.get_type::<Io>())?;
    m.add("SendError", py.get_type::<exc::SendError>())?;
    m.add("Full", py.get_type::<Full>())?;
    m.add("TooLarge", py.get_type::<TooLarge>())?;
    m.add("PoolExhausted", py.get_type::<PoolExhausted>())?;
    m.add("Encode", py.get_type::<Encode>())?;
    m.add("RecvError", py.get_type::<exc::RecvError>())?;
    m.add("Timeout", py.get_type::<Timeout>())?;
    m.add("Decode", py.get_type::<Decode>())?;
    m.add("DEFAULT_DEPTH", nerve::DEFAULT_DEPTH)?;
    rpc::register(m)?;
    action::register(m)?;
    Ok(())
}
