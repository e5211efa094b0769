//! The client side: typed [`Client`] over the untyped [`RawClient`]. One response topic per
//! client; several threads may call through one client at once, one of them receiving for
//! the others.

use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nerve_transport::sys::lock;
use nerve_transport::{OpenError, Publisher, SendError, Subscriber, Topic};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::config::ServiceConfig;
use super::frame::{recv_frame, send_frame};
use super::watch::{ServerWatch, LIVENESS_EVERY};
use crate::error::CallError;
use crate::wire::{self, RpcFrame, RpcHeader};

/// `value` as MessagePack with named fields (so a Python dict with the same keys matches).
fn encode<T: Serialize>(service: &str, value: &T) -> Result<Vec<u8>, CallError> {
    rmp_serde::to_vec_named(value).map_err(|e| CallError::Encode {
        service: service.to_owned(),
        reason: e.to_string(),
    })
}

/// A typed client. `call` may be used from several threads at once (calls are told apart by
/// their call number); one client per thread avoids the hand-off between them.
pub struct Client<Req, Resp> {
    raw: RawClient,
    _t: PhantomData<fn(Req) -> Resp>,
}

impl<Req, Resp> Clone for Client<Req, Resp> {
    fn clone(&self) -> Self {
        Client {
            raw: self.raw.clone(),
            _t: PhantomData,
        }
    }
}

impl<Req, Resp> Client<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    /// A client of the service described by `config` (its own response topic).
    pub(super) fn open(config: ServiceConfig) -> Result<Self, CallError> {
        Ok(Client {
            raw: RawClient::open(config)?,
            _t: PhantomData,
        })
    }

    /// Calls the service and waits up to `timeout` for the response.
    ///
    /// Errors: [`CallError::NoServer`] at once when no server is up;
    /// [`CallError::ServerDied`] soon after the server process dies; [`CallError::Timeout`];
    /// [`CallError::Handler`] when the handler returned an error.
    pub fn call(&self, req: &Req, timeout: Duration) -> Result<Resp, CallError> {
        let bytes = encode(&self.raw.inner.config.name, req)?;
        let service = &self.raw.inner.config.name;
        self.raw.call_with(&bytes, timeout, |data| {
            rmp_serde::from_slice(data).map_err(|e| CallError::Decode {
                service: service.clone(),
                reason: e.to_string(),
            })
        })
    }

    /// The same as [`call`](Self::call) as a future. It runs the blocking wait on Tokio's
    /// blocking pool, so it needs a Tokio runtime.
    pub async fn call_async(&self, req: &Req, timeout: Duration) -> Result<Resp, CallError> {
        let bytes = encode(&self.raw.inner.config.name, req)?;
        let raw = self.raw.clone();
        let service = raw.inner.config.name.clone();
        let data = tokio::task::spawn_blocking(move || raw.call_bytes(&bytes, timeout))
            .await
            .map_err(|e| CallError::Encode {
                service: service.clone(),
                reason: format!("the call's task failed: {e}"),
            })??;
        rmp_serde::from_slice(&data).map_err(|e| CallError::Decode {
            service,
            reason: e.to_string(),
        })
    }

    /// The untyped client underneath (bytes in, bytes out).
    pub fn raw(&self) -> &RawClient {
        &self.raw
    }
}

/// Clears [`Pending::receiving`] and wakes the other callers if the receiving caller unwinds.
struct Receiving<'a>(&'a ClientInner);

impl Receiving<'_> {
    /// The receiving caller returned normally (and clears the flag itself).
    fn defuse(self) {
        std::mem::forget(self);
    }
}

impl Drop for Receiving<'_> {
    fn drop(&mut self) {
        lock(&self.0.pending).receiving = false;
        self.0.cv.notify_all();
    }
}

/// What the receiving caller hands to the others.
enum Reply {
    Ok(Vec<u8>),
    Failed(u32, String),
}

#[derive(Default)]
struct Pending {
    /// Calls waiting for a response.
    waiting: HashSet<u64>,
    /// Responses received by another caller.
    ready: HashMap<u64, Reply>,
    /// Whether a caller is receiving on the response topic.
    receiving: bool,
}

struct ClientInner {
    config: ServiceConfig,
    id: u64,
    /// This process's life token, sent with each request.
    process: u64,
    requests: Mutex<Publisher<RpcFrame>>,
    responses: Mutex<Subscriber<RpcFrame>>,
    server: Mutex<ServerWatch>,
    pending: Mutex<Pending>,
    cv: Condvar,
    /// The next call number. Relaxed: only its uniqueness matters (an atomic read-modify-write
    /// gives it in any ordering); the call's state goes through `pending`'s lock.
    next_call: AtomicU64,
    /// Late responses discarded, a statistic. Relaxed: nothing is published through it.
    late: AtomicU64,
}

