//! The processes of a `network` run, each started on one host (`__net-role --spec JSON`):
//! a bridge, a publisher or subscriber, a service server or client, for nerve (over its Zenoh
//! bridge), raw Zenoh, or UDP. Each prints `READY` once set up, starts on a `GO` line on its
//! stdin, and prints `RESULT {json}` at the end: what it measured and the CPU time it spent
//! between `GO` and the end (a bridge: until `STOP`).

use std::io::BufRead;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use nerve::msgs::{Encoding, Image};
use nerve::rpc::{RawClient, Server, Service};
use nerve::Topic;
use serde::{Deserialize, Serialize};
use zenoh::Wait;

/// What one role does.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Spec {
    /// `bridge`, `pub`, `sub`, `server`, `client`.
    pub role: String,
    /// `nerve`, `zenoh`, `udp`.
    pub system: String,
    /// Topics (channels), or parallel callers (RPC).
    pub count: usize,
    /// Payload bytes.
    pub size: usize,
    /// Messages (or calls) per second, per topic; 0: as fast as possible (RPC stress).
    pub hz: f64,
    /// Seconds to run.
    pub secs: f64,
    /// Zenoh endpoints to listen on / connect to (`tcp/10.77.0.1:7447`).
    pub listen: Vec<String>,
    /// See `listen`.
    pub connect: Vec<String>,
    /// UDP: the receiver's address (`10.77.0.2`) and first port.
    pub peer: String,
    /// See `peer`.
    pub port: u16,
    /// Channels: messages per topic sent before the measured ones, at the same rate, and not
    /// counted (sequence numbers below it): first-use costs (a pool's pages touched for the
    /// first time, a connection's buffers growing) stay out of a steady-state figure.
    #[serde(default)]
    pub warm: u64,
    /// Channels of different sizes and rates (HORUS's mixed workload): (bytes, Hz) per topic;
    /// empty: `count` topics of `size` at `hz`.
    #[serde(default)]
    pub mix: Vec<(usize, f64)>,
    /// A nerve publisher: sends to other hosts itself (`nerve_zenoh::direct`, configured by
    /// the host bridge); false: through the bridge only.
    #[serde(default)]
    pub direct: bool,
}

impl Spec {
    /// (bytes, Hz) of every topic.
    fn topics(&self) -> Vec<(usize, f64)> {
        if self.mix.is_empty() {
            vec![(self.size, self.hz); self.count]
        } else {
            self.mix.clone()
        }
    }
}

/// What a role measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// Messages (or calls) done.
    pub count: u64,
    /// Messages expected (subscribers).
    pub expected: u64,
    /// Latencies, µs (one-way for channels, round trip for calls).
    pub latencies_us: Vec<f64>,
    /// CPU seconds between GO and the end.
    pub cpu_s: f64,
    /// Wall seconds between GO and the end.
    pub wall_s: f64,
    /// How an rclpy role's Fast DDS was configured (`benches/python/ros2_env.py`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dds_profile: Option<String>,
    /// The rclpy executor that spun the role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<String>,
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn cpu_s() -> f64 {
    // SAFETY: a zeroed rusage is a valid out-parameter for getrusage.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Waits for a line equal to `word` on stdin.
fn wait_for(word: &str) -> Result<()> {
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        if line?.trim() == word {
            return Ok(());
        }
    }
    bail!("stdin closed before {word}")
}

fn zenoh_session(spec: &Spec) -> Result<zenoh::Session> {
    let mut c = zenoh::Config::default();
    let set = |c: &mut zenoh::Config, k: &str, v: String| {
        c.insert_json5(k, &v)
            .map_err(|e| anyhow::anyhow!("{k}: {e}"))
    };
    set(&mut c, "scouting/multicast/enabled", "false".into())?;
    set(
        &mut c,
        "listen/endpoints",
        serde_json::to_string(&spec.listen)?,
    )?;
    set(
        &mut c,
        "connect/endpoints",
        serde_json::to_string(&spec.connect)?,
    )?;
    zenoh::open(c)
        .wait()
        .map_err(|e| anyhow::anyhow!("zenoh: {e}"))
}

