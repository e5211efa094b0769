//! A nerve domain, live in Foxglove: `nerve view --foxglove` serves the Foxglove WebSocket
//! protocol (the `foxglove` SDK's server) on this host, and the Foxglove app connects to it
//! (`ws://127.0.0.1:8765`). It shows:
//! - every topic, each in the form Foxglove's panels show natively ([`topics`]): images,
//!   point clouds, scans and transforms as Foxglove's schemas, the other standard types as
//!   their ROS 2 counterparts (IMU and odometry plots, poses), the log as `foxglove.Log`, the
//!   rest as JSON with a schema from the type's description;
//! - every service, callable with a JSON request ([`services`]);
//! - every node's parameters, readable and settable ([`params`]);
//! - the graph: which process publishes, subscribes to and serves what.
//!
//! Topics and services are followed as they come and go; nothing is read from shared memory
//! for a topic no client subscribes to.
//!
//! ```no_run
//! let view = nerve_foxglove::FoxgloveView::start(nerve_foxglove::ViewConfig::default())?;
//! println!("open ws://127.0.0.1:{} in Foxglove", view.port());
//! # Ok::<(), nerve_foxglove::ViewError>(())
//! ```

pub mod front;
mod native;
mod params;
mod schema;
mod services;
mod topics;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use foxglove::websocket::{Capability, ChannelView, Client, ServerListener};
use foxglove::{Context, WebSocketServer, WebSocketServerHandle};

pub use schema::of as json_schema;
use topics::Bridged;

/// Where and what to serve.
#[derive(Clone, Debug)]
pub struct ViewConfig {
    /// The nerve domain shown.
    pub domain: u32,
    /// The address to listen on (`127.0.0.1`: this host only; `0.0.0.0`: every interface).
    pub host: String,
    /// The port (8765, Foxglove's default; 0: any free port, see [`FoxgloveView::port`]).
    pub port: u16,
    /// Every standard type as its ROS 2 counterpart, none as Foxglove's schemas: the bytes a
    /// recording holds, so one layout serves the live robot and its recordings.
    pub ros2_schemas: bool,
    /// Host names (besides IP addresses, `localhost` and this machine's name) clients may
    /// name in `Host` (a reverse proxy's); see [`front`].
    pub allow_hosts: Vec<String>,
    /// Web origins (besides Foxglove's app and this machine's loopback pages) that may open
    /// the view; see [`front::origin_ok`].
    pub allow_origins: Vec<String>,
}

impl Default for ViewConfig {
    fn default() -> Self {
        ViewConfig {
            domain: nerve::default_domain(),
            host: "127.0.0.1".into(),
            port: 8765,
            ros2_schemas: false,
            allow_hosts: Vec::new(),
            allow_origins: Vec::new(),
        }
    }
}

/// A topic the view shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicShown {
    /// The topic.
    pub name: String,
    /// Its schema in Foxglove (`sensor_msgs/msg/Imu`, `foxglove.Log`, or the nerve type).
    pub schema: String,
    /// Messages sent to Foxglove.
    pub sent: u64,
    /// Messages that could not be converted.
    pub bad: u64,
}

/// Why a view could not start.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The server could not listen.
    #[error("cannot serve Foxglove on {host}:{port}: {reason} (another `nerve view` or Foxglove bridge on that port? choose another with --port)")]
    Listen {
        /// The address.
        host: String,
        /// The port.
        port: u16,
        /// What the server said.
        reason: String,
    },
    /// No runtime or thread could be started.
    #[error("cannot start the Foxglove server: {0}")]
    Start(String),
}

/// How often the domain's topics, services and graph are looked at again (a topic also shows
/// at once when the domain's watch reports it).
const REFRESH: Duration = Duration::from_millis(500);

struct Inner {
    domain: u32,
    ros2_schemas: bool,
    ctx: Arc<Context>,
    topics: Mutex<BTreeMap<String, Arc<Bridged>>>,
    server: Arc<Mutex<Option<WebSocketServerHandle>>>,
    stopping: AtomicBool,
}

impl Inner {
    fn bridged_of(&self, channel: &ChannelView) -> Option<Arc<Bridged>> {
        let topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        topics
            .values()
            .find(|b| b.channel_id() == channel.id())
            .cloned()
    }
}

