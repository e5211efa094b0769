//! The server side: a receiving thread (and optional workers) running the handler on each
//! request, one response publisher per client, and the liveness record on `S/server`. A
//! deferred server's handler answers later, from any thread, through a [`Responder`].

use std::collections::HashMap;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nerve_transport::sys::{lock, ProcessId};
use nerve_transport::{Msgpack, OpenError, Publisher, SendError, Subscriber, Topic};

use crate::interface::{self, Interface};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::config::ServiceConfig;
use super::frame::{recv_frame, send_frame};
use super::watch::ServerWatch;
use crate::error::ServeError;
use crate::wire::{self, RpcFrame, RpcHeader, ServerRecord};

/// Why a raw handler produced no response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The handler failed; the message goes to the caller as
    /// [`CallError::Handler`](crate::error::CallError::Handler).
    Handler(String),
    /// The request could not be decoded; goes to the caller as
    /// [`CallError::BadRequest`](crate::error::CallError::BadRequest).
    BadRequest(String),
}

/// What a raw handler gives back for one request: the response bytes, or why not.
pub type RawResult = Result<Vec<u8>, Failure>;
/// An untyped handler, what [`Server::start`] runs: request bytes in, response bytes (or a
/// [`Failure`]) out. A binding wraps its language's function in one and does the encoding on
/// its side.
pub type RawHandler = dyn Fn(&[u8]) -> RawResult + Send + Sync;
/// A handler that answers later, what [`Server::start_deferred`] runs: it gets the request
/// bytes and a [`Responder`], and returns at once (it runs on the receiving thread, so it must
/// not block); the answer goes whenever, from whichever thread, the responder is used.
pub type DeferredHandler = dyn Fn(&[u8], Responder) + Send + Sync;

/// What a server runs on each request.
enum Handler {
    /// Answers before it returns.
    Now(Arc<RawHandler>),
    /// Answers through a [`Responder`], later.
    Later(Arc<DeferredHandler>),
}

/// One request of a deferred server, to be answered once from any thread. Dropped unanswered
/// (a handler that lost it, or panicked), the caller gets
/// [`CallError::Handler`](crate::error::CallError::Handler) at once, not a timeout.
#[must_use = "a caller waits for this answer: respond, or drop it to send an error"]
pub struct Responder {
    server: Arc<ServerShared>,
    /// `None` once answered.
    header: Option<RpcHeader>,
}

impl Responder {
    /// Sends the answer (a response, or why not) to the caller.
    pub fn respond(mut self, result: RawResult) {
        if let Some(h) = self.header.take() {
            self.server.respond(h, result);
        }
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        if let Some(h) = self.header.take() {
            let why = if std::thread::panicking() {
                "the handler panicked"
            } else {
                "the handler dropped the request unanswered"
            };
            let name = &self.server.config.name;
            self.server
                .respond(h, Err(Failure::Handler(format!("service '{name}': {why}"))));
        }
    }
}

