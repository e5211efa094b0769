//! Actions: long-running goals with feedback, a result, cancel and reject.
//!
//! Built from three services and one topic, all named after the action `A`:
//! - `A/goal` (send a goal: accepted or rejected with a reason),
//! - `A/cancel` (ask to cancel a goal),
//! - `A/status` (status and result of a goal; what a client polls if it missed an event),
//! - `A/events`: every status change, feedback and result, broadcast to the action's clients,
//!   each keeping the events of its own goals.
//!
//! ```no_run
//! use nerve_rpc::action::{ActionClient, ActionServer, GoalOutcome};
//! use std::time::Duration;
//! let _server = ActionServer::<u32, u32, u64>::builder("fib")
//!     .serve(
//!         |n: &u32| if *n > 90 { Err("n must be at most 90".into()) } else { Ok(()) },
//!         |ctx, n| {
//!             let (mut a, mut b) = (0u64, 1u64);
//!             for i in 0..n {
//!                 if ctx.cancel_requested() {
//!                     return GoalOutcome::Canceled(Some(a));
//!                 }
//!                 (a, b) = (b, a + b);
//!                 ctx.feedback(i);
//!             }
//!             GoalOutcome::Succeeded(a)
//!         },
//!     )?;
//! let client = ActionClient::<u32, u32, u64>::builder("fib").open()?;
//! let goal = client.send_goal(10, Duration::from_secs(1))?;
//! let result = goal.wait(Duration::from_secs(5))?;
//! assert_eq!(result.result, Some(55));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, VecDeque};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nerve_transport::sys::lock;
use nerve_transport::{Msgpack, Publisher, Topic};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{ActionError, CallError, ServeError};
use crate::service::{Client, Server, Service};
use crate::wire;

/// Where a goal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GoalStatus {
    /// Accepted, not started yet.
    Accepted,
    /// Running.
    Executing,
    /// Cancel requested, the goal is winding down.
    Canceling,
    /// Finished with a result.
    Succeeded,
    /// Canceled on request.
    Canceled,
    /// Failed.
    Aborted,
    /// Refused by the server; never ran.
    Rejected,
}

impl GoalStatus {
    /// Whether the goal is over.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            GoalStatus::Succeeded
                | GoalStatus::Canceled
                | GoalStatus::Aborted
                | GoalStatus::Rejected
        )
    }
}

/// How an execution ends, returned by the server's execute function.
#[derive(Clone, Debug, PartialEq)]
pub enum GoalOutcome<R> {
    /// Done, with the result.
    Succeeded(R),
    /// Stopped because a cancel was requested, with a partial result if there is one.
    Canceled(Option<R>),
    /// Failed, with the reason.
    Aborted(String),
}

/// The end of a goal as the client sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoalResult<R> {
    /// The goal.
    pub goal_id: u64,
    /// `Succeeded`, `Canceled` or `Aborted`.
    pub status: GoalStatus,
    /// The result (always for `Succeeded`; maybe for `Canceled`).
    pub result: Option<R>,
    /// Why it was aborted (empty otherwise).
    pub message: String,
}

#[derive(Serialize, Deserialize)]
struct GoalRequest<G> {
    goal_id: u64,
    goal: G,
}

#[derive(Serialize, Deserialize)]
struct GoalResponse {
    accepted: bool,
    reason: String,
}

#[derive(Serialize, Deserialize)]
struct CancelRequest {
    goal_id: u64,
}

#[derive(Serialize, Deserialize)]
struct CancelResponse {
    /// The status after the request (None: unknown goal).
    status: Option<GoalStatus>,
}

#[derive(Serialize, Deserialize)]
struct StatusRequest {
    goal_id: u64,
}

#[derive(Serialize, Deserialize)]
struct StatusResponse<R> {
    status: Option<GoalStatus>,
    result: Option<R>,
    message: String,
}

#[derive(Serialize, Deserialize)]
struct Event<F, R> {
    goal_id: u64,
    status: GoalStatus,
    feedback: Option<F>,
    result: Option<R>,
    message: String,
}

type Events<F, R> = Msgpack<Event<F, R>>;

/// Settings of an action.
#[derive(Clone, Debug)]
struct ActionConfig {
    name: String,
    domain: u32,
    events_depth: u32,
}

