//! What `nerve view`'s page shows, measured: every topic's rate (from its publish counter),
//! bandwidth and delay (from a subscriber of the view's own: the bytes it reads, and the
//! header stamp against receipt, each topic read by a thread blocked in its subscriber so a
//! message is stamped the moment it arrives), and the losses its other subscribers counted;
//! every node's scheduler statistics; the e-stop's last trip; the log's tail. A [`Monitor`]
//! is turned into a JSON snapshot twice a second.
//!
//! The view keeps no topic alive: its subscriber of a topic goes when no other process has an
//! endpoint on it (the last process to close a topic removes it).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nerve::exec::{announce, EStopMsg, ESTOP_TOPIC};
use nerve::log::{LogRecord, LOG_TOPIC};
use nerve::msgs::dynamic::Value;
use nerve::plumbing::TopicKind;
use nerve::raw::{RawMessage, RawSubscriber, RawTopic};
use nerve::registry::{self, TopicInfo};
use nerve::values::ValueCodec;
use serde::Serialize;

/// Log records the page keeps.
const LOG_TAIL: usize = 200;
/// Stamped messages decoded per topic per window, for the delay (decoding costs; a sample
/// suffices).
const DELAY_SAMPLES: usize = 64;

/// What a topic's reader measured since the last snapshot.
#[derive(Default)]
struct Window {
    n: u64,
    bytes: u64,
    /// Delays sampled (ms).
    delays: Vec<f64>,
}

/// What every reader shares: the windows are per topic, the log and the e-stop are one.
#[derive(Default)]
struct Shared {
    log: Mutex<LogTail>,
    estop: Mutex<Option<(EStopMsg, Instant)>>,
}

#[derive(Default)]
struct LogTail {
    rows: VecDeque<LogRow>,
    seq: u64,
    bad: u64,
}

/// One topic the view reads, on a thread of its own.
struct Watched {
    window: Arc<Mutex<Window>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Watched {
    fn drop(&mut self) {
        // Relaxed: a flag the reader polls; the join orders the rest.
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A topic's row on the page.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TopicRow {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
    /// Messages per second published (all publishers).
    pub rate_hz: f64,
    /// Bytes per second the view read.
    pub bandwidth_bps: f64,
    /// Delay, header stamp to the view's receipt: median and largest in the window (ms).
    pub delay_p50_ms: Option<f64>,
    pub delay_max_ms: Option<f64>,
    /// Messages other subscribers lost (overwritten before they read them), since they came.
    pub lost: u64,
    /// Messages published so far.
    pub published: u64,
    /// The processes publishing and subscribing (labels), the view left out.
    pub publishers: Vec<String>,
    pub subscribers: Vec<String>,
}

/// A node's row.
#[derive(Clone, Debug, Serialize)]
pub struct NodeRow {
    pub name: String,
    pub pid: u32,
    pub state: &'static str,
    pub rate_hz: f64,
    pub achieved_hz: f64,
    pub ticks: u64,
    pub misses: u64,
    pub budget_overruns: u64,
    pub panics: u64,
    pub hangs: u64,
    pub late_p50_us: f64,
    pub late_p99_us: f64,
    pub late_max_us: f64,
    pub tick_p99_us: f64,
}

/// The e-stop's last trip the view saw.
#[derive(Clone, Debug, Serialize)]
pub struct Trip {
    pub reason: String,
    pub pid: u32,
    /// Seconds since the trip.
    pub ago_s: f64,
}

/// A log record as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct LogRow {
    pub seq: u64,
    pub stamp_ns: u64,
    pub level: &'static str,
    pub node: String,
    pub pid: u32,
    #[serde(rename = "where")]
    pub at: String,
    pub message: String,
}

/// The page's data at one moment.
#[derive(Clone, Debug, Serialize)]
pub struct Snapshot {
    pub domain: u32,
    pub topics: Vec<TopicRow>,
    pub nodes: Vec<NodeRow>,
    pub estop: Option<Trip>,
    pub log: Vec<LogRow>,
    /// Log records that could not be read (not log records), since the view started.
    pub bad_log_records: u64,
}

/// Follows a domain for the page.
pub struct Monitor {
    domain: u32,
    watched: BTreeMap<String, Watched>,
    /// The publish counter of each topic at the last snapshot.
    counters: BTreeMap<String, u64>,
    window_start: Instant,
    shared: Arc<Shared>,
    infos: Vec<TopicInfo>,
}

/// nerve's own topics the page leaves out: its plumbing and log level changes (the log and
/// the e-stop are shown apart).
fn hidden(t: &TopicInfo) -> bool {
    let kind = TopicKind::of_info(t);
    kind.is_plumbing() || kind == TopicKind::LogLevel
}

impl Monitor {
    pub fn new(domain: u32) -> Monitor {
        Monitor {
            domain,
            watched: BTreeMap::new(),
            counters: BTreeMap::new(),
            window_start: Instant::now(),
            shared: Arc::default(),
            infos: Vec::new(),
        }
    }

