//! Service round trip and throughput, as rows for `nerve-bench rpc` (the JSON contract of
//! BENCHMARKS.md, `suite: rpc`).
//!
//! An echo server ([`serve_echo`]: one receiving thread running a typed handler that decodes the
//! request and encodes it back) and `parallelism` client threads ([`measure`]), each with its own
//! client, calling back to back with typed requests of 512 B, 2 KB and 8 KB of bytes
//! (MessagePack `bin`, so a few bytes more on the wire). The client checks the echoed length
//! and its first and last byte. [`run_cross_thread`] puts the server in this process
//! (`transport: cross-thread`); `nerve-bench rpc` also runs [`serve_echo`] in a child process
//! and [`measure`] against it (`cross-process`). Waiting is the services' own: poll briefly,
//! then sleep on the futex (`mode: blocking`).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::ServeError;
use crate::service::{Server, Service};

/// One result row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Always `rpc`.
    pub suite: &'static str,
    /// Always `nerve`.
    pub system: &'static str,
    /// Always `rust`.
    pub api: &'static str,
    /// `cross-thread` (server and clients in one process) or `cross-process`, always through
    /// shared-memory topics.
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

/// A benchmark echo service: requests of `payload` bytes, topics sized for them.
fn echo_service(domain: u32, name: &str, payload: usize) -> Service<Blob, Blob> {
    Service::<Blob, Blob>::builder(name)
        .domain(domain)
        .max_message_bytes(payload + 4096)
        .build()
}

/// The name of the echo service for `payload`-byte requests (what [`serve_echo`] serves and
/// [`measure`] calls when they are in different processes).
pub fn echo_name(payload: usize) -> String {
    format!("bench/echo{payload}")
}

/// Starts the echo server of `name` for `payload`-byte requests: one receiving thread that
/// decodes each request and encodes it back (what a typed handler does).
pub fn serve_echo(domain: u32, name: &str, payload: usize) -> Result<Server, ServeError> {
    echo_service(domain, name, payload).server().serve(Ok)
}

/// Raw results of one measurement: round-trip samples (ns) and call counts.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// Round trips of the successful calls, in nanoseconds.
    pub samples: Vec<u64>,
    /// Calls made.
    pub calls: u64,
    /// Calls that failed (timeouts, errors, wrong echoes).
    pub errors: u64,
    /// Time the measuring took (the longest client).
    pub elapsed: Duration,
}

impl Measured {
    /// Pools another round into this one.
    pub fn merge(&mut self, other: Measured) {
        self.samples.extend(other.samples);
        self.calls += other.calls;
        self.errors += other.errors;
        self.elapsed += other.elapsed;
    }

    /// The median round trip, if any call succeeded.
    pub fn p50(&self) -> Option<f64> {
        let mut s = self.samples.clone();
        s.sort_unstable();
        (!s.is_empty()).then(|| percentile(&s, 0.5))
    }

    /// The `rtt_ns` and `qps` rows of these results.
    pub fn rows(&self, transport: &'static str, payload: usize, parallelism: usize) -> Vec<Row> {
        let mut samples = self.samples.clone();
        samples.sort_unstable();
        let case = Case {
            payload,
            parallelism,
            transport,
        };
        let mut rtt = row(&case, "rtt_ns", self.errors);
        if samples.is_empty() {
            rtt.error = Some(format!("no successful call ({} errors)", self.errors));
            return vec![rtt];
        }
        rtt.min = samples[0] as f64;
        rtt.p50 = percentile(&samples, 0.5);
        rtt.p90 = percentile(&samples, 0.9);
        rtt.p99 = percentile(&samples, 0.99);
        rtt.p999 = percentile(&samples, 0.999);
        rtt.max = samples[samples.len() - 1] as f64;
        rtt.n = samples.len() as u64;
        let rate =
            self.calls.saturating_sub(self.errors) as f64 / self.elapsed.as_secs_f64().max(1e-9);
        let mut qps = row(&case, "qps", self.errors);
        (qps.min, qps.p50, qps.p90, qps.p99, qps.p999, qps.max) =
            (rate, rate, rate, rate, rate, rate);
        qps.n = self.calls;
        vec![rtt, qps]
    }
}

struct Case {
    payload: usize,
    parallelism: usize,
    transport: &'static str,
}

