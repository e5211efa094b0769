//! Services: request/response between processes over shared-memory topics.
//!
//! Topics of service `S` (all in the service's domain):
//! - `S/request`: reliable, chunked [`RpcFrame`]s from every client to the server; a client
//!   waits at most its call timeout for room, so a request is never silently dropped;
//! - `S/response/<client id>`: best effort, one per client, so a response wakes only its caller
//!   and a dead client's topic never blocks the server;
//! - `S/server`: latest-only [`ServerRecord`] (pid, start time, up/down). A client checks it
//!   before each call (`CallError::NoServer`) and every few milliseconds while waiting
//!   (`CallError::ServerDied`).
//!
//! Frames carry the client id and a call number; a response to a call that already timed out
//! is discarded, never handed to a later call.

use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nerve_transport::sys::{lock, pid_alive, ProcessId};
use nerve_transport::{Publisher, Sample, Subscriber, Topic};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{CallError, ServeError};
use crate::wire::{self, RpcFrame, RpcHeader, ServerRecord};

/// Default depth of the request topic (requests queued for the server).
pub const DEFAULT_REQUEST_DEPTH: u32 = 64;
/// Default depth of each client's response topic (calls one client may have in flight).
pub const DEFAULT_RESPONSE_DEPTH: u32 = 64;
/// Default largest request or response: 1 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 1 << 20;
/// How often a waiting caller re-checks that the server process lives.
const LIVENESS_EVERY: Duration = Duration::from_millis(20);

/// Settings shared by the client and the server side of a service.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// Service name, e.g. `arm/plan`.
    pub name: String,
    /// Domain (default `$NERVE_DOMAIN` or 0).
    pub domain: u32,
    /// Depth of the request topic.
    pub request_depth: u32,
    /// Depth of each response topic.
    pub response_depth: u32,
    /// Largest encoded request or response in bytes (fixed when the topics are created).
    pub max_message_bytes: usize,
    /// How long a waiting caller (or an idle server) polls before it sleeps on the futex (after
    /// 10 µs yielding the core between polls while the process has at least as many threads
    /// polling as cores). Longer: lower latency for calls that take longer, more CPU.
    pub spin: Duration,
}

impl ServiceConfig {
    fn new(name: &str) -> Self {
        ServiceConfig {
            name: name.to_owned(),
            domain: nerve_transport::default_domain(),
            request_depth: DEFAULT_REQUEST_DEPTH,
            response_depth: DEFAULT_RESPONSE_DEPTH,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            spin: Duration::from_micros(50),
        }
    }

    fn open_requests(&self) -> Result<Topic<RpcFrame>, nerve_transport::OpenError> {
        Topic::<RpcFrame>::builder(&wire::request_topic(&self.name))
            .domain(self.domain)
            .depth(self.request_depth)
            .reliable()
            .max_message_bytes(self.max_message_bytes)
            .max_endpoints(256)
            .open()
    }

    fn open_record(&self) -> Result<Topic<ServerRecord>, nerve_transport::OpenError> {
        Topic::<ServerRecord>::builder(&wire::server_topic(&self.name))
            .domain(self.domain)
            .latest_only()
            .max_endpoints(256)
            .open()
    }
}

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
        Ok(Client {
            raw: RawClient::open(self.config.clone())?,
            _t: PhantomData,
        })
    }

    /// Starts configuring the server side.
    pub fn server(&self) -> ServerBuilder<Req, Resp> {
        ServerBuilder {
            config: self.config.clone(),
            workers: 1,
            _t: PhantomData,
        }
    }
}

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

/// Watches the server record.
struct ServerWatch {
    sub: Subscriber<ServerRecord>,
    last: Option<ServerRecord>,
    /// When the server process was last seen alive (reading `/proc` costs microseconds, so a
    /// call made soon after a check trusts it; a death in between shows up while waiting).
    seen_alive: Option<Instant>,
}

impl ServerWatch {
    fn new(sub: Subscriber<ServerRecord>) -> Self {
        ServerWatch {
            sub,
            last: None,
            seen_alive: None,
        }
    }