type Services<G, R> = (
    Service<GoalRequest<G>, GoalResponse>,
    Service<CancelRequest, CancelResponse>,
    Service<StatusRequest, StatusResponse<R>>,
);

fn services<G, R>(c: &ActionConfig) -> Services<G, R>
where
    G: Serialize + DeserializeOwned + Send + 'static,
    R: Serialize + DeserializeOwned + Send + 'static,
{
    (
        Service::builder(&format!("{}/goal", c.name))
            .domain(c.domain)
            .build(),
        Service::builder(&format!("{}/cancel", c.name))
            .domain(c.domain)
            .build(),
        Service::builder(&format!("{}/status", c.name))
            .domain(c.domain)
            .build(),
    )
}

fn events_topic<F, R>(c: &ActionConfig) -> Result<Topic<Events<F, R>>, nerve_transport::OpenError>
where
    F: Serialize + DeserializeOwned + Send + Sync + 'static,
    R: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    Topic::<Events<F, R>>::builder(&format!("{}/events", c.name))
        .domain(c.domain)
        .depth(c.events_depth)
        .max_message_bytes(1 << 20)
        .max_endpoints(256)
        .open()
}

/// Bounds every action type parameter meets.
pub trait Payload: Serialize + DeserializeOwned + Send + Sync + 'static {}
impl<T: Serialize + DeserializeOwned + Send + Sync + 'static> Payload for T {}

/// Builds an action server or client.
#[must_use = "a builder does nothing until .serve() or .open()"]
pub struct ActionBuilder<G, F, R, Side> {
    config: ActionConfig,
    _t: PhantomData<fn(G, F, R, Side)>,
}

impl<G, F, R, Side> ActionBuilder<G, F, R, Side> {
    /// Domain (default `$NERVE_DOMAIN` or 0).
    pub fn domain(mut self, domain: u32) -> Self {
        self.config.domain = domain;
        self
    }
    /// Depth of the events topic (default 256): how far a client may fall behind on feedback.
    pub fn events_depth(mut self, depth: u32) -> Self {
        self.config.events_depth = depth;
        self
    }
}

fn config(name: &str) -> ActionConfig {
    ActionConfig {
        name: name.to_owned(),
        domain: nerve_transport::default_domain(),
        events_depth: 256,
    }
}

/// What an execution sees of its goal.
pub struct GoalContext<F, R> {
    goal_id: u64,
    cancel: Arc<AtomicBool>,
    shared: Arc<ServerShared<F, R>>,
}

impl<F: Payload, R: Payload> GoalContext<F, R> {
    /// The goal's id.
    pub fn goal_id(&self) -> u64 {
        self.goal_id
    }
    /// Whether a client asked to cancel this goal: wind down and return
    /// [`GoalOutcome::Canceled`].
    pub fn cancel_requested(&self) -> bool {
        self.cancel.load(Relaxed)
    }
    /// Sends feedback to the clients.
    pub fn feedback(&self, feedback: F) {
        let status = self.shared.status_of(self.goal_id);
        self.shared
            .publish(self.goal_id, status, Some(feedback), None, "");
    }
}

struct GoalEntry<R> {
    status: GoalStatus,
    cancel: Arc<AtomicBool>,
    result: Option<R>,
    message: String,
    finished: Option<Instant>,
}

struct ServerShared<F, R> {
    name: String,
    goals: Mutex<HashMap<u64, GoalEntry<R>>>,
    /// Goal threads publish through it in turn (a publisher is not `Sync`).
    events: Mutex<Publisher<Events<F, R>>>,
}

impl<F: Payload, R: Payload> ServerShared<F, R> {
    fn status_of(&self, goal_id: u64) -> GoalStatus {
        lock(&self.goals)
            .get(&goal_id)
            .map_or(GoalStatus::Aborted, |g| g.status)
    }

    fn publish(
        &self,
        goal_id: u64,
        status: GoalStatus,
        feedback: Option<F>,
        result: Option<R>,
        message: &str,
    ) {
        let event = Event {
            goal_id,
            status,
            feedback,
            result,
            message: message.to_owned(),
        };
        let events = lock(&self.events);
        if let Err(e) = events.send(&event) {
            tracing::warn!(action = %self.name, goal_id, error = %e, "action event not sent");
        }
    }

