//! `Topic`: opens an untyped topic and makes its publishers and subscribers; `topics()` and
//! `default_domain()` describe the topics of a domain.

use nerve::msgs::described::TypeDoc;
use nerve::raw::{self, RawTopic};
use nerve::{Reliability, TransportPath};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};

use crate::args::{self, count_opt};
use crate::errors::{guard, open_err, InvalidConfig};
use crate::publisher::Publisher;
use crate::subscriber::Subscriber;

/// The largest `max_message_bytes` asked for: more than any address space maps (2^47 bytes),
/// and far from overflowing the transport's size arithmetic.
const MAX_BYTES: u64 = 1 << 47;

pub(crate) fn reliability(name: &str) -> PyResult<Reliability> {
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
pub(crate) struct Topic {
    raw: RawTopic,
}

#[pymethods]
impl Topic {
    #[new]
    #[pyo3(signature = (name, stored_type, *, depth=None, reliability=None, domain=None, in_process=false, max_message_bytes=None, chunks=None, max_endpoints=None, description=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        name: &str,
        stored_type: (String, u32, u32, u32, u32, u64),
        depth: Option<&Bound<'_, PyAny>>,
        reliability: Option<&str>,
        domain: Option<&Bound<'_, PyAny>>,
        in_process: bool,
        max_message_bytes: Option<&Bound<'_, PyAny>>,
        chunks: Option<&Bound<'_, PyAny>>,
        max_endpoints: Option<&Bound<'_, PyAny>>,
        description: Option<&[u8]>,
    ) -> PyResult<Self> {
        guard("Topic.__new__", || {
            // Out-of-range values are the topic's `InvalidConfig` (also a `ValueError`),
            // naming the argument; values the transport's limits refuse come back from
            // `open()` as `InvalidConfig` too.
            let config = |arg: &str, v: Option<&Bound<'_, PyAny>>, lo: u64, hi: u64| {
                count_opt(arg, v, lo, hi).map_err(|e| {
                    if e.is_instance_of::<PyValueError>(py) {
                        InvalidConfig::new_err(format!("topic '{name}': {}", e.value(py)))
                    } else {
                        e
                    }
                })
            };
            // The transport's own limit, so the error names the real range.
            let depth = config("depth", depth, 1, u64::from(nerve::MAX_DEPTH))?;
            let domain = config("domain", domain, 0, u64::from(u32::MAX))?;
            let max_message_bytes = config("max_message_bytes", max_message_bytes, 0, MAX_BYTES)?;
            let chunks = config("chunks", chunks, 1, u64::from(u32::MAX))?;
            let max_endpoints = config("max_endpoints", max_endpoints, 1, u64::from(u32::MAX))?;
            let (name_t, kind, size, align, elem_size, layout_hash) = stored_type;
            let st = raw::StoredType {
                name: name_t,
                kind,
                size,
                align,
                elem_size,
                layout_hash,
            };
            // Each value fits its builder's type (checked above).
            // The topic carries its type's description, as a Rust creator's would: the one
            // given (a type declared in Python), else the standard one.
            let doc = match description {
                Some(bytes) => Some(
                    TypeDoc::from_bytes(bytes)
                        .map_err(|e| InvalidConfig::new_err(format!("topic '{name}': {e}")))?,
                ),
                None => nerve::msgs::standard(&st.name, st.layout_hash).map(TypeDoc::of),
            };
            let mut b = RawTopic::builder(name, st);
            if let Some(doc) = &doc {
                b = b.description(doc);
            }
            if let Some(d) = depth {
                b = b.depth(d as u32);
            }
            if let Some(r) = reliability {
                b = b.reliability(self::reliability(r)?);
            }
            if let Some(d) = domain {
                b = b.domain(d as u32);
            }
            if in_process {
                b = b.in_process();
            }
            if let Some(m) = max_message_bytes {
                b = b.max_message_bytes(m as usize);
            }
            if let Some(c) = chunks {
                b = b.chunks(c as u32);
            }
            if let Some(n) = max_endpoints {
                b = b.max_endpoints(n as u32);
            }
            let raw = py.detach(|| b.open()).map_err(open_err)?;
            Ok(Topic { raw })
        })
    }

    /// Opens the existing topic `name` as it is (its type, QoS and sizes); `NotFound` when
    /// there is none.
    #[staticmethod]
    #[pyo3(signature = (name, domain=None))]
    fn join(py: Python<'_>, name: &str, domain: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        guard("Topic.join", || {
            let domain = args::domain(domain)?.unwrap_or_else(nerve::default_domain);
            let raw = py
                .detach(|| RawTopic::join(name, domain))
                .map_err(open_err)?;
            Ok(Topic { raw })
        })
    }

    /// The stored type: `(name, kind, size, align, elem_size, layout_hash)`.
    #[getter]
    fn stored_type(&self) -> PyResult<StoredTuple> {
        guard("Topic.stored_type", || {
            Ok(stored_tuple(self.raw.stored_type()))
        })
    }

    /// The description the topic carries (bytes), None when it has none; a damaged one
    /// raises `Corrupt`.
    #[getter]
    fn description<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        guard("Topic.description", || match self.raw.description() {
            Ok(doc) => Ok(doc.map(|d| PyBytes::new(py, &d.to_bytes()))),
            Err(e) => Err(crate::errors::OpenCorrupt::new_err(format!(
                "topic '{}': its type {e}",
                self.raw.name()
            ))),
        })
    }

    #[getter]
    fn name(&self) -> PyResult<&str> {
        guard("Topic.name", || Ok(self.raw.name()))
    }
    #[getter]
    fn type_name(&self) -> PyResult<&str> {
        guard("Topic.type_name", || {
            Ok(self.raw.stored_type().name.as_str())
        })
    }
    #[getter]
    fn kind(&self) -> PyResult<u32> {
        guard("Topic.kind", || Ok(self.raw.kind() as u32))
    }
    #[getter]
    fn depth(&self) -> PyResult<u64> {
        guard("Topic.depth", || Ok(self.raw.depth()))
    }
    #[getter]
    fn reliability(&self) -> PyResult<&'static str> {
        guard("Topic.reliability", || {
            Ok(reliability_name(self.raw.reliability()))
        })
    }
    #[getter]
    fn path(&self) -> PyResult<String> {
        guard("Topic.path", || Ok(path_str(self.raw.path())))
    }
    #[getter]
    fn max_payload_bytes(&self) -> PyResult<usize> {
        guard("Topic.max_payload_bytes", || {
            Ok(self.raw.max_payload_bytes())
        })
    }

    /// A publisher. `cls`: the message class of a fixed topic (`send` takes its instances);
    /// none: `send` takes the bytes of any buffer.
    #[pyo3(signature = (cls=None))]
    fn publisher(&self, py: Python<'_>, cls: Option<Py<PyType>>) -> PyResult<Publisher> {
        guard("Topic.publisher", || Publisher::new(py, &self.raw, cls))
    }

    /// A subscriber. `cls`: the message class of a fixed topic (received as its instances).
    /// `chunk`: the class of a chunked topic's messages, made from each received `Sample` by
    /// `chunk._from_sample(sample)`, or, given `image_header` (its header class), here as
    /// `chunk(header view, pixel array, sample)` (the tensor's array when `tensor`). Neither: bytes or a `Sample`.
    #[pyo3(signature = (cls=None, history=None, chunk=None, image_header=None, tensor=false))]
    fn subscriber(
        &self,
        py: Python<'_>,
        cls: Option<Py<PyType>>,
        history: Option<&Bound<'_, PyAny>>,
        chunk: Option<Bound<'_, PyType>>,
        image_header: Option<Py<PyType>>,
        tensor: bool,
    ) -> PyResult<Subscriber> {
        guard("Topic.subscriber", || {
            // More history than the ring holds is the whole ring.
            let history = count_opt("history", history, 0, u64::MAX)?.unwrap_or(0);
            Subscriber::new(py, &self.raw, history, cls, chunk, image_header, tensor)
        })
    }
}

