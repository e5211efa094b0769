//! nerve's standard types in ROS 2's wire form, for bridges written in Python on rclpy:
//! `Ros2Reader` gives a nerve topic's messages as the CDR bytes ROS 2 publishes (what
//! `Publisher.publish(bytes)` sends), `Ros2Writer` publishes CDR bytes (what a raw rclpy
//! subscription receives) as nerve messages. Both convert with nerve-ros2's table of standard
//! types, the one recordings use; a camera frame is copied once each way (from the chunk into
//! the bytes rclpy publishes; from the bytes rclpy received into the loaned chunk).
//!
//! A bridge carrying a topic both ways gives its reader and writer one `EchoFilter`: what the
//! writer published the reader skips, so nothing goes back where it came from.

use std::sync::Arc;
use std::time::Duration;

use nerve::echo::{self, EchoFilter as Filter};
use nerve::msgs::described::TypeDoc;
use nerve::raw::{RawMessage, RawPublisher, RawSample, RawSubscriber, RawTopic};
use nerve::OpenError;
use nerve_ros2::{Ros2Type, TopicForm};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::args::Seconds;
use crate::errors::{guard, open_err, recv_err, send_err, Decode, Encode};
use crate::subscriber::wait_sliced;

fn domain_or_default(domain: Option<u32>) -> u32 {
    domain.unwrap_or_else(nerve::default_domain)
}

/// `(nerve type, ROS 2 type)` of every standard type that has a ROS 2 form
/// (`("nerve/Imu", "sensor_msgs/msg/Imu")`, …). Several nerve types may share a ROS 2 type.
#[pyfunction]
pub(crate) fn ros2_types() -> PyResult<Vec<(String, String)>> {
    guard("ros2_types", || {
        Ok(nerve::msgs::STANDARD
            .iter()
            .filter_map(|s| Some((s.name.to_owned(), Ros2Type::of(s.name)?.name.to_owned())))
            .collect())
    })
}

/// The messages a bridge brought into a topic, so that it does not send them back out:
/// given to a `Ros2Writer` and a `Ros2Reader` of one nerve topic, or used from Python on the
/// bytes a bridge publishes and receives elsewhere (`imported`, then `is_echo`).
#[pyclass(module = "nerve._nerve", frozen)]
pub(crate) struct EchoFilter(Arc<Filter>);

impl EchoFilter {
    /// The filter itself, shared.
    pub(crate) fn filter(&self) -> Arc<Filter> {
        self.0.clone()
    }
}

#[pymethods]
impl EchoFilter {
    #[new]
    fn new() -> PyResult<Self> {
        guard("EchoFilter", || Ok(EchoFilter(Arc::default())))
    }

    /// Something reads what these notes are checked against (the bridge's subscription on
    /// the other side): from now on an importer notes what it publishes. Readers and
    /// `Ros2Pump`'s echo watch by themselves.
    fn watch(&self) -> PyResult<()> {
        guard("EchoFilter.watch", || {
            self.0.watch();
            Ok(())
        })
    }

    /// These bytes were published by the bridge (into the side they will come back from).
    fn imported(&self, data: &[u8]) -> PyResult<()> {
        guard("EchoFilter.imported", || {
            self.0.imported(echo::hash(data));
            Ok(())
        })
    }

    /// Whether these received bytes are ones the bridge published (each is an echo once).
    fn is_echo(&self, data: &[u8]) -> PyResult<bool> {
        guard("EchoFilter.is_echo", || {
            Ok(self.0.has_pending() && self.0.is_echo(echo::hash(data)))
        })
    }
}

/// A subscriber of topic `topic` (a standard type with a ROS 2 form), its form, and the echo
/// filter it skips (watched before subscribing: the writer notes every message it can see).
pub(crate) fn subscribe(
    topic: &str,
    domain: Option<u32>,
    history: u64,
    echo: Option<&Bound<'_, EchoFilter>>,
) -> PyResult<(RawSubscriber, TopicForm, Option<Arc<Filter>>)> {
    let raw = RawTopic::join(topic, domain_or_default(domain)).map_err(open_err)?;
    let form = TopicForm::of(&raw).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "topic '{topic}' carries {}, which has no ROS 2 form (see `nerve interface list`)",
            raw.stored_type().name
        ))
    })?;
    let echo = echo.map(|e| e.get().filter());
    if let Some(e) = &echo {
        e.watch();
    }
    Ok((raw.subscriber(history).map_err(open_err)?, form, echo))
}

/// A received message, owned: a fixed message's bytes copied, a chunk pinned.
enum Got {
    Fixed(Vec<u8>),
    Chunk(RawSample),
}

