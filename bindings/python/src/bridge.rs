//! The Zenoh bridge from Python (`nerve.bridge`): one run in this process, and the status of
//! the bridge running on this host, whichever process runs it.

use std::sync::Mutex;

use nerve::sys::lock;
use nerve_zenoh::{Bridge, BridgeConfig, BridgeError};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::errors::guard;

fn bridge_err(e: BridgeError) -> PyErr {
    match e {
        BridgeError::Config { .. } => PyValueError::new_err(e.to_string()),
        other => PyOSError::new_err(other.to_string()),
    }
}

/// A bridge running in this process until `close()` (or until it is collected).
#[pyclass(module = "nerve._nerve")]
pub struct ZenohBridge {
    bridge: Mutex<Option<Bridge>>,
    id: String,
}

#[pymethods]
impl ZenohBridge {
    #[new]
    #[pyo3(signature = (config=None, domain=None, listen=None, connect=None, mode=None,
                        multicast=true, host=None, export=None, import_=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        config: Option<&str>,
        domain: Option<&Bound<'_, PyAny>>,
        listen: Option<Vec<String>>,
        connect: Option<Vec<String>>,
        mode: Option<&str>,
        multicast: bool,
        host: Option<String>,
        export: Option<Vec<String>>,
        import_: Option<Vec<String>>,
    ) -> PyResult<Self> {
        guard("ZenohBridge.__new__", || {
            let mut c = match config {
                Some(path) => BridgeConfig::from_file(std::path::Path::new(path)),
                None => Ok(BridgeConfig::new()),
            }
            .map_err(bridge_err)?;
            if let Some(d) = crate::args::domain(domain)? {
                c.domain = d;
            }
            let set = |c: &mut BridgeConfig| -> Result<(), BridgeError> {
                if let Some(l) = &listen {
                    c.listen(l)?;
                }
                if let Some(l) = &connect {
                    c.connect(l)?;
                }
                if let Some(m) = mode {
                    c.mode(m)?;
                }
                if !multicast {
                    c.multicast(false)?;
                }
                if let Some(e) = &export {
                    c.export = BridgeConfig::patterns(e)?;
                }
                if let Some(i) = &import_ {
                    c.import = BridgeConfig::patterns(i)?;
                }
                Ok(())
            };
            set(&mut c).map_err(bridge_err)?;
            if let Some(h) = host {
                c.host = h;
            }
            let bridge = py.detach(|| Bridge::start(c)).map_err(bridge_err)?;
            Ok(ZenohBridge {
                id: bridge.id().to_owned(),
                bridge: Mutex::new(Some(bridge)),
            })
        })
    }

    /// This bridge's Zenoh id.
    #[getter]
    fn id(&self) -> PyResult<String> {
        guard("ZenohBridge.id", || Ok(self.id.clone()))
    }

    /// What it sees and counted, as JSON (`nerve.bridge.ZenohBridge.status()` parses it).
    fn status_json(&self) -> PyResult<String> {
        guard("ZenohBridge.status_json", || {
            let b = lock(&self.bridge);
            let b = b
                .as_ref()
                .ok_or_else(|| PyValueError::new_err("this bridge was closed"))?;
            serde_json::to_string(&b.view()).map_err(|e| PyValueError::new_err(e.to_string()))
        })
    }

    /// Stops it: other hosts stop importing from it; its imported topics stay, unfed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        guard("ZenohBridge.close", || {
            let b = lock(&self.bridge).take();
            py.detach(|| drop(b));
            Ok(())
        })
    }
}

/// The status of the bridge running on this host in `domain` (any process), as JSON; None
/// when none runs.
#[pyfunction]
#[pyo3(signature = (domain=None))]
pub fn bridge_status_json(domain: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    guard("bridge_status_json", || {
        let d = crate::args::domain(domain)?.unwrap_or_else(nerve::default_domain);
        nerve_zenoh::view::read(d)
            .map(|v| serde_json::to_string(&v).map_err(|e| PyValueError::new_err(e.to_string())))
            .transpose()
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ZenohBridge>()?;
    m.add_function(wrap_pyfunction!(bridge_status_json, m)?)?;
    Ok(())
}
