//! The value types of actions: a goal's status, how an execution ends, what a client gets
//! back, and the bounds on goal, feedback and result types.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

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

/// Bounds every action type parameter meets.
pub trait Payload: Serialize + DeserializeOwned + Send + Sync + 'static {}
impl<T: Serialize + DeserializeOwned + Send + Sync + 'static> Payload for T {}