    /// The live server, if there is one; `fresh` forces a look at the process.
    fn alive(&mut self, fresh: bool) -> Option<ServerRecord> {
        while let Ok(Some(r)) = self.sub.try_recv() {
            self.last = Some(r);
            self.seen_alive = None;
        }
        let r = self.last?;
        if r.up != 1 || r.pid == 0 {
            return None;
        }
        if !fresh
            && self
                .seen_alive
                .is_some_and(|t| t.elapsed() < LIVENESS_EVERY)
        {
            return Some(r);
        }
        let id = ProcessId {
            pid: r.pid,
            start_time: r.start_time,
        };
        if id.is_alive() {
            self.seen_alive = Some(Instant::now());
            Some(r)
        } else {
            self.seen_alive = None;
            None
        }
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
    requests: Mutex<Publisher<RpcFrame>>,
    responses: Mutex<Subscriber<RpcFrame>>,
    server: Mutex<ServerWatch>,
    pending: Mutex<Pending>,
    cv: Condvar,
    next_call: AtomicU64,
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
        let open_err = |e: nerve_transport::OpenError| CallError::Open {
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
        let end = Instant::now() + timeout;
        loop {
            if self.server_available() {
                return true;
            }
            if Instant::now() >= end {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Responses that arrived after their call had timed out (discarded).
    pub fn late_responses(&self) -> u64 {
        self.inner.late.load(Relaxed)
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
        let deadline = start + timeout;
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
        let call = inner.next_call.fetch_add(1, Relaxed);
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
                Err(nerve_transport::SendError::Full { .. }) => {
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
                inner.late.fetch_add(1, Relaxed);
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

/// Polls back to back this long before yielding the core between polls (when this process
/// has at least as many threads polling as cores).
const PURE_SPIN: Duration = Duration::from_micros(10);

/// Threads of this process polling in [`recv_frame`] right now.
static POLLING: AtomicUsize = AtomicUsize::new(0);

/// Counts the current thread into [`POLLING`] while the guard lives.
struct Polling;

impl Polling {
    fn enter() -> Self {
        POLLING.fetch_add(1, Relaxed);
        Polling
    }
}

impl Drop for Polling {
    fn drop(&mut self) {
        POLLING.fetch_sub(1, Relaxed);
    }
}

/// Cores this process may run on (as the first thread that polls sees them: a process whose
/// threads are pinned to one core each counts one).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Receives the next frame before `until`. Polls for up to `spin` (a round trip takes a few
/// microseconds, and a sleeping receiver pays a futex wake-up of tens of microseconds on a VM),
/// then sleeps on the topic's futex. After [`PURE_SPIN`], while this process has at least as
/// many threads polling as cores, it yields the core between polls, so that the thread that has
/// to answer (a server, or the caller receiving for the others) gets to run; otherwise it keeps
/// its core (yielding to an unrelated busy process would cost a whole time slice).
/// `Ok(None)` at `until`.
fn recv_frame(
    sub: &mut Subscriber<RpcFrame>,
    spin: Duration,
    until: Instant,
) -> Result<Option<Sample<RpcFrame>>, nerve_transport::RecvError> {
    if let Some(s) = sub.try_recv()? {
        return Ok(Some(s));
    }
    let _polling = Polling::enter();
    let start = Instant::now();
    let mut polls = 0u32;
    loop {
        if let Some(s) = sub.try_recv()? {
            return Ok(Some(s));
        }
        polls = polls.wrapping_add(1);
        if polls.is_multiple_of(32) {
            let now = Instant::now();
            let waited = now.duration_since(start);
            if waited >= spin || now >= until {
                break;
            }
            if waited >= PURE_SPIN && POLLING.load(Relaxed) >= cores() {
                std::thread::yield_now();
                continue;
            }
        }
        std::hint::spin_loop();
    }
    sub.recv_timeout(until.saturating_duration_since(Instant::now()))
}

fn send_frame(
    p: &Publisher<RpcFrame>,
    header: RpcHeader,
    payload: &[u8],
) -> Result<(), nerve_transport::SendError<()>> {
    let mut loan = p.loan(payload.len())?;
    *loan.header_mut() = header;
    loan.data_mut().copy_from_slice(payload);
    loan.send()
}

/// Why a raw handler produced no response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The handler failed; the message goes to the caller as [`CallError::Handler`].
    Handler(String),
    /// The request could not be decoded; goes to the caller as [`CallError::BadRequest`].
    BadRequest(String),
}

/// What a raw handler gives back for one request: the response bytes, or why not.
pub type RawResult = Result<Vec<u8>, Failure>;
type RawHandler = dyn Fn(&[u8]) -> RawResult + Send + Sync;

/// Configures and starts a server.
#[must_use = "a builder does nothing until .serve()"]
pub struct ServerBuilder<Req, Resp> {
    config: ServiceConfig,
    workers: usize,
    _t: PhantomData<fn(Req) -> Resp>,
}

impl<Req, Resp> ServerBuilder<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    /// Threads running the handler (default 1: the receiving thread runs it, the lowest
    /// latency). With more, requests from many clients are handled concurrently.
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = n.max(1);
        self
    }

    /// Serves with a handler returning the response or an error message for the caller
    /// ([`CallError::Handler`]). A panicking handler is reported to its caller the same way.
    pub fn serve<F>(self, handler: F) -> Result<Server, ServeError>
    where
        F: Fn(Req) -> Result<Resp, String> + Send + Sync + 'static,
    {
        let service = self.config.name.clone();
        let raw = move |data: &[u8]| -> RawResult {
            let req: Req = rmp_serde::from_slice(data)
                .map_err(|e| Failure::BadRequest(format!("cannot decode the request: {e}")))?;
            let resp = handler(req).map_err(Failure::Handler)?;
            rmp_serde::to_vec_named(&resp).map_err(|e| {
                Failure::Handler(format!(
                    "service '{service}': cannot encode the response: {e}"
                ))
            })
        };
        Server::start(self.config, self.workers, Arc::new(raw))
    }
}

/// Counters of a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Requests handled (responses sent or attempted).
    pub handled: u64,
    /// Requests skipped because their caller's deadline had passed before they were read.
    pub expired: u64,
    /// Responses that could not be delivered (caller gone, or its topic full of chunks).
    pub undelivered: u64,
    /// Handlers that returned an error or panicked.
    pub failed: u64,
}

struct ServerShared {
    config: ServiceConfig,
    handler: Arc<RawHandler>,
    stop: AtomicBool,
    /// Response publishers by client; each behind its own lock (publishers are not `Sync`:
    /// workers answering one client take turns).
    responders: Mutex<HashMap<u64, Arc<Mutex<Publisher<RpcFrame>>>>>,
    handled: AtomicU64,
    expired: AtomicU64,
    undelivered: AtomicU64,
    failed: AtomicU64,
}

/// A running server: threads receiving and handling requests. Dropping it stops them and
/// marks the service down (callers get `NoServer`).
pub struct Server {
    shared: Arc<ServerShared>,
    record: Publisher<ServerRecord>,
    threads: Vec<JoinHandle<()>>,
}

struct Job {
    header: RpcHeader,
    data: Vec<u8>,
}

impl Server {
    /// Starts serving `config` with an untyped handler (what the Python binding wraps).
    pub fn start(
        config: ServiceConfig,
        workers: usize,
        handler: Arc<RawHandler>,
    ) -> Result<Server, ServeError> {
        let open_err = |e: nerve_transport::OpenError| ServeError::Open {
            service: config.name.clone(),
            source: e,
        };
        let record_topic = config.open_record().map_err(open_err)?;
        let mut watch =
            ServerWatch::new(record_topic.subscriber_with_history(1).map_err(open_err)?);
        if let Some(r) = watch.alive(true) {
            return Err(ServeError::AlreadyServed {
                service: config.name.clone(),
                pid: r.pid,
            });
        }
        let requests = config.open_requests().map_err(open_err)?;
        let mut sub = requests.subscriber().map_err(open_err)?;
        // `recv_frame` spins itself; the subscriber's own wait goes straight to the futex.
        sub.set_spin(Duration::ZERO);
        let record = record_topic.publisher().map_err(open_err)?;
        let shared = Arc::new(ServerShared {
            config: config.clone(),
            handler,
            stop: AtomicBool::new(false),
            responders: Mutex::default(),
            handled: AtomicU64::new(0),
            expired: AtomicU64::new(0),
            undelivered: AtomicU64::new(0),
            failed: AtomicU64::new(0),
        });
        let mut threads = Vec::new();
        let queue = if workers > 1 {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Job>(config.request_depth as usize);
            let rx = Arc::new(Mutex::new(rx));
            for i in 0..workers {
                let rx = rx.clone();
                let shared = shared.clone();
                threads.push(
                    std::thread::Builder::new()
                        .name(format!("rpc-worker-{i}"))
                        .spawn(move || loop {
                            let job = lock(&rx).recv();
                            match job {
                                Ok(job) => shared.handle(job.header, &job.data),
                                Err(_) => break,
                            }
                        })
                        .map_err(|e| ServeError::Thread {
                            service: config.name.clone(),
                            source: e,
                        })?,
                );
            }
            Some(tx)
        } else {
            None
        };
        let s = shared.clone();
        threads.push(
            std::thread::Builder::new()
                .name("rpc-server".into())
                .spawn(move || s.receive_loop(sub, queue))
                .map_err(|e| ServeError::Thread {
                    service: config.name.clone(),
                    source: e,
                })?,
        );
        let me = ProcessId::current();
        let _ = record.send(&ServerRecord {
            pid: me.pid,
            up: 1,
            start_time: me.start_time,
            workers: workers as u64,
        });
        tracing::debug!(service = %config.name, workers, "server up");
        Ok(Server {
            shared,
            record,
            threads,
        })
    }

    /// The service name.
    pub fn service(&self) -> &str {
        &self.shared.config.name
    }

    /// Counters so far.
    pub fn stats(&self) -> ServerStats {
        let s = &self.shared;
        ServerStats {
            handled: s.handled.load(Relaxed),
            expired: s.expired.load(Relaxed),
            undelivered: s.undelivered.load(Relaxed),
            failed: s.failed.load(Relaxed),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let me = ProcessId::current();
        let _ = self.record.send(&ServerRecord {
            pid: me.pid,
            up: 0,
            start_time: me.start_time,
            workers: 0,
        });
        self.shared.stop.store(true, Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl ServerShared {
    fn receive_loop(
        self: Arc<Self>,
        mut sub: Subscriber<RpcFrame>,
        queue: Option<std::sync::mpsc::SyncSender<Job>>,
    ) {
        let mut last_prune = Instant::now();
        while !self.stop.load(Relaxed) {
            let until = Instant::now() + Duration::from_millis(50);
            let sample = match recv_frame(&mut sub, self.config.spin, until) {
                Ok(Some(s)) => s,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(service = %self.config.name, error = %e, "unreadable request dropped");
                    continue;
                }
            };
            let h = *sample.header();
            if h.kind != wire::KIND_REQUEST {
                continue;
            }
            if h.deadline_ns != 0 && nerve_transport::time::now_ns() > h.deadline_ns {
                self.expired.fetch_add(1, Relaxed);
                continue;
            }
            match &queue {
                None => self.handle(h, sample.data()),
                Some(q) => {
                    let job = Job {
                        header: h,
                        data: sample.data().to_vec(),
                    };
                    drop(sample);
                    if q.send(job).is_err() {
                        break;
                    }
                }
            }
            if last_prune.elapsed() > Duration::from_secs(1) {
                last_prune = Instant::now();
                self.prune();
            }
        }
    }

    /// Drops the response publishers of clients whose process is gone.
    fn prune(&self) {
        lock(&self.responders).retain(|id, _| pid_alive(wire::pid_of(*id)));
    }

    fn responder(&self, client: u64) -> Option<Arc<Mutex<Publisher<RpcFrame>>>> {
        if let Some(p) = lock(&self.responders).get(&client) {
            return Some(p.clone());
        }
        // Never create the topic of a client that is gone.
        if !pid_alive(wire::pid_of(client)) {
            return None;
        }
        // The client created its topic; asking for our own size limit (not the topic
        // default) keeps the transport from warning about a chunk size mismatch.
        let topic = Topic::<RpcFrame>::builder(&wire::response_topic(&self.config.name, client))
            .domain(self.config.domain)
            .max_message_bytes(self.config.max_message_bytes)
            .open()
            .map_err(|e| tracing::warn!(service = %self.config.name, client, error = %e, "cannot open a response topic"))
            .ok()?;
        let mut p = topic.publisher().ok()?;
        p.set_timeout(Duration::ZERO);
        let p = Arc::new(Mutex::new(p));
        let mut map = lock(&self.responders);
        if map.len() >= 1024 {
            map.retain(|id, _| pid_alive(wire::pid_of(*id)));
        }
        map.insert(client, p.clone());
        Some(p)
    }

    fn handle(&self, h: RpcHeader, data: &[u8]) {
        let handler = &self.handler;
        let result =
            std::panic::catch_unwind(AssertUnwindSafe(|| handler(data))).unwrap_or_else(|_| {
                Err(Failure::Handler(format!(
                    "service '{}': the handler panicked",
                    self.config.name
                )))
            });
        self.handled.fetch_add(1, Relaxed);
        let (kind, body) = match result {
            Ok(b) => (wire::KIND_OK, b),
            Err(f) => {
                self.failed.fetch_add(1, Relaxed);
                match f {
                    Failure::BadRequest(m) => (wire::KIND_BAD_REQUEST, m.into_bytes()),
                    Failure::Handler(m) => (wire::KIND_HANDLER_ERROR, m.into_bytes()),
                }
            }
        };
        if h.deadline_ns != 0 && nerve_transport::time::now_ns() > h.deadline_ns {
            // The caller gave up: it would discard the response anyway.
            self.expired.fetch_add(1, Relaxed);
            return;
        }
        let Some(p) = self.responder(h.client) else {
            self.undelivered.fetch_add(1, Relaxed);
            return;
        };
        let header = RpcHeader {
            kind,
            deadline_ns: 0,
            ..h
        };
        let p = lock(&p);
        if let Err(e) = send_frame(&p, header, &body) {
            self.undelivered.fetch_add(1, Relaxed);
            tracing::debug!(service = %self.config.name, client = h.client, error = %e, "response not delivered");
            if matches!(e, nerve_transport::SendError::TooLarge { .. }) {
                // Tell the caller instead of letting it time out.
                let msg = format!("{e}");
                let _ = send_frame(
                    &p,
                    RpcHeader {
                        kind: wire::KIND_HANDLER_ERROR,
                        ..header
                    },
                    msg.as_bytes(),
                );
            }
        }
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("service", &self.shared.config.name)
            .field("stats", &self.stats())
            .finish()
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