    fn set_status(&self, goal_id: u64, status: GoalStatus) {
        if let Some(g) = lock(&self.goals).get_mut(&goal_id) {
            if !g.status.is_terminal() {
                g.status = status;
            }
        }
    }
}

/// A running action server. Dropping it stops accepting goals (running executions finish).
pub struct ActionServer<G, F, R> {
    _goal: Server,
    _cancel: Server,
    _status: Server,
    shared: Arc<ServerShared<F, R>>,
    _t: PhantomData<fn(G)>,
}

/// Marker for the server side of [`ActionBuilder`].
pub enum ServerSide {}
/// Marker for the client side of [`ActionBuilder`].
pub enum ClientSide {}

impl<G: Payload, F: Payload, R: Payload + Clone> ActionServer<G, F, R> {
    /// Starts describing action `name`.
    pub fn builder(name: &str) -> ActionBuilder<G, F, R, ServerSide> {
        ActionBuilder {
            config: config(name),
            _t: PhantomData,
        }
    }

    /// Status of a goal known to this server.
    pub fn status(&self, goal_id: u64) -> Option<GoalStatus> {
        lock(&self.shared.goals).get(&goal_id).map(|g| g.status)
    }
}

impl<G: Payload, F: Payload, R: Payload + Clone> ActionBuilder<G, F, R, ServerSide> {
    /// Serves the action: `accept` decides on each goal (`Err(reason)` rejects it), `execute`
    /// runs each accepted goal on its own thread.
    pub fn serve<A, E>(self, accept: A, execute: E) -> Result<ActionServer<G, F, R>, ServeError>
    where
        A: Fn(&G) -> Result<(), String> + Send + Sync + 'static,
        E: Fn(GoalContext<F, R>, G) -> GoalOutcome<R> + Send + Sync + 'static,
    {
        let c = self.config;
        let open_err = |e| ServeError::Open {
            service: c.name.clone(),
            source: e,
        };
        let events = events_topic::<F, R>(&c).map_err(open_err)?;
        let shared = Arc::new(ServerShared {
            name: c.name.clone(),
            goals: Mutex::default(),
            events: Mutex::new(events.publisher().map_err(open_err)?),
        });
        let (goal_svc, cancel_svc, status_svc) = services::<G, R>(&c);
        let execute = Arc::new(execute);
        let s = shared.clone();
        let goal = goal_svc.server().serve(move |req: GoalRequest<G>| {
            if let Err(reason) = accept(&req.goal) {
                return Ok(GoalResponse {
                    accepted: false,
                    reason,
                });
            }
            let cancel = Arc::new(AtomicBool::new(false));
            {
                let mut goals = lock(&s.goals);
                // Forget goals finished more than a minute ago.
                goals.retain(|_, g| match g.finished {
                    Some(t) => t.elapsed() < Duration::from_secs(60),
                    None => true,
                });
                if goals.contains_key(&req.goal_id) {
                    return Ok(GoalResponse {
                        accepted: false,
                        reason: format!("goal id {} is already in use", req.goal_id),
                    });
                }
                goals.insert(
                    req.goal_id,
                    GoalEntry {
                        status: GoalStatus::Accepted,
                        cancel: cancel.clone(),
                        result: None,
                        message: String::new(),
                        finished: None,
                    },
                );
            }
            s.publish(req.goal_id, GoalStatus::Accepted, None, None, "");
            let s2 = s.clone();
            let execute = execute.clone();
            let goal_id = req.goal_id;
            std::thread::Builder::new()
                .name("rpc-action-goal".into())
                .spawn(move || {
                    s2.set_status(goal_id, GoalStatus::Executing);
                    if !cancel.load(Relaxed) {
                        s2.publish(goal_id, GoalStatus::Executing, None, None, "");
                    }
                    let ctx = GoalContext {
                        goal_id,
                        cancel,
                        shared: s2.clone(),
                    };
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        execute(ctx, req.goal)
                    }))
                    .unwrap_or_else(|_| {
                        GoalOutcome::Aborted("the execute function panicked".into())
                    });
                    let (status, result, message) = match outcome {
                        GoalOutcome::Succeeded(r) => {
                            (GoalStatus::Succeeded, Some(r), String::new())
                        }
                        GoalOutcome::Canceled(r) => (GoalStatus::Canceled, r, String::new()),
                        GoalOutcome::Aborted(m) => (GoalStatus::Aborted, None, m),
                    };
                    // Cloned before locking: `R::clone` is the user's code, and a panic in it
                    // must not leave the entry terminal without its result.
                    let kept = (result.clone(), message.clone());
                    if let Some(g) = lock(&s2.goals).get_mut(&goal_id) {
                        g.status = status;
                        (g.result, g.message) = kept;
                        g.finished = Some(Instant::now());
                    }
                    s2.publish(goal_id, status, None, result, &message);
                })
                .map_err(|e| format!("cannot start the goal's thread: {e}"))?;
            Ok(GoalResponse {
                accepted: true,
                reason: String::new(),
            })
        })?;
        let s = shared.clone();
        let cancel = cancel_svc.server().serve(move |req: CancelRequest| {
            let mut goals = lock(&s.goals);
            let Some(g) = goals.get_mut(&req.goal_id) else {
                return Ok(CancelResponse { status: None });
            };
            if !g.status.is_terminal() {
                g.cancel.store(true, Relaxed);
                g.status = GoalStatus::Canceling;
            }
            let status = g.status;
            drop(goals);
            if status == GoalStatus::Canceling {
                s.publish(req.goal_id, status, None, None, "");
            }
            Ok(CancelResponse {
                status: Some(status),
            })
        })?;
        let s = shared.clone();
        let status = status_svc.server().serve(move |req: StatusRequest| {
            let goals = lock(&s.goals);
            Ok(match goals.get(&req.goal_id) {
                Some(g) => StatusResponse {
                    status: Some(g.status),
                    result: g.result.clone(),
                    message: g.message.clone(),
                },
                None => StatusResponse {
                    status: None,
                    result: None,
                    message: String::new(),
                },
            })
        })?;
        Ok(ActionServer {
            _goal: goal,
            _cancel: cancel,
            _status: status,
            shared,
            _t: PhantomData,
        })
    }
}

