//! Replaying a recording: each topic created again as it was (type, description, QoS), each
//! message published at its recorded time (scaled by the rate), a simulated clock on the clock
//! topic if asked.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nerve::msgs::Clock;
use nerve::raw::RawPublisher;
use nerve::Topic;

use crate::{mcap_err, BagError, TopicMeta, MESSAGE_ENCODING, SCHEMA_ENCODING};
use nerve::msgs::described::TypeDoc;
use nerve_ros2::{Ros2Type, CDR};

/// How to play.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The domain to publish in.
    pub domain: u32,
    /// Speed: 1 is as recorded, 2 twice as fast (more than 0).
    pub rate: f64,
    /// Start again from the beginning at the end, until stopped.
    pub repeat: bool,
    /// Skip this much of the recording's beginning.
    pub start_offset: Duration,
    /// Only these topics (all when empty).
    pub topics: Vec<String>,
    /// Publish the recording's time on the topic `clock` (`nerve/Clock`) this many times a
    /// second.
    pub clock_hz: Option<f64>,
    /// Pause, resume and step from another thread (a terminal's keys).
    pub control: PlayControl,
}

/// Pauses and steps a playback from another thread: `nerve play` binds it to the space bar
/// and the right arrow.
#[derive(Clone, Debug, Default)]
pub struct PlayControl {
    paused: Arc<AtomicBool>,
    steps: Arc<AtomicU64>,
}

impl PlayControl {
    /// Pauses if playing, plays if paused; returns whether it is now paused.
    pub fn toggle(&self) -> bool {
        // Relaxed: a request polled by the player; it hands over no data.
        !self.paused.fetch_xor(true, Relaxed)
    }

    /// While paused, lets exactly one more message through.
    pub fn step(&self) {
        // Relaxed: a count of requests (see `toggle`).
        self.steps.fetch_add(1, Relaxed);
    }

    /// Whether playback is paused.
    pub fn is_paused(&self) -> bool {
        // Relaxed: see `toggle`.
        self.paused.load(Relaxed)
    }

    /// Blocks while paused and no step is pending (a step is consumed); true when it waited
    /// or stepped (the caller restarts its timeline).
    fn wait_while_paused(&self) -> bool {
        let mut waited = false;
        while self.is_paused() {
            waited = true;
            // Relaxed: see `step`; the read-modify-write consumes each step once.
            let taken = self
                .steps
                .fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1));
            if taken.is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        waited
    }
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            domain: nerve::default_domain(),
            rate: 1.0,
            repeat: false,
            start_offset: Duration::ZERO,
            topics: Vec::new(),
            clock_hz: None,
            control: PlayControl::default(),
        }
    }
}

/// Where playback is, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Messages published so far (all passes).
    pub published: u64,
    /// Position in the recording (from its start).
    pub position: Duration,
    /// The recording's length.
    pub length: Duration,
}

/// What the caller says after each message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Continue,
    /// Stop now.
    Stop,
}

pub(crate) struct Channel {
    meta: TopicMeta,
    publisher: RawPublisher,
    /// A standard type written as ROS 2: its conversion back.
    ros2: Option<(Ros2Type, TypeDoc)>,
}

