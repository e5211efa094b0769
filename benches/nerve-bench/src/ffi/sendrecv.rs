//! The seed's in-thread send+receive loop (`__ffi-pingpong loop`): one process, one thread,
//! a send then a receive of the same message, timed in batches, for the fixed messages and the
//! HORUS dicts (MessagePack), from Rust as the C, C++ and Python loops do it in theirs.

use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use nerve::Topic;

use crate::ipc::nerve::BENCH_DOMAIN;
use crate::pin;

/// The seed's small dict as a Rust struct (MessagePack on the wire, as Python's dict).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct SmallDict {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) cmd: String,
    pub(crate) seq: u64,
}

/// HORUS's one-key dict `{"v": 1.0}`, with the sequence number.
#[derive(serde::Serialize, serde::Deserialize)]
struct DictV {
    v: f64,
    seq: u64,
}

/// HORUS's three-key dict `{"x", "y", "z"}`, with the sequence number.
#[derive(serde::Serialize, serde::Deserialize)]
struct DictXyz {
    x: f64,
    y: f64,
    z: f64,
    seq: u64,
}

/// `batches` batches of `per` calls of `one(i)` (one send + receive of message `i`); each
/// batch's mean ns per call.
fn batches_of(
    batches: usize,
    per: usize,
    mut one: impl FnMut(u64) -> Result<()>,
) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(batches);
    let mut i = 0u64;
    for _ in 0..batches {
        let t0 = Instant::now();
        for _ in 0..per {
            one(i)?;
            i += 1;
        }
        out.push(t0.elapsed().as_nanos() as f64 / per as f64);
    }
    Ok(out)
}

/// `per` sends + receives of `M` in this thread per batch; each batch's mean ns.
fn send_recv<M>(
    prefix: &str,
    batches: usize,
    per: usize,
    make: impl Fn(u64) -> M,
    seq: impl Fn(&M) -> u64,
) -> Result<Vec<f64>>
where
    M: nerve::FixedMessage<Kind = nerve::msgs::Fixed>,
{
    let topic = Topic::<M>::builder(&format!("{prefix}/loop"))
        .domain(BENCH_DOMAIN)
        .depth(16)
        .open()?;
    let (publisher, mut subscriber) = (topic.publisher()?, topic.subscriber()?);
    batches_of(batches, per, |i| {
        publisher.send(&make(i)).map_err(|e| anyhow!("{e}"))?;
        match subscriber.try_recv()? {
            Some(r) if seq(&r) == i => Ok(()),
            _ => bail!("send+recv lost a message"),
        }
    })
}

/// [`send_recv`] for a dict shape `D`, as MessagePack (`Topic<Msgpack<D>>`).
fn dict_send_recv<D>(
    prefix: &str,
    batches: usize,
    per: usize,
    make: impl Fn(u64) -> D,
    seq: impl Fn(&D) -> u64,
) -> Result<Vec<f64>>
where
    D: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let topic = Topic::<nerve::Msgpack<D>>::builder(&format!("{prefix}/loop"))
        .domain(BENCH_DOMAIN)
        .depth(16)
        .open()?;
    let (publisher, mut subscriber) = (topic.publisher()?, topic.subscriber()?);
    batches_of(batches, per, |i| {
        publisher.send(&make(i)).map_err(|e| anyhow!("{e}"))?;
        match subscriber.try_recv()? {
            Some(r) if seq(&r) == i => Ok(()),
            _ => bail!("send+recv lost a message"),
        }
    })
}

/// `loop <prefix> CmdVel|Pose2D|Imu|dict|dict-v|dict-xyz <batches> <per_batch> <core>`: the seed's send+recv.
pub(super) fn loop_main(args: &[String]) -> Result<()> {
    let [_, prefix, message, batches, per, core] = args else {
        bail!("usage: __ffi-pingpong loop <prefix> CmdVel|Pose2D|Imu|dict|dict-v|dict-xyz <batches> <per_batch> <core>");
    };
    pin::pin_current_thread(core.parse()?)?;
    let (batches, per): (usize, usize) = (batches.parse()?, per.parse()?);
    let out = match message.as_str() {
        "CmdVel" => send_recv(
            prefix,
            batches,
            per,
            |i| nerve::msgs::CmdVel {
                stamp_ns: i,
                ..Default::default()
            },
            |m| m.stamp_ns,
        )?,
        "Imu" => send_recv(
            prefix,
            batches,
            per,
            |i| {
                let mut m = nerve::msgs::Imu::default();
                m.header.seq = i;
                m
            },
            |m| m.header.seq,
        )?,
        "Pose2D" => send_recv(
            prefix,
            batches,
            per,
            |i| nerve::msgs::Pose2D {
                x: i as f64,
                y: 2.0,
                theta: 0.5,
            },
            |m| m.x as u64,
        )?,
        "dict" => dict_send_recv(
            prefix,
            batches,
            per,
            |seq| SmallDict {
                x: 1.0,
                y: 2.0,
                cmd: "go".into(),
                seq,
            },
            |d| d.seq,
        )?,
        "dict-v" => dict_send_recv(prefix, batches, per, |seq| DictV { v: 1.0, seq }, |d| d.seq)?,
        "dict-xyz" => dict_send_recv(
            prefix,
            batches,
            per,
            |seq| DictXyz {
                x: 1.0,
                y: 2.0,
                z: 3.0,
                seq,
            },
            |d| d.seq,
        )?,
        other => bail!("unknown message `{other}`"),
    };
    let line: Vec<String> = out.iter().map(|v| format!("{v:.2}")).collect();
    println!("samples {}", line.join(" "));
    Ok(())
}
