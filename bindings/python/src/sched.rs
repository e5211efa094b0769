//! Python nodes on nerve's Rust scheduler (`nerve.Scheduler`): a Python object with `tick`
//! (and optionally `init`, `shutdown`, `on_safe_state`) is a node like a Rust one — the same
//! rates, order, deadlines, budgets, miss / failure / hang policies, watchdog, e-stop,
//! execution classes and statistics. The scheduler's threads take the GIL only for a call into
//! Python and `run` releases it, so Python threads run between ticks. A Python exception in
//! `tick` is the node's failure: its failure policy decides (skip, restart, or stop the run
//! with `SchedulerError` naming the node and the exception).

use std::sync::Mutex;
use std::time::Duration;

use nerve::sys::lock;

use nerve::exec::{
    Context, EStop, ExecClass, FailurePolicy, HangPolicy, MissPolicy, Node, NodeError, NodeStats,
    RunError, Scheduler as RustScheduler, SchedulerBuilder, SchedulerHandle, StopReason,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors::{guard, NerveError};

create_exception!(
    nerve,
    SchedulerError,
    NerveError,
    "The scheduler's run ended abnormally: a node failed to initialise, or a node's failure, \
     deadline-miss or hang policy stopped it. The message names the node and why."
);

/// What a tick sees (`ctx` of `tick(ctx)`, `init(ctx)`, ...): valid during the call.
#[pyclass(module = "nerve", name = "TickContext", frozen)]
pub(crate) struct TickContext {
    /// Time since the scheduler started, in seconds.
    #[pyo3(get)]
    now: f64,
    /// When this tick was planned to start, in seconds since the start.
    #[pyo3(get)]
    planned: f64,
    /// The tick's number (0 first).
    #[pyo3(get)]
    tick: u64,
    estop: EStop,
}

#[pymethods]
impl TickContext {
    /// Triggers the e-stop: every node of the scheduler enters its safe state.
    fn trigger_estop(&self, reason: &str) -> PyResult<()> {
        guard("TickContext.trigger_estop", || {
            self.estop.trigger(reason);
            Ok(())
        })
    }

    /// Whether the e-stop is triggered.
    #[getter]
    fn estop_triggered(&self) -> PyResult<bool> {
        guard("TickContext.estop_triggered", || {
            Ok(self.estop.is_triggered())
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        guard("TickContext.__repr__", || {
            Ok(format!(
                "TickContext(tick={}, now={:.6}, planned={:.6})",
                self.tick, self.now, self.planned
            ))
        })
    }
}

/// A Python object run as a node.
struct PyNode {
    name: String,
    object: Py<PyAny>,
}

impl PyNode {
    /// Calls `method(ctx)` if the object has it; a Python exception as its text.
    fn call(&self, method: &str, ctx: &Context<'_>) -> Result<(), String> {
        crate::attach::attach_kept(true, |py| {
            let object = self.object.bind(py);
            if !object.hasattr(method).unwrap_or(false) {
                return Ok(());
            }
            let c = TickContext {
                now: ctx.now().as_secs_f64(),
                planned: ctx.planned().as_secs_f64(),
                tick: ctx.tick(),
                estop: ctx.estop().clone(),
            };
            object
                .call_method1(method, (c,))
                .map(|_| ())
                .map_err(|e| describe(py, &e))
        })
    }
}

/// `ValueError: message` (with the traceback's last line: file and line).
fn describe(py: Python<'_>, e: &PyErr) -> String {
    let kind = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let at = e
        .traceback(py)
        .and_then(|t| t.format().ok())
        .and_then(|t| {
            t.lines()
                .rev()
                .find(|l| l.trim_start().starts_with("File "))
                .map(|l| format!(" ({})", l.trim()))
        })
        .unwrap_or_default();
    format!("{kind}: {}{at}", e.value(py))
}

impl Node for PyNode {
    fn name(&self) -> &str {
        &self.name
    }

    fn init(&mut self, ctx: &mut Context<'_>) -> Result<(), NodeError> {
        self.call("init", ctx).map_err(NodeError::from)
    }

    fn tick(&mut self, ctx: &mut Context<'_>) {
        if let Err(message) = self.call("tick", ctx) {
            // The scheduler catches a tick's unwinding and applies the node's failure policy;
            // resume_unwind skips the panic hook (the message is reported by the policy).
            std::panic::resume_unwind(Box::new(message));
        }
    }

    fn shutdown(&mut self, ctx: &mut Context<'_>) {
        if let Err(message) = self.call("shutdown", ctx) {
            tracing::warn!(node = %self.name, "shutdown raised {message}");
        }
    }

    fn on_safe_state(&mut self, ctx: &mut Context<'_>) {
        if let Err(message) = self.call("on_safe_state", ctx) {
            tracing::warn!(node = %self.name, "on_safe_state raised {message}");
        }
    }
}

fn miss_policy(what: &str, s: &str) -> PyResult<MissPolicy> {
    Ok(match s {
        "warn" => MissPolicy::Warn,
        "skip" => MissPolicy::Skip,
        "safe_state" => MissPolicy::SafeState,
        "stop" => MissPolicy::Stop,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{what} is 'warn', 'skip', 'safe_state' or 'stop', got {s:?}"
            )))
        }
    })
}

