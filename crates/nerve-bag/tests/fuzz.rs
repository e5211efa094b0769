//! A fuzz target over the recording reader that runs with the ordinary test command: small
//! valid recordings written by nerve's own writer (no compression, zstd, lz4; fixed, chunked
//! and ROS 2 topics), mutated, and random byte strings, each read by the same code as
//! `nerve bag info` ([`nerve_bag::inspect::info_bytes`]: the walk to the damage, the summary,
//! the loss metadata) and as `nerve.bag.Reader` ([`nerve_bag::file::read_bytes`]: the strict
//! walk and the conversion to nerve's layout). No input may panic, and the process's peak
//! resident memory (VmHWM) stays under 64 MiB plus the largest valid input: a length that
//! lies is refused before it is allocated. Deterministic (a fixed seed), so a failure repeats;
//! it prints its figures (`cargo test --release -p nerve-bag --test fuzz -- --nocapture`).
//!
//! One test in its own binary: the peak memory is this test's alone.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use nerve_bag::file::BagWriter;
use nerve_bag::{Compression, TopicMeta};

/// Inputs read, at least.
const INPUTS: u64 = 100_000;
/// The bound on peak memory over the largest valid input.
const HEADROOM: u64 = 64 << 20;

/// splitmix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// In `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn meta(kind: u32, name: &str, size: u32) -> TopicMeta {
    let mut m = TopicMeta {
        stored_type: nerve::raw::stored_type::<nerve::msgs::CmdVel>(),
        reliability: nerve::Reliability::BestEffort,
        depth: 16,
        max_payload_bytes: 4096,
    };
    m.stored_type.kind = kind;
    m.stored_type.size = size;
    if !name.is_empty() {
        m.stored_type.name = name.into();
        m.stored_type.layout_hash ^= 0x5A5A;
    }
    m
}

/// Valid recordings by nerve's writer: each compression, with a ROS 2 topic (CmdVel), a fixed
/// and a chunked topic in nerve's encoding, a few messages each; and an unchunked file (its
/// records at the top level) by the `mcap` writer.
fn seeds(dir: &std::path::Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let cmd = meta(1, "", 16);
    let blob = meta(1, "fuzz/Blob", 8);
    let cloud = meta(2, "fuzz/Cloud", 16);
    for (i, c) in [None, Some(Compression::Zstd), Some(Compression::Lz4)]
        .into_iter()
        .enumerate()
    {
        let path = dir.join(format!("seed-{i}.mcap"));
        let mut w = BagWriter::create(&path, c).unwrap();
        for n in 0..4u8 {
            let t = u64::from(n) * 1000;
            w.write("cmd", &cmd, &[], t, &[n; 16], &[]).unwrap();
            w.write("blob", &blob, b"desc", t + 1, &[n; 8], &[])
                .unwrap();
            w.write(
                "cloud",
                &cloud,
                &[],
                t + 2,
                &[n; 16],
                &vec![n; 40 * usize::from(n)],
            )
            .unwrap();
        }
        w.finish().unwrap();
        out.push(std::fs::read(&path).unwrap());
    }
    let mut plain = std::io::Cursor::new(Vec::new());
    {
        let mut w = mcap::WriteOptions::new()
            .use_chunks(false)
            .create(&mut plain)
            .unwrap();
        let schema = w
            .add_schema("fuzz/Blob", "nerve.description", b"d")
            .unwrap();
        let channel = w
            .add_channel(schema, "blob", "nerve", &blob.to_metadata())
            .unwrap();
        for n in 0..4u32 {
            let header = mcap::records::MessageHeader {
                channel_id: channel,
                sequence: n,
                log_time: u64::from(n),
                publish_time: u64::from(n),
            };
            w.write_to_known_channel(&header, &[n as u8; 8]).unwrap();
        }
        w.finish().unwrap();
    }
    out.push(plain.into_inner());
    out
}

/// Offsets of the top-level records of `b` (after the magic), as far as they chain.
fn record_offsets(b: &[u8]) -> Vec<usize> {
    let mut at = mcap::MAGIC.len();
    let mut offsets = Vec::new();
    while at + 9 <= b.len() {
        offsets.push(at);
        let len = u64::from_le_bytes(b[at + 1..at + 9].try_into().unwrap());
        match usize::try_from(len)
            .ok()
            .and_then(|l| at.checked_add(9 + l))
        {
            Some(next) if next <= b.len() => at = next,
            _ => break,
        }
    }
    offsets
}

/// Lengths a hostile file would claim.
fn lie(rng: &mut Rng, len: usize) -> u64 {
    const LIES: [u64; 10] = [
        0,
        1,
        8,
        (4 << 30) - 4096,
        (4 << 30) - 64,
        3 << 29,
        1 << 30,
        1 << 62,
        u64::MAX,
        u32::MAX as u64,
    ];
    match rng.below(4) {
        0 => LIES[rng.below(LIES.len())],
        1 => (len as u64).wrapping_add(rng.next() % 64).wrapping_sub(32),
        2 => rng.next() % (1 << 31),
        _ => rng.next(),
    }
}