/// Topics of `domain` (default `$NERVE_DOMAIN` or 0) as dicts.
#[pyfunction]
#[pyo3(signature = (domain=None))]
pub(crate) fn topics<'py>(
    py: Python<'py>,
    domain: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    guard("topics", || {
        let domain = args::domain(domain)?.unwrap_or_else(nerve::default_domain);
        let list = py.detach(|| nerve::registry::list(domain));
        list.into_iter()
            .map(|t| {
                let d = PyDict::new(py);
                d.set_item("name", &t.name)?;
                d.set_item("type_name", &t.type_name)?;
                let kind = nerve::plumbing::TopicKind::of_info(&t);
                d.set_item("kind", kind.name())?;
                d.set_item("plumbing", kind.is_plumbing())?;
                d.set_item("path", path_str(&t.path))?;
                d.set_item("reliability", reliability_name(t.reliability))?;
                d.set_item("depth", t.depth)?;
                d.set_item("published", t.published)?;
                d.set_item("publishers", t.publishers())?;
                d.set_item("subscribers", t.subscribers())?;
                d.set_item("pids", t.pids())?;
                // The process of an in-process topic (this one or another), else None.
                d.set_item("owner", t.owner)?;
                d.set_item("error", t.error)?;
                Ok(d)
            })
            .collect()
    })
}

/// The domain from `$NERVE_DOMAIN`, or 0.
#[pyfunction]
pub(crate) fn default_domain() -> PyResult<u32> {
    guard("default_domain", || Ok(nerve::default_domain()))
}

/// A stored type as Python sees it: `(name, kind, size, align, elem_size, layout_hash)`.
pub(crate) type StoredTuple = (String, u32, u32, u32, u32, u64);

/// `t` as a [`StoredTuple`].
pub(crate) fn stored_tuple(t: &nerve::raw::StoredType) -> StoredTuple {
    (
        t.name.clone(),
        t.kind,
        t.size,
        t.align,
        t.elem_size,
        t.layout_hash,
    )
}
