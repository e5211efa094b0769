//! `Subscriber`: receives fixed messages as instances of their class, chunked ones as their
//! class's instances viewing the pinned chunk, serialized ones as bytes or samples.

use std::time::{Duration, Instant};

use nerve::msgs::MessageKind;
use nerve::raw::{RawMessage, RawSample, RawSubscriber, RawTopic};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

use crate::args::{Seconds, FOREVER};
use crate::chunk::{header_view, image_in, tensor_in, Sample};
use crate::errors::{guard, open_err, recv_err};
use crate::structs::{self, check_message_class};

/// Serialized payloads up to this size are handed to Python as `bytes` (one small copy, the
/// chunk freed at once); larger ones as a pinned `Sample` decoded in place.
const SERIALIZED_COPY_MAX: usize = 64 * 1024;

/// Longest a blocking receive waits with the GIL released before checking for signals.
const SIGNAL_SLICE: Duration = Duration::from_millis(50);

/// A received message, no longer borrowing the subscriber (a fixed one stays in its buffer).
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

/// How a subscriber of a chunked topic makes its messages from received samples.
enum Make {
    /// An image or tensor class: the header view and the array are made here (from the
    /// header's size and encoding, or its shape and element type), then `cls(header, data,
    /// sample)`.
    Image {
        cls: Py<PyType>,
        header_cls: Py<PyType>,
        tensor: bool,
    },
    /// Any other chunked class: `cls._from_sample(sample)`.
    Other { from_sample: Py<PyAny> },
}

impl Make {
    fn make<'py>(&self, sample: Bound<'py, Sample>, topic: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = sample.py();
        match self {
            Make::Other { from_sample } => from_sample.bind(py).call1((sample,)),
            Make::Image {
                cls,
                header_cls,
                tensor,
            } => {
                let in_topic = |e: PyErr| {
                    PyErr::from_type(e.get_type(py), format!("topic '{topic}': {}", e.value(py)))
                };
                let header = header_view(&sample, header_cls.bind(py)).map_err(in_topic)?;
                let data = if *tensor {
                    tensor_in(&sample)
                } else {
                    image_in(&sample)
                }
                .map_err(in_topic)?;
                cls.bind(py).call1((header, data, sample))
            }
        }
    }
}

/// Receives messages: fixed ones as instances of their class (or bytes), chunked ones as
/// their class's instances (or `Sample`s), serialized ones as bytes or `Sample`s.
#[pyclass(module = "nerve._nerve")]
pub(crate) struct Subscriber {
    raw: RawSubscriber,
    kind: MessageKind,
    cls: Option<Py<PyType>>,
    /// The size of `cls`'s instances.
    cls_size: usize,
    make: Option<Make>,
}

impl Subscriber {
    /// A subscriber of `topic` (see `Topic.subscriber` for the classes).
    pub(crate) fn new(
        py: Python<'_>,
        topic: &RawTopic,
        history: u64,
        cls: Option<Py<PyType>>,
        chunk: Option<Bound<'_, PyType>>,
        image_header: Option<Py<PyType>>,
        tensor: bool,
    ) -> PyResult<Subscriber> {
        check_message_class(py, cls.as_ref())?;
        check_message_class(py, image_header.as_ref())?;
        let cls_size = match &cls {
            Some(c) => structs::size_of(c.bind(py))?,
            None => 0,
        };
        let make = match (chunk, image_header) {
            (Some(cls), Some(header_cls)) => Some(Make::Image {
                cls: cls.unbind(),
                header_cls,
                tensor,
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
            raw: topic.subscriber(history).map_err(open_err)?,
            kind: topic.kind(),
            cls,
            cls_size,
            make,
        })
    }

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
                    let sample = Bound::new(py, Sample::new(s))?;
                    match &self.make {
                        Some(make) => make.make(sample, self.raw.topic())?.unbind(),
                        None => sample.into_any().unbind(),
                    }
                }
            }
        }))
    }

    /// `recv`'s wait: up to `timeout` (None: forever), the GIL released in slices.
    fn recv_within(
        &mut self,
        py: Python<'_>,
        timeout: Option<Duration>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let got = own(self.raw.try_recv().map_err(recv_err)?);
        if got.is_some() {
            return self.convert(py, got);
        }
        let raw = &mut self.raw;
        let got = wait_sliced(py, timeout, |slice| {
            py.detach(|| raw.recv_timeout(slice).map(own))
                .map_err(recv_err)
        })?;
        self.convert(py, got)
    }
}

/// Waits up to `timeout` (None: forever) in slices of at most 50 ms, calling `step(slice)`
/// (which waits up to `slice`, the GIL released) until it gives something, and checking for
/// signals (Ctrl-C) between slices. `Ok(None)` when the time is up.
pub(crate) fn wait_sliced<T>(
    py: Python<'_>,
    timeout: Option<Duration>,
    mut step: impl FnMut(Duration) -> PyResult<Option<T>>,
) -> PyResult<Option<T>> {
    // `timeout` is below `args::FOREVER`; an `Instant` that far out still counts as
    // forever rather than overflowing.
    let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
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
        if let Some(got) = step(slice)? {
            return Ok(Some(got));
        }
        py.check_signals()?;
    }
}

#[pymethods]
impl Subscriber {
    /// The next message if one is there, else None. Never blocks; keeps the GIL (it is
    /// faster than releasing it).
    fn try_recv(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard("Subscriber.try_recv", || {
            let got = own(self.raw.try_recv().map_err(recv_err)?);
            self.convert(py, got)
        })
    }

    /// Waits up to `timeout` seconds (None or math.inf: forever) with the GIL released,
    /// checking for signals (Ctrl-C) every 50 ms. Returns None on timeout.
    #[pyo3(signature = (timeout=Seconds::FOREVER), text_signature = "($self, timeout=None)")]
    fn recv(&mut self, py: Python<'_>, timeout: Seconds<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard("Subscriber.recv", || {
            let timeout = timeout.wait("timeout")?;
            self.recv_within(py, timeout)
        })
    }

    /// Like `recv`, but a timeout raises `Timeout` naming the topic.
    fn recv_deadline(&mut self, py: Python<'_>, timeout: Seconds<'_>) -> PyResult<Py<PyAny>> {
        guard("Subscriber.recv_deadline", || {
            let timeout = timeout.wait("timeout")?;
            match self.recv_within(py, timeout)? {
                Some(m) => Ok(m),
                // Only a finite timeout ends without a message.
                None => Err(recv_err(self.raw.timeout_error(timeout.unwrap_or(FOREVER)))),
            }
        })
    }

    /// (received, lost, dropped, corrupt).
    fn stats(&self) -> PyResult<(u64, u64, u64, u64)> {
        guard("Subscriber.stats", || {
            let s = self.raw.stats();
            Ok((s.received, s.lost, s.dropped, s.corrupt))
        })
    }

    /// How long a blocking receive spins before sleeping, seconds.
    fn set_spin(&mut self, seconds: Seconds<'_>) -> PyResult<()> {
        guard("Subscriber.set_spin", || {
            self.raw.set_spin(seconds.duration("seconds")?);
            Ok(())
        })
    }

    #[getter]
    fn topic(&self) -> PyResult<&str> {
        guard("Subscriber.topic", || Ok(self.raw.topic()))
    }
}
