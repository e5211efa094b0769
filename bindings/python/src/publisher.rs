//! `Publisher`: sends fixed messages (one memcpy), serialized bytes and loaned chunks.

use std::sync::Arc;

use nerve::msgs::{DType, DepthImageHeader, Encoding, Header, ImageHeader, TensorHeader};
use nerve::raw::{RawPublisher, RawTopic};
use nerve::Reliability;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::buffer::with_buffer;
use crate::chunk::{image_array, tensor_array, Loan};
use crate::errors::{guard, open_err, send_err};
use crate::lent::LoanMemory;
use crate::structs::{check_message_class, Struct};

/// The header of a C-contiguous tensor on `topic` (errors name the topic).
fn tensor_header(
    topic: &str,
    shape: &[u64],
    dtype: u32,
    stamp_ns: u64,
    frame_id: &str,
) -> PyResult<TensorHeader> {
    let dt = DType::from_raw(dtype).ok_or_else(|| {
        PyValueError::new_err(format!(
            "topic '{topic}': unknown tensor element type {dtype}"
        ))
    })?;
    let header = Header::new(stamp_ns, 0, frame_id)
        .map_err(|e| PyValueError::new_err(format!("topic '{topic}': frame_id: {e}")))?;
    TensorHeader::new(header, dt, shape)
        .map_err(|e| PyValueError::new_err(format!("topic '{topic}': {e}")))
}

/// Copies at least this large release the GIL (other Python threads run meanwhile).
const LARGE_COPY: usize = 1 << 20;

/// Publishes untyped messages.
#[pyclass(module = "nerve._nerve", frozen)]
pub(crate) struct Publisher {
    /// Shared with its loans (a loan sends a copy through it when it must).
    raw: Arc<RawPublisher>,
    /// The message class of a fixed topic's `send` (None: bytes of any buffer).
    cls: Option<Py<PyType>>,
    reliable: bool,
}

impl Publisher {
    /// A publisher of `topic`; `cls`, when given, must be a message class.
    pub(crate) fn new(
        py: Python<'_>,
        topic: &RawTopic,
        cls: Option<Py<PyType>>,
    ) -> PyResult<Publisher> {
        check_message_class(py, cls.as_ref())?;
        Ok(Publisher {
            reliable: topic.reliability() == Reliability::Reliable,
            raw: Arc::new(topic.publisher().map_err(open_err)?),
            cls,
        })
    }

    /// Loans a chunk of `header_bytes` of header, written from `header` then zeros, and
    /// `payload_bytes` of payload (as the previous message left it).
    fn loan_with<'py>(
        &self,
        py: Python<'py>,
        header_bytes: usize,
        payload_bytes: usize,
        header: &[u8],
    ) -> PyResult<Bound<'py, Loan>> {
        let raw = self
            .raw
            .loan(header_bytes, payload_bytes)
            .map_err(send_err)?;
        let memory = Py::new(py, LoanMemory::new(raw, header))?;
        Bound::new(py, Loan::new(memory, self.raw.clone()))
    }
}

#[pymethods]
impl Publisher {
    /// Sends a fixed message (an instance of the topic's message class): one memcpy of its
    /// bytes into the ring.
    fn send(&self, py: Python<'_>, msg: &Bound<'_, PyAny>) -> PyResult<()> {
        guard("Publisher.send", || self.send_message(py, msg))
    }

    /// Publishes already-serialized bytes (MessagePack) through a chunk.
    fn send_serialized(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        guard("Publisher.send_serialized", || {
            with_buffer(data, |bytes| self.raw.send_serialized(bytes))?.map_err(send_err)
        })
    }

