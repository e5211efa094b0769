//! `nerve`: this project's topics, through the public API only.
//!
//! Which nerve path carries the bytes (the row's `message` and `variant` say which):
//! - below 4 KiB, a fixed-size Pod message of exactly the payload size, copied into the ring
//!   slot by `publisher.send(&msg)` and out of it by `try_recv`/`recv_timeout` (bench-local types
//!   `Bytes16` … `Bytes1024`; the seeds' fixed types `CmdVel`, `BatteryState`, `Imu`,
//!   `Odometry` are used as themselves, their bytes overwritten with the benchmark pattern);
//! - from 4 KiB on (`message` = `bytes-chunk`), the chunk pool (what a nerve user picks for
//!   payloads that size: a copy through the ring costs a cache-line transfer per 64 bytes): `publisher.loan(n)` → write the
//!   header and the data in place → `loan.send()`; the subscriber reads the `Sample` in place.
//!   `LaserScan` (chunked in nerve) always takes this path with its real header and 360 `f32`
//!   ranges, `PointCloud-N` with its real header and N `PointXYZ` points.
//!
//! Same-thread and cross-thread runs open the topics `in_process()` (heap ring, nerve's
//! in-process path); cross-process runs use `/dev/shm` segments in a bench-only domain, which
//! the ping side unlinks when it closes.
//!
//! Poll mode spins on `try_recv`; blocking mode calls `recv_timeout`: with nerve's default
//! adaptive wait (spin [`nerve::DEFAULT_SPIN`], then futex) for [`SystemKind::Nerve`], and with
//! `set_spin(Duration::ZERO)` on every subscriber (straight to the futex, as the peers' blocking
//! waits do) for [`SystemKind::NerveFutex`]. `variant` says which.

use super::payload::{self, Check};
use super::{
    check_echo, check_message, Deadline, EchoSide, Mode, PingSide, Spec, StepTracker, SystemKind,
    Transport, TIMEOUT,
};
use anyhow::{anyhow, bail, Result};
use nerve::msgs::{self, ChunkedMessage, FixedMessage, Message};
use nerve::{Codec, Publisher, Subscriber, Topic, TransportPath};
use std::marker::PhantomData;
use std::time::Duration;

/// Chunked path from this size on; fixed-size Pod messages below it.
pub const CHUNK_FROM: usize = 4 << 10;

/// The domain every bench topic lives in, away from the developers' domain 0.
pub const BENCH_DOMAIN: u32 = 0x6e62; // "nb"

/// 16 bench bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Bytes16", default = "zeroed")]
#[repr(C)]
pub struct Bytes16 {
    pub data: [u8; 16],
}
/// 64 bench bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Bytes64", default = "zeroed")]
#[repr(C)]
pub struct Bytes64 {
    pub data: [u8; 64],
}
/// 256 bench bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Bytes256", default = "zeroed")]
#[repr(C)]
pub struct Bytes256 {
    pub data: [u8; 256],
}
/// 512 bench bytes (the service suite's smallest request: topic and service side by side).
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Bytes512", default = "zeroed")]
#[repr(C)]
pub struct Bytes512 {
    pub data: [u8; 512],
}
/// 2 KiB of bench bytes (as above).
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Bytes2048", default = "zeroed")]
#[repr(C)]
pub struct Bytes2048 {
    pub data: [u8; 2048],
}
/// 1 KiB of bench bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Bytes1024", default = "zeroed")]
#[repr(C)]
pub struct Bytes1024 {
    pub data: [u8; 1024],
}
/// Sequence, publisher and total length, as in `payload::HEADER`.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Chunk", chunked(elem = u8, message = BenchChunk, doc = "Any number of bench bytes in a chunk; the 16-byte header is the benchmark header."), default = "zeroed")]
#[repr(C)]
pub struct BenchChunkHeader {
    /// Sequence number.
    pub seq: u64,
    /// Publisher index.
    pub publisher: u32,
    /// Header + data bytes.
    pub len: u32,
}

