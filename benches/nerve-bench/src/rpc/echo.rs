//! nerve's own side of `nerve-bench rpc`, through nerve-rpc's public API only: an echo service
//! and the client threads that call it.
//!
//! The echo server ([`serve_echo`]: one receiving thread running a typed handler that decodes
//! the request and encodes it back) and `parallelism` client threads ([`measure`]), each with
//! its own client, calling back to back with typed requests of 512 B, 2 KB and 8 KB of bytes
//! (MessagePack `bin`, so a few bytes more on the wire). The client checks the echoed length
//! and its first and last byte. [`run_cross_thread`] puts the server in this process
//! (`transport: cross-thread`); the suite also runs [`serve_echo`] in a child process
//! ([`echo_child_main`]) and [`measure`] against it (`cross-process`). Waiting is the
//! services' own: poll briefly, then sleep on the futex (`mode: blocking`).

use std::time::{Duration, Instant};

use anyhow::Result;
use nerve_rpc::{ServeError, Server, Service};
use serde::{Deserialize, Serialize};

use super::measured::Measured;
use crate::child::Parent;
use crate::pin;
use crate::report::Row;

/// Payloads of every case, bytes.
pub const PAYLOADS: [usize; 3] = [512, 2048, 8192];
/// Concurrent callers of every case.
pub const PARALLELISM: [usize; 3] = [1, 4, 8];

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

/// A row of nerve's Rust client (`errors`: calls that failed).
pub fn row(transport: &str, payload: usize, parallelism: usize, metric: &str, errors: u64) -> Row {
    Row::new(
        "rpc",
        "nerve",
        "rust",
        transport,
        &format!("{parallelism}:1"),
        "blocking",
        "bytes",
        payload,
        metric,
    )
    .field("parallelism", parallelism)
    .field("errors", errors)
}

/// The `rtt_ns` and `qps` rows of nerve's Rust client; one `rtt_ns` row with `error` when no
/// call succeeded.
pub fn rows(m: &Measured, transport: &str, payload: usize, parallelism: usize) -> Vec<Row> {
    let base = |metric: &str| row(transport, payload, parallelism, metric, m.errors);
    m.rows(base)
        .unwrap_or_else(|| vec![base("rtt_ns").error(m.no_success())])
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
            return vec![row("cross-thread", payload, parallelism, "rtt_ns", 0).error(e.to_string())]
        }
    };
    let m = measure(domain, &name, payload, parallelism, warmup, time);
    drop(server);
    rows(&m, "cross-thread", payload, parallelism)
}

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
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(domain));
    rows
}

/// The child side (`__rpc-echo`): serves the echo service of every payload until told to quit.
pub fn echo_child_main(domain: u32, core: usize) -> Result<()> {
    let mut parent = Parent::attach();
    if let Err(e) = pin::pin_current_thread(core) {
        eprintln!("rpc echo: {e:#} (running unpinned)");
    }
    let mut servers = Vec::new();
    for p in PAYLOADS {
        // Server threads inherit this thread's pinning.
        match serve_echo(domain, &echo_name(p), p) {
            Ok(s) => servers.push(s),
            Err(e) => {
                parent.reply(&format!("error {e}"))?;
                return Ok(());
            }
        }
    }
    // The topic ping-pong's echoes (`versus`), threads of this pinned thread too.
    let _topics = match super::versus::TopicEchoes::start(domain, &PAYLOADS, false) {
        Ok(t) => t,
        Err(e) => {
            parent.reply(&format!("error {e:#}"))?;
            return Ok(());
        }
    };
    parent.reply("ready")?;
    while let Some(line) = parent.next_line() {
        if line == "quit" {
            break;
        }
    }
    drop(servers);
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(domain));
    Ok(())
}