impl Drop for ClientInner {
    fn drop(&mut self) {
        // The response topic is this client's alone: remove its file so short-lived clients
        // leave nothing in /dev/shm. A server still holding it keeps a harmless mapping.
        let topic = wire::response_topic(&self.config.name, self.id);
        if let Err(e) = nerve_transport::registry::remove_topic(self.config.domain, &topic) {
            tracing::debug!(service = %self.config.name, error = %e, "response topic not removed");
        }
    }
}

/// An untyped client: request bytes in, response bytes out (what the Python binding wraps,
/// with MessagePack done on its side). Cloning shares the response topic.
#[derive(Clone)]
pub struct RawClient {
    inner: Arc<ClientInner>,
}

impl RawClient {
    /// Opens a client of the service described by `config`.
    pub fn open(config: ServiceConfig) -> Result<Self, CallError> {
        let open_err = |e: OpenError| CallError::Open {
            service: config.name.clone(),
            source: e,
        };
        let id = wire::client_id();
        let requests = config.open_requests().map_err(open_err)?;
        let responses = Topic::<RpcFrame>::builder(&wire::response_topic(&config.name, id))
            .domain(config.domain)
            .depth(config.response_depth)
            .best_effort()
            .max_message_bytes(config.max_message_bytes)
            .max_endpoints(8)
            .open()
            .map_err(open_err)?;
        let mut sub = responses.subscriber().map_err(open_err)?;
        // `recv_frame` spins itself; the subscriber's own wait goes straight to the futex.
        sub.set_spin(Duration::ZERO);
        let record = config.open_record().map_err(open_err)?;
        let watch = ServerWatch::new(record.subscriber_with_history(1).map_err(open_err)?);
        let publisher = requests.publisher().map_err(open_err)?;
        Ok(RawClient {
            inner: Arc::new(ClientInner {
                id,
                process: nerve_transport::sys::ProcessId::current().token,
                requests: Mutex::new(publisher),
                responses: Mutex::new(sub),
                server: Mutex::new(watch),
                pending: Mutex::default(),
                cv: Condvar::new(),
                next_call: AtomicU64::new(1),
                late: AtomicU64::new(0),
                config,
            }),
        })
    }

    /// This client's id (its pid in the high 32 bits).
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// The service name.
    pub fn service(&self) -> &str {
        &self.inner.config.name
    }

    /// Whether a live server is up right now.
    pub fn server_available(&self) -> bool {
        lock(&self.inner.server).alive(true).is_some()
    }