/// Which message type carries `spec` on nerve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Carrier {
    Fixed16,
    Fixed64,
    Fixed256,
    Fixed512,
    Fixed1024,
    Fixed2048,
    CmdVel,
    BatteryState,
    Imu,
    Odometry,
    LaserScan,
    PointCloud,
    Chunk,
}

fn carrier(spec: &Spec) -> Result<Carrier, String> {
    let c = match (spec.message.as_str(), spec.payload) {
        ("CmdVel", _) => Carrier::CmdVel,
        ("BatteryState", _) => Carrier::BatteryState,
        ("Imu", _) => Carrier::Imu,
        ("Odometry", _) => Carrier::Odometry,
        ("LaserScan", _) => Carrier::LaserScan,
        (m, _) if m.starts_with("PointCloud-") => Carrier::PointCloud,
        (_, n) if n >= CHUNK_FROM => Carrier::Chunk,
        (_, 16) => Carrier::Fixed16,
        (_, 64) => Carrier::Fixed64,
        (_, 256) => Carrier::Fixed256,
        (_, 512) => Carrier::Fixed512,
        (_, 1024) => Carrier::Fixed1024,
        (_, 2048) => Carrier::Fixed2048,
        (_, n) => {
            return Err(format!(
                "no bench message type of {n} B below the chunk threshold"
            ))
        }
    };
    let size = match c {
        Carrier::CmdVel => size_of::<msgs::CmdVel>(),
        Carrier::BatteryState => size_of::<msgs::BatteryState>(),
        Carrier::Imu => size_of::<msgs::Imu>(),
        Carrier::Odometry => size_of::<msgs::Odometry>(),
        Carrier::LaserScan => laser_bytes(),
        Carrier::PointCloud => {
            let points = spec.message["PointCloud-".len()..]
                .parse::<usize>()
                .map_err(|_| format!("`{}`: PointCloud-<points> expected", spec.message))?;
            cloud_bytes(points)
        }
        _ => spec.payload,
    };
    if size != spec.payload {
        return Err(format!(
            "{} is {size} B in nerve, the scenario says {} B",
            spec.message, spec.payload
        ));
    }
    Ok(c)
}

/// Bytes of a seed `LaserScan`: header plus 360 `f32` ranges.
pub const fn laser_bytes() -> usize {
    size_of::<msgs::LaserScanHeader>() + msgs::LaserScan::SEED_RANGES * size_of::<f32>()
}

/// Bytes of a `PointCloud` of `points` `PointXYZ` points (the seeds' 100, 1 000 and 10 000).
pub const fn cloud_bytes(points: usize) -> usize {
    size_of::<msgs::PointCloudHeader>() + points * size_of::<msgs::PointXYZ>()
}

/// Any scenario whose size has a carrier.
pub fn supports(spec: &Spec) -> Result<(), String> {
    carrier(spec).map(|_| ())
}

/// `bytes-chunk` / `bytes-readall-chunk` for the loan path, the scenario's label otherwise.
pub fn message_label(spec: &Spec) -> String {
    if spec.payload >= CHUNK_FROM && spec.message.starts_with("bytes") {
        format!("{}-chunk", spec.message)
    } else {
        spec.message.clone()
    }
}

/// Which nerve path carried the bytes.
pub fn variant(spec: &Spec) -> Option<String> {
    let path = if spec.transport == Transport::CrossProcess {
        "shm"
    } else {
        "heap"
    };
    let how = match carrier(spec) {
        Ok(Carrier::Chunk | Carrier::LaserScan | Carrier::PointCloud) => "loan+send (chunk pool)",
        _ => "send (fixed Pod copy)",
    };
    let wait = match (spec.mode, spec.system) {
        (Mode::Poll, _) => String::new(),
        (Mode::Blocking, SystemKind::NerveFutex) => ", futex-only (spin 0)".into(),
        (Mode::Blocking, _) => format!(
            ", adaptive (spin {} µs, then futex)",
            nerve::DEFAULT_SPIN.as_micros()
        ),
    };
    Some(format!("{how}, {path}{wait}"))
}

