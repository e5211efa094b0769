//! Logs as a topic: every process's log records on one topic of the domain
//! ([`LOG_TOPIC`]), read by `nerve log`, recorded by the recorder like any topic.
//!
//! A record ([`LogRecord`]) is the time, level, node, process, file and line, the message and
//! its key/values, as MessagePack. Logging never blocks a control loop on the topic: the
//! topic is best effort (a slow reader loses the oldest records, counted on its side), and a
//! record that cannot be sent (no chunk free, the topic damaged) is dropped and counted
//! ([`Logger::dropped`]).
//!
//! ```no_run
//! use tracing_subscriber::prelude::*;
//! tracing_subscriber::registry().with(nerve::log::layer("planner")).init();
//! tracing::warn!(speed = 1.5, "slowing down");   // on nerve/log, and `nerve log` shows it
//! ```

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

use nerve_transport::{Msgpack, Publisher, Topic};
use serde::{Deserialize, Serialize};

/// The domain's log topic.
pub const LOG_TOPIC: &str = "nerve/log";
/// Records the log topic keeps for a reader that starts late (`nerve log` shows them).
pub const LOG_DEPTH: u32 = 1024;

/// How severe a record is (numbers as `tracing` orders them, trace lowest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[repr(u8)]
pub enum Level {
    /// Very detailed.
    Trace = 0,
    /// For developers.
    Debug = 1,
    /// Normal operation.
    Info = 2,
    /// Something may be wrong.
    Warn = 3,
    /// Something is wrong.
    Error = 4,
}

impl Level {
    /// `TRACE` … `ERROR`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Trace => "TRACE",
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
        }
    }

    /// From a name (`warn`, `WARN`, `warning`) or a number 0–4.
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s.to_ascii_lowercase().as_str() {
            "trace" | "0" => Level::Trace,
            "debug" | "1" => Level::Debug,
            "info" | "2" => Level::Info,
            "warn" | "warning" | "3" => Level::Warn,
            "error" | "4" => Level::Error,
            _ => return None,
        })
    }

    fn from_u8(v: u8) -> Level {
        match v {
            0 => Level::Trace,
            1 => Level::Debug,
            2 => Level::Info,
            3 => Level::Warn,
            _ => Level::Error,
        }
    }
}

/// One log record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// `CLOCK_REALTIME` ns since the Unix epoch.
    pub stamp_ns: u64,
    /// Severity.
    pub level: Level,
    /// The node (or program) that logged it.
    pub node: String,
    /// Its process.
    pub pid: u32,
    /// Source file ("" when unknown).
    pub file: String,
    /// Source line (0 when unknown).
    pub line: u32,
    /// The message.
    pub message: String,
    /// Structured fields, in order.
    pub fields: Vec<(String, String)>,
}

/// Publishes a node's records on the log topic; cheap to share (`&Logger` from any thread).
pub struct Logger {
    node: String,
    domain: u32,
    min: AtomicU8,
    dropped: AtomicU64,
    /// Opened at the first record (a process that never logs opens nothing).
    publisher: OnceLock<Option<Mutex<Publisher<Msgpack<LogRecord>>>>>,
}

impl Logger {
    /// A logger for `node` in the default domain, passing records of `Info` and above.
    pub fn new(node: &str) -> Logger {
        Logger::with_domain(node, nerve_transport::default_domain())
    }

    /// A logger for `node` in `domain`.
    pub fn with_domain(node: &str, domain: u32) -> Logger {
        Logger {
            node: nerve_transport::name::resolve(node),
            domain,
            min: AtomicU8::new(Level::Info as u8),
            dropped: AtomicU64::new(0),
            publisher: OnceLock::new(),
        }
    }

    /// The node name records carry.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The lowest level published (changeable while running, from any thread).
    pub fn level(&self) -> Level {
        // Relaxed: a threshold read alone; no data depends on it.
        Level::from_u8(self.min.load(Relaxed))
    }

    /// Sets the lowest level published.
    pub fn set_level(&self, level: Level) {
        // Relaxed: see `level`.
        self.min.store(level as u8, Relaxed);
    }