struct GoalState<F, R> {
    status: GoalStatus,
    feedback: VecDeque<F>,
    result: Option<GoalResult<R>>,
}

struct ClientShared<F, R> {
    name: String,
    goals: Mutex<HashMap<u64, GoalState<F, R>>>,
    cv: Condvar,
    stop: AtomicBool,
}

/// An action client. Sends goals; each comes back as a [`GoalHandle`].
pub struct ActionClient<G, F, R> {
    goal: Client<GoalRequest<G>, GoalResponse>,
    cancel: Client<CancelRequest, CancelResponse>,
    status: Client<StatusRequest, StatusResponse<R>>,
    shared: Arc<ClientShared<F, R>>,
    pump: Option<JoinHandle<()>>,
}

impl<G: Payload, F: Payload, R: Payload + Clone> ActionBuilder<G, F, R, ClientSide> {
    /// Opens the client (and its thread collecting events).
    pub fn open(self) -> Result<ActionClient<G, F, R>, ActionError> {
        let c = self.config;
        let events = events_topic::<F, R>(&c).map_err(|e| {
            ActionError::Call(CallError::Open {
                service: c.name.clone(),
                source: e,
            })
        })?;
        let mut sub = events.subscriber().map_err(|e| {
            ActionError::Call(CallError::Open {
                service: c.name.clone(),
                source: e,
            })
        })?;
        let (goal, cancel, status) = services::<G, R>(&c);
        let shared = Arc::new(ClientShared {
            name: c.name.clone(),
            goals: Mutex::default(),
            cv: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let s = shared.clone();
        let pump = std::thread::Builder::new()
            .name("rpc-action-events".into())
            .spawn(move || {
                while !s.stop.load(Relaxed) {
                    let event: Event<F, R> = match sub.recv_timeout(Duration::from_millis(50)) {
                        Ok(Some(e)) => e,
                        Ok(None) => continue,
                        Err(e) => {
                            tracing::warn!(action = %s.name, error = %e, "unreadable action event");
                            continue;
                        }
                    };
                    let mut goals = lock(&s.goals);
                    let Some(g) = goals.get_mut(&event.goal_id) else {
                        continue;
                    };
                    if let Some(f) = event.feedback {
                        g.feedback.push_back(f);
                    }
                    if !g.status.is_terminal() {
                        g.status = event.status;
                        if event.status.is_terminal() {
                            g.result = Some(GoalResult {
                                goal_id: event.goal_id,
                                status: event.status,
                                result: event.result,
                                message: event.message,
                            });
                        }
                    }
                    drop(goals);
                    s.cv.notify_all();
                }
            })
            .map_err(|e| ActionError::Thread {
                action: c.name.clone(),
                source: e,
            })?;
        let open = |e| ActionError::Call(e);
        Ok(ActionClient {
            goal: goal.client().map_err(open)?,
            cancel: cancel.client().map_err(open)?,
            status: status.client().map_err(open)?,
            shared,
            pump: Some(pump),
        })
    }
}

impl<G, F, R> Drop for ActionClient<G, F, R> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Relaxed);
        if let Some(p) = self.pump.take() {
            let _ = p.join();
        }
    }
}