fn hang_policy(s: &str) -> PyResult<HangPolicy> {
    Ok(match s {
        "warn" => HangPolicy::Warn,
        "estop" => HangPolicy::EStop,
        "stop" => HangPolicy::Stop,
        _ => {
            return Err(PyValueError::new_err(format!(
                "on_hang is 'warn', 'estop' or 'stop', got {s:?}"
            )))
        }
    })
}

/// `"fatal"`, `"skip"`, or `("restart", max, backoff_seconds)`.
fn failure_policy(v: &Bound<'_, PyAny>) -> PyResult<FailurePolicy> {
    if let Ok(s) = v.extract::<String>() {
        return match s.as_str() {
            "fatal" => Ok(FailurePolicy::Fatal),
            "skip" => Ok(FailurePolicy::Skip),
            "restart" => Ok(FailurePolicy::Restart {
                max: 3,
                backoff: Duration::from_millis(100),
            }),
            _ => Err(PyValueError::new_err(format!(
                "on_error is 'fatal', 'skip', 'restart' or ('restart', max, backoff_seconds), got {s:?}"
            ))),
        };
    }
    if let Ok(t) = v.downcast::<PyTuple>() {
        if let Ok((kind, max, backoff)) = t.extract::<(String, u32, f64)>() {
            if kind == "restart" {
                let backoff = nerve::time::checked_seconds(backoff, 0.0, false)
                    .map_err(|e| PyValueError::new_err(format!("on_error backoff: {e}")))?;
                return Ok(FailurePolicy::Restart { max, backoff });
            }
        }
    }
    Err(PyTypeError::new_err(format!(
        "on_error is 'fatal', 'skip', 'restart' or ('restart', max, backoff_seconds), got {}",
        v.repr()?
    )))
}

/// `"compute"`, `"event"`... as an execution class; `("rt", priority[, cpu])` for a real-time lane.
fn exec_class(v: &Bound<'_, PyAny>) -> PyResult<ExecClass> {
    if let Ok(s) = v.extract::<String>() {
        return match s.as_str() {
            "compute" => Ok(ExecClass::Compute),
            "async" => Ok(ExecClass::Async),
            _ => Err(PyValueError::new_err(format!(
                "exec_class is 'compute', 'async' or ('rt', priority[, cpu]), got {s:?}"
            ))),
        };
    }
    if let Ok((kind, priority, cpu)) = v.extract::<(String, u8, Option<usize>)>() {
        if kind == "rt" && (1..=99).contains(&priority) {
            return Ok(ExecClass::Rt { priority, cpu });
        }
    }
    if let Ok((kind, priority)) = v.extract::<(String, u8)>() {
        if kind == "rt" && (1..=99).contains(&priority) {
            return Ok(ExecClass::Rt {
                priority,
                cpu: None,
            });
        }
    }
    Err(PyValueError::new_err(format!(
        "exec_class is 'compute', 'async' or ('rt', priority 1-99[, cpu]), got {}",
        v.repr()?
    )))
}

fn seconds(name: &str, v: Option<f64>) -> PyResult<Option<Duration>> {
    match v {
        None => Ok(None),
        Some(s) => nerve::time::checked_seconds(s, 0.0, true)
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("{name}: {e}"))),
    }
}

/// nerve's scheduler with Python nodes: `add` them, then `run`.
#[pyclass(module = "nerve", name = "Scheduler")]
pub(crate) struct Scheduler {
    state: Mutex<State>,
}

/// The builder until `run`, then the scheduler that ran (for its statistics).
struct State {
    builder: Option<SchedulerBuilder>,
    built: Option<RustScheduler>,
    names: Vec<String>,
    /// Set once `run` built the scheduler: `stop()` from any thread.
    handle: Option<SchedulerHandle>,
    /// `stop()` came before `run`: the run ends at once.
    stop_early: bool,
}

