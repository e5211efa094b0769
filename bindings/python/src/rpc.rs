//! Services and parameters (`nerve.rpc` in Rust): bytes in and out here; the Python package
//! encodes and decodes MessagePack with `nerve.codec` (named maps, so a dict with a Rust
//! struct's field names interoperates).

use std::sync::{Arc, Mutex};

use nerve::rpc::{
    CallError, Failure, ParamDescriptor, ParamError, ParamInfo, ParamRange, ParamServer,
    ParamValue, RawClient, ServeError, ServiceConfig,
};
use nerve::sys::lock;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::args::{self, Seconds};
use crate::errors::{guard, NerveError};

mod exc {
    use pyo3::create_exception;

    use crate::errors::NerveError;

    create_exception!(nerve, CallError, NerveError, "A service call failed.");
    create_exception!(
        nerve,
        NoServer,
        CallError,
        "The service had no live server."
    );
    create_exception!(
        nerve,
        CallTimeout,
        CallError,
        "No response within the timeout while the server was alive."
    );
    create_exception!(
        nerve,
        ServerDied,
        CallError,
        "The server died or stopped during the call."
    );
    create_exception!(
        nerve,
        HandlerError,
        CallError,
        "The server's handler failed (raised)."
    );
    create_exception!(
        nerve,
        BadRequest,
        CallError,
        "The server could not decode the request."
    );
    create_exception!(nerve, ServeError, NerveError, "Starting a server failed.");
    create_exception!(
        nerve,
        AlreadyServed,
        ServeError,
        "Another live server serves the service."
    );
    create_exception!(
        nerve,
        ParamError,
        NerveError,
        "A parameter was refused (range, type, callback, read-only, undeclared)."
    );
}

pub(crate) fn call_err(e: CallError) -> PyErr {
    let msg = e.to_string();
    match e {
        CallError::NoServer { .. } => exc::NoServer::new_err(msg),
        CallError::Timeout { .. } => exc::CallTimeout::new_err(msg),
        CallError::ServerDied { .. } => exc::ServerDied::new_err(msg),
        CallError::Handler { .. } => exc::HandlerError::new_err(msg),
        CallError::BadRequest { .. } => exc::BadRequest::new_err(msg),
        _ => exc::CallError::new_err(msg),
    }
}

pub(crate) fn serve_err(e: ServeError) -> PyErr {
    let msg = e.to_string();
    match e {
        ServeError::AlreadyServed { .. } => exc::AlreadyServed::new_err(msg),
        _ => exc::ServeError::new_err(msg),
    }
}

fn param_err(e: ParamError) -> PyErr {
    match e {
        ParamError::Call(c) => call_err(c),
        e => exc::ParamError::new_err(e.to_string()),
    }
}

/// The configuration of service `name` in `domain` (the argument, checked).
fn config(name: &str, domain: Option<&Bound<'_, PyAny>>) -> PyResult<ServiceConfig> {
    let mut c = nerve::rpc::Service::<(), ()>::builder(name);
    if let Some(d) = args::domain(domain)? {
        c = c.domain(d);
    }
    Ok(c.build().config().clone())
}

/// What a Python server announces: any value, as MessagePack.
fn python_interface() -> nerve::rpc::discovery::Interface {
    let part = |role: &str| nerve::rpc::discovery::InterfacePart {
        role: role.to_owned(),
        type_name: "any Python value (MessagePack)".to_owned(),
        doc: Vec::new(),
    };
    nerve::rpc::discovery::Interface {
        kind: "service".to_owned(),
        parts: vec![part("request"), part("response")],
    }
}

/// Most handler threads one server runs.
const MAX_WORKERS: usize = 1024;

/// Untyped service client: MessagePack bytes in, bytes out.
#[pyclass(module = "nerve._nerve", frozen)]
pub struct RawServiceClient {
    raw: RawClient,
}