/// Runs `spec` (the entry point of `__net-role`).
pub fn run(spec_json: &str) -> Result<()> {
    let spec: Spec = serde_json::from_str(spec_json).context("the role's spec")?;
    let outcome = match (spec.role.as_str(), spec.system.as_str()) {
        ("bridge", _) => bridge(&spec)?,
        ("pub", _) => publish(&spec)?,
        ("sub", _) => subscribe(&spec)?,
        ("server", _) => serve(&spec)?,
        ("client", _) => call(&spec)?,
        (r, s) => bail!("unknown role {r} / system {s}"),
    };
    println!("RESULT {}", serde_json::to_string(&outcome)?);
    Ok(())
}

/// How long a channel case's warm-up lasts from `GO`: the clocks (CPU and wall) of every role
/// start after it, so that rates and CPU % are those of the measured messages.
fn warm_up_time(spec: &Spec) -> Duration {
    if spec.hz > 0.0 && spec.warm > 0 {
        Duration::from_secs_f64(spec.warm as f64 / spec.hz)
    } else {
        Duration::ZERO
    }
}

/// READY, then the CPU and wall time spent between the end of the warm-up after `GO` and
/// `STOP` (a role that serves).
fn until_stopped(spec: &Spec) -> Result<Outcome> {
    println!("READY");
    wait_for("GO")?;
    std::thread::sleep(warm_up_time(spec));
    let (cpu0, t0) = (cpu_s(), Instant::now());
    wait_for("STOP")?;
    Ok(Outcome {
        cpu_s: cpu_s() - cpu0,
        wall_s: t0.elapsed().as_secs_f64(),
        ..Outcome::default()
    })
}

/// nerve's bridge on this host until `STOP`.
fn bridge(spec: &Spec) -> Result<Outcome> {
    let mut c = nerve_zenoh::BridgeConfig::new();
    c.multicast(false)?;
    c.listen(&spec.listen)?;
    c.connect(&spec.connect)?;
    let _bridge = nerve_zenoh::Bridge::start(c)?;
    until_stopped(spec)
}

fn topic_name(k: usize) -> String {
    format!("net/t{k}")
}

fn open_image(k: usize, size: usize) -> Result<Topic<Image>> {
    Ok(Topic::<Image>::builder(&topic_name(k))
        .reliable()
        .depth(16)
        .max_message_bytes(size.max(1))
        .open()?)
}

/// Paces `n` sends at `hz` from now (a message late by more than a period is sent at once).
fn paced(hz: f64, n: u64, mut send: impl FnMut(u64)) -> u64 {
    let period = Duration::from_secs_f64(1.0 / hz);
    let start = Instant::now();
    for i in 0..n {
        let due = start + period.mul_f64(i as f64);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        send(i);
    }
    n
}

