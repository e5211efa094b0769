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

use nerve_transport::{Msgpack, Publisher, Subscriber, Topic};
use serde::{Deserialize, Serialize};

/// The domain's log topic.
pub const LOG_TOPIC: &str = "nerve/log";
/// Where level changes go (`nerve log --set-level NODE=LEVEL`): every [`Logger`] of the
/// domain reads it at its next log call.
pub const LOG_LEVEL_TOPIC: &str = "nerve/log_level";
/// Bytes of a node name (or pattern) in a [`LogLevelMsg`].
pub const LOG_LEVEL_NODE_LEN: usize = 120;

/// A level change on [`LOG_LEVEL_TOPIC`]: 128 bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve_transport::msgs::Message)]
#[message(
    crate = "nerve_transport::msgs",
    name = "nerve/LogLevel",
    default = "zeroed"
)]
#[repr(C)]
pub struct LogLevelMsg {
    /// Bytes of `node` in use.
    pub node_len: u32,
    /// The new level (0 trace … 4 error).
    pub level: u32,
    /// Which loggers: a node's name, a namespace ending in `/`, or `*` for all.
    pub node: [u8; LOG_LEVEL_NODE_LEN],
}

impl LogLevelMsg {
    /// A change of `pattern`'s loggers to `level` (`None` when the pattern is too long).
    pub fn new(pattern: &str, level: Level) -> Option<LogLevelMsg> {
        let pattern = pattern.trim_start_matches('/');
        if pattern.is_empty() || pattern.len() > LOG_LEVEL_NODE_LEN {
            return None;
        }
        let mut node = [0u8; LOG_LEVEL_NODE_LEN];
        node[..pattern.len()].copy_from_slice(pattern.as_bytes());
        Some(LogLevelMsg {
            node_len: pattern.len() as u32,
            level: level as u32,
            node,
        })
    }

    /// Whether it applies to node `name`.
    pub fn applies_to(&self, name: &str) -> bool {
        let n = (self.node_len as usize).min(LOG_LEVEL_NODE_LEN);
        let Ok(p) = std::str::from_utf8(&self.node[..n]) else {
            return false;
        };
        p == "*" || p == name || (p.ends_with('/') && name.starts_with(p))
    }
}

/// Publishes a level change for the loggers `pattern` names in `domain`.
pub fn set_level(domain: u32, pattern: &str, level: Level) -> Result<(), String> {
    let msg = LogLevelMsg::new(pattern, level).ok_or_else(|| {
        format!("a node pattern is 1 to {LOG_LEVEL_NODE_LEN} bytes, got {pattern:?}")
    })?;
    let topic = Topic::<LogLevelMsg>::builder(LOG_LEVEL_TOPIC)
        .domain(domain)
        .depth(16)
        .open()
        .map_err(|e| e.to_string())?;
    let publisher = topic.publisher().map_err(|e| e.to_string())?;
    publisher.send(&msg).map_err(|e| e.to_string())
}
/// Records the log topic keeps for a reader that starts late (`nerve log` shows them).
pub const LOG_DEPTH: u32 = 1024;
/// Largest record on the log topic, in bytes (a longer message is cut, saying so).
pub const LOG_MAX_BYTES: usize = 16 << 10;

