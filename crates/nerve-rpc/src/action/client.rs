//! The client side: [`ActionClient`] sending goals, a thread collecting the events of its
//! goals, and [`GoalHandle`]s to wait on them.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nerve_transport::sys::lock;

use super::builder::{ActionBuilder, ClientSide};
use super::protocol::{
    events_topic, services, CancelRequest, CancelResponse, Event, GoalRequest, GoalResponse,
    StatusRequest, StatusResponse,
};
use super::types::{GoalResult, GoalStatus, Payload};
use crate::error::{ActionError, CallError};
use crate::service::Client;
use crate::wire;

struct GoalState<F, R> {
    status: GoalStatus,
    feedback: VecDeque<F>,
    result: Option<GoalResult<R>>,
}

struct ClientShared<F, R> {
    name: String,
    goals: Mutex<HashMap<u64, GoalState<F, R>>>,
    cv: Condvar,
    /// Set when the client drops; the event thread checks it every 50 ms. Relaxed: it hands
    /// over no data, and the drop joins the thread.
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
                    // (Relaxed: see `ClientShared::stop`.)
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
        self.shared.stop.store(true, Relaxed); // Relaxed: see `ClientShared::stop`.
        if let Some(p) = self.pump.take() {
            let _ = p.join();
        }
    }
}

impl<G: Payload, F: Payload, R: Payload + Clone> ActionClient<G, F, R> {
    /// Starts describing action `name`.
    pub fn builder(name: &str) -> ActionBuilder<G, F, R, ClientSide> {
        ActionBuilder::new(name)
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
        let end = Instant::now() + nerve_transport::time::clamp(timeout);
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
        let end = Instant::now() + nerve_transport::time::clamp(timeout);
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