    /// Waits up to `timeout` for a server to come up; true when one is.
    pub fn wait_for_server(&self, timeout: Duration) -> bool {
        let end = nerve_transport::time::deadline(Instant::now(), timeout);
        loop {
            if self.server_available() {
                return true;
            }
            if end.is_some_and(|end| Instant::now() >= end) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Responses that arrived after their call had timed out (discarded).
    pub fn late_responses(&self) -> u64 {
        self.inner.late.load(Relaxed) // Relaxed: a statistic (see `ClientInner::late`).
    }

    /// Calls with request bytes; returns the response bytes.
    pub fn call_bytes(&self, req: &[u8], timeout: Duration) -> Result<Vec<u8>, CallError> {
        self.call_with(req, timeout, |d| Ok(d.to_vec()))
    }

    fn call_with<T>(
        &self,
        req: &[u8],
        timeout: Duration,
        decode: impl Fn(&[u8]) -> Result<T, CallError>,
    ) -> Result<T, CallError> {
        let inner = &*self.inner;
        let service = &inner.config.name;
        let start = Instant::now();
        let deadline = start + nerve_transport::time::clamp(timeout);
        let timed_out = || CallError::Timeout {
            service: service.clone(),
            timeout,
        };
        let server = lock(&inner.server).alive(false);
        let Some(server) = server else {
            return Err(CallError::NoServer {
                service: service.clone(),
                domain: inner.config.domain,
            });
        };
        let call = inner.next_call.fetch_add(1, Relaxed); // Relaxed: see `next_call`.
        lock(&inner.pending).waiting.insert(call);
        // Removes the call from the waiting set however this function returns (unless the
        // receiving path below already did, under the lock it takes anyway).
        struct Forget<'a> {
            inner: &'a ClientInner,
            call: u64,
            armed: bool,
        }
        impl Drop for Forget<'_> {
            fn drop(&mut self) {
                if self.armed {
                    let mut p = lock(&self.inner.pending);
                    p.waiting.remove(&self.call);
                    p.ready.remove(&self.call);
                }
            }
        }
        let mut forget = Forget {
            inner,
            call,
            armed: true,
        };
        let header = RpcHeader {
            client: inner.id,
            process: inner.process,
            call,
            deadline_ns: wire::deadline_after(timeout),
            kind: wire::KIND_REQUEST,
            flags: 0,
        };
        {
            let mut publisher = lock(&inner.requests);
            publisher.set_timeout(deadline.saturating_duration_since(Instant::now()));
            match send_frame(&publisher, header, req) {
                Ok(()) => {}
                Err(SendError::Full { .. }) => {
                    return Err(if lock(&inner.server).alive(true).is_none() {
                        CallError::ServerDied {
                            service: service.clone(),
                            pid: server.pid,
                        }
                    } else {
                        CallError::Timeout {
                            service: service.clone(),
                            timeout,
                        }
                    });
                }
                Err(e) => {
                    return Err(CallError::Send {
                        service: service.clone(),
                        source: e,
                    })
                }
            }
        }
        let mut last_check = Instant::now();
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(timed_out());
            }
            if now.duration_since(last_check) >= LIVENESS_EVERY {
                last_check = now;
                if lock(&inner.server).alive(true).map(|r| r.pid) != Some(server.pid) {
                    // One last look: the response may have come just before the server went.
                    if let Some(r) = lock(&inner.pending).ready.remove(&call) {
                        return finish(service, r, &decode);
                    }
                    return Err(CallError::ServerDied {
                        service: service.clone(),
                        pid: server.pid,
                    });
                }
            }
            let slice = (deadline - now).min(LIVENESS_EVERY);
            let mut p = lock(&inner.pending);
            if let Some(r) = p.ready.remove(&call) {
                return finish(service, r, &decode);
            }
            if p.receiving {
                // Another caller receives; it wakes us when it hands over our response or
                // stops receiving.
                drop(
                    inner
                        .cv
                        .wait_timeout(p, slice)
                        .unwrap_or_else(PoisonError::into_inner),
                );
                continue;
            }
            p.receiving = true;
            drop(p);
            // `receive` runs `decode` (the response type's Deserialize): if it panics, the
            // guard clears `receiving` so the other callers do not wait for a receiver that
            // is gone. On return, the lines below clear it under the lock they take anyway.
            let receiving = Receiving(inner);
            let got = self.receive(call, slice, &decode);
            receiving.defuse();
            let mut p = lock(&inner.pending);
            p.receiving = false;
            if got.is_some() {
                p.waiting.remove(&call);
                forget.armed = false;
            }
            // Only other callers of this client sleep on the condvar, and they are all in
            // `waiting`: a lone caller skips the wake-up (a syscall on every notify).
            let others = p.waiting.len() > usize::from(got.is_none());
            drop(p);
            if others {
                inner.cv.notify_all();
            }
            if let Some(result) = got {
                return result;
            }
        }
    }

    /// Receives for `slice`; returns our own result, hands others' to them, drops late ones.
    fn receive<T>(
        &self,
        call: u64,
        slice: Duration,
        decode: &impl Fn(&[u8]) -> Result<T, CallError>,
    ) -> Option<Result<T, CallError>> {
        let inner = &*self.inner;
        let service = &inner.config.name;
        let mut sub = lock(&inner.responses);
        let end = Instant::now() + slice;
        loop {
            let sample = match recv_frame(&mut sub, inner.config.spin, end) {
                Ok(Some(s)) => s,
                Ok(None) => return None,
                Err(e) => {
                    tracing::warn!(service = %service, error = %e, "unreadable response dropped");
                    continue;
                }
            };
            let h = *sample.header();
            if h.client != inner.id {
                continue;
            }
            if h.call == call {
                return Some(match h.kind {
                    wire::KIND_OK => decode(sample.data()),
                    k => Err(failure(service, k, sample.data())),
                });
            }
            let mut p = lock(&inner.pending);
            if p.waiting.contains(&h.call) {
                let reply = match h.kind {
                    wire::KIND_OK => Reply::Ok(sample.data().to_vec()),
                    k => Reply::Failed(k, String::from_utf8_lossy(sample.data()).into_owned()),
                };
                p.ready.insert(h.call, reply);
                drop(p);
                inner.cv.notify_all();
            } else {
                inner.late.fetch_add(1, Relaxed); // Relaxed: a statistic.
                tracing::debug!(service = %service, call = h.call, "discarded a late response");
            }
            if Instant::now() >= end {
                return None;
            }
        }
    }
}

fn finish<T>(
    service: &str,
    r: Reply,
    decode: &impl Fn(&[u8]) -> Result<T, CallError>,
) -> Result<T, CallError> {
    match r {
        Reply::Ok(d) => decode(&d),
        Reply::Failed(k, m) => Err(failure(service, k, m.as_bytes())),
    }
}

fn failure(service: &str, kind: u32, data: &[u8]) -> CallError {
    let message = String::from_utf8_lossy(data).into_owned();
    if kind == wire::KIND_BAD_REQUEST {
        CallError::BadRequest {
            service: service.to_owned(),
            reason: message,
        }
    } else {
        CallError::Handler {
            service: service.to_owned(),
            message,
        }
    }
}

impl std::fmt::Debug for RawClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawClient")
            .field("service", &self.inner.config.name)
            .field("id", &format_args!("{:016x}", self.inner.id))
            .finish()
    }
}

impl<Req, Resp> std::fmt::Debug for Client<Req, Resp> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.fmt(f)
    }
}