impl<G: Payload, F: Payload, R: Payload + Clone> ActionClient<G, F, R> {
    /// Starts describing action `name`.
    pub fn builder(name: &str) -> ActionBuilder<G, F, R, ClientSide> {
        ActionBuilder {
            config: config(name),
            _t: PhantomData,
        }
    }

    /// A handle to goal `goal_id` sent by this client and kept with [`GoalHandle::keep`]
    /// (what a binding holds instead of a borrowed handle); dropping it forgets nothing. An id
    /// this client does not track reads as aborted.
    pub fn goal(&self, goal_id: u64) -> GoalHandle<'_, G, F, R> {
        GoalHandle {
            client: self,
            goal_id,
            forget_on_drop: false,
        }
    }

    /// Forgets what this client collected about a kept goal (its feedback and result).
    pub fn forget_goal(&self, goal_id: u64) {
        lock(&self.shared.goals).remove(&goal_id);
    }

    /// Whether the action server is up.
    pub fn server_available(&self) -> bool {
        self.goal.raw().server_available()
    }

    /// Waits up to `timeout` for the action server.
    pub fn wait_for_server(&self, timeout: Duration) -> bool {
        self.goal.raw().wait_for_server(timeout)
    }

    /// Sends a goal; waits up to `timeout` for the server to accept it.
    /// [`ActionError::Rejected`] carries the server's reason.
    pub fn send_goal(
        &self,
        goal: G,
        timeout: Duration,
    ) -> Result<GoalHandle<'_, G, F, R>, ActionError> {
        let goal_id = wire::client_id();
        lock(&self.shared.goals).insert(
            goal_id,
            GoalState {
                status: GoalStatus::Accepted,
                feedback: VecDeque::new(),
                result: None,
            },
        );
        // The handle forgets the goal when dropped: on a refusal, a failed call, or a panic
        // while the goal is encoded (the goal type's Serialize is the user's code).
        let handle = GoalHandle {
            client: self,
            goal_id,
            forget_on_drop: true,
        };
        match self.goal.call(&GoalRequest { goal_id, goal }, timeout) {
            Ok(r) if r.accepted => Ok(handle),
            Ok(r) => Err(ActionError::Rejected {
                action: self.shared.name.clone(),
                reason: r.reason,
            }),
            Err(e) => Err(ActionError::Call(e)),
        }
    }

    /// Waits until every goal is over, up to `timeout` in all; results in the same order.
    pub fn wait_all(
        &self,
        goals: &[GoalHandle<'_, G, F, R>],
        timeout: Duration,
    ) -> Result<Vec<GoalResult<R>>, ActionError> {
        let end = Instant::now() + timeout;
        goals
            .iter()
            .map(|g| g.wait(end.saturating_duration_since(Instant::now())))
            .collect()
    }

    fn poll_status(&self, goal_id: u64, timeout: Duration) -> Result<(), ActionError> {
        let r = self
            .status
            .call(&StatusRequest { goal_id }, timeout)
            .map_err(ActionError::Call)?;
        let Some(status) = r.status else {
            return Err(ActionError::UnknownGoal {
                action: self.shared.name.clone(),
                goal_id,
            });
        };
        let mut goals = lock(&self.shared.goals);
        if let Some(g) = goals.get_mut(&goal_id) {
            if !g.status.is_terminal() {
                g.status = status;
                if status.is_terminal() {
                    g.result = Some(GoalResult {
                        goal_id,
                        status,
                        result: r.result,
                        message: r.message,
                    });
                }
            }
        }
        Ok(())
    }
}