    /// Follows the topics that came and went: subscribes to new ones, lets go of those no
    /// other process has an endpoint on.
    pub fn refresh(&mut self) {
        self.infos = registry::list(self.domain);
        let own = nerve::sys::ProcessId::current().token;
        let mut live = BTreeMap::new();
        for t in &self.infos {
            if t.error.is_some() || t.owner.is_some() || hidden(t) {
                continue;
            }
            let others = t
                .endpoints
                .iter()
                .any(|e| e.alive && (e.publisher || e.process.token != own));
            live.insert(t.name.clone(), others);
        }
        self.watched
            .retain(|name, _| live.get(name).copied().unwrap_or(false));
        for (name, _) in live.iter().filter(|(_, others)| **others) {
            if !self.watched.contains_key(name) {
                if let Some(w) = watch(self.domain, name, &self.shared) {
                    self.watched.insert(name.clone(), w);
                }
            }
        }
    }

    /// The page's data, over the window since the last snapshot; starts a new window.
    pub fn snapshot(&mut self) -> Snapshot {
        let secs = self.window_start.elapsed().as_secs_f64().max(1e-3);
        self.window_start = Instant::now();
        let own = nerve::sys::ProcessId::current().token;
        let nodes = announce::nodes(self.domain);
        let labels = announce::process_labels(&nodes);
        let label = |pid: u32| labels.get(&pid).cloned().unwrap_or_else(|| process(pid));
        let mut topics = Vec::new();
        for t in &self.infos {
            if t.error.is_some() || hidden(t) {
                continue;
            }
            let before = self.counters.insert(t.name.clone(), t.published);
            let rate_hz = before
                .and_then(|b| t.published.checked_sub(b))
                .map_or(0.0, |d| d as f64 / secs);
            let ends = |publisher: bool| -> Vec<String> {
                let mut v: Vec<String> = t
                    .endpoints
                    .iter()
                    .filter(|e| e.alive && e.publisher == publisher && e.process.token != own)
                    .map(|e| label(e.process.pid))
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            let mut row = TopicRow {
                name: t.name.clone(),
                type_name: t.type_name.clone(),
                rate_hz,
                published: t.published,
                lost: t
                    .endpoints
                    .iter()
                    .filter(|e| !e.publisher && e.process.token != own)
                    .map(|e| e.lost)
                    .sum(),
                publishers: ends(true),
                subscribers: ends(false),
                ..Default::default()
            };
            if let Some(w) = self.watched.get(&t.name) {
                let mut w =
                    std::mem::take(&mut *w.window.lock().unwrap_or_else(|e| e.into_inner()));
                row.bandwidth_bps = w.bytes as f64 / secs;
                if !w.delays.is_empty() {
                    w.delays.sort_by(f64::total_cmp);
                    row.delay_p50_ms = Some(w.delays[w.delays.len() / 2]);
                    row.delay_max_ms = w.delays.last().copied();
                }
            }
            topics.push(row);
        }
        self.counters
            .retain(|name, _| self.infos.iter().any(|t| &t.name == name));
        let log = self.shared.log.lock().unwrap_or_else(|e| e.into_inner());
        let estop = *self.shared.estop.lock().unwrap_or_else(|e| e.into_inner());
        Snapshot {
            domain: self.domain,
            topics,
            nodes: nodes.iter().map(node_row).collect(),
            estop: estop.map(|(m, at)| Trip {
                reason: m.reason(),
                pid: m.pid,
                ago_s: at.elapsed().as_secs_f64(),
            }),
            log: log.rows.iter().cloned().collect(),
            bad_log_records: log.bad,
        }
    }
}

/// A reader of topic `name`: the log and the e-stop from their oldest message kept (the page
/// shows what happened before it opened), the rest from now.
fn watch(domain: u32, name: &str, shared: &Arc<Shared>) -> Option<Watched> {
    let topic = RawTopic::join(name, domain).ok()?;
    let history = if name == LOG_TOPIC || name == ESTOP_TOPIC {
        topic.depth()
    } else {
        0
    };
    let sub = topic.subscriber(history).ok()?;
    let codec = ValueCodec::of(&topic)
        .ok()
        .filter(|c| c.description().is_some());
    let window = Arc::new(Mutex::new(Window::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let reader = Reader {
        name: name.to_owned(),
        sub,
        codec,
        window: Arc::clone(&window),
        shared: Arc::clone(shared),
    };
    let flag = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name(format!("view:{name}"))
        .spawn(move || reader.run(&flag))
        .ok()?;
    Some(Watched {
        window,
        stop,
        thread: Some(thread),
    })
}

/// A topic's reader thread.
struct Reader {
    name: String,
    sub: RawSubscriber,
    /// For the delay: decodes a message's header (`None`: no description, no delay).
    codec: Option<ValueCodec>,
    window: Arc<Mutex<Window>>,
    shared: Arc<Shared>,
}

impl Reader {
    fn run(mut self, stop: &AtomicBool) {
        // Relaxed: see `Watched::drop`.
        while !stop.load(Relaxed) {
            let msg = match self.sub.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                Err(e) => {
                    tracing::debug!(topic = %self.name, error = %e, "a message could not be read");
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            let received = Instant::now();
            let size = match &msg {
                RawMessage::Fixed(b) => b.len(),
                RawMessage::Chunk(s) => s.header_len() + s.data_len(),
            } as u64;
            if self.name == LOG_TOPIC {
                let mut log = self.shared.log.lock().unwrap_or_else(|e| e.into_inner());
                match log_row(&msg, log.seq) {
                    Some(r) => {
                        log.seq += 1;
                        if log.rows.len() == LOG_TAIL {
                            log.rows.pop_front();
                        }
                        log.rows.push_back(r);
                    }
                    None => log.bad += 1,
                }
            } else if self.name == ESTOP_TOPIC {
                if let RawMessage::Fixed(b) = &msg {
                    if let Ok(m) = bytemuck::try_pod_read_unaligned::<EStopMsg>(b) {
                        let ago = nerve::time::now_ns().saturating_sub(m.stamp_ns);
                        let at = received
                            .checked_sub(Duration::from_nanos(ago))
                            .unwrap_or(received);
                        *self.shared.estop.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some((m, at));
                    }
                }
            }
            let sampled = self
                .window
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .delays
                .len();
            let delay = if sampled < DELAY_SAMPLES {
                let d = delay_ms(self.codec.as_ref(), &msg);
                if d.is_none() {
                    // No monotonic stamp on this topic: no delay, no more decoding.
                    self.codec = None;
                }
                d
            } else {
                None
            };
            let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
            w.n += 1;
            w.bytes += size;
            w.delays.extend(delay);
        }
    }
}

/// The delay of a stamped message (`header.stamp_ns` or `stamp_ns`, `CLOCK_MONOTONIC`), in
/// ms; `None` when it carries no such stamp.
fn delay_ms(codec: Option<&ValueCodec>, msg: &RawMessage) -> Option<f64> {
    let now = nerve::time::now_ns();
    // No array elements: only the header is wanted.
    let v = codec?.decode(msg, 0).ok()?;
    let s = v.path("header.stamp_ns").or_else(|| v.get("stamp_ns"))?;
    let stamp = match *s {
        Value::UInt(u) => u,
        Value::Int(i) => u64::try_from(i).ok()?,
        _ => return None,
    };
    // A stamp from another clock (wall time, a tick count) is no delay.
    if stamp == 0 || stamp > now || now - stamp > 60_000_000_000 {
        return None;
    }
    Some((now - stamp) as f64 / 1e6)
}

fn log_row(msg: &RawMessage, seq: u64) -> Option<LogRow> {
    let RawMessage::Chunk(s) = msg else {
        return None;
    };
    let r: LogRecord = rmp_serde::from_slice(s.data()).ok()?;
    let message = r.text();
    Some(LogRow {
        seq,
        stamp_ns: r.stamp_ns,
        level: r.level.as_str(),
        node: r.node,
        pid: r.pid,
        at: if r.file.is_empty() {
            String::new()
        } else {
            format!("{}:{}", r.file, r.line)
        },
        message,
    })
}

fn node_row(r: &announce::NodeRecord) -> NodeRow {
    let us = |ns: u64| ns as f64 / 1e3;
    NodeRow {
        name: r.name(),
        pid: r.pid,
        state: match (r.up, r.alive()) {
            (_, true) => "running",
            (0, _) => "stopped",
            _ => "dead",
        },
        rate_hz: r.rate_hz,
        achieved_hz: r.achieved_hz,
        ticks: r.ticks,
        misses: r.misses,
        budget_overruns: r.budget_overruns,
        panics: r.panics,
        hangs: r.hangs,
        late_p50_us: us(r.lateness_p50_ns),
        late_p99_us: us(r.lateness_p99_ns),
        late_max_us: us(r.lateness_max_ns),
        tick_p99_us: us(r.tick_p99_ns),
    }
}

/// A process without nodes: its program's name and pid.
fn process(pid: u32) -> String {
    match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        Ok(comm) => format!("{} ({pid})", comm.trim()),
        Err(_) => format!("pid {pid}"),
    }
}