    /// Whether a record of `level` would be published.
    pub fn enabled(&self, level: Level) -> bool {
        level >= self.level()
    }

    /// Records not published: no chunk free, the topic unusable, or another thread inside
    /// `log` at that instant holding the publisher.
    pub fn dropped(&self) -> u64 {
        // Relaxed: a statistic.
        self.dropped.load(Relaxed)
    }

    fn publisher(&self) -> Option<&Mutex<Publisher<Msgpack<LogRecord>>>> {
        self.publisher
            .get_or_init(|| {
                let topic = Topic::<Msgpack<LogRecord>>::builder(LOG_TOPIC)
                    .domain(self.domain)
                    .depth(LOG_DEPTH)
                    .open()
                    .ok()?;
                topic.publisher().ok().map(Mutex::new)
            })
            .as_ref()
    }

    /// Publishes a record (if `level` is enabled); never blocks on the topic or on another
    /// logging thread: what cannot go now is dropped and counted.
    pub fn log(
        &self,
        level: Level,
        file: &str,
        line: u32,
        message: &str,
        fields: Vec<(String, String)>,
    ) {
        if !self.enabled(level) {
            return;
        }
        let record = LogRecord {
            stamp_ns: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            level,
            node: self.node.clone(),
            pid: std::process::id(),
            file: file.to_owned(),
            line,
            message: message.to_owned(),
            fields,
        };
        let sent = self
            .publisher()
            .and_then(|p| p.try_lock().ok())
            .is_some_and(|p| p.send(&record).is_ok());
        if !sent {
            // Relaxed: a statistic.
            self.dropped.fetch_add(1, Relaxed);
        }
    }
}

/// Formats a record as `nerve log` prints it: `HH:MM:SS.mmm LEVEL [node] file:line message k=v`.
pub fn format(r: &LogRecord) -> String {
    let secs = r.stamp_ns / 1_000_000_000;
    let ms = (r.stamp_ns / 1_000_000) % 1000;
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    let at = if r.file.is_empty() {
        String::new()
    } else {
        format!(" {}:{}", r.file, r.line)
    };
    let mut line = format!(
        "{h:02}:{m:02}:{s:02}.{ms:03} {:<5} [{}]{at} {}",
        r.level.as_str(),
        r.node,
        r.message
    );
    for (k, v) in &r.fields {
        line.push_str(&format!(" {k}={v}"));
    }
    line
}

/// A `tracing` layer publishing every event on the log topic as node `node`.
pub fn layer(node: &str) -> LogLayer {
    LogLayer {
        logger: std::sync::Arc::new(Logger::new(node)),
    }
}

/// See [`layer`].
pub struct LogLayer {
    logger: std::sync::Arc<Logger>,
}

impl LogLayer {
    /// Its logger (to change its level at run time, or read its drop count).
    pub fn logger(&self) -> std::sync::Arc<Logger> {
        self.logger.clone()
    }
}

/// Collects an event's message and fields.
#[derive(Default)]
struct Visitor {
    message: String,
    fields: Vec<(String, String)>,
}

impl tracing::field::Visit for Visitor {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "message" {
            self.message = value.to_owned();
        } else {
            self.fields
                .push((field.name().to_owned(), value.to_owned()));
        }
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        } else {
            self.fields
                .push((field.name().to_owned(), format!("{value:?}")));
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for LogLayer {
    fn on_event(
        &self,
        event: &tracing::Event<'_>,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let meta = event.metadata();
        let level = match *meta.level() {
            tracing::Level::TRACE => Level::Trace,
            tracing::Level::DEBUG => Level::Debug,
            tracing::Level::INFO => Level::Info,
            tracing::Level::WARN => Level::Warn,
            tracing::Level::ERROR => Level::Error,
        };
        if !self.logger.enabled(level) {
            return;
        }
        // The topic's own tracing must not feed back into it.
        if meta.target().starts_with("nerve_transport") || meta.target().starts_with("nerve_shm") {
            return;
        }
        let mut v = Visitor::default();
        event.record(&mut v);
        self.logger.log(
            level,
            meta.file().unwrap_or(""),
            meta.line().unwrap_or(0),
            &v.message,
            v.fields,
        );
    }
}
