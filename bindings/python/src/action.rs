//! Actions (`nerve.ActionServer`, `nerve.ActionClient`): goals, feedback and results are any
//! MessagePack value, encoded with `nerve.codec` and carried as a dynamic value, so a dict with
//! a Rust struct's field names interoperates with a Rust action of that struct.

use std::fmt;
use std::sync::{Arc, Mutex};

use nerve::rpc::{ActionError, GoalContext, GoalOutcome, GoalResult, GoalStatus};
use nerve::sys::lock;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::args::{self, Seconds};
use crate::errors::{guard, NerveError};
use crate::rpc::{call_err, exc_text, serve_err};

mod exc {
    use pyo3::create_exception;

    use crate::errors::NerveError;

    create_exception!(nerve, ActionError, NerveError, "An action request failed.");
    create_exception!(
        nerve,
        GoalRejected,
        ActionError,
        "The action server rejected the goal."
    );
    create_exception!(
        nerve,
        GoalTimeout,
        ActionError,
        "The goal did not finish within the timeout."
    );
    create_exception!(
        nerve,
        UnknownGoal,
        ActionError,
        "The action server does not know the goal."
    );
}

fn action_err(e: ActionError) -> PyErr {
    let msg = e.to_string();
    match e {
        ActionError::Rejected { .. } => exc::GoalRejected::new_err(msg),
        ActionError::Timeout { .. } => exc::GoalTimeout::new_err(msg),
        ActionError::UnknownGoal { .. } => exc::UnknownGoal::new_err(msg),
        ActionError::Call(c) => call_err(c),
        _ => exc::ActionError::new_err(msg),
    }
}

/// Any MessagePack value (no extension types), re-encoded with named maps.
#[derive(Clone, Debug, PartialEq)]
enum Dyn {
    Nil,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Dyn>),
    Map(Vec<(Dyn, Dyn)>),
}

