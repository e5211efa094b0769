//! A domain's topics as Foxglove channels. Each topic gets a channel when it appears, in the
//! form Foxglove's panels show natively:
//! - images, compressed images, point clouds, laser scans and transforms as Foxglove's own
//!   schemas (`foxglove.RawImage`, `foxglove.PointCloud`, … in protobuf: [`crate::native`]);
//! - every other standard type as its ROS 2 counterpart (`cdr` with the `ros2msg` schema:
//!   IMU, odometry, poses, … which Foxglove's panels also read natively). With
//!   `ros2_schemas`, every standard type goes out as ROS 2, the same bytes a recording holds,
//!   so one Foxglove layout serves the live robot and its recordings;
//! - the domain's log (`nerve/log`) as `foxglove.Log` (the Log panel);
//! - any other described type as JSON with a JSON Schema made from its description, and a
//!   MessagePack type as JSON.
//!
//! Nothing is read from shared memory while no client subscribes: a channel's reader thread
//! starts at the first subscription and ends a second after the last one went.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use foxglove::messages::{log::Level as FgLevel, Log, Timestamp};
use foxglove::{Channel, ChannelBuilder, ChannelId, Context, RawChannel, Schema};
use nerve::log::{Level, LogRecord, LOG_TOPIC};
use nerve::raw::{RawMessage, RawTopic};
use nerve::values::ValueCodec;
use nerve_ros2::TopicForm;

use crate::native::Native;

/// How long a reader keeps reading with no client subscribed before it ends.
const LINGER: Duration = Duration::from_secs(1);
/// How long a reader waits for a message before it looks at its flags again.
const POLL: Duration = Duration::from_millis(100);

/// How a topic's messages are written for Foxglove.
enum Form {
    /// A standard type as its ROS 2 counterpart.
    Ros2(TopicForm),
    /// A standard type as a Foxglove schema.
    Native(TopicForm, Native),
    /// A described or MessagePack type as JSON.
    Json(ValueCodec),
    /// The domain's log records as `foxglove.Log`.
    Log,
}

/// The channel a topic goes out on.
enum Out {
    Raw(Arc<RawChannel>),
    Log(Channel<Log>),
}

impl Out {
    fn id(&self) -> ChannelId {
        match self {
            Out::Raw(c) => c.id(),
            Out::Log(c) => c.id(),
        }
    }

    fn has_sinks(&self) -> bool {
        match self {
            Out::Raw(c) => c.has_sinks(),
            Out::Log(c) => c.has_sinks(),
        }
    }

    fn close(&self) {
        match self {
            Out::Raw(c) => c.close(),
            Out::Log(c) => c.close(),
        }
    }
}

/// One topic bridged to Foxglove.
pub(crate) struct Bridged {
    /// The topic.
    pub name: String,
    /// The channel's schema name (the ROS 2 type, `foxglove.Log`, or the nerve type).
    pub schema_name: String,
    domain: u32,
    form: Form,
    out: Out,
    reader: Mutex<Option<Reader>>,
    /// Messages sent to Foxglove.
    pub sent: AtomicU64,
    /// Messages that could not be converted (said once per topic, then counted).
    pub bad: AtomicU64,
}

struct Reader {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Bridged {
    /// The channel of topic `name` of `domain`, advertised to every client (`None`, said in
    /// the log, when the topic cannot be joined or its messages cannot be read).
    /// `ros2_schemas`: standard types as ROS 2 only, none as Foxglove's schemas.
    pub fn open(
        ctx: &Arc<Context>,
        domain: u32,
        name: &str,
        ros2_schemas: bool,
    ) -> Option<Arc<Bridged>> {
        let topic = match RawTopic::join(name, domain) {
            Ok(t) => t,
            Err(e) => {
                tracing::debug!(topic = name, error = %e, "not shown in Foxglove");
                return None;
            }
        };
        let type_name = topic.stored_type().name.clone();
        let (form, out, schema_name) = if name == LOG_TOPIC {
            let c = ChannelBuilder::new(name).context(ctx).build::<Log>();
            (Form::Log, Out::Log(c), "foxglove.Log".to_owned())
        } else if let Some(f) = TopicForm::of(&topic) {
            let r = f.ros2();
            let native = Native::of(r.name).filter(|_| !ros2_schemas);
            match native.and_then(|n| Some((n, n.schema()?))) {
                Some((n, schema)) => {
                    let schema_name = schema.name.clone();
                    let c = raw(ctx, name, "protobuf", Some(schema), &type_name)?;
                    (Form::Native(f, n), Out::Raw(c), schema_name)
                }
                None => {
                    let schema = Schema::new(
                        r.name,
                        nerve_ros2::ROS2_SCHEMA_ENCODING,
                        r.schema.as_bytes(),
                    );
                    let c = raw(ctx, name, nerve_ros2::CDR, Some(schema), &type_name)?;
                    let schema_name = r.name.to_owned();
                    (Form::Ros2(f), Out::Raw(c), schema_name)
                }
            }
        } else {
            let codec = match ValueCodec::of(&topic) {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(topic = name, error = %e, "not shown in Foxglove");
                    return None;
                }
            };
            let schema = codec.description().map(|doc| {
                let text = crate::schema::of(doc).to_string();
                Schema::new(type_name.clone(), "jsonschema", text.into_bytes())
            });
            let c = raw(ctx, name, "json", schema, &type_name)?;
            (Form::Json(codec), Out::Raw(c), type_name.clone())
        };
        Some(Arc::new(Bridged {
            name: name.to_owned(),
            schema_name,
            domain,
            form,
            out,
            reader: Mutex::new(None),
            sent: AtomicU64::new(0),
            bad: AtomicU64::new(0),
        }))
    }

