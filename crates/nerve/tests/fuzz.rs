//! Fuzzing hostile memory: while publishers and subscribers run on three live topics — in this
//! process and in a child process — a mutator writes random values into every part of their
//! segments (header fields, endpoint records, ring words and payloads, chunk descriptors, the
//! pool's reference words and holder bitmaps), restoring some and leaving others. Endpoints
//! are opened and dropped, topics listed and cleaned, all the while.
//!
//! Passes when nothing panicked (every worker thread is joined), no process died of a signal
//! (the child is watched), and nothing hung (every worker and the child keep making progress).
//! What the hostile writes do to message contents is not checked: a process that can write a
//! segment can write any message; nerve's promise is to survive it and count what it skips.
//!
//! `NERVE_FUZZ_MUTATIONS` (default 1 000 000: the quick run of the test command) and
//! `NERVE_FUZZ_SEED` (default: time) set the run; the seed is printed so a failure replays.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nerve::msgs::{CmdVel, Image};
use nerve::msgs::{Encoding, Header, ImageHeader};
use nerve::prelude::*;
use nerve_testing::hostile::Segment;
use nerve_testing::process::{self, env_u64};

const FIXED: &str = "fuzz/fixed";
const RELIABLE: &str = "fuzz/reliable";
const IMAGES: &str = "fuzz/images";

/// A worker stalled this long is hung.
const HANG: Duration = Duration::from_secs(20);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// A value a hostile writer would try: small, huge, off by one, a power of two, or noise.
    fn nasty(&mut self) -> u64 {
        match self.below(8) {
            0 => 0,
            1 => u64::MAX,
            2 => u64::MAX - self.below(4),
            3 => 1 << self.below(64),
            4 => self.below(64),
            5 => u32::MAX as u64 - self.below(4),
            6 => (1 << 63) | self.below(1 << 20),
            _ => self.next(),
        }
    }
}

fn open_fixed(domain: u32) -> Option<Topic<CmdVel>> {
    Topic::<CmdVel>::builder(FIXED)
        .domain(domain)
        .depth(16)
        .open()
        .ok()
}

fn open_reliable(domain: u32) -> Option<Topic<CmdVel>> {
    Topic::<CmdVel>::builder(RELIABLE)
        .domain(domain)
        .depth(8)
        .reliable()
        .open()
        .ok()
}

fn open_images(domain: u32) -> Option<Topic<Image>> {
    Topic::<Image>::builder(IMAGES)
        .domain(domain)
        .depth(8)
        .chunks(32)
        .max_message_bytes(64 << 10)
        .open()
        .ok()
}

/// Publishes and receives on the three topics until `stop`, counting loop iterations in
/// `progress` (successes and errors alike: an error is an answer, a hang is not), reopening
/// endpoints now and then (opens on a damaged header fail, which is fine).
fn churn(domain: u32, seed: u64, stop: &AtomicBool, progress: &AtomicU64) {
    let mut rng = Rng(seed | 1);
    while !stop.load(Relaxed) {
        let (Some(fixed), Some(reliable), Some(images)) = (
            open_fixed(domain),
            open_reliable(domain),
            open_images(domain),
        ) else {
            progress.fetch_add(1, Relaxed);
            std::thread::sleep(Duration::from_millis(1));
            continue;
        };
        let (Ok(fp), Ok(mut fs), Ok(mut rp), Ok(mut rs), Ok(ip), Ok(mut is)) = (
            fixed.publisher(),
            fixed.subscriber(),
            reliable.publisher(),
            reliable.subscriber(),
            images.publisher(),
            images.subscriber(),
        ) else {
            progress.fetch_add(1, Relaxed);
            continue;
        };
        rp.set_timeout(Duration::from_millis(5));
        for i in 0..200 + rng.below(800) {
            if stop.load(Relaxed) {
                break;
            }
            let _ = fp.send(&CmdVel {
                stamp_ns: i,
                ..CmdVel::default()
            });
            let _ = rp.send(&CmdVel::default());
            if let Ok(mut loan) = ip.loan(rng.below(4096) as usize) {
                loan.data_mut().fill(i as u8);
                if let Ok(h) = Header::new(i, i, "fuzz") {
                    *loan.header_mut() = ImageHeader::new(h, 8, 8, Encoding::Mono8);
                }
                let _ = loan.send();
            }
            let _ = fs.try_recv();
            let _ = rs.recv_timeout(Duration::from_micros(200));
            if let Ok(Some(sample)) = is.try_recv() {
                // Read what arrived, every byte, as an application would.
                let sum = sample.data().iter().fold(0u64, |a, &b| a + b as u64);
                std::hint::black_box((sum, sample.header().width));
            }
            progress.fetch_add(1, Relaxed);
        }
        if rng.below(8) == 0 {
            let _ = nerve::registry::list(domain);
        }
    }
}