impl Serialize for Dyn {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Dyn::Nil => s.serialize_unit(),
            Dyn::Bool(b) => s.serialize_bool(*b),
            Dyn::Int(i) => s.serialize_i64(*i),
            Dyn::UInt(u) => s.serialize_u64(*u),
            Dyn::Float(f) => s.serialize_f64(*f),
            Dyn::Str(t) => s.serialize_str(t),
            Dyn::Bin(b) => s.serialize_bytes(b),
            Dyn::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for x in a {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Dyn::Map(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

struct DynVisitor;

impl<'de> Visitor<'de> for DynVisitor {
    type Value = Dyn;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a MessagePack value without extension types")
    }
    fn visit_unit<E>(self) -> Result<Dyn, E> {
        Ok(Dyn::Nil)
    }
    fn visit_none<E>(self) -> Result<Dyn, E> {
        Ok(Dyn::Nil)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Dyn, D::Error> {
        Dyn::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Dyn, E> {
        Ok(Dyn::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Dyn, E> {
        Ok(Dyn::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Dyn, E> {
        Ok(Dyn::UInt(v))
    }
    fn visit_f32<E>(self, v: f32) -> Result<Dyn, E> {
        Ok(Dyn::Float(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Dyn, E> {
        Ok(Dyn::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Dyn, E> {
        Ok(Dyn::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Dyn, E> {
        Ok(Dyn::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Dyn, E> {
        Ok(Dyn::Bin(v.to_vec()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Dyn, E> {
        Ok(Dyn::Bin(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Dyn, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = a.next_element()? {
            v.push(x);
        }
        Ok(Dyn::Array(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Dyn, A::Error> {
        let mut v = Vec::new();
        while let Some(kv) = a.next_entry()? {
            v.push(kv);
        }
        Ok(Dyn::Map(v))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, _d: D) -> Result<Dyn, D::Error> {
        Err(de::Error::custom(
            "MessagePack extension types (numpy arrays, ...) are not supported in actions; \
             send lists or bytes",
        ))
    }
}

impl<'de> Deserialize<'de> for Dyn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dyn, D::Error> {
        d.deserialize_any(DynVisitor)
    }
}

fn to_dyn(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Dyn> {
    let codec = py.import("nerve.codec")?;
    let packed = codec.call_method1("packb", (obj,))?;
    let bytes: Vec<u8> = packed.extract()?;
    rmp_serde::from_slice(&bytes)
        .map_err(|e| pyo3::exceptions::PyTypeError::new_err(format!("cannot send {e}")))
}

fn from_dyn(py: Python<'_>, v: &Dyn) -> PyResult<Py<PyAny>> {
    let bytes = rmp_serde::to_vec_named(v)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let codec = py.import("nerve.codec")?;
    Ok(codec
        .call_method1("unpackb", (PyBytes::new(py, &bytes),))?
        .unbind())
}

fn status_name(s: GoalStatus) -> &'static str {
    match s {
        GoalStatus::Accepted => "accepted",
        GoalStatus::Executing => "executing",
        GoalStatus::Canceling => "canceling",
        GoalStatus::Succeeded => "succeeded",
        GoalStatus::Canceled => "canceled",
        GoalStatus::Aborted => "aborted",
        GoalStatus::Rejected => "rejected",
    }
}

type Ctx = GoalContext<Dyn, Dyn>;

/// What an execution sees of its goal: `goal_id`, `cancel_requested()`, `feedback(value)`.
#[pyclass(module = "nerve._nerve", frozen, name = "GoalContext")]
pub struct PyGoalContext {
    ctx: Ctx,
}

#[pymethods]
impl PyGoalContext {
    #[getter]
    fn goal_id(&self) -> PyResult<u64> {
        guard("GoalContext.goal_id", || Ok(self.ctx.goal_id()))
    }

    /// Whether a client asked to cancel: wind down and return (the goal ends `canceled`).
    fn cancel_requested(&self) -> PyResult<bool> {
        guard("GoalContext.cancel_requested", || {
            Ok(self.ctx.cancel_requested())
        })
    }

    /// Sends feedback to the clients.
    fn feedback(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        guard("GoalContext.feedback", || {
            let v = to_dyn(py, value)?;
            py.detach(|| self.ctx.feedback(v));
            Ok(())
        })
    }
}

/// An action server: `accept(goal)` returns None/True to accept, a string (or raises) to
/// reject; `execute(ctx, goal)` runs each accepted goal on its own thread and returns the result
/// (the goal ends `canceled` if a cancel was requested, `aborted` if it raises).
#[pyclass(module = "nerve._nerve", frozen)]
pub struct ActionServer {
    server: Mutex<Option<nerve::rpc::ActionServer<Dyn, Dyn, Dyn>>>,
}

#[pymethods]
impl ActionServer {
    #[new]
    #[pyo3(signature = (name, execute, *, accept=None, domain=None))]
    fn new(
        py: Python<'_>,
        name: &str,
        execute: Py<PyAny>,
        accept: Option<Py<PyAny>>,
        domain: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        guard("ActionServer.__new__", || {
            let mut b = nerve::rpc::ActionServer::<Dyn, Dyn, Dyn>::builder(name);
            if let Some(d) = args::domain(domain)? {
                b = b.domain(d);
            }
            let accept_fn = move |g: &Dyn| -> Result<(), String> {
                let Some(accept) = &accept else {
                    return Ok(());
                };
                Python::attach(|py| {
                    let goal = from_dyn(py, g).map_err(|e| exc_text(py, &e))?;
                    let r = accept.call1(py, (goal,)).map_err(|e| exc_text(py, &e))?;
                    let r = r.bind(py);
                    if r.is_none() || r.extract::<bool>().ok() == Some(true) {
                        Ok(())
                    } else if let Ok(s) = r.extract::<String>() {
                        Err(s)
                    } else {
                        Err("rejected".to_owned())
                    }
                })
            };
            let execute_fn = move |ctx: Ctx, g: Dyn| -> GoalOutcome<Dyn> {
                Python::attach(|py| {
                    let goal = match from_dyn(py, &g) {
                        Ok(g) => g,
                        Err(e) => return GoalOutcome::Aborted(exc_text(py, &e)),
                    };
                    let pyctx = match Py::new(py, PyGoalContext { ctx }) {
                        Ok(c) => c,
                        Err(e) => return GoalOutcome::Aborted(exc_text(py, &e)),
                    };
                    let out = execute
                        .call1(py, (pyctx.clone_ref(py), goal))
                        .and_then(|r| to_dyn(py, r.bind(py)));
                    let canceled = pyctx.get().ctx.cancel_requested();
                    match out {
                        Ok(r) if canceled => GoalOutcome::Canceled(Some(r)),
                        Ok(r) => GoalOutcome::Succeeded(r),
                        Err(_) if canceled => GoalOutcome::Canceled(None),
                        Err(e) => GoalOutcome::Aborted(exc_text(py, &e)),
                    }
                })
            };
            let server = py
                .detach(|| b.serve(accept_fn, execute_fn))
                .map_err(serve_err)?;
            Ok(ActionServer {
                server: Mutex::new(Some(server)),
            })
        })
    }

    /// Status name of a goal known to this server, or None.
    fn status(&self, goal_id: u64) -> PyResult<Option<&'static str>> {
        guard("ActionServer.status", || {
            Ok(lock(&self.server)
                .as_ref()
                .and_then(|s| s.status(goal_id))
                .map(status_name))
        })
    }

    /// Stops accepting goals.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        guard("ActionServer.close", || {
            let s = lock(&self.server).take();
            py.detach(move || drop(s));
            Ok(())
        })
    }
}

impl Drop for ActionServer {
    fn drop(&mut self) {
        let taken = self.server.get_mut().map(Option::take).unwrap_or(None);
        if let Some(s) = taken {
            Python::attach(|py| py.detach(move || drop(s)));
        }
    }
}

type Client = nerve::rpc::ActionClient<Dyn, Dyn, Dyn>;

/// Sends goals to an action server.
#[pyclass(module = "nerve._nerve", frozen)]
pub struct ActionClient {
    client: Arc<Client>,
}

#[pymethods]
impl ActionClient {
    #[new]
    #[pyo3(signature = (name, *, domain=None))]
    fn new(py: Python<'_>, name: &str, domain: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        guard("ActionClient.__new__", || {
            let mut b = Client::builder(name);
            if let Some(d) = args::domain(domain)? {
                b = b.domain(d);
            }
            let client = py.detach(|| b.open()).map_err(action_err)?;
            Ok(ActionClient {
                client: Arc::new(client),
            })
        })
    }

    fn server_available(&self) -> PyResult<bool> {
        guard("ActionClient.server_available", || {
            Ok(self.client.server_available())
        })
    }

    #[pyo3(signature = (timeout=Seconds::Default(1.0)), text_signature = "($self, timeout=1.0)")]
    fn wait_for_server(&self, py: Python<'_>, timeout: Seconds<'_>) -> PyResult<bool> {
        guard("ActionClient.wait_for_server", || {
            let t = timeout.duration("timeout")?;
            Ok(py.detach(|| self.client.wait_for_server(t)))
        })
    }

    /// Sends a goal; raises `GoalRejected` with the server's reason.
    #[pyo3(signature = (goal, *, timeout=Seconds::Default(1.0)), text_signature = "($self, goal, *, timeout=1.0)")]
    fn send_goal(
        &self,
        py: Python<'_>,
        goal: &Bound<'_, PyAny>,
        timeout: Seconds<'_>,
    ) -> PyResult<GoalHandle> {
        guard("ActionClient.send_goal", || {
            let t = timeout.duration("timeout")?;
            let g = to_dyn(py, goal)?;
            let id = py
                .detach(|| self.client.send_goal(g, t).map(|h| h.keep()))
                .map_err(action_err)?;
            Ok(GoalHandle {
                client: self.client.clone(),
                goal_id: id,
            })
        })
    }
}

/// A goal sent by an `ActionClient`.
#[pyclass(module = "nerve._nerve", frozen)]
pub struct GoalHandle {
    client: Arc<Client>,
    goal_id: u64,
}

fn result_py<'py>(py: Python<'py>, r: &GoalResult<Dyn>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("goal_id", r.goal_id)?;
    d.set_item("status", status_name(r.status))?;
    match &r.result {
        Some(v) => d.set_item("result", from_dyn(py, v)?)?,
        None => d.set_item("result", py.None())?,
    }
    d.set_item("message", &r.message)?;
    Ok(d)
}

impl Drop for GoalHandle {
    fn drop(&mut self) {
        self.client.forget_goal(self.goal_id);
    }
}

#[pymethods]
impl GoalHandle {
    #[getter]
    fn goal_id(&self) -> PyResult<u64> {
        guard("GoalHandle.goal_id", || Ok(self.goal_id))
    }

    /// `accepted`, `executing`, `canceling`, `succeeded`, `canceled`, `aborted` or `rejected`.
    fn status(&self) -> PyResult<&'static str> {
        guard("GoalHandle.status", || {
            Ok(status_name(self.client.goal(self.goal_id).status()))
        })
    }

    /// Feedback received since the last call.
    fn feedback(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        guard("GoalHandle.feedback", || {
            let f = self.client.goal(self.goal_id).feedback();
            f.iter().map(|v| from_dyn(py, v)).collect()
        })
    }

    /// Asks the server to cancel; returns the goal's status name then.
    #[pyo3(signature = (*, timeout=Seconds::Default(1.0)), text_signature = "($self, *, timeout=1.0)")]
    fn cancel(&self, py: Python<'_>, timeout: Seconds<'_>) -> PyResult<&'static str> {
        guard("GoalHandle.cancel", || {
            let t = timeout.duration("timeout")?;
            py.detach(|| self.client.goal(self.goal_id).cancel(t))
                .map(status_name)
                .map_err(action_err)
        })
    }

    /// Waits for the end: a dict with `goal_id`, `status`, `result`, `message`.
    #[pyo3(signature = (*, timeout=Seconds::Default(10.0)), text_signature = "($self, *, timeout=10.0)")]
    fn wait<'py>(&self, py: Python<'py>, timeout: Seconds<'_>) -> PyResult<Bound<'py, PyDict>> {
        guard("GoalHandle.wait", || {
            let t = timeout.duration("timeout")?;
            let r = py
                .detach(|| self.client.goal(self.goal_id).wait(t))
                .map_err(action_err)?;
            result_py(py, &r)
        })
    }
}

/// Adds the classes and exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let _ = py.get_type::<NerveError>();
    m.add_class::<ActionServer>()?;
    m.add_class::<ActionClient>()?;
    m.add_class::<GoalHandle>()?;
    m.add_class::<PyGoalContext>()?;
    m.add("ActionError", py.get_type::<exc::ActionError>())?;
    m.add("GoalRejected", py.get_type::<exc::GoalRejected>())?;
    m.add("GoalTimeout", py.get_type::<exc::GoalTimeout>())?;
    m.add("UnknownGoal", py.get_type::<exc::UnknownGoal>())?;
    Ok(())
}