/// Plays `path`; `progress` is called after every message and may stop playback. Returns the
/// messages published.
pub fn play(
    path: &Path,
    opts: &PlayOptions,
    mut progress: impl FnMut(Progress) -> Control,
) -> Result<u64, BagError> {
    let refused = |setting: &str, e: String| BagError::Unreadable {
        path: path.to_owned(),
        reason: format!("{setting}: {e}"),
    };
    nerve::time::checked(opts.rate, 0.001, false, 10_000.0, "a factor")
        .map_err(|e| refused("rate", e))?;
    if let Some(hz) = opts.clock_hz {
        nerve::time::checked_hz(hz).map_err(|e| refused("clock", e))?;
    }
    let (first, last) = span(path)?;
    let length = Duration::from_nanos(last.saturating_sub(first));
    let clock = match opts.clock_hz {
        Some(_) => Some(
            Topic::<Clock>::builder("clock")
                .domain(opts.domain)
                .latest_only()
                .open()?
                .publisher()?,
        ),
        None => None,
    };
    let clock_every = opts.clock_hz.map(nerve::time::period);
    let wanted = |topic: &str| {
        opts.topics.is_empty()
            || opts
                .topics
                .iter()
                .any(|t| nerve::name::canonical(t) == topic)
    };
    let mut channels: BTreeMap<u16, Channel> = BTreeMap::new();
    let mut published = 0u64;
    let start_ns = first.saturating_add(opts.start_offset.as_nanos() as u64);
    loop {
        let mut wall = Instant::now();
        let mut next_clock = wall;
        for m in crate::inspect::messages(path, false)? {
            let m = m.map_err(|e| mcap_err(path, e))?;
            if m.log_time < start_ns || !wanted(&m.channel.topic) {
                continue;
            }
            let offset = Duration::from_nanos(m.log_time - start_ns).div_f64(opts.rate);
            // Paused: wait; a step publishes this message now. Either way the timeline
            // restarts from here, so the messages after it keep their spacing.
            if opts.control.wait_while_paused() {
                wall = Instant::now().checked_sub(offset).unwrap_or(wall);
            }
            let due = wall + offset;
            // Sleep until the message is due, ticking the clock on the way.
            loop {
                let now = Instant::now();
                if let (Some(c), Some(every)) = (&clock, clock_every) {
                    if now >= next_clock {
                        let played = now.duration_since(wall).mul_f64(opts.rate);
                        let sim_ns = start_ns + played.as_nanos() as u64;
                        let _ = c.send(&Clock {
                            sim_ns,
                            real_time_factor: opts.rate,
                        });
                        next_clock += every;
                    }
                }
                if now >= due {
                    break;
                }
                let wake = if clock.is_some() {
                    due.min(next_clock)
                } else {
                    due
                };
                std::thread::sleep(wake.saturating_duration_since(now));
            }
            let ch = match channels.entry(m.channel.id) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(open_channel(path, &m.channel, opts.domain)?)
                }
            };
            send(path, &m.channel.topic, ch, &m.data)?;
            published += 1;
            let p = Progress {
                published,
                position: Duration::from_nanos(m.log_time - first),
                length,
            };
            if progress(p) == Control::Stop {
                return Ok(published);
            }
        }
        if !opts.repeat {
            return Ok(published);
        }
    }
}

/// Log times of the first and last message.
fn span(path: &Path) -> Result<(u64, u64), BagError> {
    if let Some(stats) = crate::inspect::summary(path)?.and_then(|s| s.stats) {
        return Ok((stats.message_start_time, stats.message_end_time));
    }
    let mut span = (u64::MAX, 0);
    for m in crate::inspect::messages(path, false)? {
        let t = m.map_err(|e| mcap_err(path, e))?.log_time;
        span = (span.0.min(t), span.1.max(t));
    }
    Ok((span.0.min(span.1), span.1))
}

pub(crate) fn open_channel(
    path: &Path,
    c: &mcap::Channel<'_>,
    domain: u32,
) -> Result<Channel, BagError> {
    let bad = |reason: String| BagError::Unreadable {
        path: path.to_owned(),
        reason: format!("topic '{}': {reason}", c.topic),
    };
    let meta = TopicMeta::from_metadata(&c.metadata).map_err(bad)?;
    let ros2 = match c.message_encoding.as_str() {
        MESSAGE_ENCODING => None,
        CDR => {
            let t = &meta.stored_type;
            let standard = nerve::msgs::standard(&t.name, t.layout_hash)
                .ok_or_else(|| bad(format!("{} is not a standard type of this nerve", t.name)))?;
            let r = Ros2Type::of(&t.name)
                .ok_or_else(|| bad(format!("{} has no ROS 2 form in this nerve", t.name)))?;
            Some((r, TypeDoc::of(standard)))
        }
        other => {
            return Err(bad(format!(
                "messages in {other:?}: this nerve replays its own recordings (nerve or cdr)"
            )))
        }
    };
    let description = match &c.schema {
        Some(s) if s.encoding == SCHEMA_ENCODING => s.data.to_vec(),
        _ => Vec::new(),
    };
    // A topic that exists (a running graph's) is joined as it is, if it carries the same type;
    // otherwise it is created as it was recorded.
    let topic = meta.open(&c.topic, domain, description)?;
    let publisher = topic.publisher()?;
    Ok(Channel {
        meta,
        publisher,
        ros2,
    })
}

pub(crate) fn send(path: &Path, topic: &str, ch: &Channel, data: &[u8]) -> Result<(), BagError> {
    let bad = |reason: String| BagError::Unreadable {
        path: path.to_owned(),
        reason: format!("topic '{topic}': {reason}"),
    };
    let converted;
    let (fixed, payload) = match &ch.ros2 {
        Some((r, doc)) => {
            converted = r.to_nerve(doc, data).map_err(&bad)?;
            (converted.0.as_slice(), &*converted.1)
        }
        None => ch.meta.split(data).map_err(&bad)?,
    };
    ch.publisher
        .send_parts(fixed, payload)
        .map_err(|e| bad(e.to_string()))
}