/// How long this run's subscribers spin before their futex wait.
fn spin(spec: &Spec) -> Duration {
    match spec.system {
        SystemKind::NerveFutex => Duration::ZERO,
        _ => nerve::DEFAULT_SPIN,
    }
}

/// One publisher, whatever the message type.
trait Tx {
    fn send(&mut self, seq: u64, publisher: u32, check: Check) -> Result<()>;
}

/// One subscriber: hands each received message to `f` (as its pieces) until `f` says done.
trait Rx {
    fn recv(
        &mut self,
        mode: Mode,
        what: &dyn Fn() -> String,
        f: &mut dyn FnMut(&[&[u8]]) -> Result<bool>,
    ) -> Result<()>;
    fn lost(&self) -> u64;
}

struct FixedTx<M: FixedMessage> {
    publisher: Publisher<M>,
    scratch: M,
}

impl<M: FixedMessage<Kind = msgs::Fixed>> Tx for FixedTx<M> {
    #[inline]
    fn send(&mut self, seq: u64, publisher: u32, check: Check) -> Result<()> {
        payload::write(
            bytemuck::bytes_of_mut(&mut self.scratch),
            seq,
            publisher,
            check,
        );
        self.publisher
            .send(&self.scratch)
            .map_err(|e| anyhow!("nerve send of message {seq}: {e}"))
    }
}

/// Shared receive loop for every nerve message kind: poll with a deadline, or nerve's
/// blocking wait. `handle` returns true when the step is complete.
#[inline]
fn recv_loop<M: Message>(
    sub: &mut Subscriber<M>,
    mode: Mode,
    what: &dyn Fn() -> String,
    mut handle: impl FnMut(Received<M>) -> Result<bool>,
) -> Result<()>
where
    M::Kind: Codec<M>,
{
    let mut d = Deadline::new();
    loop {
        let got = match mode {
            Mode::Poll => sub.try_recv().map_err(|e| anyhow!("nerve try_recv: {e}"))?,
            Mode::Blocking => match sub
                .recv_timeout(TIMEOUT)
                .map_err(|e| anyhow!("nerve recv_timeout: {e}"))?
            {
                Some(m) => Some(m),
                None => bail!("timed out after {TIMEOUT:?} waiting for {}", what()),
            },
        };
        match got {
            Some(m) => {
                if handle(m)? {
                    return Ok(());
                }
            }
            None => d.tick(what)?,
        }
    }
}

/// What a `Subscriber<M>` hands out.
type Received<M> = <<M as Message>::Kind as Codec<M>>::Received;

struct FixedRx<M: FixedMessage> {
    subscriber: Subscriber<M>,
}

impl<M: FixedMessage<Kind = msgs::Fixed>> Rx for FixedRx<M> {
    #[inline]
    fn recv(
        &mut self,
        mode: Mode,
        what: &dyn Fn() -> String,
        f: &mut dyn FnMut(&[&[u8]]) -> Result<bool>,
    ) -> Result<()> {
        recv_loop(&mut self.subscriber, mode, what, |m: M| {
            f(&[bytemuck::bytes_of(&m)])
        })
    }

    fn lost(&self) -> u64 {
        self.subscriber.stats().lost
    }
}

struct ChunkTx<M: ChunkedMessage> {
    publisher: Publisher<M>,
    elems: usize,
    total: usize,
}

impl<M: ChunkedMessage<Kind = msgs::Chunked>> Tx for ChunkTx<M> {
    #[inline]
    fn send(&mut self, seq: u64, publisher: u32, check: Check) -> Result<()> {
        let mut loan = self
            .publisher
            .loan(self.elems)
            .map_err(|e| anyhow!("nerve loan of {} elements: {e}", self.elems))?;
        let head = size_of::<M::Header>();
        payload::write_at(
            bytemuck::bytes_of_mut(loan.header_mut()),
            0,
            self.total,
            seq,
            publisher,
            check,
        );
        payload::write_at(
            bytemuck::cast_slice_mut(loan.data_mut()),
            head,
            self.total,
            seq,
            publisher,
            check,
        );
        loan.send()
            .map_err(|e| anyhow!("nerve send of chunk {seq}: {e}"))
    }
}

