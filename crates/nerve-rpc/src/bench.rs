//! Service round trip and throughput, as rows for `nerve-bench rpc` (the JSON contract of
//! BENCHMARKS.md, `suite: rpc`).
//!
//! An echo server (one receiving thread running the handler) and `parallelism` client threads,
//! each with its own client, calling back to back with typed requests of 512 B, 2 KB and 8 KB of
//! bytes (MessagePack `bin`, so a few bytes more on the wire). The client checks the echoed
//! length and its first and last byte. Server and clients are threads of this process talking
//! through `/dev/shm` topics (`transport: cross-thread`); blocking receive with a short spin.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::service::Service;

/// One result row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Always `rpc`.
    pub suite: &'static str,
    /// Always `nerve`.
    pub system: &'static str,
    /// Always `rust`.
    pub api: &'static str,
    /// `cross-thread`: server and clients in one process, through shared-memory topics.
    pub transport: &'static str,
    /// `N:1`: N client threads, one server.
    pub topology: String,
    /// `blocking` (spin briefly, then sleep on the futex).
    pub mode: &'static str,
    /// `bytes`.
    pub message: &'static str,
    /// Request (and response) payload in bytes, before the MessagePack framing.
    pub payload_bytes: usize,
    /// `rtt_ns` or `qps`.
    pub metric: &'static str,
    /// Concurrent callers.
    pub parallelism: usize,
    /// Calls that failed (timeouts, errors, wrong echoes).
    pub errors: u64,
    /// Smallest sample (for `qps`: the rate).
    pub min: f64,
    /// Median (for `qps`: the rate).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest sample.
    pub max: f64,
    /// Samples (for `qps`: calls).
    pub n: u64,
    /// Why the case could not run (then the numbers are zero).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Bytes carried as MessagePack `bin` (a plain `Vec<u8>` would be an array of integers).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Blob(Vec<u8>);

impl Serialize for Blob {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Blob;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Blob, E> {
                Ok(Blob(v.to_vec()))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Blob, E> {
                Ok(Blob(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Blob, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = a.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Blob(out))
            }
        }
        d.deserialize_bytes(V)
    }
}

fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i] as f64
}

struct Case {
    payload: usize,
    parallelism: usize,
}

fn row(case: &Case, metric: &'static str, errors: u64) -> Row {
    Row {
        suite: "rpc",
        system: "nerve",
        api: "rust",
        transport: "cross-thread",
        topology: format!("{}:1", case.parallelism),
        mode: "blocking",
        message: "bytes",
        payload_bytes: case.payload,
        metric,
        parallelism: case.parallelism,
        errors,
        min: 0.0,
        p50: 0.0,
        p90: 0.0,
        p99: 0.0,
        p999: 0.0,
        max: 0.0,
        n: 0,
        error: None,
    }
}

fn run_case(domain: u32, case: &Case, warmup: Duration, measure: Duration) -> Vec<Row> {
    let name = format!("bench/echo{}x{}", case.payload, case.parallelism);
    let svc = Service::<Blob, Blob>::builder(&name)
        .domain(domain)
        .max_message_bytes(case.payload + 4096)
        .build();
    let server = match svc.server().serve(Ok) {
        Ok(s) => s,
        Err(e) => {
            let mut r = row(case, "rtt_ns", 0);
            r.error = Some(e.to_string());
            return vec![r];
        }
    };
    let start = std::sync::Barrier::new(case.parallelism);
    let results: Vec<(Vec<u64>, u64, u64, Duration)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..case.parallelism)
            .map(|t| {
                let svc = svc.clone();
                let start = &start;
                s.spawn(move || {
                    let mut samples = Vec::with_capacity(1 << 16);
                    let (mut calls, mut errors) = (0u64, 0u64);
                    let Ok(client) = svc.client() else {
                        start.wait();
                        return (samples, 0, 1, Duration::ZERO);
                    };
                    client.raw().wait_for_server(Duration::from_secs(5));
                    let req = Blob(
                        (0..case.payload)
                            .map(|i| (i as u8).wrapping_add(t as u8))
                            .collect(),
                    );
                    let call = |samples: Option<&mut Vec<u64>>| -> bool {
                        let t0 = Instant::now();
                        let ok = match client.call(&req, Duration::from_secs(1)) {
                            Ok(resp) => {
                                resp.0.len() == req.0.len()
                                    && resp.0.first() == req.0.first()
                                    && resp.0.last() == req.0.last()
                            }
                            Err(_) => false,
                        };
                        if let Some(s) = samples {
                            s.push(t0.elapsed().as_nanos() as u64);
                        }
                        ok
                    };
                    let end = Instant::now() + warmup;
                    while Instant::now() < end {
                        call(None);
                    }
                    start.wait();
                    let t0 = Instant::now();
                    let end = t0 + measure;
                    while Instant::now() < end {
                        calls += 1;
                        if !call(Some(&mut samples)) {
                            errors += 1;
                        }
                    }
                    (samples, calls, errors, t0.elapsed())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    drop(server);
    let mut samples: Vec<u64> = results.iter().flat_map(|r| r.0.iter().copied()).collect();
    samples.sort_unstable();
    let calls: u64 = results.iter().map(|r| r.1).sum();
    let errors: u64 = results.iter().map(|r| r.2).sum();
    let elapsed = results
        .iter()
        .map(|r| r.3)
        .max()
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
        .max(1e-9);
    let mut rtt = row(case, "rtt_ns", errors);
    rtt.min = samples.first().copied().unwrap_or(0) as f64;
    rtt.p50 = percentile(&samples, 0.5);
    rtt.p90 = percentile(&samples, 0.9);
    rtt.p99 = percentile(&samples, 0.99);
    rtt.p999 = percentile(&samples, 0.999);
    rtt.max = samples.last().copied().unwrap_or(0) as f64;
    rtt.n = samples.len() as u64;
    let rate = calls.saturating_sub(errors) as f64 / elapsed;
    let mut qps = row(case, "qps", errors);
    (qps.min, qps.p50, qps.p90, qps.p99, qps.p999, qps.max) = (rate, rate, rate, rate, rate, rate);
    qps.n = calls;
    vec![rtt, qps]
}

/// Runs every case (512 B, 2 KB, 8 KB × parallelism 1, 4, 8) and returns `rtt_ns` and `qps`
/// rows. `quick`: 0.2 s warm-up and 1 s per case; otherwise 1 s and 5 s.
pub fn run(quick: bool) -> Vec<Row> {
    let (warmup, measure) = if quick {
        (Duration::from_millis(200), Duration::from_secs(1))
    } else {
        (Duration::from_secs(1), Duration::from_secs(5))
    };
    let domain = 3_000_000 + std::process::id() % 900_000;
    let mut rows = Vec::new();
    for payload in [512, 2048, 8192] {
        for parallelism in [1, 4, 8] {
            rows.extend(run_case(
                domain,
                &Case {
                    payload,
                    parallelism,
                },
                warmup,
                measure,
            ));
        }
    }
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(domain));
    rows
}
