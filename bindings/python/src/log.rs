//! Python's side of logs as a topic: `nerve.LogHandler` (a `logging.Handler`, in Python)
//! publishes through this `_nerve.Logger` (nerve's Rust `Logger`: one record per call, never
//! blocking on the topic).

use nerve::log::{Level, Logger as RustLogger};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::guard;

/// A node's logger on the domain's log topic.
#[pyclass(module = "nerve._nerve", name = "Logger", frozen)]
pub(crate) struct Logger {
    inner: RustLogger,
}

fn level_of(v: u8) -> PyResult<Level> {
    Level::from_number(u32::from(v)).ok_or_else(|| {
        PyValueError::new_err(format!("a log level is 0 (trace) to 4 (error), got {v}"))
    })
}

#[pymethods]
impl Logger {
    #[new]
    #[pyo3(signature = (node, *, domain=None))]
    fn new(node: &str, domain: Option<u32>) -> PyResult<Self> {
        guard("Logger", || {
            let inner = match domain {
                Some(d) => RustLogger::with_domain(node, d),
                None => RustLogger::new(node),
            };
            Ok(Logger { inner })
        })
    }

    /// Publishes one record (level 0 trace … 4 error); the GIL is released while it is sent.
    #[pyo3(signature = (level, file, line, message, fields=Vec::new()))]
    fn log(
        &self,
        py: Python<'_>,
        level: u8,
        file: &str,
        line: u32,
        message: &str,
        fields: Vec<(String, String)>,
    ) -> PyResult<()> {
        guard("Logger.log", || {
            let level = level_of(level)?;
            py.detach(|| self.inner.log(level, file, line, message, fields));
            Ok(())
        })
    }

    /// The lowest level published (0 trace … 4 error).
    #[getter]
    fn level(&self) -> PyResult<u8> {
        guard("Logger.level", || Ok(self.inner.level() as u8))
    }

    #[setter]
    fn set_level(&self, level: u8) -> PyResult<()> {
        guard("Logger.level", || {
            self.inner.set_level(level_of(level)?);
            Ok(())
        })
    }

    /// Records not published (no chunk free, or another thread publishing at that instant).
    #[getter]
    fn dropped(&self) -> PyResult<u64> {
        guard("Logger.dropped", || Ok(self.inner.dropped()))
    }

    /// The node name records carry (namespaced as this process resolves names).
    #[getter]
    fn node(&self) -> PyResult<String> {
        guard("Logger.node", || Ok(self.inner.node().to_owned()))
    }
}
