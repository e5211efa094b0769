//! Services across hosts, and with them actions (three services and an events topic) and
//! parameters (services of each node).
//!
//! - **Out**: a service whose server runs in another process here gets a Zenoh queryable,
//!   `nerve/<domain>/@call/<service>`, answered by calling the local server (a call's bytes
//!   are its request, its attachment the caller's timeout in ms), a liveliness token
//!   `nerve/<domain>/@service/<bridge>/<service>`, and its [`ServiceMeta`] answered on
//!   `nerve/<domain>/@smeta/<bridge>/<service>`.
//! - **In**: another host's service token starts a local server for it (unless one runs here)
//!   announcing the remote types, whose handler queries the remote host. A caller here sees
//!   an ordinary service: `nerve service call`, `nerve param`, `nerve action send_goal` work
//!   as on one host. The token going (the host died, the server stopped) stops it.
//!
//! A failure crosses as it is: the handler's message, a request the server could not decode,
//! or what went wrong between (no server, timeout), naming the host.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nerve::rpc::discovery::{self, Interface};
use nerve::rpc::{CallError, Failure, RawClient, Responder, Server, Service};
use serde::{Deserialize, Serialize};
use zenoh::query::{Query, Reply};
use zenoh::Wait;

use crate::ask::{Asked, Event, Kind, Outcome, Remote};
use crate::{wire, zerr, BridgeError, Inner};

/// How many calls of one exported service run at once.
const WORKERS: usize = 4;
/// Calls of one exported service waiting for a worker (more: refused as busy).
const QUEUE: usize = 256;

/// What a bridge says of a service it exports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServiceMeta {
    /// The types its server announced.
    pub interface: Option<Interface>,
    /// For an action's goal service (`A/goal`): the action's types.
    pub action: Option<Interface>,
    /// The exporting host.
    pub host: String,
}

/// A failed call as it crosses: `(0, message)` the handler failed, `(1, reason)` the request
/// could not be decoded.
fn encode_failure(f: &Failure) -> Vec<u8> {
    let pair = match f {
        Failure::Handler(m) => (0u8, m.as_str()),
        Failure::BadRequest(m) => (1u8, m.as_str()),
    };
    rmp_serde::to_vec(&pair).expect("a pair serializes")
}

fn decode_failure(bytes: &[u8], host: &str) -> Failure {
    match rmp_serde::from_slice::<(u8, String)>(bytes) {
        Ok((1, m)) => Failure::BadRequest(m),
        Ok((_, m)) => Failure::Handler(m),
        Err(e) => Failure::Handler(format!(
            "host {host} answered with an unreadable error: {e}"
        )),
    }
}

/// The services this bridge exports and imports.
#[derive(Default)]
pub(crate) struct Services {
    exported: BTreeMap<String, Exported>,
    imported: BTreeMap<String, Imported>,
}

struct Exported {
    meta: Vec<u8>,
    _queryable: zenoh::query::Queryable<()>,
    _token: zenoh::liveliness::LivelinessToken,
}

struct Imported {
    sources: BTreeSet<String>,
    _server: Server,
    _action_types: Option<nerve::Publisher<nerve::Msgpack<Interface>>>,
    /// Dropped after the server (and with it its record's publisher).
    _own: crate::OwnPublisher,
}

fn config(name: &str, domain: u32) -> nerve::rpc::ServiceConfig {
    Service::<(), ()>::builder(name)
        .domain(domain)
        .build()
        .config()
        .clone()
}

/// Starts exporting service `name` (its server runs in another process here).
pub(crate) fn export(inner: &Arc<Inner>, name: &str) {
    let mut s = inner.services.lock().unwrap_or_else(|e| e.into_inner());
    if s.exported.contains_key(name) || s.imported.contains_key(name) {
        return;
    }
    match open_export(inner, name) {
        Ok(e) => {
            tracing::info!(service = name, "service exported");
            s.exported.insert(name.to_owned(), e);
        }
        Err(e) => tracing::warn!(service = name, error = %e, "service not exported"),
    }
}

/// Stops exporting service `name` (its server stopped or died).
pub(crate) fn unexport(inner: &Inner, name: &str) {
    let mut s = inner.services.lock().unwrap_or_else(|e| e.into_inner());
    if s.exported.remove(name).is_some() {
        tracing::info!(service = name, "service no longer exported");
    }
}

