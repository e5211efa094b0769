//! `nerve topic hz | bw | delay`: a topic's rate (from its sequence counter, without
//! subscribing), its bandwidth and its delay (header stamp to receipt), in one-second windows.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use nerve::msgs::dynamic::Value;
use nerve::raw::{RawMessage, RawTopic};
use nerve::registry::{self, TopicInfo};
use nerve::values::ValueCodec;

/// Topic `name` as the registry sees it (a leading `/` accepted), or an error saying there is
/// none.
pub fn find(domain: u32, name: &str) -> anyhow::Result<TopicInfo> {
    let name = nerve::name::canonical(name);
    registry::list(domain)
        .into_iter()
        .find(|t| t.name == name)
        .ok_or_else(|| {
            anyhow::anyhow!("no topic '{name}' in domain {domain} (see `nerve topic list`)")
        })
}

/// How many messages topic `name` has published; an error if it is gone or damaged.
fn published(domain: u32, name: &str) -> anyhow::Result<u64> {
    let t = find(domain, name)?;
    match t.error {
        Some(e) => anyhow::bail!(
            "topic '{name}' in domain {domain} is damaged ({e}); stop its processes and run `nerve clean`"
        ),
        None => Ok(t.published),
    }
}

/// Calls `report` after each one-second window until `duration` has passed (or for ever).
fn windows(
    duration: Option<Duration>,
    mut window: impl FnMut(Instant) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut n = 1u32;
    loop {
        window(start + Duration::from_secs(1) * n)?;
        n += 1;
        if duration.is_some_and(|d| start.elapsed() + Duration::from_millis(5) >= d) {
            return Ok(());
        }
    }
}

pub fn hz(domain: u32, name: &str, duration: Option<Duration>) -> anyhow::Result<()> {
    let mut last = (Instant::now(), published(domain, name)?);
    windows(duration, |end| {
        if let Some(wait) = end.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let now = (Instant::now(), published(domain, name)?);
        match now.1.checked_sub(last.1) {
            Some(n) => {
                let hz = n as f64 / (now.0 - last.0).as_secs_f64();
                outln!("{name}: {hz:.1} Hz")?;
            }
            // The count went down: the topic was removed and created again.
            None => outln!("{name}: the topic was created again; measuring anew")?,
        }
        last = now;
        Ok(())
    })
}

/// Bytes of a received message as it crosses (a chunk's header and payload).
fn size(msg: &RawMessage<'_>) -> usize {
    match msg {
        RawMessage::Fixed(b) => b.len(),
        RawMessage::Chunk(s) => s.header_len() + s.data_len(),
    }
}

fn human(bytes: f64) -> String {
    match bytes {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.2} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.2} KB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}

pub fn bw(domain: u32, name: &str, duration: Option<Duration>) -> anyhow::Result<()> {
    let topic = RawTopic::join(name, domain).map_err(anyhow::Error::new)?;
    let mut sub = topic
        .subscriber(0)
        .with_context(|| format!("cannot subscribe to topic '{name}'"))?;
    let mut window_start = Instant::now();
    windows(duration, |end| {
        let (mut n, mut total, mut min, mut max) = (0u64, 0usize, usize::MAX, 0usize);
        while let Some(wait) = end.checked_duration_since(Instant::now()) {
            if let Some(msg) = sub.recv_timeout(wait).context("receiving")? {
                let s = size(&msg);
                (n, total, min, max) = (n + 1, total + s, min.min(s), max.max(s));
            }
        }
        let secs = window_start.elapsed().as_secs_f64();
        window_start = Instant::now();
        if n == 0 {
            return outln!("{name}: no messages");
        }
        outln!(
            "{name}: {}/s from {n} messages (mean {}, min {}, max {})",
            human(total as f64 / secs),
            human(total as f64 / n as f64),
            human(min as f64),
            human(max as f64)
        )
    })
}

/// The stamp (`CLOCK_MONOTONIC` ns) a message carries: `header.stamp_ns` or `stamp_ns`.
fn stamp(v: &Value) -> Option<u64> {
    let s = v.path("header.stamp_ns").or_else(|| v.get("stamp_ns"))?;
    match *s {
        Value::UInt(u) => Some(u),
        Value::Int(i) => u64::try_from(i).ok(),
        _ => None,
    }
}

pub fn delay(domain: u32, name: &str, duration: Option<Duration>) -> anyhow::Result<()> {
    let topic = RawTopic::join(name, domain).map_err(anyhow::Error::new)?;
    let codec = ValueCodec::of(&topic).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut sub = topic
        .subscriber(0)
        .with_context(|| format!("cannot subscribe to topic '{name}'"))?;
    windows(duration, |end| {
        let mut delays: Vec<f64> = Vec::new();
        while let Some(wait) = end.checked_duration_since(Instant::now()) {
            let Some(msg) = sub.recv_timeout(wait).context("receiving")? else {
                continue;
            };
            let now = nerve::time::now_ns();
            // Decode no array elements: only the header is wanted.
            let value = codec.decode(&msg, 0).map_err(|e| anyhow::anyhow!("{e}"))?;
            let Some(s) = stamp(&value) else {
                anyhow::bail!(
                    "topic '{name}' carries no stamp (no `header.stamp_ns` or `stamp_ns` field)"
                );
            };
            if s > now.saturating_add(1_000_000_000) {
                anyhow::bail!(
                    "topic '{name}': stamps are ahead of this machine's monotonic clock; `topic delay` needs stamps from nerve::time::now_ns() (CLOCK_MONOTONIC)"
                );
            }
            if s != 0 {
                delays.push(now.saturating_sub(s) as f64 / 1e6);
            }
        }
        if delays.is_empty() {
            return outln!("{name}: no stamped messages");
        }
        let n = delays.len() as f64;
        let mean = delays.iter().sum::<f64>() / n;
        let std = (delays.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n).sqrt();
        let (min, max) = delays
            .iter()
            .fold((f64::MAX, 0f64), |(a, b), &d| (a.min(d), b.max(d)));
        outln!(
            "{name}: average delay {mean:.3} ms  min {min:.3} ms  max {max:.3} ms  std dev {std:.3} ms  window {}",
            delays.len()
        )
    })
}