#[pymethods]
impl Scheduler {
    /// `domain`: for the e-stop topic; `estop_topic`: obey and publish `nerve/estop`;
    /// `watchdog`: default hang timeout (seconds); `compute_threads`: the compute pool's size;
    /// `handle_signals`: stop on SIGINT/SIGTERM (Python's Ctrl-C handling is replaced while
    /// `run` runs); `compute_spin`: seconds the compute lane (where Python nodes run unless
    /// told otherwise) busy-spins before each planned start, for starts within µs of the plan
    /// at that much CPU per start (default 0).
    #[new]
    #[pyo3(signature = (*, domain=None, estop_topic=false, watchdog=None, compute_threads=None, handle_signals=false, compute_spin=None))]
    fn new(
        domain: Option<u32>,
        estop_topic: bool,
        watchdog: Option<f64>,
        compute_threads: Option<usize>,
        handle_signals: bool,
        compute_spin: Option<f64>,
    ) -> PyResult<Self> {
        guard("Scheduler", || {
            let mut b = RustScheduler::builder()
                .handle_signals(handle_signals)
                .print_stats(false);
            if let Some(d) = domain {
                b = b.domain(d);
            }
            if estop_topic {
                b = b.estop_topic(domain);
            }
            if let Some(w) = seconds("watchdog", watchdog)? {
                b = b.watchdog(w);
            }
            if let Some(n) = compute_threads {
                b = b.compute_threads(n);
            }
            // Zero is the default: no spin.
            if let Some(d) = seconds("compute_spin", compute_spin.filter(|s| *s != 0.0))? {
                b = b.compute_spin(d);
            }
            Ok(Scheduler {
                state: Mutex::new(State {
                    builder: Some(b),
                    built: None,
                    names: Vec::new(),
                    handle: None,
                    stop_early: false,
                }),
            })
        })
    }

    /// Adds `node` (an object with `tick(ctx)`; `init`, `shutdown` and `on_safe_state` are
    /// called when it has them), named `name` or its `name` attribute or its class name.
    /// `rate`: ticks per second; `deadline` and `budget` in seconds; `on_miss`: 'warn',
    /// 'skip', 'safe_state', 'stop'; `on_budget` (a tick longer than `budget`): the same;
    /// `on_error`: 'fatal', 'skip', 'restart' or
    /// ('restart', max, backoff_seconds); `on_hang`: 'warn', 'estop', 'stop'.
    #[pyo3(signature = (node, *, name=None, rate=None, order=0, deadline=None, budget=None, on_miss="warn", on_budget="warn", on_error=None, watchdog=None, on_hang="estop", exec_class=None))]
    #[allow(clippy::too_many_arguments)]
    fn add(
        &self,
        node: Bound<'_, PyAny>,
        name: Option<String>,
        rate: Option<f64>,
        order: i64,
        deadline: Option<f64>,
        budget: Option<f64>,
        on_miss: &str,
        on_budget: &str,
        on_error: Option<Bound<'_, PyAny>>,
        watchdog: Option<f64>,
        on_hang: &str,
        exec_class: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        guard("Scheduler.add", || {
            let mut state = lock(&self.state);
            let this = &mut *state;
            if !node.hasattr("tick")? {
                return Err(PyTypeError::new_err(format!(
                    "a node has a tick(ctx) method; {} has none",
                    node.repr()?
                )));
            }
            let name = match name {
                Some(n) => n,
                None => match node.getattr("name").and_then(|n| n.extract::<String>()) {
                    Ok(n) => n,
                    Err(_) => node.get_type().name()?.to_string(),
                },
            };
            if this.names.contains(&name) {
                return Err(PyValueError::new_err(format!(
                    "a node named {name:?} was added already: give each a name (name=...)"
                )));
            }
            // Every option is checked before the builder is touched: a refused `add` leaves
            // the scheduler as it was.
            if let Some(r) = rate {
                nerve::time::checked_hz(r)
                    .map_err(|e| PyValueError::new_err(format!("rate: {e}")))?;
            }
            let miss = miss_policy("on_miss", on_miss)?;
            let over = miss_policy("on_budget", on_budget)?;
            let hang = hang_policy(on_hang)?;
            let deadline = seconds("deadline", deadline)?;
            let budget = seconds("budget", budget)?;
            let watchdog = seconds("watchdog", watchdog)?;
            let failure = on_error.map(|p| failure_policy(&p)).transpose()?;
            let class = exec_class.map(|c| self::exec_class(&c)).transpose()?;
            let builder = this.builder.take().ok_or_else(|| {
                PyRuntimeError::new_err("this scheduler already ran: make a new one")
            })?;
            let mut e = builder
                .node(PyNode {
                    name: name.clone(),
                    object: node.clone().unbind(),
                })
                .order(order)
                .on_miss(miss)
                .on_budget(over)
                .on_hang(hang);
            if let Some(r) = rate {
                e = e.rate(r);
            }
            if let Some(d) = deadline {
                e = e.deadline(d);
            }
            if let Some(b) = budget {
                e = e.budget(b);
            }
            if let Some(w) = watchdog {
                e = e.watchdog(w);
            }
            if let Some(p) = failure {
                e = e.on_panic(p);
            }
            if let Some(c) = class {
                e = e.class(c);
            }
            this.builder = Some(e.done());
            this.names.push(name);
            Ok(())
        })
    }