/// A nerve topic's messages as ROS 2 CDR bytes.
#[pyclass(module = "nerve._nerve")]
pub(crate) struct Ros2Reader {
    sub: RawSubscriber,
    form: TopicForm,
    topic: String,
    echo: Option<Arc<Filter>>,
}

/// Frames at least this big are copied into the bytes with the GIL released.
const COPY_WITHOUT_GIL: usize = 64 * 1024;

#[pymethods]
impl Ros2Reader {
    /// Reads topic `topic` (which must exist and carry a standard type with a ROS 2 form);
    /// `history`: how many of the messages already published to start with; `echo`: skip
    /// what the `Ros2Writer` sharing this filter published.
    #[new]
    #[pyo3(signature = (topic, *, domain=None, history=0, echo=None))]
    fn new(
        topic: &str,
        domain: Option<u32>,
        history: u64,
        echo: Option<&Bound<'_, EchoFilter>>,
    ) -> PyResult<Self> {
        guard("Ros2Reader", || {
            let (sub, form, echo) = subscribe(topic, domain, history, echo)?;
            Ok(Ros2Reader {
                sub,
                form,
                topic: topic.to_owned(),
                echo,
            })
        })
    }

    /// The ROS 2 type its messages are (`sensor_msgs/msg/Imu`).
    #[getter]
    fn ros2_type(&self) -> PyResult<String> {
        guard("Ros2Reader.ros2_type", || {
            Ok(self.form.ros2().name.to_owned())
        })
    }

    /// The ROS 2 type's definition (`ros2msg` text, with its nested types), as MCAP files
    /// and Foxglove carry it.
    #[getter]
    fn schema(&self) -> PyResult<String> {
        guard("Ros2Reader.schema", || {
            Ok(self.form.ros2().schema.to_owned())
        })
    }

    /// The next message as CDR bytes, waiting up to `timeout` seconds (None: forever) with
    /// the GIL released; None when none came. A message that has no ROS 2 form (a code ROS 2
    /// has no name for) raises `Decode` naming the topic; the next call goes on.
    #[pyo3(signature = (timeout=Seconds::FOREVER), text_signature = "($self, timeout=None)")]
    fn recv<'py>(
        &mut self,
        py: Python<'py>,
        timeout: Seconds<'_>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        guard("Ros2Reader.recv", || {
            let timeout = timeout.wait("timeout")?;
            let (sub, echo) = (&mut self.sub, &self.echo);
            let mut step = |slice: Duration| -> PyResult<Option<Got>> {
                py.detach(|| next_not_echo(sub, echo.as_deref(), slice))
                    .map_err(recv_err)
            };
            let got = match step(Duration::ZERO)? {
                Some(g) => Some(g),
                None => wait_sliced(py, timeout, step)?,
            };
            got.map(|g| self.to_bytes(py, g)).transpose()
        })
    }
}

impl Ros2Reader {
    /// The message's CDR as Python bytes: the frame copied once, from the chunk.
    fn to_bytes<'py>(&self, py: Python<'py>, got: Got) -> PyResult<Bound<'py, PyBytes>> {
        let fixed;
        let msg = match got {
            Got::Fixed(b) => {
                fixed = b;
                RawMessage::Fixed(&fixed)
            }
            Got::Chunk(s) => RawMessage::Chunk(s),
        };
        let (head, tail) = self
            .form
            .encode_split(&msg)
            .map_err(|e| Decode::new_err(format!("topic '{}': {e}", self.topic)))?;
        PyBytes::new_with(py, head.len() + tail.len(), |buf| {
            let (a, b) = buf.split_at_mut(head.len());
            a.copy_from_slice(&head);
            if tail.len() >= COPY_WITHOUT_GIL {
                py.detach(|| b.copy_from_slice(tail));
            } else {
                b.copy_from_slice(tail);
            }
            Ok(())
        })
    }
}

/// The next message that the writer sharing `echo` did not publish, waiting up to `slice`.
fn next_not_echo(
    sub: &mut RawSubscriber,
    echo: Option<&Filter>,
    slice: Duration,
) -> Result<Option<Got>, nerve::RecvError> {
    loop {
        let Some(m) = sub.recv_timeout(slice)? else {
            return Ok(None);
        };
        if let Some(f) = echo.filter(|f| f.has_pending()) {
            let (fixed, payload) = m.parts();
            if f.is_echo(echo::hash_parts(fixed, payload)) {
                continue;
            }
        }
        return Ok(Some(match m {
            RawMessage::Fixed(b) => Got::Fixed(b.to_vec()),
            RawMessage::Chunk(s) => Got::Chunk(s),
        }));
    }
}

