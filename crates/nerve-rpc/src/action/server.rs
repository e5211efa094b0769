//! The server side: [`ActionServer`] serving the goal, cancel and status services, one thread
//! per accepted goal, events published on `A/events`.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve_transport::sys::lock;
use nerve_transport::{Msgpack, Publisher};

use super::builder::{ActionBuilder, ServerSide};
use super::protocol::{
    events_topic, services, CancelRequest, CancelResponse, Event, Events, GoalRequest,
    GoalResponse, StatusRequest, StatusResponse,
};
use super::types::{GoalOutcome, GoalStatus, Payload};
use crate::error::ServeError;
use crate::interface::{self, Interface, InterfacePart};
use crate::service::Server;

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
        self.cancel.load(Relaxed) // Relaxed: see `GoalEntry::cancel`.
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
    /// Set by the cancel service, read by the execution (`GoalContext::cancel_requested`).
    /// Relaxed: a request to wind down that hands over no data (the goal's status is under
    /// the `goals` lock); a stale read delays the wind-down by one check.
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
#[must_use = "dropping the ActionServer stops its services at once: no new goals, cancels or status requests (running executions finish)"]
pub struct ActionServer<G, F, R> {
    _interface: Option<Publisher<Msgpack<Interface>>>,
    _goal: Server,
    _cancel: Server,
    _status: Server,
    shared: Arc<ServerShared<F, R>>,
    _t: PhantomData<fn(G)>,
}

impl<G: Payload, F: Payload, R: Payload + Clone> ActionServer<G, F, R> {
    /// Starts describing action `name`.
    pub fn builder(name: &str) -> ActionBuilder<G, F, R, ServerSide> {
        ActionBuilder::new(name)
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
        // The types are announced before the goal service starts: whoever sees its server
        // (a Zenoh bridge exporting it, `nerve action list`) finds them already there.
        let interface = Interface {
            kind: "action".into(),
            parts: vec![
                InterfacePart::of::<G>("goal"),
                InterfacePart::of::<F>("feedback"),
                InterfacePart::of::<R>("result"),
            ],
        };
        let interface = interface::announce(c.domain, &c.name, &interface)
            .map_err(|e| tracing::warn!(action = %c.name, error = %e, "types not announced"))
            .ok();
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
                    // Relaxed: see `GoalEntry::cancel` (and a cancel stored before
                    // `set_status` took the lock is seen: the lock orders them).
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
                g.cancel.store(true, Relaxed); // Relaxed: see `GoalEntry::cancel`.
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
            _interface: interface,
            _goal: goal,
            _cancel: cancel,
            _status: status,
            shared,
            _t: PhantomData,
        })
    }
}
