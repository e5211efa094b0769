//! A topic round trip beside the service's, in the same rounds: the issue's "a service round
//! trip ≤ 3 × a topic ping-pong round trip of the same payload", measured as docs/benchmarking.md
//! asks (a ratio per round, never of two suites minutes apart: on this VM the cost of a cache
//! line between the cores moves between regimes from one minute to the next).
//!
//! The topic ping-pong carries what a nerve user would send at each size: a fixed message
//! copied through the ring at 512 B and 2 KB (`Bytes512`, `Bytes2048` of the ipc suite), a
//! loaned chunk at 8 KB (`BenchChunk`). The pinger writes the sequence number into the first
//! and last 8 bytes (the chunk: also its header's), the echo sends the message back, the pinger
//! checks both ends. Every byte crosses both ways, as a service's request and reply do: the
//! fixed messages are copied whole through the ring, and the 8 KB chunk is copied in and out
//! at both ends ([`ChunkEnd`]). Both sides wait as the services do: nerve's `recv_timeout` (spin briefly,
//! then the futex), so an idle echo sleeps and leaves the core to the service's server.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use nerve::msgs::{self, FixedMessage};
use nerve::{Publisher, Subscriber, Topic};

use super::measured::Measured;
use crate::ipc::nerve::{BenchChunk, Bytes2048, Bytes512};

/// How long a side waits for one message before it gives up on the round.
const WAIT: Duration = Duration::from_secs(1);

/// The topics of the `payload`-byte ping-pong: (ping, pong).
fn names(payload: usize) -> (String, String) {
    (
        format!("bench/topic{payload}/ping"),
        format!("bench/topic{payload}/pong"),
    )
}

/// One end of a ping-pong: sends message `seq`, receives one and says its `seq`.
trait End: Send {
    fn send(&mut self, seq: u64) -> Result<()>;
    /// The next message's sequence number (None: nothing within `WAIT`).
    fn recv(&mut self) -> Result<Option<u64>>;
    /// Sends back what `recv` got last.
    fn echo(&mut self) -> Result<()>;
}

fn open<M: nerve::Message>(domain: u32, name: &str, in_process: bool) -> Result<Topic<M>>
where
    M::Kind: nerve::Codec<M>,
{
    let b = Topic::<M>::builder(name).domain(domain).depth(8);
    let b = if in_process { b.in_process() } else { b };
    b.open()
        .map_err(|e| anyhow!("opening the topic `{name}`: {e}"))
}

/// Writes `seq` into the first and the last 8 bytes of `b`.
fn stamp(b: &mut [u8], seq: u64) {
    let n = b.len();
    b[..8].copy_from_slice(&seq.to_le_bytes());
    b[n - 8..].copy_from_slice(&seq.to_le_bytes());
}

/// The sequence number both ends of `b` carry; an error when they differ.
fn read_stamp(b: &[u8]) -> Result<u64> {
    let n = b.len();
    let first = u64::from_le_bytes(b[..8].try_into()?);
    let last = u64::from_le_bytes(b[n - 8..].try_into()?);
    if first != last {
        bail!("torn message: first 8 bytes say {first}, last 8 say {last}");
    }
    Ok(first)
}

struct FixedEnd<M: FixedMessage> {
    publisher: Publisher<M>,
    subscriber: Subscriber<M>,
    got: M,
}

impl<M: FixedMessage<Kind = msgs::Fixed>> End for FixedEnd<M> {
    fn send(&mut self, seq: u64) -> Result<()> {
        stamp(bytemuck::bytes_of_mut(&mut self.got), seq);
        self.publisher
            .send(&self.got)
            .map_err(|e| anyhow!("send: {e}"))
    }
    fn recv(&mut self) -> Result<Option<u64>> {
        match self.subscriber.recv_timeout(WAIT) {
            Ok(Some(m)) => {
                self.got = m;
                read_stamp(bytemuck::bytes_of(&self.got)).map(Some)
            }
            Ok(None) => Ok(None),
            Err(e) => Err(anyhow!("receive: {e}")),
        }
    }
    fn echo(&mut self) -> Result<()> {
        self.publisher
            .send(&self.got)
            .map_err(|e| anyhow!("send: {e}"))
    }
}

/// The 8 KB end moves the whole payload as the service does (the service's client encodes its
/// request, its server decodes it and encodes the reply, the client decodes that): the pinger
/// copies its message into each loan and compares every byte of the echo with it; the echo
/// copies what it received out of the chunk, and into the chunk of its reply.
struct ChunkEnd {
    publisher: Publisher<BenchChunk>,
    subscriber: Subscriber<BenchChunk>,
    /// The message: the pinger's own, or the last one the echo received.
    buf: Vec<u8>,
    ping: bool,
    last: u64,
}

impl ChunkEnd {
    fn publish(&mut self, seq: u64) -> Result<()> {
        let mut loan = self
            .publisher
            .loan(self.buf.len())
            .map_err(|e| anyhow!("loan: {e}"))?;
        loan.header_mut().seq = seq;
        stamp(&mut self.buf, seq);
        loan.data_mut().copy_from_slice(&self.buf);
        loan.send().map_err(|e| anyhow!("send: {e}"))
    }
}