/// Writes nasty values into the live segments. Returns how many mutations it made.
fn mutate(domain: u32, seed: u64, target: u64, stop: &AtomicBool, done: &AtomicU64) {
    let mut rng = Rng(seed.rotate_left(17) | 1);
    // Mapped once while the topics are valid; remapped now and then, when a topic was
    // rebuilt under a new file (an open found its header destroyed) and the new one maps.
    let mut segments: Vec<Segment> = [FIXED, RELIABLE, IMAGES]
        .iter()
        .map(|t| Segment::open(domain, t))
        .collect();
    let mut n = 0;
    while n < target && !stop.load(Relaxed) {
        if rng.below(20_000) == 0 {
            for (seg, t) in segments.iter_mut().zip([FIXED, RELIABLE, IMAGES]) {
                if let Some(fresh) = Segment::try_open(domain, t) {
                    *seg = fresh;
                }
            }
        }
        let seg = &segments[rng.below(3) as usize];
        let p = seg.params().clone();
        let ring_end = p.slots_offset + p.capacity as usize * p.slot_stride as usize;
        // Where: the header page, the endpoint records, the ring, or the pool.
        let offset = match rng.below(10) {
            0 | 1 => rng.below(256) as usize,
            2 => rng.below(1088) as usize,
            3 => {
                Segment::endpoint_offset(rng.below(p.max_endpoints as u64) as u32)
                    + rng.below(64) as usize
            }
            4..=7 => p.slots_offset + rng.below((ring_end - p.slots_offset) as u64) as usize,
            _ if p.pool_len > 0 => {
                p.pool_offset + rng.below(p.pool_len.min(64 << 10) as u64) as usize
            }
            _ => rng.below(ring_end as u64) as usize,
        } & !7;
        if offset + 8 > seg.len() {
            continue;
        }
        let old: Vec<u8> = (0..8).map(|i| seg.byte(offset + i)).collect();
        let width = [1usize, 4, 8][rng.below(3) as usize];
        let value = rng.nasty().to_le_bytes();
        for (i, b) in value.iter().take(width).enumerate() {
            seg.set_byte(offset + i, *b);
        }
        if rng.below(2) == 0 {
            // Give the live endpoints a moment with it, then restore (half the mutations
            // stay: the segment drifts further from anything nerve wrote).
            for _ in 0..64 {
                std::hint::spin_loop();
            }
            for (i, b) in old.iter().enumerate() {
                seg.set_byte(offset + i, *b);
            }
        }
        n += 1;
        done.store(n, Relaxed);
        // Leave the live endpoints time to run into what was written.
        if n % 8 == 0 {
            std::thread::yield_now();
        }
    }
}

/// Child process roles.
#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    assert_eq!(role, "fuzz_peer");
    let domain = env_u64("NERVE_DOMAIN") as u32;
    let stop = AtomicBool::new(false);
    let progress = AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            churn(
                domain,
                env_u64("NERVE_FUZZ_SEED") ^ 0xC0FFEE,
                &stop,
                &progress,
            )
        });
        println!("READY");
        loop {
            std::thread::sleep(Duration::from_millis(200));
            println!("BEAT {}", progress.load(Relaxed));
        }
    });
}

