//! The recorder: an ordinary subscriber of every selected topic (it never slows a best-effort
//! publisher; what it misses is counted and written into the file), following the domain's
//! topic watch so topics that appear later are recorded too. Chunks are flushed at least once
//! a second, so a recorder killed with `kill -9` leaves a file whose complete chunks
//! `nerve bag recover` restores.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcap::records::{MessageHeader, Metadata};
use mcap::write::NoSeek;
use mcap::{Compression, WriteOptions, Writer};

use crate::direct::DirectFile;
use nerve::plumbing::TopicKind;
use nerve::raw::{RawMessage, RawSubscriber, RawTopic};
use nerve::registry::{self, Event, TopicInfo, Watch};

use crate::{mcap_err, BagError, TopicMeta, LOSS_METADATA, PROFILE};
use nerve_ros2::TopicForm;

/// Which topics to record.
#[derive(Clone, Debug)]
pub enum Selection {
    /// Every topic of the domain but nerve's plumbing ([`TopicKind::is_plumbing`]: the log,
    /// log level changes and the e-stop are recorded).
    All,
    /// These topics (leading `/` accepted), when they exist or once they appear.
    Topics(Vec<String>),
    /// Topics whose name matches.
    Matching(regex::Regex),
}

impl Selection {
    /// Whether topic `info` is recorded: nerve's plumbing only when named.
    fn wants(&self, info: &TopicInfo) -> bool {
        let name = info.name.as_str();
        let plumbing = TopicKind::of_info(info).is_plumbing();
        match self {
            Selection::All => !plumbing,
            Selection::Topics(t) => t.iter().any(|x| nerve::name::canonical(x) == name),
            Selection::Matching(r) => r.is_match(name) && !plumbing,
        }
    }
}

/// How to record.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    /// The domain.
    pub domain: u32,
    /// What to record.
    pub selection: Selection,
    /// The file (with a split, `NAME_0.mcap`, `NAME_1.mcap`, ...).
    pub output: PathBuf,
    /// zstd (default), lz4 or none.
    pub compression: Option<Compression>,
    /// Start a new file once this many bytes were written to one.
    pub split_bytes: Option<u64>,
    /// Start a new file after this long.
    pub split_duration: Option<Duration>,
    /// Write every topic in nerve's own encoding, standard types included (exact bytes, for
    /// replay into nerve only; default: standard types as their ROS 2 counterparts).
    pub native: bool,
}

/// What a recording holds so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordStats {
    /// Topics recorded.
    pub topics: usize,
    /// Messages written.
    pub messages: u64,
    /// Message bytes written (before compression).
    pub bytes: u64,
    /// Messages the recorder missed (overwritten before it read them), all topics.
    pub lost: u64,
    /// The files written (one unless split).
    pub files: Vec<PathBuf>,
}

struct Recorded {
    sub: RawSubscriber,
    /// For a standard type written as ROS 2: its ROS 2 form.
    ros2: Option<TopicForm>,
    meta: TopicMeta,
    schema: Vec<u8>,
    /// The channel in the current file.
    channel: Option<u16>,
    messages: u64,
    lost: u64,
    /// Messages that could not be written as ROS 2 (counted in `lost`).
    lost_conversions: u64,
}

/// A running recording; [`Recorder::poll`] drains the topics into the file.
pub struct Recorder {
    opts: RecordOptions,
    watch: Watch,
    topics: BTreeMap<String, Recorded>,
    writer: Option<Writer<NoSeek<DirectFile>>>,
    path: PathBuf,
    file_started: Instant,
    file_bytes: u64,
    last_flush: Instant,
    stats: RecordStats,
    sequence: u32,
    /// Read every topic's loss counters in this poll (the last one).
    sweep_losses: bool,
}

/// How long a recording loop sleeps when a [`Recorder::poll`] found nothing: long enough that
/// waking costs little (each wake is a look at every topic), short enough that a 16-deep ring
/// at 1 kHz never laps the recorder.
pub const IDLE_SLEEP: Duration = Duration::from_millis(2);

/// How long a chunk may stay in memory before it is written (what a `kill -9` can lose).
const FLUSH_EVERY: Duration = Duration::from_secs(1);