/// The log topic of `domain`, as every logger and reader opens it (its chunks sized for
/// [`LOG_MAX_BYTES`] records: the whole topic takes ~33 MB of shared memory).
pub fn log_topic(domain: u32) -> Result<Topic<Msgpack<LogRecord>>, nerve_transport::OpenError> {
    Topic::<Msgpack<LogRecord>>::builder(LOG_TOPIC)
        .domain(domain)
        .depth(LOG_DEPTH)
        .max_message_bytes(LOG_MAX_BYTES)
        .open()
}

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
            "trace" => Level::Trace,
            "debug" => Level::Debug,
            "info" => Level::Info,
            "warn" | "warning" => Level::Warn,
            "error" => Level::Error,
            n => return n.parse().ok().and_then(Level::from_number),
        })
    }

    /// From its number, 0 (trace) to 4 (error).
    pub fn from_number(v: u32) -> Option<Level> {
        Some(match v {
            0 => Level::Trace,
            1 => Level::Debug,
            2 => Level::Info,
            3 => Level::Warn,
            4 => Level::Error,
            _ => return None,
        })
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

impl LogRecord {
    /// The message with its key/values appended (`wheel slip wheel=2`), as views show it.
    pub fn text(&self) -> String {
        let mut t = self.message.clone();
        for (k, v) in &self.fields {
            t.push_str(&format!(" {k}={v}"));
        }
        t
    }
}

/// The level-change topic and a logger's subscriber to it.
type Control = (Topic<LogLevelMsg>, Subscriber<LogLevelMsg>);

/// Publishes a node's records on the log topic; cheap to share (`&Logger` from any thread).
pub struct Logger {
    node: String,
    domain: u32,
    min: AtomicU8,
    dropped: AtomicU64,
    /// Opened at the first record (a process that never logs opens nothing).
    publisher: OnceLock<Option<Mutex<Publisher<Msgpack<LogRecord>>>>>,
    /// Level changes, read at each log call (opened with the publisher; it keeps the last
    /// changes, so a node started after one adopts it).
    control: OnceLock<Option<Mutex<Control>>>,
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
            control: OnceLock::new(),
        }
    }

    /// The node name records carry.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The lowest level published (changeable while running, from any thread).
    pub fn level(&self) -> Level {
        // Relaxed: a threshold read alone; no data depends on it.
        Level::from_number(u32::from(self.min.load(Relaxed))).unwrap_or(Level::Error)
    }

    /// Sets the lowest level published.
    pub fn set_level(&self, level: Level) {
        // Relaxed: see `level`.
        self.min.store(level as u8, Relaxed);
    }

    /// Whether a record of `level` would be published (level changes sent on
    /// [`LOG_LEVEL_TOPIC`] since the last call apply first).
    pub fn enabled(&self, level: Level) -> bool {
        self.follow_changes();
        level >= self.level()
    }

    /// Applies the level changes that name this logger.
    fn follow_changes(&self) {
        let control = self.control.get_or_init(|| {
            let topic = Topic::<LogLevelMsg>::builder(LOG_LEVEL_TOPIC)
                .domain(self.domain)
                .depth(16)
                .open()
                .ok()?;
            let sub = topic.subscriber_with_history(16).ok()?;
            Some(Mutex::new((topic, sub)))
        });
        let Some(mut c) = control.as_ref().and_then(|c| c.try_lock().ok()) else {
            return;
        };
        while let Ok(Some(m)) = c.1.try_recv() {
            if m.applies_to(&self.node) {
                // A level out of range (another program's bytes) is ignored.
                if let Some(l) = Level::from_number(m.level) {
                    self.set_level(l);
                }
            }
        }
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
                log_topic(self.domain)
                    .ok()?
                    .publisher()
                    .ok()
                    .map(Mutex::new)
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
        if self.enabled(level) {
            self.publish(level, file, line, message, fields);
        }
    }

    /// Publishes a record whose level was checked already.
    fn publish(
        &self,
        level: Level,
        file: &str,
        line: u32,
        message: &str,
        fields: Vec<(String, String)>,
    ) {
        // Room for the record's other fields (node, file, key/values) in LOG_MAX_BYTES.
        let room = LOG_MAX_BYTES / 2;
        let message = if message.len() > room {
            let mut cut = room;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}… [{} bytes cut]", &message[..cut], message.len() - cut)
        } else {
            message.to_owned()
        };
        let record = LogRecord {
            stamp_ns: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            level,
            node: self.node.clone(),
            pid: std::process::id(),
            file: file.to_owned(),
            line,
            message,
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
        self.logger.publish(
            level,
            meta.file().unwrap_or(""),
            meta.line().unwrap_or(0),
            &v.message,
            v.fields,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_changes_from_hostile_bytes_are_bounded() {
        let mut m = LogLevelMsg::new("r1/", Level::Debug).unwrap();
        assert!(m.applies_to("r1/planner") && !m.applies_to("r2/planner"));
        m.node_len = u32::MAX; // past the array: read as the whole array, which matches nothing
        assert!(!m.applies_to("r1/planner"));
        m.node_len = 2;
        m.node[..2].copy_from_slice(&[0xff, 0xfe]); // not UTF-8
        assert!(!m.applies_to("r1/planner"));
        assert_eq!(Level::from_number(99), None);
        assert!(LogLevelMsg::new("", Level::Info).is_none());
        assert!(LogLevelMsg::new(&"x".repeat(LOG_LEVEL_NODE_LEN + 1), Level::Info).is_none());
        assert_eq!(Level::parse("3"), Some(Level::Warn));
        assert_eq!(Level::parse("7"), None);
    }
}