struct ChunkRx<M: ChunkedMessage> {
    subscriber: Subscriber<M>,
}

impl<M: ChunkedMessage<Kind = msgs::Chunked>> Rx for ChunkRx<M> {
    #[inline]
    fn recv(
        &mut self,
        mode: Mode,
        what: &dyn Fn() -> String,
        f: &mut dyn FnMut(&[&[u8]]) -> Result<bool>,
    ) -> Result<()> {
        recv_loop(&mut self.subscriber, mode, what, |s: nerve::Sample<M>| {
            f(&[
                bytemuck::bytes_of(s.header()),
                bytemuck::cast_slice(s.data()),
            ])
        })
    }

    fn lost(&self) -> u64 {
        self.subscriber.stats().lost
    }
}

/// Opens topics and endpoints of one message type.
trait Wire {
    /// The topic handle, kept alive (and unlinked by the ping side).
    type Handle: 'static;
    fn open(name: &str, spec: &Spec) -> Result<Self::Handle>;
    fn tx(h: &Self::Handle, spec: &Spec) -> Result<Box<dyn Tx>>;
    fn rx(h: &Self::Handle, spec: &Spec) -> Result<Box<dyn Rx>>;
    fn path(h: &Self::Handle) -> TransportPath;
}

fn builder<M: Message>(name: &str, spec: &Spec) -> nerve::TopicBuilder<M>
where
    M::Kind: nerve::Codec<M>,
{
    // Ring depth: room for a window of messages from every publisher, twice over.
    let depth = (2 * spec.window * spec.publishers).max(8);
    let b = Topic::<M>::builder(name).depth(depth).domain(BENCH_DOMAIN);
    if spec.transport == Transport::CrossProcess {
        b
    } else {
        b.in_process()
    }
}

struct FixedWire<M>(PhantomData<M>);

impl<M: FixedMessage<Kind = msgs::Fixed>> Wire for FixedWire<M> {
    type Handle = Topic<M>;
    fn open(name: &str, spec: &Spec) -> Result<Topic<M>> {
        builder::<M>(name, spec)
            .open()
            .map_err(|e| anyhow!("opening nerve topic `{name}`: {e}"))
    }
    fn tx(h: &Topic<M>, _spec: &Spec) -> Result<Box<dyn Tx>> {
        let publisher = h.publisher().map_err(|e| anyhow!("nerve publisher: {e}"))?;
        Ok(Box::new(FixedTx {
            publisher,
            scratch: M::zeroed(),
        }))
    }
    fn rx(h: &Topic<M>, spec: &Spec) -> Result<Box<dyn Rx>> {
        let mut subscriber = h
            .subscriber()
            .map_err(|e| anyhow!("nerve subscriber: {e}"))?;
        subscriber.set_spin(spin(spec));
        Ok(Box::new(FixedRx { subscriber }))
    }
    fn path(h: &Topic<M>) -> TransportPath {
        h.path().clone()
    }
}

struct ChunkWire<M>(PhantomData<M>);

impl<M: ChunkedMessage<Kind = msgs::Chunked>> Wire for ChunkWire<M> {
    type Handle = Topic<M>;
    fn open(name: &str, spec: &Spec) -> Result<Topic<M>> {
        builder::<M>(name, spec)
            .max_message_bytes(spec.payload)
            .open()
            .map_err(|e| anyhow!("opening nerve topic `{name}`: {e}"))
    }
    fn tx(h: &Topic<M>, spec: &Spec) -> Result<Box<dyn Tx>> {
        let publisher = h.publisher().map_err(|e| anyhow!("nerve publisher: {e}"))?;
        let data = spec
            .payload
            .checked_sub(size_of::<M::Header>())
            .ok_or_else(|| anyhow!("{} B is smaller than the chunk header", spec.payload))?;
        let elem = size_of::<M::Elem>();
        if !data.is_multiple_of(elem) {
            bail!("{data} data bytes are not a whole number of {elem}-byte elements");
        }
        Ok(Box::new(ChunkTx {
            publisher,
            elems: data / elem,
            total: spec.payload,
        }))
    }
    fn rx(h: &Topic<M>, spec: &Spec) -> Result<Box<dyn Rx>> {
        let mut subscriber = h
            .subscriber()
            .map_err(|e| anyhow!("nerve subscriber: {e}"))?;
        subscriber.set_spin(spin(spec));
        Ok(Box::new(ChunkRx { subscriber }))
    }
    fn path(h: &Topic<M>) -> TransportPath {
        h.path().clone()
    }
}