/// Starts a topic's reader when a client subscribes to its channel.
struct Listener(Arc<Inner>);

impl ServerListener for Listener {
    fn on_subscribe(&self, _client: Client, channel: ChannelView) {
        if let Some(b) = self.0.bridged_of(&channel) {
            b.ensure_reader();
        }
    }
}

/// A running view; dropping it (or [`FoxgloveView::stop`]) stops the server.
pub struct FoxgloveView {
    inner: Arc<Inner>,
    runtime: Option<tokio::runtime::Runtime>,
    follow: Option<JoinHandle<()>>,
    port: u16,
}

impl FoxgloveView {
    /// Starts serving `config.domain` on `config.host:config.port`.
    pub fn start(config: ViewConfig) -> Result<FoxgloveView, ViewError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("nerve-foxglove")
            .enable_all()
            .build()
            .map_err(|e| ViewError::Start(e.to_string()))?;
        let inner = Arc::new(Inner {
            domain: config.domain,
            ros2_schemas: config.ros2_schemas,
            ctx: Context::new(),
            topics: Mutex::new(BTreeMap::new()),
            server: Arc::new(Mutex::new(None)),
            stopping: AtomicBool::new(false),
        });
        let params = params::Params {
            domain: config.domain,
            server: Arc::clone(&inner.server),
        };
        // The user's address is the door's (`front`); the crate's server listens on loopback
        // behind it.
        let listen_err = |reason: String| ViewError::Listen {
            host: config.host.clone(),
            port: config.port,
            reason,
        };
        let door = outside_async(|| {
            runtime.block_on(tokio::net::TcpListener::bind((
                config.host.as_str(),
                config.port,
            )))
        })
        .map_err(|e| listen_err(e.to_string()))?;
        let port = door
            .local_addr()
            .map_err(|e| listen_err(e.to_string()))?
            .port();
        let server = WebSocketServer::new()
            .name(format!("nerve domain {}", config.domain))
            .bind("127.0.0.1", 0)
            .context(&inner.ctx)
            .capabilities([Capability::ConnectionGraph, Capability::Services])
            .supported_encodings(["json"])
            .services(Vec::new())
            .parameter_handler(Arc::new(params))
            .listener(Arc::new(Listener(Arc::clone(&inner))))
            .message_backlog_size(1024);
        let handle = outside_async(|| runtime.block_on(server.start()))
            .map_err(|e| listen_err(e.to_string()))?;
        runtime.spawn(front::serve(
            door,
            handle.port(),
            front::host_names(&config.allow_hosts),
            config.allow_origins.clone(),
        ));
        *inner.server.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        let me = Arc::clone(&inner);
        let follow = std::thread::Builder::new()
            .name("nerve-foxglove-follow".into())
            .spawn(move || follow(&me))
            .map_err(|e| ViewError::Start(e.to_string()))?;
        Ok(FoxgloveView {
            inner,
            runtime: Some(runtime),
            follow: Some(follow),
            port,
        })
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The topics shown now.
    pub fn topics(&self) -> Vec<TopicShown> {
        let topics = self.inner.topics.lock().unwrap_or_else(|e| e.into_inner());
        topics
            .values()
            .map(|b| TopicShown {
                name: b.name.clone(),
                schema: b.schema_name.clone(),
                // Relaxed: counters, read for display.
                sent: b.sent.load(Relaxed),
                bad: b.bad.load(Relaxed),
            })
            .collect()
    }

    /// Stops the server and every reader.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        // Relaxed: a flag the follower polls; the join orders the rest.
        self.inner.stopping.store(true, Relaxed);
        if let Some(f) = self.follow.take() {
            let _ = f.join();
        }
        let topics =
            std::mem::take(&mut *self.inner.topics.lock().unwrap_or_else(|e| e.into_inner()));
        for b in topics.values() {
            b.close();
        }
        let handle = self
            .inner
            .server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let runtime = self.runtime.take();
        outside_async(move || {
            if let (Some(h), Some(rt)) = (handle, runtime.as_ref()) {
                rt.block_on(h.stop().wait());
            }
            if let Some(rt) = runtime {
                rt.shutdown_timeout(Duration::from_secs(1));
            }
        });
    }
}