#[pymethods]
impl RawServiceClient {
    #[new]
    #[pyo3(signature = (name, *, domain=None))]
    fn new(py: Python<'_>, name: &str, domain: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        guard("RawServiceClient.__new__", || {
            let c = config(name, domain)?;
            let raw = py.detach(|| RawClient::open(c)).map_err(call_err)?;
            Ok(RawServiceClient { raw })
        })
    }

    #[getter]
    fn service(&self) -> PyResult<String> {
        guard("RawServiceClient.service", || {
            Ok(self.raw.service().to_owned())
        })
    }

    fn server_available(&self) -> PyResult<bool> {
        guard("RawServiceClient.server_available", || {
            Ok(self.raw.server_available())
        })
    }

    fn wait_for_server(&self, py: Python<'_>, timeout: Seconds<'_>) -> PyResult<bool> {
        guard("RawServiceClient.wait_for_server", || {
            let t = timeout.duration("timeout")?;
            Ok(py.detach(|| self.raw.wait_for_server(t)))
        })
    }

    /// Sends `request` (bytes-like) and waits for the response bytes, without the GIL.
    fn call<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        timeout: Seconds<'_>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        guard("RawServiceClient.call", || {
            let t = timeout.duration("timeout")?;
            let req: Vec<u8> = crate::buffer::with_buffer(request, |b| b.to_vec())?;
            let resp = py
                .detach(|| self.raw.call_bytes(&req, t))
                .map_err(call_err)?;
            Ok(PyBytes::new(py, &resp))
        })
    }
}

/// Untyped service server: `handler(bytes) -> bytes` runs with the GIL on the server's
/// threads; an exception goes to the caller as `HandlerError`. Stops on `close()` or drop.
#[pyclass(module = "nerve._nerve", frozen)]
pub struct RawServiceServer {
    server: Mutex<Option<nerve::rpc::Server>>,
    name: String,
}

pub(crate) fn exc_text(py: Python<'_>, e: &PyErr) -> String {
    let ty = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    format!("{ty}: {}", e.value(py))
}

#[pymethods]
impl RawServiceServer {
    #[new]
    #[pyo3(signature = (name, handler, *, workers=1, domain=None))]
    fn new(
        py: Python<'_>,
        name: &str,
        handler: Py<PyAny>,
        workers: usize,
        domain: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        guard("RawServiceServer.__new__", || {
            if !(1..=MAX_WORKERS).contains(&workers) {
                return Err(PyValueError::new_err(format!(
                    "service '{name}': workers must be from 1 to {MAX_WORKERS}, got {workers}"
                )));
            }
            let mut c = config(name, domain)?;
            // Python values have no declared type: say so, so `nerve service list -t` and
            // `service type` name the server's language rather than nothing.
            c.interface = Some(python_interface());
            let raw = move |data: &[u8]| -> Result<Vec<u8>, Failure> {
                crate::attach::attach_kept(false, |py| {
                    let out = handler
                        .call1(py, (PyBytes::new(py, data),))
                        .map_err(|e| Failure::Handler(exc_text(py, &e)))?;
                    let out = out.bind(py);
                    crate::buffer::with_buffer(out, |b| b.to_vec()).map_err(|e| {
                        Failure::Handler(format!(
                            "the handler must return bytes: {}",
                            exc_text(py, &e)
                        ))
                    })
                })
            };
            let server = py
                .detach(|| nerve::rpc::Server::start(c, workers, Arc::new(raw)))
                .map_err(serve_err)?;
            Ok(RawServiceServer {
                server: Mutex::new(Some(server)),
                name: name.to_owned(),
            })
        })
    }

    #[getter]
    fn service(&self) -> PyResult<String> {
        guard("RawServiceServer.service", || Ok(self.name.clone()))
    }

    /// Requests handled so far (and failed, expired, undelivered) as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard("RawServiceServer.stats", || {
            let d = PyDict::new(py);
            if let Some(s) = lock(&self.server).as_ref() {
                let st = s.stats();
                d.set_item("handled", st.handled)?;
                d.set_item("failed", st.failed)?;
                d.set_item("expired", st.expired)?;
                d.set_item("undelivered", st.undelivered)?;
            }
            Ok(d)
        })
    }

    /// Stops serving (waits for the handler threads, without the GIL).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        guard("RawServiceServer.close", || {
            let s = lock(&self.server).take();
            py.detach(move || drop(s));
            Ok(())
        })
    }
}

/// Drops a server without the GIL: its threads may be waiting for the GIL to run a handler,
/// and dropping joins them.
fn drop_detached<T: Send>(slot: &mut Mutex<Option<T>>) {
    let taken = slot.get_mut().map(Option::take).unwrap_or(None);
    if let Some(s) = taken {
        Python::attach(|py| py.detach(move || drop(s)));
    }
}