impl End for ChunkEnd {
    fn send(&mut self, seq: u64) -> Result<()> {
        self.publish(seq)
    }
    fn recv(&mut self) -> Result<Option<u64>> {
        match self.subscriber.recv_timeout(WAIT) {
            Ok(Some(s)) => {
                let data = s.data();
                let seq = read_stamp(data)?;
                if s.header().seq != seq {
                    bail!("header says {}, payload {seq}", s.header().seq);
                }
                if data.len() != self.buf.len() {
                    bail!("{} bytes, {} sent", data.len(), self.buf.len());
                }
                let n = data.len();
                if self.ping {
                    if data[8..n - 8] != self.buf[8..n - 8] {
                        bail!("the echo of {seq} differs from what was sent");
                    }
                } else {
                    self.buf.copy_from_slice(data);
                }
                self.last = seq;
                Ok(Some(seq))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(anyhow!("receive: {e}")),
        }
    }
    fn echo(&mut self) -> Result<()> {
        self.publish(self.last)
    }
}

/// An end of the `payload`-byte ping-pong (`ping` publishes on the ping topic).
fn end(domain: u32, payload: usize, ping: bool, in_process: bool) -> Result<Box<dyn End>> {
    let (a, b) = names(payload);
    let (out, inp) = if ping { (a, b) } else { (b, a) };
    fn fixed<M: FixedMessage<Kind = msgs::Fixed>>(
        domain: u32,
        out: &str,
        inp: &str,
        in_process: bool,
        _m: PhantomData<M>,
    ) -> Result<Box<dyn End>> {
        let publisher = open::<M>(domain, out, in_process)?
            .publisher()
            .map_err(|e| anyhow!("publisher of `{out}`: {e}"))?;
        let subscriber = open::<M>(domain, inp, in_process)?
            .subscriber()
            .map_err(|e| anyhow!("subscriber of `{inp}`: {e}"))?;
        Ok(Box::new(FixedEnd {
            publisher,
            subscriber,
            got: M::zeroed(),
        }))
    }
    match payload {
        512 => fixed::<Bytes512>(domain, &out, &inp, in_process, PhantomData),
        2048 => fixed::<Bytes2048>(domain, &out, &inp, in_process, PhantomData),
        n => {
            let elems = n - size_of::<<BenchChunk as msgs::ChunkedMessage>::Header>();
            let t_out = Topic::<BenchChunk>::builder(&out)
                .domain(domain)
                .depth(8)
                .max_message_bytes(n + 4096);
            let t_in = Topic::<BenchChunk>::builder(&inp)
                .domain(domain)
                .depth(8)
                .max_message_bytes(n + 4096);
            let (t_out, t_in) = if in_process {
                (t_out.in_process(), t_in.in_process())
            } else {
                (t_out, t_in)
            };
            let publisher = t_out
                .open()
                .and_then(|t| t.publisher())
                .map_err(|e| anyhow!("publisher of `{out}`: {e}"))?;
            let subscriber = t_in
                .open()
                .and_then(|t| t.subscriber())
                .map_err(|e| anyhow!("subscriber of `{inp}`: {e}"))?;
            Ok(Box::new(ChunkEnd {
                publisher,
                subscriber,
                buf: (0..elems).map(|i| i as u8).collect(),
                ping,
                last: 0,
            }))
        }
    }
}

/// The echo ends of every payload, each a thread that sends back what it receives until
/// dropped. Threads inherit the caller's CPU affinity.
pub struct TopicEchoes {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl TopicEchoes {
    /// Starts an echo for each of `payloads` (in this process's heap when `in_process`).
    pub fn start(domain: u32, payloads: &[usize], in_process: bool) -> Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for &p in payloads {
            let mut e = end(domain, p, false, in_process)?;
            let stop = stop.clone();
            threads.push(std::thread::spawn(move || {
                // Relaxed: a plain flag, read again at least every `WAIT`; the join in `drop`
                // orders everything after it.
                while !stop.load(Ordering::Relaxed) {
                    match e.recv() {
                        Ok(Some(_)) => {
                            if let Err(err) = e.echo() {
                                eprintln!("rpc topic echo {p} B: {err:#}");
                            }
                        }
                        Ok(None) => {}
                        Err(err) => eprintln!("rpc topic echo {p} B: {err:#}"),
                    }
                }
            }));
        }
        Ok(TopicEchoes { stop, threads })
    }
}

impl Drop for TopicEchoes {
    fn drop(&mut self) {
        // Relaxed: see the loop above.
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The pinging end of the `payload`-byte ping-pong, kept across rounds.
pub struct TopicPing {
    end: Box<dyn End>,
    seq: u64,
}

impl TopicPing {
    pub fn open(domain: u32, payload: usize, in_process: bool) -> Result<Self> {
        Ok(TopicPing {
            end: end(domain, payload, true, in_process)?,
            seq: 1,
        })
    }

    /// Round trips back to back: `warmup`, then `measure` timed (each a sample).
    pub fn measure(&mut self, warmup: Duration, measure: Duration) -> Measured {
        let mut m = Measured {
            samples: Vec::with_capacity(1 << 16),
            ..Measured::default()
        };
        let t_warm = Instant::now();
        while t_warm.elapsed() < warmup {
            if self.trip().is_err() {
                m.errors += 1;
                break;
            }
        }
        let t0 = Instant::now();
        while t0.elapsed() < measure {
            m.calls += 1;
            let t = Instant::now();
            match self.trip() {
                Ok(()) => m.samples.push(t.elapsed().as_nanos() as u64),
                Err(e) => {
                    m.errors += 1;
                    eprintln!("rpc topic ping-pong: {e:#}");
                    break;
                }
            }
        }
        m.elapsed = t0.elapsed();
        m
    }

    /// One round trip: send `seq`, wait for its echo (older echoes, late from a round that
    /// timed out, are skipped).
    fn trip(&mut self) -> Result<()> {
        let seq = self.seq;
        self.seq += 1;
        self.end.send(seq)?;
        loop {
            match self.end.recv()? {
                Some(s) if s == seq => return Ok(()),
                Some(s) if s < seq => continue,
                Some(s) => bail!("echo of {s} while waiting for {seq}"),
                None => bail!("no echo of {seq} within {WAIT:?}"),
            }
        }
    }
}
