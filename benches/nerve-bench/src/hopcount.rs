//! The hidden `__hop-count <case> <hops> [<core>]` role: one send + receive at a time in one
//! thread through nerve's Rust API, the twin of `benches/python/hop_count.py` (the same cases,
//! the same work per hop, the same check of the received data), for the instruction counts of
//! `benches/nerve-bench/instructions.py` (run under callgrind) and their times (run bare).
//! Prints `hops <n> ns_per_hop <mean>`.

use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use nerve::msgs::{
    CmdVel, DType, Encoding, Header, Image, ImageHeader, Imu, Pose2D, Tensor, TensorHeader,
};
use nerve::{Msgpack, Topic};

use crate::ffi::SmallDict;
use crate::ipc::nerve::BENCH_DOMAIN;
use crate::pin;

const W: u32 = 1920;
const H: u32 = 1080;
const SIDE: usize = 200;

/// Hops before the timed ones: every chunk of the pool (8 here) used a few times, so the
/// first touch of its pages (~2 ms for a 6 MB chunk) is not timed.
const WARM: u64 = 32;

/// `hops` hops of `hop(i)` after [`WARM`] first ones; the mean ns of the counted ones.
fn timed(hops: u64, mut hop: impl FnMut(u64) -> Result<()>) -> Result<f64> {
    for i in 0..WARM {
        hop(i)?;
    }
    let t0 = Instant::now();
    for i in WARM..WARM + hops {
        hop(i)?;
    }
    Ok(t0.elapsed().as_nanos() as f64 / hops.max(1) as f64)
}

fn fixed<M>(hops: u64, make: impl Fn(u64) -> M, seq: impl Fn(&M) -> u64) -> Result<f64>
where
    M: nerve::FixedMessage<Kind = nerve::msgs::Fixed>,
{
    let topic = Topic::<M>::builder("hopcount/loop")
        .domain(BENCH_DOMAIN)
        .depth(16)
        .open()?;
    let (publisher, mut subscriber) = (topic.publisher()?, topic.subscriber()?);
    timed(hops, |i| {
        publisher.send(&make(i)).map_err(|e| anyhow!("{e}"))?;
        match subscriber.try_recv()? {
            Some(m) if seq(&m) == i => Ok(()),
            _ => bail!("lost a message"),
        }
    })
}

fn dict(hops: u64) -> Result<f64> {
    let topic = Topic::<Msgpack<SmallDict>>::builder("hopcount/loop")
        .domain(BENCH_DOMAIN)
        .depth(16)
        .open()?;
    let (publisher, mut subscriber) = (topic.publisher()?, topic.subscriber()?);
    timed(hops, |seq| {
        let d = SmallDict {
            x: 1.0,
            y: 2.0,
            cmd: "go".into(),
            seq,
        };
        publisher.send(&d).map_err(|e| anyhow!("{e}"))?;
        match subscriber.try_recv()? {
            Some(m) if m.seq == seq => Ok(()),
            _ => bail!("lost a message"),
        }
    })
}

/// The chunked topic of a case: messages of `bytes` bytes, 4 in the ring, 8 chunks (as the
/// Python side opens it).
fn chunked<M: nerve::Message>(bytes: usize) -> Result<Topic<M>>
where
    M::Kind: nerve::Codec<M>,
{
    Ok(Topic::<M>::builder("hopcount/loop")
        .domain(BENCH_DOMAIN)
        .depth(4)
        .max_message_bytes(bytes + 4096)
        .chunks(8)
        .open()?)
}

