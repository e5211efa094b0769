//! What crosses the action's three services and its events topic, and how they are named
//! after the action `A`: `A/goal`, `A/cancel`, `A/status`, `A/events`.

use nerve_transport::{Msgpack, OpenError, Topic};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::builder::ActionConfig;
use super::types::GoalStatus;
use crate::service::Service;

#[derive(Serialize, Deserialize)]
pub(super) struct GoalRequest<G> {
    pub(super) goal_id: u64,
    pub(super) goal: G,
}

#[derive(Serialize, Deserialize)]
pub(super) struct GoalResponse {
    pub(super) accepted: bool,
    pub(super) reason: String,
}

#[derive(Serialize, Deserialize)]
pub(super) struct CancelRequest {
    pub(super) goal_id: u64,
}

#[derive(Serialize, Deserialize)]
pub(super) struct CancelResponse {
    /// The status after the request (None: unknown goal).
    pub(super) status: Option<GoalStatus>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct StatusRequest {
    pub(super) goal_id: u64,
}

#[derive(Serialize, Deserialize)]
pub(super) struct StatusResponse<R> {
    pub(super) status: Option<GoalStatus>,
    pub(super) result: Option<R>,
    pub(super) message: String,
}

#[derive(Serialize, Deserialize)]
pub(super) struct Event<F, R> {
    pub(super) goal_id: u64,
    pub(super) status: GoalStatus,
    pub(super) feedback: Option<F>,
    pub(super) result: Option<R>,
    pub(super) message: String,
}

pub(super) type Events<F, R> = Msgpack<Event<F, R>>;

pub(super) type Services<G, R> = (
    Service<GoalRequest<G>, GoalResponse>,
    Service<CancelRequest, CancelResponse>,
    Service<StatusRequest, StatusResponse<R>>,
);

pub(super) fn services<G, R>(c: &ActionConfig) -> Services<G, R>
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

pub(super) fn events_topic<F, R>(c: &ActionConfig) -> Result<Topic<Events<F, R>>, OpenError>
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