#[test]
fn live_segments_survive_a_million_hostile_mutations_in_process_and_across_processes() {
    let mutations = std::env::var("NERVE_FUZZ_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000u64);
    let seed = std::env::var("NERVE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(nerve::time::now_ns);
    eprintln!("fuzz: {mutations} mutations, NERVE_FUZZ_SEED={seed}");
    let (domain, _guard) = nerve_testing::domain();
    // The topics exist before anyone mutates them; these handles keep them alive.
    let keep = (
        open_fixed(domain),
        open_reliable(domain),
        open_images(domain),
    );
    assert!(keep.0.is_some() && keep.1.is_some() && keep.2.is_some());

    let mut child = process::spawn_self(
        "child_entry",
        "fuzz_peer",
        domain,
        &[("NERVE_FUZZ_SEED", seed.to_string())],
    );
    child.wait_line("READY");
    let child_pid = child.id();
    let child_beats = Arc::new(AtomicU64::new(0));
    // Reads the child's heartbeats; when its stdout closes, reaps it and says how it ended.
    let child_end = {
        let beats = child_beats.clone();
        std::thread::spawn(move || {
            while let Some(line) = child.read_line() {
                if let Some(n) = line.strip_prefix("BEAT ").and_then(|v| v.parse().ok()) {
                    beats.store(n, Relaxed);
                }
            }
            child.wait()
        })
    };
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let progress: Vec<AtomicU64> = (0..2).map(|_| AtomicU64::new(0)).collect();
    let start = Instant::now();
    std::thread::scope(|s| {
        let workers: Vec<_> = progress
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let stop = &stop;
                s.spawn(move || churn(domain, seed.wrapping_add(i as u64), stop, p))
            })
            .collect();
        let mutator = s.spawn(|| mutate(domain, seed, mutations, &stop, &done));
        let mut last: Vec<(u64, Instant)> = vec![(0, Instant::now()); 3];
        let mut report = Instant::now();
        while !mutator.is_finished() {
            if report.elapsed() > Duration::from_secs(10) {
                report = Instant::now();
                eprintln!(
                    "fuzz: {} mutations after {:.0} s",
                    done.load(Relaxed),
                    start.elapsed().as_secs_f64()
                );
            }
            if child_end.is_finished() {
                stop.store(true, Relaxed);
                panic!("the child process died during the run (seed {seed})");
            }
            std::thread::sleep(Duration::from_millis(250));
            let now: Vec<u64> = progress
                .iter()
                .map(|p| p.load(Relaxed))
                .chain([child_beats.load(Relaxed)])
                .collect();
            for (i, (v, at)) in last.iter_mut().enumerate() {
                if now[i] != *v {
                    *v = now[i];
                    *at = Instant::now();
                }
                if at.elapsed() > HANG {
                    stop.store(true, Relaxed);
                    panic!(
                        "{} made no progress for {HANG:?} after {} mutations (seed {seed})",
                        if i < 2 {
                            "an in-process worker"
                        } else {
                            "the child process"
                        },
                        done.load(Relaxed)
                    );
                }
            }
        }
        stop.store(true, Relaxed);
        for w in workers {
            w.join().expect("a worker panicked");
        }
        mutator.join().expect("the mutator panicked");
    });
    let elapsed = start.elapsed();
    // The child must have kept beating and still be running: no signal ended it.
    let beats = child_beats.load(Relaxed);
    assert!(beats > 0, "the child process made no progress");
    assert!(
        !child_end.is_finished(),
        "the child process ended early: {:?}",
        child_end.join()
    );
    // SAFETY: kill(2) of the child we spawned, which is still running (checked above).
    unsafe { libc::kill(child_pid as i32, libc::SIGKILL) };
    let status = child_end.join().expect("the child reader");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL),
        "the child ended by {status}, not by our SIGKILL"
    );
    drop(keep);
    eprintln!(
        "fuzz: {} mutations in {:.1} s, in-process iterations {} and {}, child iterations {beats} (seed {seed})",
        done.load(Relaxed),
        elapsed.as_secs_f64(),
        progress[0].load(Relaxed),
        progress[1].load(Relaxed),
    );
    assert_eq!(done.load(Relaxed), mutations);
}