/// Publishes on `count` topics at `hz` each, `warm` messages then `secs` worth, payloads of
/// `size` stamped with the send time and numbered (nerve: in the header; the others: the
/// first 16 bytes, stamp then sequence).
fn publish(spec: &Spec) -> Result<Outcome> {
    let (secs, warm) = (spec.secs, spec.warm);
    let topics = spec.topics();
    let sent = Arc::new(AtomicU64::new(0));
    let mut senders: Vec<Box<dyn FnMut(u64) + Send>> = Vec::new();
    let _session;
    match spec.system.as_str() {
        "nerve" | "nerve-bridge" | "nerve-local" => {
            if spec.direct {
                nerve_zenoh::direct::install_auto();
            }
            for (k, &(size, _)) in topics.iter().enumerate() {
                let p = open_image(k, spec.size.max(size))?.publisher()?;
                senders.push(Box::new(move |i| {
                    let Ok(mut loan) = p.loan(size) else { return };
                    loan.data_mut()[..8.min(size)].copy_from_slice(&i.to_le_bytes()[..8.min(size)]);
                    let h = loan.header_mut();
                    (h.width, h.height, h.step) = (size as u32, 1, size as u32);
                    h.encoding = Encoding::Mono8 as u32;
                    h.header.seq = i;
                    h.header.stamp_ns = now_ns();
                    let _ = loan.send();
                }));
            }
        }
        "zenoh" | "zenoh-recv" => {
            let s = zenoh_session(spec)?;
            for (k, &(size, _)) in topics.iter().enumerate() {
                let p = s
                    .declare_publisher(format!("bench/t{k}"))
                    .congestion_control(zenoh::qos::CongestionControl::Block)
                    .express(true)
                    .wait()
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                let mut buf = vec![0u8; size.max(16)];
                senders.push(Box::new(move |i| {
                    buf[..8].copy_from_slice(&now_ns().to_le_bytes());
                    buf[8..16].copy_from_slice(&i.to_le_bytes());
                    let _ = p.put(buf.clone()).wait();
                }));
            }
            _session = s;
        }
        "udp" => {
            for (k, &(size, _)) in topics.iter().enumerate() {
                let sock = UdpSocket::bind("0.0.0.0:0")?;
                let to = format!("{}:{}", spec.peer, spec.port + k as u16);
                let mut buf = vec![0u8; size.max(16)];
                senders.push(Box::new(move |i| {
                    buf[..8].copy_from_slice(&now_ns().to_le_bytes());
                    buf[8..16].copy_from_slice(&i.to_le_bytes());
                    let _ = sock.send_to(&buf, &to);
                }));
            }
        }
        #[cfg(not(feature = "peers"))]
        "iceoryx2" => bail!("{}", crate::NO_PEERS),
        #[cfg(feature = "peers")]
        "iceoryx2" => {
            for (k, &(size, _)) in topics.iter().enumerate() {
                let mut port = iox::Port::new(k, size)?;
                senders.push(Box::new(move |i| port.send(now_ns(), i)));
            }
        }
        other => bail!("unknown system {other}"),
    }
    println!("READY");
    wait_for("GO")?;
    let threads: Vec<_> = senders
        .into_iter()
        .zip(topics)
        .map(|(mut send, (_, hz))| {
            let sent = sent.clone();
            std::thread::spawn(move || {
                let n = paced(hz, warm + (hz * secs) as u64, &mut send);
                // Relaxed: a count read after the joins.
                sent.fetch_add(n.saturating_sub(warm), Relaxed);
            })
        })
        .collect();
    std::thread::sleep(warm_up_time(spec));
    let (cpu0, t0) = (cpu_s(), Instant::now());
    for t in threads {
        let _ = t.join();
    }
    Ok(Outcome {
        count: sent.load(Relaxed), // Relaxed: the joins above ordered every add before this
        cpu_s: cpu_s() - cpu0,
        wall_s: t0.elapsed().as_secs_f64(),
        ..Outcome::default()
    })
}