fn open_export(inner: &Arc<Inner>, name: &str) -> Result<Exported, BridgeError> {
    let domain = inner.config.domain;
    let client = RawClient::open(config(name, domain)).map_err(|e| BridgeError::Domain {
        domain,
        reason: e.to_string(),
    })?;
    let (tx, rx) = sync_channel::<Query>(QUEUE);
    let rx = Arc::new(Mutex::new(rx));
    for i in 0..WORKERS {
        let (rx, client, host) = (rx.clone(), client.clone(), inner.config.host.clone());
        crate::spawn(&format!("nerve-zenoh-call{i} {name}"), move || {
            serve_calls(&rx, &client, &host)
        });
    }
    let queryable = inner
        .session
        .declare_queryable(wire::call_key(domain, name))
        .callback(move |q: Query| {
            if let Err(e) = tx.try_send(q) {
                let q = match e {
                    std::sync::mpsc::TrySendError::Full(q)
                    | std::sync::mpsc::TrySendError::Disconnected(q) => q,
                };
                let busy = Failure::Handler(format!(
                    "the bridge has {QUEUE} calls of this service waiting; try again"
                ));
                let _ = q.reply_err(encode_failure(&busy)).wait();
            }
        })
        .wait()
        .map_err(zerr)?;
    let meta = ServiceMeta {
        interface: discovery::interface(domain, name),
        action: name
            .strip_suffix("/goal")
            .and_then(|a| discovery::interface(domain, a))
            .filter(|i| i.kind == "action"),
        host: inner.config.host.clone(),
    };
    let token = inner
        .session
        .liveliness()
        .declare_token(wire::service_token(domain, &inner.id_str, name))
        .wait()
        .map_err(zerr)?;
    Ok(Exported {
        meta: rmp_serde::to_vec_named(&meta).expect("a service meta serializes"),
        _queryable: queryable,
        _token: token,
    })
}

/// A worker of an exported service: calls the local server for each query, until the
/// queryable goes.
fn serve_calls(rx: &Mutex<Receiver<Query>>, client: &RawClient, host: &str) {
    loop {
        let q = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
            Ok(q) => q,
            Err(_) => return,
        };
        let timeout = q
            .attachment()
            .and_then(|a| <[u8; 8]>::try_from(a.to_bytes().as_ref()).ok())
            .map_or(Duration::from_secs(10), |ms| {
                Duration::from_millis(u64::from_le_bytes(ms))
            });
        let request = q
            .payload()
            .map(|p| p.to_bytes().to_vec())
            .unwrap_or_default();
        let sent = match client.call_bytes(&request, timeout) {
            Ok(response) => q.reply(q.key_expr().clone(), response).wait(),
            Err(e) => {
                let f = match e {
                    CallError::Handler { message, .. } => Failure::Handler(message),
                    CallError::BadRequest { reason, .. } => Failure::BadRequest(reason),
                    other => Failure::Handler(format!("on host {host}: {other}")),
                };
                q.reply_err(encode_failure(&f)).wait()
            }
        };
        if let Err(e) = sent {
            tracing::debug!(service = client.service(), error = %e, "a reply was not sent");
        }
    }
}

/// A call sent to another host, not answered yet. Dropped by Zenoh when the query ends (every
/// reply in, or the timeout): a call still unanswered then fails, saying so.
struct Waiting {
    responder: Option<Responder>,
    host: String,
    timeout: Duration,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(r) = self.responder.take() {
            r.respond(Err(Failure::Handler(format!(
                "host {}: no answer (waited at most {:?}): the host, its bridge or its server \
                 may be gone",
                self.host, self.timeout
            ))));
        }
    }
}

/// Answers other bridges' questions for the meta of a service exported here.
pub(crate) fn serve_metas(inner: &Arc<Inner>) -> Result<zenoh::query::Queryable<()>, BridgeError> {
    crate::ask::serve(inner, "smeta", |inner, name| {
        let s = inner.services.lock().unwrap_or_else(|e| e.into_inner());
        s.exported.get(name).map(|e| e.meta.clone())
    })
}

/// Follows other hosts' service tokens (handled on the import thread: answers are awaited
/// there).
pub(crate) fn follow(
    inner: &Arc<Inner>,
    tx: std::sync::mpsc::Sender<Event>,
) -> Result<zenoh::pubsub::Subscriber<()>, BridgeError> {
    let tx = Mutex::new(tx);
    crate::ask::follow(inner, "service", move |inner, came, bridge, name| {
        if !inner.config.imports(name) {
            return;
        }
        let r = Remote {
            kind: Kind::Service,
            bridge: bridge.to_owned(),
            name: name.to_owned(),
        };
        let _ = nerve::sys::lock(&tx).send(Event::Token(r, came));
    })
}

