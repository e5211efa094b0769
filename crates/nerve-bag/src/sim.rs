//! Deterministic re-simulation: a recording replayed into the scheduler's simulated clock.
//! [`ReplayNode`] is a node that, on each tick, publishes every recorded message whose time
//! (from the recording's start) has come on the scheduler's clock; with the scheduler in
//! deterministic mode, the nodes after it (a higher `order`) see the same messages in the same
//! ticks on every run, so their outputs are bit-identical from one replay to the next.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use nerve::exec::{Context, Node};

use crate::play::{open_channel, send, Channel};
use crate::{mcap_err, BagError};

struct Recorded {
    channel: u16,
    topic: String,
    at_ns: u64,
    data: Vec<u8>,
}

/// Publishes a recording on the scheduler's clock (see the module docs).
pub struct ReplayNode {
    path: PathBuf,
    messages: Vec<Recorded>,
    channels: BTreeMap<u16, Channel>,
    next: usize,
    published: Arc<AtomicU64>,
}

impl ReplayNode {
    /// Loads `path` and opens its topics in `domain` (only `topics`, when not empty).
    pub fn open(path: &Path, domain: u32, topics: &[String]) -> Result<Self, BagError> {
        let mut messages = Vec::new();
        let mut channels = BTreeMap::new();
        let mut start = u64::MAX;
        for m in crate::inspect::messages(path, false)? {
            let m = m.map_err(|e| mcap_err(path, e))?;
            let topic = &m.channel.topic;
            if !topics.is_empty() && !topics.iter().any(|t| nerve::name::canonical(t) == topic) {
                continue;
            }
            if let std::collections::btree_map::Entry::Vacant(v) = channels.entry(m.channel.id) {
                v.insert(open_channel(path, &m.channel, domain)?);
            }
            start = start.min(m.log_time);
            messages.push(Recorded {
                channel: m.channel.id,
                topic: topic.clone(),
                at_ns: m.log_time,
                data: m.data.into_owned(),
            });
        }
        // In time order (stable: equal times keep the file's order).
        messages.sort_by_key(|m| m.at_ns);
        for m in &mut messages {
            m.at_ns -= start;
        }
        Ok(ReplayNode {
            path: path.to_owned(),
            messages,
            channels,
            next: 0,
            published: Arc::default(),
        })
    }

    /// How long the recording lasts (first to last message).
    pub fn length(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.messages.last().map_or(0, |m| m.at_ns))
    }

    /// Messages in the recording (of the chosen topics).
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether the recording holds no message.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// A counter of the messages published so far, readable while the scheduler runs.
    pub fn published(&self) -> Arc<AtomicU64> {
        self.published.clone()
    }
}

impl Node for ReplayNode {
    fn name(&self) -> &str {
        "replay"
    }

    fn tick(&mut self, ctx: &mut Context<'_>) {
        let now = ctx.now().as_nanos() as u64;
        while let Some(m) = self.messages.get(self.next).filter(|m| m.at_ns <= now) {
            if let Some(ch) = self.channels.get(&m.channel) {
                if let Err(e) = send(&self.path, &m.topic, ch, &m.data) {
                    tracing::warn!(error = %e, "a recorded message was not replayed");
                }
            }
            self.next += 1;
            // Relaxed: a count read by whoever watches progress; it publishes nothing else.
            self.published.fetch_add(1, Ordering::Relaxed);
        }
    }
}