impl std::fmt::Debug for Responder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Responder")
            .field("service", &self.server.config.name)
            .field("answered", &self.header.is_none())
            .finish()
    }
}

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
    /// One worker; see [`workers`](Self::workers).
    pub(super) fn new(config: ServiceConfig) -> Self {
        ServerBuilder {
            config,
            workers: 1,
            _t: PhantomData,
        }
    }

    /// Threads running the handler (default 1: the receiving thread runs it, the lowest
    /// latency). With more, requests from many clients are handled concurrently.
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = n.max(1);
        self
    }

    /// Serves with a handler returning the response or an error message for the caller
    /// ([`CallError::Handler`](crate::error::CallError::Handler)). A panicking handler is
    /// reported to its caller the same way.
    pub fn serve<F>(mut self, handler: F) -> Result<Server, ServeError>
    where
        F: Fn(Req) -> Result<Resp, String> + Send + Sync + 'static,
    {
        if self.config.interface.is_none() {
            self.config.interface = Some(Interface::service::<Req, Resp>());
        }
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

/// A client's response publisher, shared by the workers answering it.
type Responding = Arc<Mutex<Publisher<RpcFrame>>>;

struct ServerShared {
    config: ServiceConfig,
    handler: Handler,
    /// Set when the `Server` drops; the receiving loop checks it every 50 ms. Relaxed: it
    /// hands over no data, and `Server::drop` joins the threads, which orders everything
    /// they did before the join.
    stop: AtomicBool,
    /// Response publishers by client; each behind its own lock (publishers are not `Sync`:
    /// workers answering one client take turns).
    /// Each client's response publisher, with the client's process.
    responders: Mutex<HashMap<u64, (ProcessId, Responding)>>,
    // The counters below are statistics, all Relaxed: nothing is published through them.
    // `handled` and `failed` are raised before the response they concern is sent, so whoever
    // saw that response (the transport's Release/Acquire on the ring slot) reads a count that
    // includes it; `expired` and `undelivered` concern no response and are read by polling.
    handled: AtomicU64,
    expired: AtomicU64,
    undelivered: AtomicU64,
    failed: AtomicU64,
}

/// A running server: threads receiving and handling requests. Dropping it stops them and
/// marks the service down (callers get `NoServer`).
#[must_use = "dropping the Server stops serving at once: its threads stop and callers get NoServer"]
pub struct Server {
    shared: Arc<ServerShared>,
    /// The liveness record's publisher (taken by `drop` when a handler closes its server).
    record: Option<Publisher<ServerRecord>>,
    /// Keeps the announced types' topic open.
    _interface: Option<Publisher<Msgpack<Interface>>>,
    threads: Vec<JoinHandle<()>>,
}

struct Job {
    header: RpcHeader,
    data: Vec<u8>,
}

/// The most worker threads a server may have.
pub const MAX_WORKERS: usize = 256;

impl Server {
    /// Starts serving `config` with an untyped handler (what the Python binding wraps).
    pub fn start(
        config: ServiceConfig,
        workers: usize,
        handler: Arc<RawHandler>,
    ) -> Result<Server, ServeError> {
        Self::start_with(config, workers, Handler::Now(handler))
    }

    /// Starts serving `config` with a handler that answers later through a [`Responder`]
    /// (a bridge forwarding calls to another host: many calls in flight, no thread held per
    /// call). The handler runs on the receiving thread and must return at once.
    pub fn start_deferred(
        config: ServiceConfig,
        handler: Arc<DeferredHandler>,
    ) -> Result<Server, ServeError> {
        Self::start_with(config, 1, Handler::Later(handler))
    }

    fn start_with(
        config: ServiceConfig,
        workers: usize,
        handler: Handler,
    ) -> Result<Server, ServeError> {
        if workers > MAX_WORKERS {
            return Err(ServeError::TooManyWorkers {
                service: config.name.clone(),
                asked: workers,
                max: MAX_WORKERS,
            });
        }
        let open_err = |e: OpenError| ServeError::Open {
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
            token: me.token,
            workers: workers as u64,
        });
        let interface = config.interface.as_ref().and_then(|i| {
            interface::announce(config.domain, &config.name, i)
                .map_err(
                    |e| tracing::warn!(service = %config.name, error = %e, "types not announced"),
                )
                .ok()
        });
        tracing::debug!(service = %config.name, workers, "server up");
        Ok(Server {
            shared,
            record: Some(record),
            _interface: interface,
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
        // Relaxed: statistics (see `ServerShared::handled`).
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
        let down = ServerRecord {
            pid: me.pid,
            up: 0,
            token: me.token,
            workers: 0,
        };
        // A handler may close its own server: its thread is not waited for (it would wait
        // for itself), and the server is said to be down only once that handler has returned
        // and its response is sent, so its caller gets the answer, not "server died".
        let this = std::thread::current().id();
        let own = self
            .threads
            .iter()
            .position(|t| t.thread().id() == this)
            .map(|i| self.threads.swap_remove(i));
        let record = self.record.take();
        if own.is_none() {
            if let Some(r) = &record {
                let _ = r.send(&down);
            }
        }
        self.shared.stop.store(true, Relaxed); // Relaxed: see `ServerShared::stop`.
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        if let (Some(own), Some(record)) = (own, record) {
            let spawned = std::thread::Builder::new()
                .name("rpc-closing".into())
                .spawn(move || {
                    let _ = own.join();
                    let _ = record.send(&down);
                });
            if let Err(e) = spawned {
                tracing::warn!(service = %self.shared.config.name, error = %e, "the server's last record is not sent: clients see it down when its process ends");
            }
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
            // (Relaxed: see `ServerShared::stop`; every counter below: see `handled`.)
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
        lock(&self.responders).retain(|_, (process, _)| process.is_alive());
    }

    fn responder(&self, client: u64, process: u64) -> Option<Responding> {
        // The map stays locked while a new client's publisher opens (once per client): workers
        // racing to answer one new client's first calls would otherwise each open a publisher
        // of their own and could exhaust the response topic's few endpoint records.
        let mut map = lock(&self.responders);
        if let Some((_, p)) = map.get(&client) {
            return Some(p.clone());
        }
        // Never create the topic of a client that is gone.
        let process = ProcessId {
            pid: 0,
            token: process,
        };
        if !process.is_alive() {
            return None;
        }
        let warn = |e: OpenError| {
            tracing::warn!(service = %self.config.name, client, error = %e, "cannot open a response topic");
        };
        // The client created its topic; asking for our own size limit (not the topic
        // default) keeps the transport from warning about a chunk size mismatch.
        let topic = Topic::<RpcFrame>::builder(&wire::response_topic(&self.config.name, client))
            .domain(self.config.domain)
            .max_message_bytes(self.config.max_message_bytes)
            .open()
            .map_err(warn)
            .ok()?;
        let mut p = topic.publisher().map_err(warn).ok()?;
        p.set_timeout(Duration::ZERO);
        let p = Arc::new(Mutex::new(p));
        if map.len() >= 1024 {
            map.retain(|_, (process, _)| process.is_alive());
        }
        map.insert(client, (process, p.clone()));
        Some(p)
    }

    fn handle(self: &Arc<Self>, h: RpcHeader, data: &[u8]) {
        let handler = match &self.handler {
            Handler::Now(handler) => handler,
            Handler::Later(handler) => {
                let responder = Responder {
                    server: self.clone(),
                    header: Some(h),
                };
                // A panic drops the responder, which answers the caller with it.
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| handler(data, responder)));
                return;
            }
        };
        let result =
            std::panic::catch_unwind(AssertUnwindSafe(|| handler(data))).unwrap_or_else(|_| {
                Err(Failure::Handler(format!(
                    "service '{}': the handler panicked",
                    self.config.name
                )))
            });
        self.respond(h, result);
    }

    /// Sends `result` to the caller of request `h` (unless its deadline passed).
    fn respond(&self, h: RpcHeader, result: RawResult) {
        // (Every counter here is Relaxed: see `ServerShared::handled`.)
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
        let Some(p) = self.responder(h.client, h.process) else {
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
            if matches!(e, SendError::TooLarge { .. }) {
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