/// The endpoints one side holds.
struct Ends {
    txs: Vec<Box<dyn Tx>>,
    rxs: Vec<Box<dyn Rx>>,
    paths: Vec<TransportPath>,
    _topics: Vec<Box<dyn std::any::Any>>,
}

fn ends<W: Wire>(spec: &Spec, ping_side: bool) -> Result<Ends> {
    let ping = W::open(&format!("{}/ping", spec.name), spec)?;
    let pong = W::open(&format!("{}/pong", spec.name), spec)?;
    let (txs, rxs) = if ping_side {
        let txs = (0..spec.publishers)
            .map(|_| W::tx(&ping, spec))
            .collect::<Result<Vec<_>>>()?;
        (txs, vec![W::rx(&pong, spec)?])
    } else {
        let rxs = (0..spec.subscribers)
            .map(|_| W::rx(&ping, spec))
            .collect::<Result<Vec<_>>>()?;
        (vec![W::tx(&pong, spec)?], rxs)
    };
    let mut paths = vec![W::path(&ping), W::path(&pong)];
    let mut topics: Vec<Box<dyn std::any::Any>> = vec![Box::new(ping), Box::new(pong)];
    // Idle topics for the scaling series: alive, with a publisher and a subscriber, silent.
    let idle_spec = Spec {
        window: 1,
        publishers: 1,
        ..spec.clone()
    };
    for i in 1..spec.topics {
        let t = FixedWire::<Bytes16>::open(&format!("{}/idle{i}", spec.name), &idle_spec)?;
        let ep: Box<dyn std::any::Any> = if ping_side {
            Box::new(FixedWire::<Bytes16>::tx(&t, &idle_spec)?)
        } else {
            Box::new(FixedWire::<Bytes16>::rx(&t, &idle_spec)?)
        };
        paths.push(t.path().clone());
        topics.push(Box::new(t));
        topics.push(ep);
    }
    Ok(Ends {
        txs,
        rxs,
        paths,
        _topics: topics,
    })
}

fn open_ends(spec: &Spec, ping_side: bool) -> Result<Ends> {
    let c = carrier(spec).map_err(anyhow::Error::msg)?;
    match c {
        Carrier::Fixed16 => ends::<FixedWire<Bytes16>>(spec, ping_side),
        Carrier::Fixed64 => ends::<FixedWire<Bytes64>>(spec, ping_side),
        Carrier::Fixed256 => ends::<FixedWire<Bytes256>>(spec, ping_side),
        Carrier::Fixed512 => ends::<FixedWire<Bytes512>>(spec, ping_side),
        Carrier::Fixed1024 => ends::<FixedWire<Bytes1024>>(spec, ping_side),
        Carrier::Fixed2048 => ends::<FixedWire<Bytes2048>>(spec, ping_side),
        Carrier::CmdVel => ends::<FixedWire<msgs::CmdVel>>(spec, ping_side),
        Carrier::BatteryState => ends::<FixedWire<msgs::BatteryState>>(spec, ping_side),
        Carrier::Imu => ends::<FixedWire<msgs::Imu>>(spec, ping_side),
        Carrier::Odometry => ends::<FixedWire<msgs::Odometry>>(spec, ping_side),
        Carrier::LaserScan => ends::<ChunkWire<msgs::LaserScan>>(spec, ping_side),
        Carrier::PointCloud => ends::<ChunkWire<msgs::PointCloud>>(spec, ping_side),
        Carrier::Chunk => ends::<ChunkWire<BenchChunk>>(spec, ping_side),
    }
}