    /// Runs the nodes for `duration` seconds (None: until `stop()`, a signal when
    /// `handle_signals`, or a policy ends it), with the GIL released (Python threads run
    /// between ticks). Returns why it stopped ('elapsed', 'requested', 'signal N'); raises
    /// `SchedulerError` when a policy ended the run.
    #[pyo3(signature = (duration=None))]
    fn run(&self, py: Python<'_>, duration: Option<f64>) -> PyResult<String> {
        guard("Scheduler.run", || {
            let builder = lock(&self.state).builder.take().ok_or_else(|| {
                PyRuntimeError::new_err("this scheduler already ran: make a new one")
            })?;
            let d = seconds("duration", duration)?;
            let mut s = builder
                .build()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            {
                let mut state = lock(&self.state);
                state.handle = Some(s.handle());
                if state.stop_early {
                    s.handle().stop();
                }
            }
            let result = py.detach(|| match d {
                Some(d) => s.run_for(d),
                None => s.run(),
            });
            lock(&self.state).built = Some(s);
            match result {
                Ok(StopReason::Elapsed) => Ok("elapsed".into()),
                Ok(StopReason::Requested) => Ok("requested".into()),
                Ok(StopReason::Signal(n)) => Ok(format!("signal {n}")),
                Err(e @ RunError::AlreadyRan) => Err(PyRuntimeError::new_err(e.to_string())),
                Err(e) => Err(SchedulerError::new_err(e.to_string())),
            }
        })
    }

    /// Ends a `run` in progress (from another thread, a node, a signal handler): every
    /// node's `shutdown` runs and `run` returns 'requested'. Before `run`, the run ends at once.
    fn stop(&self) -> PyResult<()> {
        guard("Scheduler.stop", || {
            let mut state = lock(&self.state);
            match &state.handle {
                Some(h) => h.stop(),
                None => state.stop_early = true,
            }
            Ok(())
        })
    }

    /// Per-node statistics after (or during) a run: a dict per node (`name`, `ticks`,
    /// `misses`, `budget_overruns`, `skipped`, `panics`, `restarts`, `hangs`, `rate_hz`,
    /// `achieved_hz`, `tick_p50_ns`, `tick_p99_ns`, `lateness_p50_ns`, `lateness_p99_ns`,
    /// `lateness_max_ns`).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        guard("Scheduler.stats", || {
            let state = lock(&self.state);
            let Some(s) = &state.built else {
                return Ok(Vec::new());
            };
            s.stats().iter().map(|n| stats_dict(py, n)).collect()
        })
    }
}

fn stats_dict<'py>(py: Python<'py>, n: &NodeStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &n.name)?;
    d.set_item("ticks", n.tick_ns.n)?;
    d.set_item("misses", n.misses)?;
    d.set_item("budget_overruns", n.budget_overruns)?;
    d.set_item("skipped", n.skipped)?;
    d.set_item("panics", n.panics)?;
    d.set_item("restarts", n.restarts)?;
    d.set_item("hangs", n.hangs)?;
    d.set_item("rate_hz", n.rate_hz)?;
    d.set_item("achieved_hz", n.achieved_hz)?;
    d.set_item("tick_p50_ns", n.tick_ns.p50)?;
    d.set_item("tick_p99_ns", n.tick_ns.p99)?;
    d.set_item("lateness_p50_ns", n.lateness_ns.p50)?;
    d.set_item("lateness_p99_ns", n.lateness_ns.p99)?;
    d.set_item("lateness_max_ns", n.lateness_ns.max)?;
    Ok(d)
}

/// Adds the scheduler's classes to the module.
/// Triggers the e-stop of every scheduler listening on `nerve/estop` in `domain` (default
/// `$NERVE_DOMAIN`), from any process: Rust's `trigger_remote_estop`, C's
/// `nerve_estop_trigger`. `reason` is cut to 48 bytes.
#[pyfunction]
#[pyo3(signature = (reason, domain=None))]
fn trigger_remote_estop(py: Python<'_>, reason: &str, domain: Option<u32>) -> PyResult<()> {
    guard("trigger_remote_estop", || {
        py.detach(|| nerve::exec::trigger_remote_estop(domain, reason))
            .map_err(crate::errors::open_err)
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(trigger_remote_estop, m)?)?;
    m.add_class::<Scheduler>()?;
    m.add_class::<TickContext>()?;
    m.add("SchedulerError", m.py().get_type::<SchedulerError>())?;
    Ok(())
}