impl Recorder {
    /// Starts recording: opens the first file and subscribes to the selected topics that exist.
    pub fn start(opts: RecordOptions) -> Result<Self, BagError> {
        let watch = registry::watch(opts.domain).map_err(|e| BagError::Unreadable {
            path: opts.output.clone(),
            reason: format!("cannot watch domain {}: {e}", opts.domain),
        })?;
        let mut r = Recorder {
            path: PathBuf::new(),
            watch,
            topics: BTreeMap::new(),
            writer: None,
            file_started: Instant::now(),
            file_bytes: 0,
            last_flush: Instant::now(),
            stats: RecordStats::default(),
            sequence: 0,
            sweep_losses: false,
            opts,
        };
        r.open_file()?;
        // Topics there now: from their next message on. Topics that appear later are read
        // from their first message (what they hold when the recorder joins them).
        for t in registry::list(r.opts.domain) {
            r.add_topic(&t, false);
        }
        Ok(r)
    }

    fn file_path(&self) -> PathBuf {
        let split = self.opts.split_bytes.is_some() || self.opts.split_duration.is_some();
        if !split {
            return self.opts.output.clone();
        }
        let stem = self.opts.output.with_extension("");
        PathBuf::from(format!(
            "{}_{}.mcap",
            stem.display(),
            self.stats.files.len()
        ))
    }

    fn open_file(&mut self) -> Result<(), BagError> {
        let path = self.file_path();
        let file = DirectFile::create(&path).map_err(|source| BagError::Io {
            path: path.clone(),
            source,
        })?;
        // Written front to back (no seeking back): what lets the file bypass the page cache.
        let writer = WriteOptions::new()
            .profile(PROFILE)
            .library(concat!("nerve ", env!("CARGO_PKG_VERSION")))
            .compression(self.opts.compression)
            .disable_seeking(true)
            .create(NoSeek::new(file))
            .map_err(|e| mcap_err(&path, e))?;
        for t in self.topics.values_mut() {
            t.channel = None;
        }
        self.writer = Some(writer);
        self.stats.files.push(path.clone());
        self.path = path;
        self.file_started = Instant::now();
        self.file_bytes = 0;
        Ok(())
    }

    fn add_topic(&mut self, info: &TopicInfo, from_first: bool) {
        let name = info.name.as_str();
        if self.topics.contains_key(name) || !self.opts.selection.wants(info) {
            return;
        }
        let topic = match RawTopic::join(name, self.opts.domain) {
            Ok(t) => t,
            Err(e) => return tracing::warn!(topic = name, error = %e, "not recorded"),
        };
        let history = if from_first { topic.depth() } else { 0 };
        let sub = match topic.subscriber(history) {
            Ok(s) => s,
            Err(e) => return tracing::warn!(topic = name, error = %e, "not recorded"),
        };
        let ros2 = if self.opts.native {
            None
        } else {
            TopicForm::of(&topic)
        };
        self.topics.insert(
            name.to_owned(),
            Recorded {
                sub,
                ros2,
                meta: TopicMeta::of(&topic),
                schema: topic.description_bytes(),
                channel: None,
                messages: 0,
                lost: 0,
                lost_conversions: 0,
            },
        );
        self.stats.topics = self.topics.len();
    }

    /// Picks up new topics, then writes every message waiting on every topic. Returns how many
    /// it wrote (0: the caller may sleep a little).
    pub fn poll(&mut self) -> Result<usize, BagError> {
        while let Some(event) = self.watch.try_next() {
            if let Event::TopicAppeared(info) = event {
                self.add_topic(&info, true);
            }
        }
        // The map is taken out while its topics are drained (each drain writes through the
        // rest of `self`), and put back whatever happens.
        let mut topics = std::mem::take(&mut self.topics);
        let mut written = 0;
        let mut drained = Ok(());
        for (name, t) in topics.iter_mut() {
            match self.drain(name, t) {
                Ok(n) => written += n,
                Err(e) => {
                    drained = Err(e);
                    break;
                }
            }
        }
        self.topics = topics;
        drained?;
        let split_now = self.opts.split_bytes.is_some_and(|b| self.file_bytes >= b)
            || self
                .opts
                .split_duration
                .is_some_and(|d| self.file_started.elapsed() >= d);
        if split_now {
            self.close_file()?;
            self.open_file()?;
        } else if self.last_flush.elapsed() >= FLUSH_EVERY {
            self.last_flush = Instant::now();
            if let Some(w) = self.writer.as_mut() {
                w.flush().map_err(|e| mcap_err(&self.path, e))?;
            }
        }
        Ok(written)
    }