/// Another host's service `name` appeared: true when nothing need be asked (it is served here
/// already, by a local server or for another host; `bridge` joins the latter's sources).
pub(crate) fn joined(inner: &Inner, bridge: &str, name: &str) -> bool {
    let mut s = inner.services.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = s.imported.get_mut(name) {
        i.sources.insert(bridge.to_owned());
        return true;
    }
    s.exported.contains_key(name) // served here: callers here use the local server
}

/// A remote service's meta came: serve the service here.
pub(crate) fn answered(inner: &Arc<Inner>, r: &Remote, bytes: &[u8]) -> Result<Outcome, Asked> {
    let (bridge, name) = (r.bridge.as_str(), r.name.as_str());
    let mut s = inner.services.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = s.imported.get_mut(name) {
        i.sources.insert(bridge.to_owned()); // another host's meta came first
        return Ok(Outcome::Done);
    }
    if s.exported.contains_key(name) {
        return Ok(Outcome::Done);
    }
    let meta = rmp_serde::from_slice::<ServiceMeta>(bytes)
        .map_err(|e| Asked::Bad(format!("an unreadable service meta: {e}")))?;
    let most = inner.config.max_imported_services;
    if s.imported.len() >= most {
        let reason = format!(
            "{} services of other hosts are served here already, the most this host takes \
             (max_imported_services)",
            s.imported.len()
        );
        tracing::warn!(
            service = name,
            host = meta.host,
            "remote service not served here: {reason}"
        );
        inner
            .refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .note(name, &meta.host, reason);
        return Ok(Outcome::Done);
    }
    match open_import(inner, name, &meta) {
        Ok(server) => {
            tracing::info!(service = name, host = meta.host, "service imported");
            let mut imported = server;
            imported.sources.insert(bridge.to_owned());
            s.imported.insert(name.to_owned(), imported);
        }
        Err(e) => tracing::warn!(service = name, host = meta.host, error = %e,
            "remote service not served here"),
    }
    Ok(Outcome::Done)
}

/// Another host's service `name` went (stopped, or the host died).
pub(crate) fn gone(inner: &Inner, bridge: &str, name: &str) {
    let mut s = inner.services.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = s.imported.get_mut(name) {
        i.sources.remove(bridge);
        if i.sources.is_empty() {
            tracing::info!(service = name, "no host serves it any more");
            s.imported.remove(name);
        }
    }
}

fn open_import(inner: &Arc<Inner>, name: &str, meta: &ServiceMeta) -> Result<Imported, String> {
    let domain = inner.config.domain;
    let mut config = config(name, domain);
    config.interface = meta.interface.clone();
    // No polling for the next request: a call here waits on the network for far longer than
    // a futex wake-up, and a polling receiver would hold a core the handler needs.
    config.spin = Duration::ZERO;
    let (session, key, host) = (
        inner.session.clone(),
        wire::call_key(domain, name),
        meta.host.clone(),
    );
    let timeout = inner.config.call_timeout;
    // Each call is a Zenoh query whose reply, arriving on Zenoh's thread, answers the caller
    // there: no thread waits per call, and calls in flight are bounded only by the callers.
    let handler = Arc::new(move |request: &[u8], responder: Responder| {
        let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let waiting = Waiting {
            responder: Some(responder),
            host: host.clone(),
            timeout,
        };
        let waiting = Mutex::new(waiting);
        let host = host.clone();
        let asked = session
            .get(&key)
            .payload(request.to_vec())
            .attachment(ms.to_le_bytes().to_vec())
            .timeout(timeout)
            .callback(move |reply: Reply| {
                let Some(responder) = nerve::sys::lock(&waiting).responder.take() else {
                    return; // a second reply (two hosts serve it): the first one answered
                };
                responder.respond(match reply.result() {
                    Ok(sample) => Ok(sample.payload().to_bytes().to_vec()),
                    Err(err) => Err(decode_failure(&err.payload().to_bytes(), &host)),
                });
            })
            .wait();
        if let Err(e) = asked {
            tracing::warn!(error = %e, "a call could not be sent to the remote host");
        }
    });
    let own = crate::OwnPublisher::new(inner, &format!("{name}/server"));
    let server = Server::start_deferred(config, handler).map_err(|e| e.to_string())?;
    let action_types = match (name.strip_suffix("/goal"), &meta.action) {
        (Some(action), Some(types)) => discovery::announce(domain, action, types)
            .map_err(|e| tracing::warn!(action, error = %e, "action types not announced"))
            .ok(),
        _ => None,
    };
    Ok(Imported {
        sources: BTreeSet::new(),
        _server: server,
        _action_types: action_types,
        _own: own,
    })
}