/// A goal sent by an [`ActionClient`]: its status, feedback and result.
pub struct GoalHandle<'a, G, F, R> {
    client: &'a ActionClient<G, F, R>,
    goal_id: u64,
    forget_on_drop: bool,
}

impl<G: Payload, F: Payload, R: Payload + Clone> GoalHandle<'_, G, F, R> {
    /// The goal's id.
    pub fn id(&self) -> u64 {
        self.goal_id
    }

    /// The latest status seen.
    pub fn status(&self) -> GoalStatus {
        lock(&self.client.shared.goals)
            .get(&self.goal_id)
            .map_or(GoalStatus::Aborted, |g| g.status)
    }

    /// Feedback received since the last call.
    pub fn feedback(&self) -> Vec<F> {
        lock(&self.client.shared.goals)
            .get_mut(&self.goal_id)
            .map(|g| g.feedback.drain(..).collect())
            .unwrap_or_default()
    }

    /// Asks the server to cancel the goal; returns the status right after the request
    /// (`Canceling` while it winds down, or the final status if it was already over).
    pub fn cancel(&self, timeout: Duration) -> Result<GoalStatus, ActionError> {
        let r = self
            .client
            .cancel
            .call(
                &CancelRequest {
                    goal_id: self.goal_id,
                },
                timeout,
            )
            .map_err(ActionError::Call)?;
        r.status.ok_or_else(|| ActionError::UnknownGoal {
            action: self.client.shared.name.clone(),
            goal_id: self.goal_id,
        })
    }

    /// Waits up to `timeout` for the goal to end.
    pub fn wait(&self, timeout: Duration) -> Result<GoalResult<R>, ActionError> {
        let shared = &self.client.shared;
        let end = Instant::now() + timeout;
        let mut next_poll = Instant::now() + Duration::from_millis(200);
        loop {
            {
                let goals = lock(&shared.goals);
                let (goals, _) = shared
                    .cv
                    .wait_timeout_while(
                        goals,
                        Duration::from_millis(50)
                            .min(end.saturating_duration_since(Instant::now())),
                        |g| g.get(&self.goal_id).is_some_and(|g| g.result.is_none()),
                    )
                    .unwrap_or_else(PoisonError::into_inner);
                match goals.get(&self.goal_id) {
                    Some(g) => {
                        if let Some(r) = &g.result {
                            return Ok(r.clone());
                        }
                    }
                    None => {
                        return Err(ActionError::UnknownGoal {
                            action: shared.name.clone(),
                            goal_id: self.goal_id,
                        })
                    }
                }
            }
            let now = Instant::now();
            if now >= end {
                return Err(ActionError::Timeout {
                    action: shared.name.clone(),
                    goal_id: self.goal_id,
                    timeout,
                });
            }
            if now >= next_poll {
                // Events may have been missed; ask, which also notices a dead server.
                next_poll = now + Duration::from_millis(200);
                self.client
                    .poll_status(self.goal_id, (end - now).min(Duration::from_secs(1)))?;
            }
        }
    }
}

impl<G, F, R> GoalHandle<'_, G, F, R> {
    /// Releases the handle but keeps tracking the goal; returns its id for
    /// [`ActionClient::goal`] (and [`ActionClient::forget_goal`] when done).
    pub fn keep(mut self) -> u64 {
        self.forget_on_drop = false;
        self.goal_id
    }
}

impl<G, F, R> Drop for GoalHandle<'_, G, F, R> {
    fn drop(&mut self) {
        if !self.forget_on_drop {
            return;
        }
        lock(&self.client.shared.goals).remove(&self.goal_id);
    }
}

impl<G, F, R> std::fmt::Debug for GoalHandle<'_, G, F, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoalHandle")
            .field("action", &self.client.shared.name)
            .field("goal_id", &self.goal_id)
            .finish()
    }
}