    /// The channel's id.
    pub fn channel_id(&self) -> ChannelId {
        self.out.id()
    }

    /// Starts reading the topic, if no reader runs (a client subscribed).
    pub fn ensure_reader(self: &Arc<Self>) {
        let mut reader = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        if reader.as_ref().is_some_and(|r| !r.thread.is_finished()) {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let (me, flag) = (Arc::clone(self), Arc::clone(&stop));
        let spawned = std::thread::Builder::new()
            .name(format!("fg:{}", self.name))
            .spawn(move || me.read(&flag));
        match spawned {
            Ok(thread) => *reader = Some(Reader { stop, thread }),
            Err(e) => tracing::warn!(topic = %self.name, error = %e, "no thread to read it"),
        }
    }

    /// Follows the topic's endpoints: with none but the view's own, its reader stops (the
    /// view keeps no topic alive: the last process to close a topic removes it); with some,
    /// a reader runs while a client subscribes.
    pub fn follow(self: &Arc<Self>, others: bool) {
        if !others {
            self.stop_reader();
        } else if self.out.has_sinks() {
            self.ensure_reader();
        }
    }

    /// Removes the channel from every client and stops the reader.
    pub fn close(&self) {
        self.out.close();
        self.stop_reader();
    }

    fn stop_reader(&self) {
        let reader = self.reader.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(r) = reader {
            // Relaxed: a flag the reader polls; the join orders the rest.
            r.stop.store(true, Relaxed);
            let _ = r.thread.join();
        }
    }

    /// The reader: forwards every message while a client subscribes.
    fn read(&self, stop: &AtomicBool) {
        let topic = match RawTopic::join(&self.name, self.domain) {
            Ok(t) => t,
            Err(e) => return tracing::warn!(topic = %self.name, error = %e, "cannot read it"),
        };
        // The latest message at once, so a slow topic shows without waiting for the next.
        let mut sub = match topic.subscriber(1) {
            Ok(s) => s,
            Err(e) => return tracing::warn!(topic = %self.name, error = %e, "cannot read it"),
        };
        let mut unwatched_since: Option<Instant> = None;
        // Relaxed: see `close`.
        while !stop.load(Relaxed) {
            if self.out.has_sinks() {
                unwatched_since = None;
            } else if unwatched_since.get_or_insert_with(Instant::now).elapsed() > LINGER {
                return;
            }
            match sub.recv_timeout(POLL) {
                Ok(Some(msg)) => self.forward(&msg),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(topic = %self.name, error = %e, "a message could not be read");
                    std::thread::sleep(POLL);
                }
            }
        }
    }

    fn forward(&self, msg: &RawMessage) {
        let sent = match (&self.form, &self.out) {
            (Form::Ros2(f), Out::Raw(c)) => f.encode(msg).map(|b| c.log(&b)),
            (Form::Native(f, n), Out::Raw(c)) => f
                .ros_value(msg)
                .and_then(|(v, payload)| n.encode(&v, payload))
                .map(|b| c.log(&b)),
            (Form::Json(codec), Out::Raw(c)) => codec
                .decode(msg, usize::MAX)
                .map_err(|e| e.to_string())
                .and_then(|v| serde_json::to_vec(&v).map_err(|e| e.to_string()))
                .map(|b| c.log(&b)),
            (Form::Log, Out::Log(c)) => log_of(msg).map(|l| c.log(&l)),
            _ => Err("a form and a channel that do not match".into()),
        };
        match sent {
            // Relaxed: counters, read for display.
            Ok(()) => _ = self.sent.fetch_add(1, Relaxed),
            Err(reason) => {
                if self.bad.fetch_add(1, Relaxed) == 0 {
                    tracing::warn!(topic = %self.name, %reason, "a message could not be shown in Foxglove");
                }
            }
        }
    }
}

fn raw(
    ctx: &Arc<Context>,
    name: &str,
    encoding: &str,
    schema: Option<Schema>,
    type_name: &str,
) -> Option<Arc<RawChannel>> {
    ChannelBuilder::new(name)
        .context(ctx)
        .message_encoding(encoding)
        .schema(schema)
        .add_metadata("nerve.type", type_name)
        .build_raw()
        .inspect_err(|e| tracing::warn!(topic = name, error = %e, "not shown in Foxglove"))
        .ok()
}

/// A log record as `foxglove.Log` (its key/values appended to the message, `k=v`).
fn log_of(msg: &RawMessage) -> Result<Log, String> {
    let RawMessage::Chunk(s) = msg else {
        return Err("a fixed message on the log topic".into());
    };
    let r: LogRecord =
        rmp_serde::from_slice(s.data()).map_err(|e| format!("not a log record: {e}"))?;
    let message = r.text();
    let level = match r.level {
        Level::Trace | Level::Debug => FgLevel::Debug,
        Level::Info => FgLevel::Info,
        Level::Warn => FgLevel::Warning,
        Level::Error => FgLevel::Error,
    };
    Ok(Log {
        timestamp: Some(Timestamp::new(
            (r.stamp_ns / 1_000_000_000).min(u32::MAX as u64) as u32,
            (r.stamp_ns % 1_000_000_000) as u32,
        )),
        level: level as i32,
        message,
        name: r.node,
        file: r.file,
        line: r.line,
    })
}
