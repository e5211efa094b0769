//! nerve's standard types in ROS 2's wire form, for bridges written in Python on rclpy:
//! `Ros2Reader` gives a nerve topic's messages as the CDR bytes ROS 2 publishes (what
//! `Publisher.publish(bytes)` sends), `Ros2Writer` publishes CDR bytes (what a raw rclpy
//! subscription receives) as nerve messages. Both convert with nerve-bag's table of standard
//! types, the one recordings use; a camera frame is copied once each way.

use std::time::Duration;

use nerve::msgs::described::TypeDoc;
use nerve::raw::{RawPublisher, RawSubscriber, RawTopic};
use nerve::OpenError;
use nerve_bag::ros2::{Ros2Type, TopicForm};
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

/// A nerve topic's messages as ROS 2 CDR bytes.
#[pyclass(module = "nerve._nerve")]
pub(crate) struct Ros2Reader {
    sub: RawSubscriber,
    form: TopicForm,
    topic: String,
}

#[pymethods]
impl Ros2Reader {
    /// Reads topic `topic` (which must exist and carry a standard type with a ROS 2 form);
    /// `history`: how many of the messages already published to start with.
    #[new]
    #[pyo3(signature = (topic, *, domain=None, history=0))]
    fn new(topic: &str, domain: Option<u32>, history: u64) -> PyResult<Self> {
        guard("Ros2Reader", || {
            let raw = RawTopic::join(topic, domain_or_default(domain)).map_err(open_err)?;
            let form = TopicForm::of(&raw).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "topic '{topic}' carries {}, which has no ROS 2 form (see `nerve interface list`)",
                    raw.stored_type().name
                ))
            })?;
            Ok(Ros2Reader {
                sub: raw.subscriber(history).map_err(open_err)?,
                form,
                topic: topic.to_owned(),
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
            let (sub, form, topic) = (&mut self.sub, &self.form, &self.topic);
            let mut step = |slice: Duration| -> PyResult<Option<Vec<u8>>> {
                py.detach(|| match sub.recv_timeout(slice) {
                    Ok(Some(m)) => Ok(Some(form.encode(&m))),
                    Ok(None) => Ok(None),
                    Err(e) => Err(e),
                })
                .map_err(recv_err)?
                .map(|r| r.map_err(|e| Decode::new_err(format!("topic '{topic}': {e}"))))
                .transpose()
            };
            let got = match step(Duration::ZERO)? {
                Some(b) => Some(b),
                None => wait_sliced(py, timeout, step)?,
            };
            Ok(got.map(|b| PyBytes::new(py, &b)))
        })
    }
}

/// Publishes ROS 2 CDR bytes on a nerve topic as messages of a standard type.
#[pyclass(module = "nerve._nerve")]
pub(crate) struct Ros2Writer {
    publisher: RawPublisher,
    ros2: Ros2Type,
    doc: TypeDoc,
    topic: String,
}

#[pymethods]
impl Ros2Writer {
    /// Writes topic `topic` as `nerve_type` (`nerve/Imu`, `Imu` or `sensor_msgs/msg/Imu`;
    /// for a ROS 2 type several nerve types share, the first of `ros2_types()`), creating
    /// it (with `depth`) if it does not exist.
    #[new]
    #[pyo3(signature = (topic, nerve_type, *, domain=None, depth=None))]
    fn new(
        topic: &str,
        nerve_type: &str,
        domain: Option<u32>,
        depth: Option<u32>,
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
                    b.open().map_err(open_err)?
                }
                Err(e) => return Err(open_err(e)),
            };
            Ok(Ros2Writer {
                publisher: raw.publisher().map_err(open_err)?,
                ros2,
                doc,
                topic: topic.to_owned(),
            })
        })
    }

    /// Publishes one message given as CDR bytes (with their 4-byte encapsulation header);
    /// bytes that are not a message of this type raise `Encode` naming the topic and the
    /// field, and nothing is sent.
    fn send(&self, py: Python<'_>, cdr: &[u8]) -> PyResult<()> {
        guard("Ros2Writer.send", || {
            let (fixed, payload) =
                py.detach(|| self.ros2.to_nerve(&self.doc, cdr))
                    .map_err(|e| {
                        Encode::new_err(format!(
                            "topic '{}': not a {}: {e}",
                            self.topic, self.ros2.name
                        ))
                    })?;
            py.detach(|| self.publisher.send_parts(&fixed, &payload))
                .map_err(send_err)
        })
    }
}