/// One mutation of `seed` (or of `other`, spliced in).
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        if b.is_empty() {
            b.extend_from_slice(mcap::MAGIC);
        }
        match rng.below(9) {
            // Flip bits.
            0 => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            // Overwrite a byte.
            1 => {
                let i = rng.below(b.len());
                b[i] = [0, 0xff, 0x7f, 0x80, rng.next() as u8][rng.below(5)];
            }
            // A record's length (or, through the offset, a field inside it) lies.
            2 | 3 => {
                let offsets = record_offsets(&b);
                if offsets.is_empty() {
                    continue;
                }
                let at = offsets[rng.below(offsets.len())] + 1 + 8 * rng.below(4);
                if at + 8 <= b.len() {
                    let v = lie(rng, b.len() - at);
                    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
            // Any 4 or 8 bytes lie (string lengths, chunk sizes, CRCs).
            4 => {
                let width = [4, 8][rng.below(2)];
                if b.len() > width {
                    let at = rng.below(b.len() - width);
                    let v = lie(rng, b.len() - at).to_le_bytes();
                    b[at..at + width].copy_from_slice(&v[..width]);
                }
            }
            // Cut.
            5 => b.truncate(rng.below(b.len() + 1)),
            // Remove a span.
            6 => {
                let at = rng.below(b.len());
                let n = rng.below(b.len() - at + 1).min(64);
                b.drain(at..at + n);
            }
            // Insert random bytes.
            7 => {
                let at = rng.below(b.len() + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                b.splice(at..at, bytes);
            }
            // Splice in a piece of another recording.
            _ => {
                let from = rng.below(other.len());
                let n = rng.below(other.len() - from + 1).min(256);
                let at = rng.below(b.len() + 1);
                b.splice(at..at, other[from..from + n].iter().copied());
            }
        }
    }
    b
}

/// Random bytes, most behind MCAP's magic (so the walk, not the magic check, reads them).
fn random(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(512);
    let mut b: Vec<u8> = if rng.below(8) == 0 {
        Vec::new()
    } else {
        mcap::MAGIC.to_vec()
    };
    b.extend((0..n).map(|_| rng.next() as u8));
    // Now and then a plausible opcode up front.
    if b.len() > 8 && rng.below(2) == 0 {
        b[8] = 1 + rng.below(15) as u8;
    }
    b
}

#[test]
fn mutated_and_random_recordings_never_panic_nor_allocate_what_the_file_does_not_hold() {
    let dir = std::env::temp_dir().join(format!("nerve-bag-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let seeds = seeds(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    // The seeds read back whole: the fuzz starts from what the readers accept.
    for (i, s) in seeds.iter().enumerate() {
        let messages = nerve_bag::file::read_bytes(s).unwrap_or_else(|e| panic!("seed {i}: {e}"));
        assert!(messages.len() >= 4, "seed {i}");
        let info = nerve_bag::inspect::info_bytes(s).unwrap();
        assert!(info.complete, "seed {i}");
    }
    let largest = seeds.iter().map(Vec::len).max().unwrap() as u64;
    let mut rng = Rng(0x6E65_7276_6532_3032);
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let start = Instant::now();
    for n in 0..INPUTS {
        let input = if n % 8 == 7 {
            random(&mut rng)
        } else {
            let seed = &seeds[rng.below(seeds.len())];
            let other = &seeds[rng.below(seeds.len())];
            mutate(&mut rng, seed, other)
        };
        let read = catch_unwind(AssertUnwindSafe(|| {
            (
                nerve_bag::inspect::info_bytes(&input).is_ok(),
                nerve_bag::file::read_bytes(&input).is_ok(),
            )
        }));
        match read {
            Ok((info, all)) => {
                *outcomes
                    .entry(if info { "info ok" } else { "info error" })
                    .or_default() += 1;
                *outcomes
                    .entry(if all { "read ok" } else { "read error" })
                    .or_default() += 1;
            }
            Err(_) => {
                let path = std::env::temp_dir().join(format!("nerve-bag-fuzz-crash-{n}.mcap"));
                std::fs::write(&path, &input).unwrap();
                panic!("input {n} panicked a reader; saved as {}", path.display());
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let peak = nerve_testing::process::peak_rss();
    println!(
        "fuzz: {INPUTS} inputs in {secs:.2} s ({:.1} µs each), peak RSS {:.1} MiB (largest \
         valid input {largest} B); {outcomes:?}",
        secs * 1e6 / INPUTS as f64,
        peak as f64 / f64::from(1 << 20)
    );
    assert!(
        peak < HEADROOM + largest,
        "peak RSS {peak} B over 64 MiB + the largest valid input ({largest} B)"
    );
    // Both outcomes happen: the mutations reach past the first record.
    for kind in ["info ok", "info error", "read ok", "read error"] {
        assert!(
            outcomes.get(kind).is_some_and(|&n| n > 0),
            "{kind}: {outcomes:?}"
        );
    }
}