impl Drop for FoxgloveView {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Runs `f` on a thread of its own: the view's runtime is started and stopped there, so an
/// application may start and stop a view from its own async code (a runtime cannot be
/// blocked on, or dropped, inside another).
fn outside_async<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join()).unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// Follows the domain: topics, services and the graph, until the view stops.
fn follow(inner: &Inner) {
    let mut watch = match nerve::registry::watch(inner.domain) {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(domain = inner.domain, error = %e, "cannot watch the domain; looking every {REFRESH:?}");
            None
        }
    };
    let own = nerve::sys::ProcessId::current().token;
    let mut services = BTreeMap::new();
    let mut graph_text = String::new();
    // Topics that cannot be shown (said once, until they go).
    let mut refused = BTreeSet::new();
    let mut last = Instant::now() - REFRESH;
    // Relaxed: see `FoxgloveView::shutdown`.
    while !inner.stopping.load(Relaxed) {
        let changed = match watch.as_mut() {
            Some(w) => w.next(Duration::from_millis(100)).is_some(),
            None => {
                std::thread::sleep(Duration::from_millis(100));
                false
            }
        };
        if !changed && last.elapsed() < REFRESH {
            continue;
        }
        if let Some(w) = watch.as_mut() {
            while w.try_next().is_some() {}
        }
        last = Instant::now();
        let infos = nerve::registry::list(inner.domain);
        follow_topics(inner, &infos, &mut refused);
        let server = inner.server.lock().unwrap_or_else(|e| e.into_inner());
        let Some(server) = server.as_ref() else {
            continue;
        };
        let now = services::live(inner.domain);
        let gone: Vec<&String> = services.keys().filter(|n| !now.contains_key(*n)).collect();
        server.remove_services(gone);
        let new: Vec<_> = now
            .values()
            .filter(|s| !services.contains_key(&s.name))
            .map(|s| services::service(inner.domain, s))
            .collect();
        if let Err(e) = server.add_services(new) {
            tracing::warn!(error = %e, "services not offered to Foxglove");
        }
        services = now;
        let (graph, text) = services::graph(inner.domain, &infos, &services, own);
        if text != graph_text {
            if let Err(e) = server.publish_connection_graph(graph) {
                tracing::warn!(error = %e, "graph not sent to Foxglove");
            }
            graph_text = text;
        }
    }
}

/// Opens a channel for each new topic, closes the channels of topics that went. `refused`:
/// the topics that could not be shown, not tried again while they exist.
fn follow_topics(
    inner: &Inner,
    infos: &[nerve::registry::TopicInfo],
    refused: &mut BTreeSet<String>,
) {
    let shown = |t: &&nerve::registry::TopicInfo| {
        t.error.is_none()
            && t.owner.is_none()
            && !nerve::plumbing::TopicKind::of_info(t).is_plumbing()
    };
    let now: BTreeMap<&str, _> = infos
        .iter()
        .filter(shown)
        .map(|t| (t.name.as_str(), t))
        .collect();
    let mut topics = inner.topics.lock().unwrap_or_else(|e| e.into_inner());
    let gone: Vec<String> = topics
        .keys()
        .filter(|n| !now.contains_key(n.as_str()))
        .cloned()
        .collect();
    for name in gone {
        if let Some(b) = topics.remove(&name) {
            b.close();
        }
    }
    let own = nerve::sys::ProcessId::current().token;
    for (name, b) in topics.iter() {
        let others = now.get(name.as_str()).is_some_and(|t| {
            t.endpoints
                .iter()
                .any(|e| e.alive && (e.publisher || e.process.token != own))
        });
        b.follow(others);
    }
    refused.retain(|n| now.contains_key(n.as_str()));
    let new: Vec<&str> = now
        .keys()
        .filter(|n| !topics.contains_key(**n) && !refused.contains(**n))
        .copied()
        .collect();
    for name in new {
        match Bridged::open(&inner.ctx, inner.domain, name, inner.ros2_schemas) {
            Some(b) => _ = topics.insert(name.to_owned(), b),
            None => _ = refused.insert(name.to_owned()),
        }
    }
}