impl Drop for RawServiceServer {
    fn drop(&mut self) {
        drop_detached(&mut self.server);
    }
}

impl Drop for Parameters {
    fn drop(&mut self) {
        drop_detached(&mut self.server);
    }
}

fn value_of(v: &Bound<'_, PyAny>) -> PyResult<ParamValue> {
    if v.is_instance_of::<PyBool>() {
        return Ok(ParamValue::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(ParamValue::Int(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(ParamValue::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(ParamValue::String(v.extract()?));
    }
    if v.is_instance_of::<PyBytes>() {
        return Ok(ParamValue::Bytes(v.extract()?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
        let all = |f: fn(&Bound<'_, PyAny>) -> bool| items.iter().all(f);
        if items.is_empty() {
            return Ok(ParamValue::IntArray(vec![]));
        }
        if all(|x| x.is_instance_of::<PyBool>()) {
            return Ok(ParamValue::BoolArray(v.extract()?));
        }
        if all(|x| x.is_instance_of::<PyInt>() && !x.is_instance_of::<PyBool>()) {
            return Ok(ParamValue::IntArray(v.extract()?));
        }
        if all(|x| {
            (x.is_instance_of::<PyInt>() || x.is_instance_of::<PyFloat>())
                && !x.is_instance_of::<PyBool>()
        }) {
            let xs: PyResult<Vec<f64>> = items.iter().map(|x| x.extract()).collect();
            return Ok(ParamValue::FloatArray(xs?));
        }
        if all(|x| x.is_instance_of::<PyString>()) {
            return Ok(ParamValue::StringArray(v.extract()?));
        }
    }
    Err(PyTypeError::new_err(format!(
        "a parameter is a bool, int, float, str, bytes or a list of one of bool, int, float, \
         str; got {}",
        v.repr()?
    )))
}

fn value_py(py: Python<'_>, v: &ParamValue) -> PyResult<Py<PyAny>> {
    Ok(match v {
        ParamValue::Bool(x) => PyBool::new(py, *x).to_owned().into_any().unbind(),
        ParamValue::Int(x) => x.into_pyobject(py)?.into_any().unbind(),
        ParamValue::Float(x) => x.into_pyobject(py)?.into_any().unbind(),
        ParamValue::String(x) => x.into_pyobject(py)?.into_any().unbind(),
        ParamValue::Bytes(x) => PyBytes::new(py, x).into_any().unbind(),
        ParamValue::BoolArray(x) => x.into_pyobject(py)?.into_any().unbind(),
        ParamValue::IntArray(x) => x.into_pyobject(py)?.into_any().unbind(),
        ParamValue::FloatArray(x) => x.into_pyobject(py)?.into_any().unbind(),
        ParamValue::StringArray(x) => x.into_pyobject(py)?.into_any().unbind(),
    })
}

fn info_py<'py>(py: Python<'py>, i: &ParamInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let desc = &i.descriptor;
    d.set_item("name", &desc.name)?;
    d.set_item("value", value_py(py, &i.value)?)?;
    d.set_item("default", value_py(py, &desc.default)?)?;
    d.set_item("type", desc.ty.to_string())?;
    d.set_item("description", &desc.description)?;
    d.set_item("read_only", desc.read_only)?;
    match &desc.range {
        Some(ParamRange::Int { min, max, .. }) => {
            d.set_item("min", *min)?;
            d.set_item("max", *max)?;
        }
        Some(ParamRange::Float { min, max }) => {
            d.set_item("min", *min)?;
            d.set_item("max", *max)?;
        }
        None => {
            d.set_item("min", py.None())?;
            d.set_item("max", py.None())?;
        }
    }
    Ok(d)
}

/// The parameters of one node (`nerve.Parameters`).
#[pyclass(module = "nerve._nerve", frozen)]
pub struct Parameters {
    params: nerve::rpc::Parameters,
    server: Mutex<Option<ParamServer>>,
}

#[pymethods]
impl Parameters {
    #[new]
    #[pyo3(signature = (node, *, domain=None))]
    fn new(node: &str, domain: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        guard("Parameters.__new__", || {
            let params = match args::domain(domain)? {
                Some(d) => nerve::rpc::Parameters::with_domain(node, d),
                None => nerve::rpc::Parameters::new(node),
            };
            Ok(Parameters {
                params,
                server: Mutex::new(None),
            })
        })
    }

    #[getter]
    fn node(&self) -> PyResult<String> {
        guard("Parameters.node", || Ok(self.params.node().to_owned()))
    }

    /// Declares a parameter; returns its value (a loaded one if any, else the default).
    #[pyo3(signature = (name, default, *, min=None, max=None, description="", read_only=false))]
    #[allow(clippy::too_many_arguments)]
    fn declare(
        &self,
        py: Python<'_>,
        name: &str,
        default: &Bound<'_, PyAny>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        description: &str,
        read_only: bool,
    ) -> PyResult<Py<PyAny>> {
        guard("Parameters.declare", || {
            let default = value_of(default)?;
            let mut d = ParamDescriptor::new(name, default.clone());
            if min.is_some() || max.is_some() {
                let ints = matches!(default, ParamValue::Int(_) | ParamValue::IntArray(_))
                    && min.is_none_or(|m| m.is_instance_of::<PyInt>())
                    && max.is_none_or(|m| m.is_instance_of::<PyInt>());
                if ints {
                    let lo = min.map(|m| m.extract()).transpose()?.unwrap_or(i64::MIN);
                    let hi = max.map(|m| m.extract()).transpose()?.unwrap_or(i64::MAX);
                    d = d.int_range(lo, hi);
                } else {
                    let lo = min.map(|m| m.extract()).transpose()?;
                    let hi = max.map(|m| m.extract()).transpose()?;
                    d = d.float_range(lo.unwrap_or(f64::NEG_INFINITY), hi.unwrap_or(f64::INFINITY));
                }
            }
            d = d.description(description);
            if read_only {
                d = d.read_only();
            }
            let v = py.detach(|| self.params.declare(d)).map_err(param_err)?;
            value_py(py, &v)
        })
    }

    /// The value of a parameter, or `None` when undeclared.
    fn get(&self, py: Python<'_>, name: &str) -> PyResult<Option<Py<PyAny>>> {
        guard("Parameters.get", || {
            py.detach(|| self.params.get(name))
                .map(|v| value_py(py, &v))
                .transpose()
        })
    }

    /// Sets a parameter (validated; change callbacks may reject it): raises `ParamError`.
    fn set(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        guard("Parameters.set", || {
            let v = value_of(value)?;
            py.detach(|| self.params.set(name, v)).map_err(param_err)
        })
    }

    /// Every parameter as a dict (name, value, default, type, description, read_only, min, max).
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        guard("Parameters.list", || {
            let l = py.detach(|| self.params.list());
            l.iter().map(|i| info_py(py, i)).collect()
        })
    }

    /// `callback(name, value)` runs before every change; returning a string or raising rejects
    /// the value with that reason. It runs while the parameters are locked: it must not call
    /// `get`/`set`/`list` of this object (that deadlocks); it receives the new value instead.
    fn on_change(&self, callback: Py<PyAny>) -> PyResult<()> {
        guard("Parameters.on_change", || {
            self.params.on_change(move |name, value| {
                Python::attach(|py| {
                    let v = value_py(py, value).map_err(|e| exc_text(py, &e))?;
                    let r = callback
                        .call1(py, (name, v))
                        .map_err(|e| exc_text(py, &e))?;
                    let r = r.bind(py);
                    if r.is_none() || r.extract::<bool>().ok() == Some(true) {
                        Ok(())
                    } else if let Ok(s) = r.extract::<String>() {
                        Err(s)
                    } else {
                        Err(format!(
                            "rejected by the callback ({})",
                            r.repr().map(|s| s.to_string()).unwrap_or_default()
                        ))
                    }
                })
            });
            Ok(())
        })
    }

    /// Serves get/set/list to other processes (`ParamClient`) until `close()`.
    fn serve(&self, py: Python<'_>) -> PyResult<()> {
        guard("Parameters.serve", || {
            let s = py.detach(|| self.params.serve()).map_err(serve_err)?;
            *lock(&self.server) = Some(s);
            Ok(())
        })
    }

    /// Stops serving.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        guard("Parameters.close", || {
            let s = lock(&self.server).take();
            py.detach(move || drop(s));
            Ok(())
        })
    }

    /// Loads `node: {param: value}` (or `ros__parameters`) YAML from a file; returns how many
    /// values applied to this node.
    fn load_yaml(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<usize> {
        guard("Parameters.load_yaml", || {
            py.detach(|| self.params.load_yaml_file(path))
                .map_err(param_err)
        })
    }

    /// Like `load_yaml`, from a string.
    fn load_yaml_str(&self, py: Python<'_>, text: &str) -> PyResult<usize> {
        guard("Parameters.load_yaml_str", || {
            py.detach(|| self.params.load_yaml_str(text))
                .map_err(param_err)
        })
    }

    /// The parameters as YAML (`node: {name: value}`).
    fn dump_yaml(&self, py: Python<'_>) -> PyResult<String> {
        guard("Parameters.dump_yaml", || {
            Ok(py.detach(|| self.params.dump_yaml()))
        })
    }
}

/// Reads and sets another process's parameters (`nerve.ParamClient`).
#[pyclass(module = "nerve._nerve", frozen)]
pub struct ParamClient {
    client: nerve::rpc::ParamClient,
}

#[pymethods]
impl ParamClient {
    #[new]
    #[pyo3(signature = (node, *, domain=None))]
    fn new(py: Python<'_>, node: &str, domain: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        guard("ParamClient.__new__", || {
            let domain = args::domain(domain)?;
            let client = py
                .detach(|| match domain {
                    Some(d) => nerve::rpc::ParamClient::with_domain(node, d),
                    None => nerve::rpc::ParamClient::new(node),
                })
                .map_err(param_err)?;
            Ok(ParamClient { client })
        })
    }

    #[pyo3(signature = (name, *, timeout=Seconds::Default(1.0)), text_signature = "($self, name, *, timeout=1.0)")]
    fn get(&self, py: Python<'_>, name: &str, timeout: Seconds<'_>) -> PyResult<Py<PyAny>> {
        guard("ParamClient.get", || {
            let t = timeout.duration("timeout")?;
            let v = py.detach(|| self.client.get(name, t)).map_err(param_err)?;
            value_py(py, &v)
        })
    }

    #[pyo3(signature = (name, value, *, timeout=Seconds::Default(1.0)), text_signature = "($self, name, value, *, timeout=1.0)")]
    fn set(
        &self,
        py: Python<'_>,
        name: &str,
        value: &Bound<'_, PyAny>,
        timeout: Seconds<'_>,
    ) -> PyResult<()> {
        guard("ParamClient.set", || {
            let t = timeout.duration("timeout")?;
            let v = value_of(value)?;
            py.detach(|| self.client.set(name, v, t)).map_err(param_err)
        })
    }

    #[pyo3(signature = (*, timeout=Seconds::Default(1.0)), text_signature = "($self, *, timeout=1.0)")]
    fn list<'py>(
        &self,
        py: Python<'py>,
        timeout: Seconds<'_>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        guard("ParamClient.list", || {
            let t = timeout.duration("timeout")?;
            let l = py.detach(|| self.client.list(t)).map_err(param_err)?;
            l.iter().map(|i| info_py(py, i)).collect()
        })
    }
}

/// Adds the classes and exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let _ = py.get_type::<NerveError>();
    m.add_class::<RawServiceClient>()?;
    m.add_class::<RawServiceServer>()?;
    m.add_class::<Parameters>()?;
    m.add_class::<ParamClient>()?;
    m.add("CallError", py.get_type::<exc::CallError>())?;
    m.add("NoServer", py.get_type::<exc::NoServer>())?;
    m.add("CallTimeout", py.get_type::<exc::CallTimeout>())?;
    m.add("ServerDied", py.get_type::<exc::ServerDied>())?;
    m.add("HandlerError", py.get_type::<exc::HandlerError>())?;
    m.add("BadRequest", py.get_type::<exc::BadRequest>())?;
    m.add("ServeError", py.get_type::<exc::ServeError>())?;
    m.add("AlreadyServed", py.get_type::<exc::AlreadyServed>())?;
    m.add("ParamError", py.get_type::<exc::ParamError>())?;
    Ok(())
}
