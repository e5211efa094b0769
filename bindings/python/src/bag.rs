//! Recordings from Python (`nerve.bag.Reader`, `nerve.bag.Writer`): messages in nerve's layout
//! read from and written to MCAP files by `nerve_bag`, whatever the file's encoding.

use std::path::Path;
use std::sync::Mutex;

use nerve::raw::StoredType;
use nerve::sys::lock;
use nerve::Reliability;
use nerve_bag::file::{read_all, BagWriter as Writer, NerveMessage};
use nerve_bag::{BagError, Compression, TopicMeta};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::guard;

fn bag_err(e: BagError) -> PyErr {
    match e {
        BagError::Io { .. } => PyOSError::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

use crate::topic::StoredTuple as Stored;

/// Every message of a recording, in order (read whole when opened).
#[pyclass(module = "nerve._nerve")]
pub struct BagReader {
    messages: Vec<NerveMessage>,
    next: usize,
}

#[pymethods]
impl BagReader {
    #[new]
    fn new(py: Python<'_>, path: &str) -> PyResult<Self> {
        guard("BagReader.__new__", || {
            let messages = py.detach(|| read_all(Path::new(path))).map_err(bag_err)?;
            Ok(BagReader { messages, next: 0 })
        })
    }

    fn __len__(&self) -> PyResult<usize> {
        guard("BagReader.__len__", || Ok(self.messages.len()))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        guard("BagReader.__iter__", || Ok(slf))
    }

    /// `(topic, stored type, description or None, log time ns, fixed bytes, payload bytes)`.
    #[allow(clippy::type_complexity)]
    fn __next__<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<
        Option<(
            String,
            Stored,
            Option<Bound<'py, PyBytes>>,
            u64,
            Bound<'py, PyBytes>,
            Bound<'py, PyBytes>,
        )>,
    > {
        guard("BagReader.__next__", || {
            let Some(m) = self.messages.get(self.next) else {
                return Ok(None);
            };
            self.next += 1;
            let layout_doc = !m.description.is_empty()
                && !nerve::msgs::serde_doc::SerdeDoc::is_serde(&m.description);
            Ok(Some((
                m.topic.clone(),
                crate::topic::stored_tuple(&m.meta.stored_type),
                layout_doc.then(|| PyBytes::new(py, &m.description)),
                m.log_time,
                PyBytes::new(py, &m.fixed),
                PyBytes::new(py, &m.payload),
            )))
        })
    }
}

/// Writes a recording message by message; `close()` completes the file.
#[pyclass(module = "nerve._nerve", frozen)]
pub struct BagWriter {
    writer: Mutex<Option<Writer>>,
}

#[pymethods]
impl BagWriter {
    #[new]
    #[pyo3(signature = (path, compression = "zstd"))]
    fn new(path: &str, compression: &str) -> PyResult<Self> {
        guard("BagWriter.__new__", || {
            let c = match compression {
                "zstd" => Some(Compression::Zstd),
                "lz4" => Some(Compression::Lz4),
                "none" => None,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "compression {other:?}: use \"zstd\", \"lz4\" or \"none\""
                    )))
                }
            };
            let w = Writer::create(Path::new(path), c).map_err(bag_err)?;
            Ok(BagWriter {
                writer: Mutex::new(Some(w)),
            })
        })
    }

    #[pyo3(signature = (topic, stored_type, description, log_time, fixed, payload))]
    fn write(
        &self,
        topic: &str,
        stored_type: Stored,
        description: Option<&[u8]>,
        log_time: u64,
        fixed: &[u8],
        payload: &[u8],
    ) -> PyResult<()> {
        guard("BagWriter.write", || {
            let (name, kind, size, align, elem_size, layout_hash) = stored_type;
            let meta = TopicMeta {
                stored_type: StoredType {
                    name,
                    kind,
                    size,
                    align,
                    elem_size,
                    layout_hash,
                },
                reliability: Reliability::BestEffort,
                depth: nerve::DEFAULT_DEPTH as u64,
                max_payload_bytes: payload.len().max(nerve::DEFAULT_CHUNK_BYTES),
            };
            let mut w = lock(&self.writer);
            let w = w
                .as_mut()
                .ok_or_else(|| PyValueError::new_err("the bag writer is closed"))?;
            w.write(
                topic,
                &meta,
                description.unwrap_or_default(),
                log_time,
                fixed,
                payload,
            )
            .map_err(bag_err)
        })
    }

    /// Writes the summary (a complete file); later writes are refused.
    fn close(&self) -> PyResult<()> {
        guard("BagWriter.close", || match lock(&self.writer).take() {
            Some(w) => w.finish().map_err(bag_err),
            None => Ok(()),
        })
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BagReader>()?;
    m.add_class::<BagWriter>()?;
    Ok(())
}