/// Receives on `count` topics until each has `hz × secs` messages after the `warm` ones, or
/// the warm-up and `secs + 3` s passed; latency = receive time − send stamp (the hosts share
/// the machine's clock).
fn subscribe(spec: &Spec) -> Result<Outcome> {
    let topics = spec.topics();
    let all: u64 = topics.iter().map(|(_, hz)| (hz * spec.secs) as u64).sum();
    let lat = Arc::new(Mutex::new(Vec::<f64>::with_capacity(all as usize)));
    let got = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let record = {
        let (lat, got) = (lat.clone(), got.clone());
        let warm = spec.warm;
        move |stamp: u64, seq: u64| {
            if seq < warm {
                return;
            }
            let us = now_ns().saturating_sub(stamp) as f64 / 1e3;
            nerve::sys::lock(&lat).push(us);
            got.fetch_add(1, Relaxed); // Relaxed: a count read after the receivers stop
        }
    };
    let mut threads = Vec::new();
    let _session;
    let _subs: Vec<zenoh::pubsub::Subscriber<()>>;
    match spec.system.as_str() {
        "nerve" | "nerve-bridge" | "nerve-local" => {
            let mut subs = Vec::new();
            for (k, &(size, _)) in topics.iter().enumerate() {
                let t = open_image(k, spec.size.max(size))?;
                // The subscriber as an application has it (the default spin).
                let s = t.subscriber()?;
                subs.push((t, s));
            }
            // Connected: the bridge here imported every topic (its publisher is on each);
            // the publisher there (`nerve-local`: here) starts after READY.
            println!("READY");
            let end = Instant::now() + Duration::from_secs(30);
            while !subs.iter().all(|(t, _)| {
                nerve::registry::list(nerve::default_domain())
                    .iter()
                    .any(|i| i.name == t.name() && i.publishers() > 0)
            }) {
                if Instant::now() > end {
                    bail!("no publisher came (the bridge never brought the topics in)");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            for (_, mut s) in subs {
                let (record, stop) = (record.clone(), stop.clone());
                threads.push(std::thread::spawn(move || {
                    while !stop.load(Relaxed) {
                        // Relaxed: a flag.
                        if let Ok(Some(m)) = s.recv_timeout(Duration::from_millis(50)) {
                            let h = m.header().header;
                            record(h.stamp_ns, h.seq);
                        }
                    }
                }));
            }
            _subs = Vec::new();
            _session = None;
        }
        "zenoh" => {
            let s = zenoh_session(spec)?;
            let mut subs = Vec::new();
            for k in 0..spec.count {
                let record = record.clone();
                subs.push(
                    s.declare_subscriber(format!("bench/t{k}"))
                        .callback(move |sample| {
                            let b = sample.payload().to_bytes();
                            if let Some((stamp, seq)) = stamp_and_seq(&b) {
                                record(stamp, seq);
                            }
                        })
                        .wait()
                        .map_err(|e| anyhow::anyhow!("{e}"))?,
                );
            }
            _subs = subs;
            _session = Some(s);
        }
        "zenoh-recv" => {
            // Zenoh's default subscriber: samples into its FIFO channel, a thread per topic
            // asleep in `recv` (the same wait as nerve's subscriber).
            let s = zenoh_session(spec)?;
            for k in 0..spec.count {
                let sub = s
                    .declare_subscriber(format!("bench/t{k}"))
                    .wait()
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                let (record, stop) = (record.clone(), stop.clone());
                threads.push(std::thread::spawn(move || {
                    // Relaxed: a flag.
                    while !stop.load(Relaxed) {
                        if let Ok(Some(sample)) = sub.recv_timeout(Duration::from_millis(50)) {
                            let b = sample.payload().to_bytes();
                            if let Some((stamp, seq)) = stamp_and_seq(&b) {
                                record(stamp, seq);
                            }
                        }
                    }
                }));
            }
            _subs = Vec::new();
            _session = Some(s);
        }
        "udp" => {
            for k in 0..spec.count {
                let sock = UdpSocket::bind(("0.0.0.0", spec.port + k as u16))?;
                sock.set_read_timeout(Some(Duration::from_millis(50)))?;
                let (record, stop) = (record.clone(), stop.clone());
                threads.push(std::thread::spawn(move || {
                    let mut buf = vec![0u8; 65536];
                    while !stop.load(Relaxed) {
                        // Relaxed: a flag.
                        if let Ok(n) = sock.recv(&mut buf) {
                            if let Some((stamp, seq)) = stamp_and_seq(&buf[..n]) {
                                record(stamp, seq);
                            }
                        }
                    }
                }));
            }
            _subs = Vec::new();
            _session = None;
        }
        #[cfg(not(feature = "peers"))]
        "iceoryx2" => bail!("{}", crate::NO_PEERS),
        #[cfg(feature = "peers")]
        "iceoryx2" => {
            for k in 0..spec.count {
                let mut port = iox::Inbox::new(k)?;
                let (record, stop) = (record.clone(), stop.clone());
                threads.push(std::thread::spawn(move || {
                    // Relaxed: a flag.
                    while !stop.load(Relaxed) {
                        port.receive(Duration::from_millis(50), &record);
                    }
                }));
            }
            _subs = Vec::new();
            _session = None;
        }
        other => bail!("unknown system {other}"),
    }
    if !spec.system.starts_with("nerve") {
        println!("READY");
    }
    println!("CONNECTED");
    wait_for("GO")?;
    std::thread::sleep(warm_up_time(spec));
    let (cpu0, t0) = (cpu_s(), Instant::now());
    let end = t0 + Duration::from_secs_f64(spec.secs + 3.0);
    // Relaxed: counts polled until they reach the end.
    while got.load(Relaxed) < all && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Relaxed); // Relaxed: a flag; the joins order the rest
    for t in threads {
        let _ = t.join();
    }
    let latencies = std::mem::take(&mut *nerve::sys::lock(&lat));
    Ok(Outcome {
        count: got.load(Relaxed),
        expected: all,
        latencies_us: latencies,
        cpu_s: cpu_s() - cpu0,
        wall_s: t0.elapsed().as_secs_f64(),
        ..Outcome::default()
    })
}

/// A raw message's send stamp and sequence (its first 16 bytes).
fn stamp_and_seq(b: &[u8]) -> Option<(u64, u64)> {
    let word = |i: usize| Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?));
    Some((word(0)?, word(8)?))
}