struct NervePing {
    ends: Ends,
    spec: Spec,
}

struct NerveEcho {
    ends: Ends,
    trackers: Vec<StepTracker>,
    spec: Spec,
}

/// Creates the topics and the subscribers of the ping topic.
pub fn echo_side(spec: &Spec) -> Result<(Box<dyn EchoSide>, String)> {
    let ends = open_ends(spec, false)?;
    let trackers = vec![StepTracker::new(spec.publishers); ends.rxs.len()];
    Ok((
        Box::new(NerveEcho {
            ends,
            trackers,
            spec: spec.clone(),
        }),
        String::new(),
    ))
}

/// Joins the topics and creates the publishers of the ping topic.
pub fn ping_side(spec: &Spec, _rendezvous: &str) -> Result<Box<dyn PingSide>> {
    Ok(Box::new(NervePing {
        ends: open_ends(spec, true)?,
        spec: spec.clone(),
    }))
}

impl Drop for NervePing {
    fn drop(&mut self) {
        // nerve keeps segments after the last endpoint closes (late joiners, `nerve topic
        // list`); the benchmark's topics are single-use, so remove them. Open mappings stay
        // valid until the echo side closes too.
        for p in &self.ends.paths {
            if let TransportPath::Shm(path) = p {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

impl PingSide for NervePing {
    fn send(&mut self, seq: u64) -> Result<()> {
        let check = self.spec.check;
        let p = self.ends.txs.len();
        for i in (1..p).chain(std::iter::once(0)) {
            self.ends.txs[i].send(seq, i as u32, check)?;
        }
        Ok(())
    }

    fn recv_echo(&mut self, seq: u64) -> Result<()> {
        let check = self.spec.check;
        self.ends.rxs[0].recv(
            self.spec.mode,
            &|| format!("nerve echo {seq}"),
            &mut |parts| check_echo_parts(parts, check, seq).map(|_| true),
        )
    }
}

fn check_echo_parts(parts: &[&[u8]], check: Check, seq: u64) -> Result<()> {
    match parts {
        [one] => check_echo(one, check, seq),
        _ => {
            let (got, _) = payload::verify_parts(parts, check).map_err(anyhow::Error::msg)?;
            if got != seq {
                bail!("expected echo {seq}, received echo {got}");
            }
            Ok(())
        }
    }
}

impl NerveEcho {
    fn drain(&mut self, j: usize, seq: u64) -> Result<()> {
        let tracker = &mut self.trackers[j];
        tracker.begin(seq);
        if tracker.complete() {
            return Ok(());
        }
        let check = self.spec.check;
        let rx = &mut self.ends.rxs[j];
        rx.recv(
            self.spec.mode,
            &|| format!("nerve message {seq} on subscriber {j}"),
            &mut |parts| {
                match parts {
                    [one] => check_message(one, check, tracker)?,
                    _ => {
                        let (s, p) =
                            payload::verify_parts(parts, check).map_err(anyhow::Error::msg)?;
                        tracker.accept(s, p)?;
                    }
                }
                Ok(tracker.complete())
            },
        )?;
        let lost = rx.lost();
        if lost != 0 {
            bail!("nerve subscriber {j} lost {lost} messages");
        }
        Ok(())
    }
}

impl EchoSide for NerveEcho {
    fn recv(&mut self, seq: u64) -> Result<()> {
        self.drain(0, seq)
    }

    fn echo(&mut self, seq: u64) -> Result<()> {
        self.ends.txs[0].send(seq, 0, self.spec.check)
    }

    fn drain_others(&mut self, seq: u64) -> Result<()> {
        for j in 1..self.ends.rxs.len() {
            self.drain(j, seq)?;
        }
        Ok(())
    }
}