/// Publishes ROS 2 CDR bytes on a nerve topic as messages of a standard type.
#[pyclass(module = "nerve._nerve", frozen)]
pub(crate) struct Ros2Writer(pub(crate) Arc<WriterCore>);

/// What a writer holds, shared with the `Ros2Intake` feeding it from rcl's thread.
pub(crate) struct WriterCore {
    publisher: RawPublisher,
    ros2: Ros2Type,
    doc: TypeDoc,
    pub(crate) topic: String,
    echo: Option<Arc<Filter>>,
}

/// Why a message did not reach nerve.
pub(crate) enum WriteError {
    /// Not a message of the type (the field named).
    Encode(String),
    Send(nerve::SendError<()>),
}

impl WriterCore {
    /// Publishes one message given as CDR: the frame copied once, from `cdr` into the chunk.
    pub(crate) fn write(&self, cdr: &[u8]) -> Result<(), WriteError> {
        let (fixed, payload) = self.ros2.to_nerve(&self.doc, cdr).map_err(|e| {
            WriteError::Encode(format!(
                "topic '{}': not a {}: {e}",
                self.topic, self.ros2.name
            ))
        })?;
        if let Some(f) = self.echo.as_deref().filter(|f| f.is_watched()) {
            f.imported(echo::hash_parts(&fixed, &payload));
        }
        self.publisher
            .send_parts(&fixed, &payload)
            .map_err(WriteError::Send)
    }
}

#[pymethods]
impl Ros2Writer {
    /// Writes topic `topic` as `nerve_type` (`nerve/Imu`, `Imu` or `sensor_msgs/msg/Imu`;
    /// for a ROS 2 type several nerve types share, the first of `ros2_types()`), creating
    /// it (with `depth` and `reliability`: 'best_effort', 'reliable' or 'latest_only') if it
    /// does not exist; `echo`: note what it publishes for the `Ros2Reader` sharing the filter
    /// to skip.
    #[new]
    #[pyo3(signature = (topic, nerve_type, *, domain=None, depth=None, reliability=None, echo=None))]
    fn new(
        topic: &str,
        nerve_type: &str,
        domain: Option<u32>,
        depth: Option<u32>,
        reliability: Option<&str>,
        echo: Option<&Bound<'_, EchoFilter>>,
    ) -> PyResult<Self> {
        guard("Ros2Writer", || {
            let schema = nerve::msgs::standard_named(nerve_type).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "no standard type '{nerve_type}' (see `nerve interface list`)"
                ))
            })?;
            let ros2 = Ros2Type::of(schema.name).ok_or_else(|| {
                PyTypeError::new_err(format!("{} has no ROS 2 form", schema.name))
            })?;
            let fp = schema.fingerprint().ok_or_else(|| {
                PyTypeError::new_err(format!("{} is a struct, not a message", schema.name))
            })?;
            let doc = TypeDoc::of(schema);
            let domain = domain_or_default(domain);
            let raw = match RawTopic::join(topic, domain) {
                Ok(t) if t.stored_type().name != schema.name => {
                    return Err(PyTypeError::new_err(format!(
                        "topic '{topic}' carries {}, not {}",
                        t.stored_type().name,
                        schema.name
                    )))
                }
                Ok(t) => t,
                Err(OpenError::NotFound { .. }) => {
                    let mut b = RawTopic::builder(topic, nerve::raw::stored_type_of(&fp))
                        .domain(domain)
                        .description(&doc);
                    if let Some(d) = depth {
                        b = b.depth(d);
                    }
                    if let Some(r) = reliability {
                        b = b.reliability(crate::topic::reliability(r)?);
                    }
                    b.open().map_err(open_err)?
                }
                Err(e) => return Err(open_err(e)),
            };
            Ok(Ros2Writer(Arc::new(WriterCore {
                publisher: raw.publisher().map_err(open_err)?,
                ros2,
                doc,
                topic: topic.to_owned(),
                echo: echo.map(|e| e.get().filter()),
            })))
        })
    }

    /// Publishes one message given as CDR bytes (with their 4-byte encapsulation header);
    /// bytes that are not a message of this type raise `Encode` naming the topic and the
    /// field, and nothing is sent.
    fn send(&self, py: Python<'_>, cdr: &[u8]) -> PyResult<()> {
        guard("Ros2Writer.send", || {
            py.detach(|| self.0.write(cdr)).map_err(|e| match e {
                WriteError::Encode(m) => Encode::new_err(m),
                WriteError::Send(e) => send_err(e),
            })
        })
    }
}