/// The echo service's settings (1 MiB messages).
fn echo_config() -> nerve::rpc::ServiceConfig {
    Service::<(), ()>::builder("net/echo")
        .max_message_bytes(1 << 20)
        .build()
        .config()
        .clone()
}

/// An echo service (`net/echo`) or queryable (`bench/echo`) until `STOP`.
fn serve(spec: &Spec) -> Result<Outcome> {
    let _server;
    let _queryable;
    let _session;
    match spec.system.as_str() {
        "nerve" => {
            _server = Some(Server::start(
                echo_config(),
                1,
                Arc::new(|req: &[u8]| Ok(req.to_vec())),
            )?);
            _queryable = None;
            _session = None;
        }
        "zenoh" => {
            let s = zenoh_session(spec)?;
            _queryable = Some(
                s.declare_queryable("bench/echo")
                    .callback(|q| {
                        let body = q
                            .payload()
                            .map(|p| p.to_bytes().to_vec())
                            .unwrap_or_default();
                        let _ = q.reply(q.key_expr().clone(), body).wait();
                    })
                    .wait()
                    .map_err(|e| anyhow::anyhow!("{e}"))?,
            );
            _session = Some(s);
            _server = None;
        }
        other => bail!("no {other} server"),
    }
    until_stopped(spec)
}