fn row(case: &Case, metric: &'static str, errors: u64) -> Row {
    Row {
        suite: "rpc",
        system: "nerve",
        api: "rust",
        transport: case.transport,
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

/// `parallelism` client threads, each with its own client of the echo service `name` (served
/// by [`serve_echo`], in this process or another), calling back to back: `warmup`, then
/// `measure` timed. Each checks the echo's length and first and last byte.
pub fn measure(
    domain: u32,
    name: &str,
    payload: usize,
    parallelism: usize,
    warmup: Duration,
    measure: Duration,
) -> Measured {
    let svc = echo_service(domain, name, payload);
    let start = std::sync::Barrier::new(parallelism);
    let results: Vec<Measured> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..parallelism)
            .map(|t| {
                let svc = svc.clone();
                let start = &start;
                s.spawn(move || {
                    let mut m = Measured {
                        samples: Vec::with_capacity(1 << 16),
                        ..Measured::default()
                    };
                    let Ok(client) = svc.client() else {
                        start.wait();
                        m.errors = 1;
                        return m;
                    };
                    client.raw().wait_for_server(Duration::from_secs(5));
                    let req = Blob(
                        (0..payload)
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
                        if let (Some(s), true) = (samples, ok) {
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
                        m.calls += 1;
                        if !call(Some(&mut m.samples)) {
                            m.errors += 1;
                        }
                    }
                    m.elapsed = t0.elapsed();
                    m
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all = Measured::default();
    for r in results {
        all.elapsed = all.elapsed.max(r.elapsed);
        all.samples.extend(r.samples);
        all.calls += r.calls;
        all.errors += r.errors;
    }
    all
}

/// Runs on the thread that starts a cross-thread case's server (whose threads inherit its CPU
/// affinity), e.g. to pin the server to a core of its own.
pub type ServerSetup = dyn Fn() + Sync;

fn run_case(
    domain: u32,
    payload: usize,
    parallelism: usize,
    (warmup, time): (Duration, Duration),
    server_setup: &ServerSetup,
) -> Vec<Row> {
    let name = format!("bench/echo{payload}x{parallelism}");
    let started = std::thread::scope(|s| {
        s.spawn(|| {
            server_setup();
            serve_echo(domain, &name, payload)
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    let server = match started {
        Ok(s) => s,
        Err(e) => {
            let case = Case {
                payload,
                parallelism,
                transport: "cross-thread",
            };
            let mut r = row(&case, "rtt_ns", 0);
            r.error = Some(e.to_string());
            return vec![r];
        }
    };
    let m = measure(domain, &name, payload, parallelism, warmup, time);
    drop(server);
    m.rows("cross-thread", payload, parallelism)
}

/// Payloads of every case, bytes.
pub const PAYLOADS: [usize; 3] = [512, 2048, 8192];
/// Concurrent callers of every case.
pub const PARALLELISM: [usize; 3] = [1, 4, 8];

/// Every case (512 B, 2 KB, 8 KB × parallelism 1, 4, 8) with the server a thread of this
/// process (`transport: cross-thread`): `rtt_ns` and `qps` rows, `warmup` then `time` each.
/// Clients run on threads spawned from the calling thread (they inherit its CPU affinity); the
/// server on threads started from one that first runs `server_setup`.
pub fn run_cross_thread(warmup: Duration, time: Duration, server_setup: &ServerSetup) -> Vec<Row> {
    let domain = 3_000_000 + std::process::id() % 900_000;
    let mut rows = Vec::new();
    for payload in PAYLOADS {
        for parallelism in PARALLELISM {
            rows.extend(run_case(
                domain,
                payload,
                parallelism,
                (warmup, time),
                server_setup,
            ));
        }
    }
    let _ = std::fs::remove_dir_all(nerve_transport::registry::domain_dir(domain));
    rows
}

/// [`run_cross_thread`] with 0.2 s warm-up and 1 s per case (`quick`), else 1 s and 5 s.
pub fn run(quick: bool) -> Vec<Row> {
    if quick {
        run_cross_thread(Duration::from_millis(200), Duration::from_secs(1), &|| {})
    } else {
        run_cross_thread(Duration::from_secs(1), Duration::from_secs(5), &|| {})
    }
}