/// A 1080p rgb8 frame loaned, its first and last bytes written, sent, received, checked.
fn image(hops: u64) -> Result<f64> {
    let bytes = (W * H * 3) as usize;
    let topic = chunked::<Image>(bytes)?;
    let (publisher, mut subscriber) = (topic.publisher()?, topic.subscriber()?);
    timed(hops, |i| {
        let mut frame = publisher.loan(bytes).map_err(|e| anyhow!("{e}"))?;
        let v = (i % 251) as u8;
        let data = frame.data_mut();
        data[0] = v;
        data[bytes - 1] = v;
        let header = Header::new(i, i, "").map_err(|e| anyhow!("{e}"))?;
        *frame.header_mut() = ImageHeader::new(header, W, H, Encoding::Rgb8);
        frame.send().map_err(|e| anyhow!("{e}"))?;
        let Some(s) = subscriber.try_recv()? else {
            bail!("lost a message")
        };
        let d = s.data();
        if s.header().header.stamp_ns != i || d[0] != v || d[bytes - 1] != v {
            bail!("image check failed");
        }
        Ok(())
    })
}

/// A 200×200 f32 tensor copied once from an array into a loan (what Python's
/// `send_tensor(array)` does), sent, received, its first and last elements checked.
fn tensor(hops: u64) -> Result<f64> {
    let bytes = SIDE * SIDE * 4;
    let topic = chunked::<Tensor>(bytes)?;
    let (publisher, mut subscriber) = (topic.publisher()?, topic.subscriber()?);
    let mut array = vec![1.0f32; SIDE * SIDE];
    let shape = [SIDE as u64, SIDE as u64];
    timed(hops, |i| {
        let v = (i % 251) as f32;
        array[0] = v;
        array[SIDE * SIDE - 1] = v;
        let mut loan = publisher.loan(bytes).map_err(|e| anyhow!("{e}"))?;
        loan.data_mut()
            .copy_from_slice(bytemuck::cast_slice(array.as_slice()));
        let header = Header::new(i, i, "").map_err(|e| anyhow!("{e}"))?;
        *loan.header_mut() =
            TensorHeader::new(header, DType::F32, &shape).map_err(|e| anyhow!("{e}"))?;
        loan.send().map_err(|e| anyhow!("{e}"))?;
        let Some(s) = subscriber.try_recv()? else {
            bail!("lost a message")
        };
        let d = s.data();
        let at =
            |k: usize| f32::from_le_bytes([d[4 * k], d[4 * k + 1], d[4 * k + 2], d[4 * k + 3]]);
        if s.header().header.stamp_ns != i || at(0) != v || at(SIDE * SIDE - 1) != v {
            bail!("tensor check failed");
        }
        Ok(())
    })
}

/// `__hop-count <case> <hops> [<core>]`.
pub fn role_main(args: &[String]) -> Result<()> {
    let (case, hops, core) = match args {
        [case, hops] => (case, hops, None),
        [case, hops, core] => (case, hops, Some(core.parse()?)),
        _ => bail!("usage: __hop-count <case> <hops> [<core>]"),
    };
    if let Some(core) = core {
        pin::pin_current_thread(core)?;
    }
    let hops: u64 = hops.parse()?;
    let ns = match case.as_str() {
        "CmdVel" => fixed(
            hops,
            |i| CmdVel {
                stamp_ns: i,
                linear: 0.5,
                angular: 0.1,
            },
            |m| m.stamp_ns,
        )?,
        "Pose2D" => fixed(
            hops,
            |i| Pose2D {
                x: (i & 0xFFFF_FFFF) as f64,
                y: (i >> 32) as f64,
                theta: 0.5,
            },
            |m| m.x as u64 | ((m.y as u64) << 32),
        )?,
        "Imu" => fixed(
            hops,
            |i| {
                let mut m = Imu::default();
                m.header.stamp_ns = i;
                m.orientation.w = 1.0;
                m.angular_velocity.z = 0.1;
                m
            },
            |m| m.header.stamp_ns,
        )?,
        "dict" => dict(hops)?,
        "Image-1920x1080" => image(hops)?,
        "Tensor-200x200" => tensor(hops)?,
        other => bail!("unknown case `{other}`"),
    };
    println!("hops {hops} ns_per_hop {ns:.1}");
    Ok(())
}
