//! Services: request/response between processes over shared-memory topics.
//!
//! Topics of service `S` (all in the service's domain):
//! - `S/request`: reliable, chunked `RpcFrame`s (`wire.rs`) from every client to the server; a client
//!   waits at most its call timeout for room, so a request is never silently dropped;
//! - `S/response/<client id>`: best effort, one per client, so a response wakes only its caller
//!   and a dead client's topic never blocks the server;
//! - `S/server`: latest-only `ServerRecord` (pid, life token, up/down). A client checks it
//!   before each call (`CallError::NoServer`) and every few milliseconds while waiting
//!   (`CallError::ServerDied`).
//!
//! Frames carry the client id and a call number; a response to a call that already timed out
//! is discarded, never handed to a later call.
//!
//! Files: this one ([`Service`], its builder), `config.rs` ([`ServiceConfig`], the topics it
//! opens), `client.rs` ([`Client`], [`RawClient`]), `server.rs` ([`Server`], its builder, raw
//! handlers), `watch.rs` (the server-liveness watch), `frame.rs` (sending and waiting for a
//! frame).

mod client;
mod config;
mod frame;
mod server;
mod watch;

use std::marker::PhantomData;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use self::client::{Client, RawClient};
pub use self::config::ServiceConfig;
pub use self::server::{
    DeferredHandler, Failure, RawHandler, RawResult, Responder, Server, ServerBuilder, ServerStats,
    MAX_WORKERS,
};
pub(crate) use self::watch::ServerWatch;
use crate::error::CallError;

/// A typed service: requests `Req`, responses `Resp`, both carried as MessagePack (named
/// fields, so a Python dict with the same keys interoperates). Make clients and servers from
/// it.
///
/// ```no_run
/// use nerve_rpc::Service;
/// use std::time::Duration;
/// let add = Service::<(i64, i64), i64>::builder("math/add").build();
/// let _server = add.server().workers(2).serve(|(a, b)| Ok(a + b))?;
/// let client = add.client()?;
/// assert_eq!(client.call(&(2, 3), Duration::from_millis(100))?, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Service<Req, Resp> {
    config: ServiceConfig,
    _t: PhantomData<fn(Req) -> Resp>,
}

impl<Req, Resp> Clone for Service<Req, Resp> {
    fn clone(&self) -> Self {
        Service {
            config: self.config.clone(),
            _t: PhantomData,
        }
    }
}

/// Builds a [`Service`].
#[must_use = "a builder does nothing until .build()"]
pub struct ServiceBuilder<Req, Resp> {
    config: ServiceConfig,
    _t: PhantomData<fn(Req) -> Resp>,
}

impl<Req, Resp> ServiceBuilder<Req, Resp> {
    /// Domain (default `$NERVE_DOMAIN` or 0).
    pub fn domain(mut self, domain: u32) -> Self {
        self.config.domain = domain;
        self
    }
    /// Requests that may queue for the server before callers wait (default 64).
    pub fn request_depth(mut self, depth: u32) -> Self {
        self.config.request_depth = depth;
        self
    }
    /// Calls one client may have in flight before responses are lost (default 64).
    pub fn response_depth(mut self, depth: u32) -> Self {
        self.config.response_depth = depth;
        self
    }
    /// Largest encoded request or response (default 1 MiB).
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.config.max_message_bytes = bytes;
        self
    }
    /// Polling before a waiting caller or idle server sleeps (default 50 µs; see
    /// [`ServiceConfig::spin`]).
    pub fn spin(mut self, spin: Duration) -> Self {
        self.config.spin = spin;
        self
    }
    /// The service description; opens nothing yet.
    pub fn build(self) -> Service<Req, Resp> {
        Service {
            config: self.config,
            _t: PhantomData,
        }
    }
}

impl<Req, Resp> Service<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    /// Starts describing service `name`.
    pub fn builder(name: &str) -> ServiceBuilder<Req, Resp> {
        ServiceBuilder {
            config: ServiceConfig::new(name),
            _t: PhantomData,
        }
    }

    /// The settings.
    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// A new client (its own response topic).
    pub fn client(&self) -> Result<Client<Req, Resp>, CallError> {
        Client::open(self.config.clone())
    }

    /// Starts configuring the server side.
    pub fn server(&self) -> ServerBuilder<Req, Resp> {
        ServerBuilder::new(self.config.clone())
    }
}