/// `count` callers for `secs`, each closed-loop (hz 0: stress) or paced at `hz / count`.
fn call(spec: &Spec) -> Result<Outcome> {
    type Caller = Box<dyn Fn(&[u8]) -> bool + Send + Sync>;
    let caller: Arc<Caller> = match spec.system.as_str() {
        "nerve" => {
            let client = RawClient::open(echo_config())?;
            if !client.wait_for_server(Duration::from_secs(30)) {
                bail!("the bridge never brought net/echo in");
            }
            Arc::new(Box::new(move |req: &[u8]| {
                client.call_bytes(req, Duration::from_secs(5)).is_ok()
            }))
        }
        "zenoh" => {
            let s = zenoh_session(spec)?;
            Arc::new(Box::new(move |req: &[u8]| {
                let Ok(replies) = s
                    .get("bench/echo")
                    .payload(req.to_vec())
                    .timeout(Duration::from_secs(5))
                    .wait()
                else {
                    return false;
                };
                matches!(replies.recv(), Ok(r) if r.result().is_ok())
            }))
        }
        other => bail!("no {other} client"),
    };
    // Warm up (and, for nerve, wait until the remote server answers through the bridges).
    let warm = vec![0u8; spec.size];
    let end = Instant::now() + Duration::from_secs(30);
    while !caller(&warm) {
        if Instant::now() > end {
            bail!("no answer from the server");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    println!("READY");
    wait_for("GO")?;
    let (cpu0, t0) = (cpu_s(), Instant::now());
    let (size, secs, count) = (spec.size, spec.secs, spec.count.max(1));
    let per_caller_hz = spec.hz / count as f64;
    let threads: Vec<_> = (0..count)
        .map(|_| {
            let caller = caller.clone();
            std::thread::spawn(move || {
                let req = vec![7u8; size];
                let mut lat = Vec::new();
                let one = |lat: &mut Vec<f64>| {
                    let t = Instant::now();
                    if caller(&req) {
                        lat.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                };
                if per_caller_hz > 0.0 {
                    paced(per_caller_hz, (per_caller_hz * secs) as u64, |_| {
                        one(&mut lat)
                    });
                } else {
                    let end = Instant::now() + Duration::from_secs_f64(secs);
                    while Instant::now() < end {
                        one(&mut lat);
                    }
                }
                lat
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for t in threads {
        latencies.extend(t.join().unwrap_or_default());
    }
    Ok(Outcome {
        count: latencies.len() as u64,
        expected: (spec.hz * secs) as u64,
        latencies_us: latencies,
        cpu_s: cpu_s() - cpu0,
        wall_s: t0.elapsed().as_secs_f64(),
        ..Outcome::default()
    })
}

/// iceoryx2's side of a one-host channel: a publish-subscribe service of byte slices per topic
/// and an event service that wakes the subscriber (iceoryx2's way to wait without polling).
#[cfg(feature = "peers")]
mod iox {
    use std::fmt::Debug;
    use std::time::Duration;

    use anyhow::{anyhow, Result};
    use iceoryx2::prelude::*;
    use iceoryx2::service::ipc_threadsafe::Service as Ipc;

    fn ix<T, E: Debug>(r: Result<T, E>, what: &str) -> Result<T> {
        r.map_err(|e| anyhow!("iceoryx2: {what}: {e:?}"))
    }

    /// The node and services of topic `k`.
    struct Topic {
        /// Kept alive: the node owns the ports' registration.
        _node: Node<Ipc>,
        data: iceoryx2::service::port_factory::publish_subscribe::PortFactory<Ipc, [u8], ()>,
        event: iceoryx2::service::port_factory::event::PortFactory<Ipc>,
    }

    impl Topic {
        fn open(k: usize) -> Result<Self> {
            set_log_level(LogLevel::Error);
            let node = ix(NodeBuilder::new().create::<Ipc>(), "creating a node")?;
            let name = ix(ServiceName::new(&format!("net/t{k}")), "service name")?;
            let data = ix(
                node.service_builder(&name)
                    .publish_subscribe::<[u8]>()
                    .history_size(0)
                    .subscriber_max_buffer_size(64)
                    .open_or_create(),
                "opening the publish-subscribe service",
            )?;
            let ev = ix(ServiceName::new(&format!("net/t{k}/ev")), "service name")?;
            let event = ix(
                node.service_builder(&ev).event().open_or_create(),
                "opening the event service",
            )?;
            Ok(Self {
                _node: node,
                data,
                event,
            })
        }
    }

    /// A publisher of topic `k` and its notifier.
    pub(super) struct Port {
        publisher: iceoryx2::port::publisher::Publisher<Ipc, [u8], ()>,
        notifier: iceoryx2::port::notifier::Notifier<Ipc>,
        size: usize,
        _topic: Topic,
    }

    impl Port {
        pub(super) fn new(k: usize, size: usize) -> Result<Self> {
            let topic = Topic::open(k)?;
            let size = size.max(16);
            let publisher = ix(
                topic
                    .data
                    .publisher_builder()
                    .initial_max_slice_len(size)
                    .create(),
                "creating a publisher",
            )?;
            let notifier = ix(
                topic.event.notifier_builder().create(),
                "creating a notifier",
            )?;
            Ok(Self {
                publisher,
                notifier,
                size,
                _topic: topic,
            })
        }

        /// Loans a sample, writes the stamp and sequence at its start, sends it, wakes the
        /// subscriber. A failure is a lost message (the subscriber counts it).
        pub(super) fn send(&mut self, stamp: u64, seq: u64) {
            let Ok(sample) = self.publisher.loan_slice_uninit(self.size) else {
                return;
            };
            // SAFETY: the slice lies in iceoryx2's shared-memory data segment, which the
            // kernel zero-filled and earlier samples wrote: every byte holds a defined value,
            // and `u8` accepts any (as in the ipc suite).
            let mut sample = unsafe { sample.assume_init() };
            let b = sample.payload_mut();
            b[..8].copy_from_slice(&stamp.to_le_bytes());
            b[8..16].copy_from_slice(&seq.to_le_bytes());
            if sample.send().is_ok() {
                let _ = self.notifier.notify();
            }
        }
    }

    /// A subscriber of topic `k` and its listener.
    pub(super) struct Inbox {
        subscriber: iceoryx2::port::subscriber::Subscriber<Ipc, [u8], ()>,
        listener: iceoryx2::port::listener::Listener<Ipc>,
        _topic: Topic,
    }

    impl Inbox {
        pub(super) fn new(k: usize) -> Result<Self> {
            let topic = Topic::open(k)?;
            let subscriber = ix(
                topic.data.subscriber_builder().buffer_size(64).create(),
                "creating a subscriber",
            )?;
            let listener = ix(
                topic.event.listener_builder().create(),
                "creating a listener",
            )?;
            Ok(Self {
                subscriber,
                listener,
                _topic: topic,
            })
        }

        /// Waits up to `timeout` for a wake-up, then hands every sample there to `record`
        /// (stamp, sequence).
        pub(super) fn receive(&mut self, timeout: Duration, record: &dyn Fn(u64, u64)) {
            let _ = self.listener.timed_wait(|_| {}, timeout);
            while let Ok(Some(sample)) = self.subscriber.receive() {
                if let Some((stamp, seq)) = super::stamp_and_seq(sample.payload()) {
                    record(stamp, seq);
                }
            }
        }
    }
}