    /// Writes the messages waiting on topic `name` (`t`, out of `self.topics` meanwhile).
    fn drain(&mut self, name: &str, t: &mut Recorded) -> Result<usize, BagError> {
        let writer = self
            .writer
            .as_mut()
            .expect("a file is open while recording");
        let channel = match t.channel {
            Some(c) => c,
            None => {
                let c = crate::add_channel(
                    writer,
                    name,
                    &t.meta,
                    &t.schema,
                    t.ros2.as_ref().map(TopicForm::ros2),
                )
                .map_err(|e| mcap_err(&self.path, e))?;
                t.channel = Some(c);
                c
            }
        };
        let mut n = 0;
        loop {
            let msg = match t.sub.try_recv() {
                Ok(Some(m)) => m,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(topic = name, error = %e, "a message could not be read");
                    break;
                }
            };
            let time = now_ns();
            let cdr;
            let bytes = match (&t.ros2, &msg) {
                (Some(form), m) => match form.encode(m) {
                    Ok(b) => {
                        cdr = b;
                        cdr.as_slice()
                    }
                    Err(reason) => {
                        // A message that does not convert (a code ROS 2 has no name for):
                        // counted as lost, said once per topic.
                        if t.lost_conversions == 0 {
                            tracing::warn!(topic = name, %reason, "a message could not be written as ROS 2");
                        }
                        t.lost_conversions += 1;
                        continue;
                    }
                },
                (None, RawMessage::Fixed(b)) => *b,
                (None, RawMessage::Chunk(s)) => s.chunk_bytes(),
            };
            let header = MessageHeader {
                channel_id: channel,
                sequence: self.sequence,
                log_time: time,
                publish_time: time,
            };
            writer
                .write_to_known_channel(&header, bytes)
                .map_err(|e| mcap_err(&self.path, e))?;
            self.sequence = self.sequence.wrapping_add(1);
            self.file_bytes += bytes.len() as u64;
            self.stats.bytes += bytes.len() as u64;
            self.stats.messages += 1;
            t.messages += 1;
            n += 1;
        }
        // Losses show when messages arrive after them (a subscriber counts the gap then), so
        // a quiet topic is not asked (1000 topics polled every half millisecond).
        if n > 0 || self.sweep_losses {
            let st = t.sub.stats();
            let lost = st.lost + st.dropped + t.lost_conversions;
            self.stats.lost += lost - t.lost;
            t.lost = lost;
        }
        Ok(n)
    }

    /// What was recorded so far.
    pub fn stats(&self) -> &RecordStats {
        &self.stats
    }

    /// Messages recorded and lost so far, by topic.
    pub fn per_topic(&self) -> Vec<(String, u64, u64)> {
        self.topics
            .iter()
            .map(|(n, t)| (n.clone(), t.messages, t.lost))
            .collect()
    }

    fn close_file(&mut self) -> Result<(), BagError> {
        let Some(mut w) = self.writer.take() else {
            return Ok(());
        };
        let loss: BTreeMap<String, String> = self
            .topics
            .iter()
            .map(|(n, t)| (n.clone(), t.lost.to_string()))
            .collect();
        w.write_metadata(&Metadata {
            name: LOSS_METADATA.to_owned(),
            metadata: loss,
        })
        .map_err(|e| mcap_err(&self.path, e))?;
        w.finish().map_err(|e| mcap_err(&self.path, e))?;
        w.into_inner()
            .into_inner()
            .finish()
            .map_err(|source| BagError::Io {
                path: self.path.clone(),
                source,
            })
    }

    /// Writes what is still waiting, the loss counts and the file's summary (a valid, indexed
    /// file). Returns what was recorded.
    pub fn finish(mut self) -> Result<RecordStats, BagError> {
        self.sweep_losses = true;
        self.poll()?;
        self.close_file()?;
        Ok(self.stats.clone())
    }
}

/// Nanoseconds since the Unix epoch (MCAP's log time).
fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Whether `path` looks like an MCAP file by its name.
pub fn is_mcap(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "mcap")
}