    /// Loans a chunk with `header_bytes` of header (zeroed: a recycled chunk still holds the
    /// previous message's) and `payload_bytes` of payload (as it was).
    fn loan<'py>(
        &self,
        py: Python<'py>,
        header_bytes: usize,
        payload_bytes: usize,
    ) -> PyResult<Bound<'py, Loan>> {
        guard("Publisher.loan", || {
            self.loan_with(py, header_bytes, payload_bytes, &[])
        })
    }

    /// Loans a chunk for an image and writes its header, in one call: the loan, its `header`
    /// a view of `header_cls` and its `data` the pixel array. `header_cls` is `ImageHeader`, or `DepthImageHeader` when `depth_scale`
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
    ) -> PyResult<Bound<'py, Loan>> {
        guard("Publisher.loan_image", || {
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
                None => self.loan_with(
                    py,
                    size_of::<ImageHeader>(),
                    payload,
                    bytemuck::bytes_of(&img),
                )?,
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
                    self.loan_with(
                        py,
                        size_of::<DepthImageHeader>(),
                        payload,
                        bytemuck::bytes_of(&h),
                    )?
                }
            };
            let memory = loan.get().open_memory(py)?;
            let data = image_array(memory, &img)?;
            loan.get().set_views(py, header_cls, data)?;
            Ok(loan)
        })
    }

    /// Loans a chunk for a C-contiguous tensor and writes its header, in one call: the loan,
    /// its `header` a view of `header_cls` and its `data` the array. `header_cls` is `TensorHeader`; `dtype` a `DType` code.
    #[pyo3(signature = (header_cls, shape, dtype, stamp_ns, frame_id))]
    fn loan_tensor<'py>(
        &self,
        py: Python<'py>,
        header_cls: &Bound<'py, PyType>,
        shape: Vec<u64>,
        dtype: u32,
        stamp_ns: u64,
        frame_id: &str,
    ) -> PyResult<Bound<'py, Loan>> {
        guard("Publisher.loan_tensor", || {
            let topic = self.raw.topic();
            let h = tensor_header(topic, &shape, dtype, stamp_ns, frame_id)?;
            let payload = h
                .data_len()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "topic '{topic}': a tensor of shape {shape:?} is larger than memory"
                    ))
                })?;
            let loan = self.loan_with(
                py,
                size_of::<TensorHeader>(),
                payload,
                bytemuck::bytes_of(&h),
            )?;
            let memory = loan.get().open_memory(py)?;
            let data = tensor_array(memory, &h)?;
            loan.get().set_views(py, header_cls, data)?;
            Ok(loan)
        })
    }

    /// Sends a C-contiguous tensor of `shape` and `dtype` (a `DType` code) whose elements are
    /// the bytes of `data` (any contiguous buffer): one loan, the header written, one copy of
    /// the bytes, sent. The GIL is released while a large tensor is copied.
    #[pyo3(signature = (data, shape, dtype, stamp_ns, frame_id))]
    fn send_tensor(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        shape: Vec<u64>,
        dtype: u32,
        stamp_ns: u64,
        frame_id: &str,
    ) -> PyResult<()> {
        guard("Publisher.send_tensor", || {
            let topic = self.raw.topic();
            let h = tensor_header(topic, &shape, dtype, stamp_ns, frame_id)?;
            with_buffer(data, |bytes| {
                if h.data_len() != Some(bytes.len() as u64) {
                    return Err(PyValueError::new_err(format!(
                        "topic '{topic}': {} bytes of data for a tensor of shape {shape:?} and \
                         {}",
                        bytes.len(),
                        h.dtype().map_or("?", DType::name)
                    )));
                }
                let mut loan = self
                    .raw
                    .loan(size_of::<TensorHeader>(), bytes.len())
                    .map_err(send_err)?;
                loan.header_mut().copy_from_slice(bytemuck::bytes_of(&h));
                if bytes.len() >= LARGE_COPY {
                    // The buffer stays exported (and `data` alive) until `with_buffer` returns.
                    py.detach(|| loan.data_mut().copy_from_slice(bytes));
                } else {
                    loan.data_mut().copy_from_slice(bytes);
                }
                loan.send().map_err(send_err)
            })?
        })
    }

    #[getter]
    fn topic(&self) -> PyResult<&str> {
        guard("Publisher.topic", || Ok(self.raw.topic()))
    }
}

impl Publisher {
    /// `send`: a fixed message's bytes into the ring (or any buffer's, untyped).
    fn send_message(&self, py: Python<'_>, msg: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(cls) = &self.cls else {
            // Untyped: the bytes of any buffer (their length is checked against the topic's).
            return with_buffer(msg, |b| self.raw.send_bytes(b))?.map_err(send_err);
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
        let bytes = msg.downcast::<Struct>()?.get().bytes();
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
}
