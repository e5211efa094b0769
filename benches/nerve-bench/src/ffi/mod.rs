//! The FFI rows of `nerve-bench ipc`: the same cross-process hop (1:1, a 16-byte fixed message
//! and a 6 MB chunked one, poll and blocking) from Rust, C (`nerve.h`), C++ (`nerve.hpp`) and
//! Python, each a ping and an echo program in that language speaking one protocol
//! (`benches/c/pingpong.c` describes it; `pingpong.cpp`, `benches/python/ffi_pingpong.py` and
//! this module's `__ffi-pingpong` role are its twins). Ping pinned to the first bench core,
//! echo to the second, one-way = round trip / 2, every message checked; the languages take
//! turns round by round, and `ratio_p50_vs_rust` is the median over rounds of the language's
//! p50 over Rust's of the same round (the C and C++ target: ≤ 1.1).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use nerve::Topic;

use crate::ipc::nerve::BENCH_DOMAIN;
use crate::pin;
use crate::report::Row;
use crate::stats::{self, Summary};
use sendrecv::loop_main;
pub(crate) use sendrecv::SmallDict;

mod sendrecv;

/// The languages, in round order.
pub const APIS: [&str; 4] = ["rust", "c", "cpp", "python"];
/// The C and C++ target: their hop at most this many times Rust's.
pub const TARGET: f64 = 1.1;
const STOP: u64 = u64::MAX;
const CHECK_WORD: u64 = 0x5555_5555_5555_5555;
const TIMEOUT: Duration = Duration::from_secs(5);
/// 6 MiB, as the ipc suite's largest payload.
const SIX_MB: usize = 6 << 20;

/// The 16-byte message.
#[derive(Clone, Copy, Debug, nerve::Message)]
#[message(name = "bench/Ping16", default = "zeroed")]
#[repr(C)]
pub struct Ping16 {
    /// Sequence number.
    pub seq: u64,
    /// `seq ^ CHECK_WORD`.
    pub check: u64,
}

/// The chunked message's header; its elements are bytes.
#[derive(Clone, Copy, Debug, nerve::Message)]
#[message(name = "bench/Blob", chunked(elem = u8, message = Blob, doc = "Bench bytes in a chunk."), default = "zeroed")]
#[repr(C)]
pub struct BlobHeader {
    /// Sequence number.
    pub seq: u64,
    /// Bytes of data.
    pub len: u64,
}

fn pattern(seq: u64, k: usize) -> u8 {
    seq.wrapping_add(k as u64) as u8
}

/// One side's endpoints and how it waits.
struct Side<M: nerve::Message> {
    _topics: (Topic<M>, Topic<M>),
    publisher: nerve::Publisher<M>,
    subscriber: nerve::Subscriber<M>,
    blocking: bool,
}

impl<M: nerve::Message> Side<M>
where
    M::Kind: nerve::Codec<M>,
{
    fn open(
        prefix: &str,
        out: &str,
        inp: &str,
        max: Option<usize>,
        blocking: bool,
    ) -> Result<Self> {
        let open = |name: String| {
            let b = Topic::<M>::builder(&name).domain(BENCH_DOMAIN).depth(4);
            match max {
                Some(m) => b.max_message_bytes(m),
                None => b,
            }
            .open()
            .map_err(|e| anyhow!("{e}"))
        };
        let (tout, tin) = (
            open(format!("{prefix}/{out}"))?,
            open(format!("{prefix}/{inp}"))?,
        );
        let subscriber = tin.subscriber()?;
        let publisher = tout.publisher()?;
        Ok(Side {
            _topics: (tout, tin),
            publisher,
            subscriber,
            blocking,
        })
    }

    /// The next message, spinning or blocking (at most 5 s).
    fn next(&mut self) -> Result<nerve::Received<M>> {
        let deadline = Instant::now() + TIMEOUT;
        for spins in 0u64.. {
            let got = if self.blocking {
                self.subscriber.recv_timeout(TIMEOUT)?
            } else {
                self.subscriber.try_recv()?
            };
            if let Some(m) = got {
                return Ok(m);
            }
            if self.blocking || (spins % 4096 == 0 && Instant::now() > deadline) {
                bail!("nothing for 5 s");
            }
        }
        unreachable!()
    }
}

trait Hop {
    fn send(&mut self, seq: u64) -> Result<()>;
    fn recv(&mut self) -> Result<u64>;
}

impl Hop for Side<Ping16> {
    fn send(&mut self, seq: u64) -> Result<()> {
        self.publisher
            .send(&Ping16 {
                seq,
                check: seq ^ CHECK_WORD,
            })
            .map_err(|e| anyhow!("{e}"))
    }
    fn recv(&mut self) -> Result<u64> {
        let m = self.next()?;
        if m.check != m.seq ^ CHECK_WORD {
            bail!("a corrupt Ping16");
        }
        Ok(m.seq)
    }
}

struct BlobSide(Side<Blob>, usize);

impl Hop for BlobSide {
    fn send(&mut self, seq: u64) -> Result<()> {
        let n = self.1;
        let mut loan = self.0.publisher.loan(n)?;
        *loan.header_mut() = BlobHeader { seq, len: n as u64 };
        let d = loan.data_mut();
        for k in 0..64 {
            d[k] = pattern(seq, k);
            d[n - 64 + k] = pattern(seq, k + 1);
        }
        loan.send().map_err(|e| anyhow!("{e}"))
    }
    fn recv(&mut self) -> Result<u64> {
        let n = self.1;
        let s = self.0.next()?;
        let (seq, d) = (s.header().seq, s.data());
        if s.header().len != n as u64 || d.len() != n {
            bail!("a Blob of the wrong length");
        }
        if seq != STOP
            && (0..64).any(|k| d[k] != pattern(seq, k) || d[n - 64 + k] != pattern(seq, k + 1))
        {
            bail!("a corrupt Blob");
        }
        Ok(seq)
    }
}

/// The hidden `__ffi-pingpong` role: `ping|echo <prefix> <bytes> poll|blocking <samples>
/// <warmup> <core>`, as the C program takes, or `loop ...` (see `loop_main`).
pub fn role_main(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("loop") {
        return loop_main(args);
    }
    let [role, prefix, bytes, mode, samples, warmup, core] = args else {
        bail!("usage: __ffi-pingpong ping|echo <prefix> <bytes> poll|blocking <samples> <warmup> <core>");
    };
    pin::pin_current_thread(core.parse()?)?;
    let bytes: usize = bytes.parse()?;
    let blocking = mode == "blocking";
    let echo = role == "echo";
    let (out, inp) = if echo {
        ("pong", "ping")
    } else {
        ("ping", "pong")
    };
    let mut hop: Box<dyn Hop> = if bytes == 16 {
        Box::new(Side::<Ping16>::open(prefix, out, inp, None, blocking)?)
    } else if bytes >= 128 {
        Box::new(BlobSide(
            Side::<Blob>::open(prefix, out, inp, Some(bytes + 4096), blocking)?,
            bytes,
        ))
    } else {
        bail!("bytes is 16 or at least 128");
    };
    if echo {
        println!("ready");
        loop {
            let seq = hop.recv()?;
            if seq == STOP {
                return Ok(());
            }
            hop.send(seq)?;
        }
    }
    let (samples, warmup): (usize, usize) = (samples.parse()?, warmup.parse()?);
    let mut out = Vec::with_capacity(samples);
    for i in 0..(warmup + samples) as u64 {
        let t0 = Instant::now();
        hop.send(i)?;
        if hop.recv()? != i {
            bail!("an echo out of order");
        }
        let dt = t0.elapsed().as_nanos() as u64 / 2;
        if i as usize >= warmup {
            out.push(dt);
        }
    }
    hop.send(STOP)?;
    let line: Vec<String> = out.iter().map(u64::to_string).collect();
    println!("samples {}", line.join(" "));
    Ok(())
}

/// The command that runs one language's program (its arguments follow).
fn program(api: &str, root: &Path, build_dir: &Path) -> Result<Vec<String>> {
    let lib = root.join("target/release/libnerve_c.a");
    let compile = |compiler: &str, std: &str, source: &str, out: &str| -> Result<Vec<String>> {
        if !lib.exists() {
            bail!(
                "{} is missing: `cargo build --release -p nerve-c` (make bench-build does)",
                lib.display()
            );
        }
        let exe = build_dir.join(out);
        let built = Command::new(compiler)
            .args(["-O2", std, "-Wall", "-Werror", "-I"])
            .arg(root.join("bindings/c/include"))
            .arg(root.join("benches/c").join(source))
            .arg(&lib)
            .args(["-lpthread", "-ldl", "-lm", "-o"])
            .arg(&exe)
            .output()
            .with_context(|| format!("running {compiler}"))?;
        if !built.status.success() {
            bail!(
                "{compiler} {source}: {}",
                String::from_utf8_lossy(&built.stderr)
            );
        }
        Ok(vec![exe.display().to_string()])
    };
    match api {
        "rust" => Ok(vec![
            std::env::current_exe()?.display().to_string(),
            "__ffi-pingpong".into(),
        ]),
        "c" => compile(
            &std::env::var("CC").unwrap_or_else(|_| "cc".into()),
            "-std=c11",
            "pingpong.c",
            "ffi-pingpong-c",
        ),
        "cpp" => compile(
            &std::env::var("CXX").unwrap_or_else(|_| "c++".into()),
            "-std=c++17",
            "pingpong.cpp",
            "ffi-pingpong-cpp",
        ),
        "python" => {
            let py = root.join(".venv/bin/python");
            let has_nerve = Command::new(&py)
                .args(["-c", "import nerve"])
                .output()
                .is_ok_and(|o| o.status.success());
            if !has_nerve {
                bail!(
                    "{} cannot import nerve: `make` (bindings/python/dev.sh) installs it",
                    py.display()
                );
            }
            Ok(vec![
                py.display().to_string(),
                root.join("benches/python/ffi_pingpong.py")
                    .display()
                    .to_string(),
            ])
        }
        other => bail!("unknown api `{other}`"),
    }
}

/// One round: echo on `cores.1`, ping on `cores.0`; the ping's one-way samples in ns.
fn round(
    cmd: &[String],
    prefix: &str,
    bytes: usize,
    mode: &str,
    samples: usize,
    warmup: usize,
    cores: (usize, usize),
) -> Result<Vec<f64>> {
    let args = |role: &str, n: usize, w: usize, core: usize| -> Vec<String> {
        [
            role.to_string(),
            prefix.into(),
            bytes.to_string(),
            mode.into(),
            n.to_string(),
            w.to_string(),
            core.to_string(),
        ]
        .to_vec()
    };
    let start = |a: Vec<String>| {
        Command::new(&cmd[0])
            .args(&cmd[1..])
            .args(a)
            .env("NERVE_DOMAIN", BENCH_DOMAIN.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", cmd[0]))
    };
    let mut echo = start(args("echo", 0, 0, cores.1))?;
    let mut ready = String::new();
    BufReader::new(echo.stdout.take().ok_or_else(|| anyhow!("no stdout"))?)
        .read_line(&mut ready)?;
    if ready.trim() != "ready" {
        let _ = echo.kill();
        bail!("the echo side did not start (said {ready:?})");
    }
    let mut ping = start(args("ping", samples, warmup, cores.0))?;
    let mut said = String::new();
    ping.stdout
        .take()
        .ok_or_else(|| anyhow!("no stdout"))?
        .read_to_string(&mut said)?;
    let ping_ok = ping.wait()?.success();
    let deadline = Instant::now() + TIMEOUT;
    while echo.try_wait()?.is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = echo.kill();
    let echo_ok = echo.wait()?.success();
    let values = said
        .trim()
        .strip_prefix("samples")
        .ok_or_else(|| anyhow!("the ping side failed (its stderr says why)"))?;
    if !ping_ok || !echo_ok {
        bail!("a side exited with an error (ping ok: {ping_ok}, echo ok: {echo_ok})");
    }
    let v: Vec<f64> = values
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    if v.len() != samples {
        bail!("{} samples, expected {samples}", v.len());
    }
    Ok(v)
}

/// One send + receive loop: `loop <prefix> <message> <batches> <per_batch> <core>`; each
/// batch's mean ns, the first (warm-up) batch dropped.
fn loop_round(
    cmd: &[String],
    prefix: &str,
    message: &str,
    batches: usize,
    core: usize,
) -> Result<Vec<f64>> {
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .args([
            "loop",
            prefix,
            message,
            &(batches + 1).to_string(),
            "10000",
            &core.to_string(),
        ])
        .env("NERVE_DOMAIN", BENCH_DOMAIN.to_string())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("starting {}", cmd[0]))?;
    let said = String::from_utf8_lossy(&out.stdout);
    let values = said.trim().strip_prefix("samples").ok_or_else(|| {
        anyhow!(
            "the send+recv loop failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })?;
    let v: Vec<f64> = values
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    if v.len() != batches + 1 {
        bail!("{} batches, expected {}", v.len(), batches + 1);
    }
    Ok(v[1..].to_vec())
}

/// One FFI scenario: a cross-process hop, or the seed's send+recv in one thread.
#[derive(Clone, Copy)]
enum Case {
    Hop { bytes: usize, mode: &'static str },
    SendRecv { message: &'static str },
}

impl Case {
    const ALL: [Case; 10] = [
        Case::Hop {
            bytes: 16,
            mode: "poll",
        },
        Case::Hop {
            bytes: 16,
            mode: "blocking",
        },
        Case::Hop {
            bytes: SIX_MB,
            mode: "poll",
        },
        Case::Hop {
            bytes: SIX_MB,
            mode: "blocking",
        },
        Case::SendRecv { message: "CmdVel" },
        Case::SendRecv { message: "Pose2D" },
        Case::SendRecv { message: "Imu" },
        Case::SendRecv { message: "dict-v" },
        Case::SendRecv {
            message: "dict-xyz",
        },
        Case::SendRecv { message: "dict" },
    ];

    fn message(self) -> &'static str {
        match self {
            Case::Hop { bytes: 16, .. } => "Ping16 (fixed)",
            Case::Hop { .. } => "Blob (chunked, in place)",
            Case::SendRecv { message } => message,
        }
    }

    fn describe(self) -> String {
        match self {
            Case::Hop { bytes, mode } => {
                format!("ffi cross-process {mode} 1:1 {} {bytes} B", self.message())
            }
            Case::SendRecv { message } => format!("ffi send+recv same-thread {message}"),
        }
    }

    /// A row of this case for `api`.
    fn row(self, api: &str, metric: &str) -> Row {
        let (transport, mode, bytes) = match self {
            Case::Hop { bytes, mode } => ("cross-process", mode, bytes),
            Case::SendRecv { message } => (
                "same-thread",
                "poll",
                match message {
                    "CmdVel" => std::mem::size_of::<nerve::msgs::CmdVel>(),
                    "Pose2D" => std::mem::size_of::<nerve::msgs::Pose2D>(),
                    "Imu" => std::mem::size_of::<nerve::msgs::Imu>(),
                    _ => 0,
                },
            ),
        };
        Row::new(
            "ipc",
            "nerve",
            api,
            transport,
            "1:1",
            mode,
            self.message(),
            bytes,
            metric,
        )
        .field("variant", "ffi")
    }

    fn metric(self) -> &'static str {
        match self {
            Case::Hop { .. } => "one_way_ns",
            Case::SendRecv { .. } => "send_recv_ns",
        }
    }

    /// Why `api` has no row here (C and C++ have no dynamic messages).
    fn not_for(self, api: &str) -> Option<&'static str> {
        match (self, api) {
            (Case::SendRecv { message }, "c" | "cpp") if message.starts_with("dict") => Some("not applicable: C and C++ send typed structs; dicts are MessagePack from Rust and Python"),
            (Case::SendRecv { message: "Pose2D" }, "c" | "cpp") => Some("not measured: Pose2D is in the seed's Python table only; C and C++ run CmdVel and Imu"),
            _ => None,
        }
    }

    /// One round of `api` (its command `cmd`): the samples.
    fn run(
        self,
        cmd: &[String],
        prefix: &str,
        quick: bool,
        cores: (usize, usize),
    ) -> Result<Vec<f64>> {
        match self {
            Case::Hop { bytes, mode } => {
                let (samples, warmup) = match (bytes, quick) {
                    (16, true) => (2_000, 500),
                    (16, false) => (20_000, 2_000),
                    (_, true) => (100, 40),
                    (_, false) => (1_000, 64),
                };
                round(cmd, prefix, bytes, mode, samples, warmup, cores)
            }
            Case::SendRecv { message } => {
                loop_round(cmd, prefix, message, if quick { 10 } else { 40 }, cores.0)
            }
        }
    }
}

/// The FFI rows for the cases whose description contains one of `only` (all if empty); ping
/// (and the send+recv loops) on `cores.0`, echo on `cores.1`. Rounds alternate the languages;
/// each case gives a row per language and a `ratio_p50_vs_rust` row for each other language.
pub fn rows(quick: bool, rounds: usize, only: &[String], cores: (usize, usize)) -> Vec<Row> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let build_dir = std::env::temp_dir().join(format!("nerve-bench-ffi-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&build_dir);
    let programs: Vec<(&str, Result<Vec<String>>)> = APIS
        .iter()
        .map(|&a| (a, program(a, &root, &build_dir)))
        .collect();
    let mut out = Vec::new();
    for case in Case::ALL {
        let describe = case.describe();
        if !only.is_empty() && !only.iter().any(|o| describe.contains(o.as_str())) {
            continue;
        }
        let t0 = Instant::now();
        let mut pooled: Vec<Vec<f64>> = vec![Vec::new(); APIS.len()];
        let mut p50s: Vec<Vec<f64>> = vec![Vec::new(); APIS.len()];
        let mut errors: Vec<Option<String>> = vec![None; APIS.len()];
        for r in 0..rounds {
            for (i, (api, cmd)) in programs.iter().enumerate() {
                let got = match (cmd, case.not_for(api)) {
                    (_, Some(why)) => Err(anyhow!("{why}")),
                    (Err(e), _) => Err(anyhow!("{e:#}")),
                    (Ok(cmd), None) => {
                        let prefix = format!(
                            "ffi/{}/{api}/{}/{r}",
                            std::process::id(),
                            describe.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                        );
                        let got = case
                            .run(cmd, &prefix, quick, cores)
                            .map_err(|e| anyhow!("round {r}: {e:#}"));
                        // Both sides have exited (a C side without closing its handles, an
                        // echo side killed): their topics are stale; a 6 MiB round leaves
                        // tens of MiB of pool behind otherwise.
                        let _ = nerve::registry::clean(BENCH_DOMAIN);
                        got
                    }
                };
                match got {
                    Ok(mut v) => {
                        p50s[i].push(stats::median(&v).unwrap_or(f64::NAN));
                        pooled[i].append(&mut v);
                    }
                    Err(e) => errors[i] = Some(format!("{e:#}")),
                }
            }
        }
        for (i, api) in APIS.iter().enumerate() {
            let r = case.row(api, case.metric());
            out.push(match (&errors[i], Summary::of(&mut pooled[i])) {
                (Some(e), _) => r.error(e.clone()),
                (None, Some(s)) => r.summary(s).field("rounds", rounds),
                (None, None) => r.error("no samples"),
            });
            if i == 0 || errors[i].is_some() || errors[0].is_some() {
                continue;
            }
            let ratios: Vec<f64> = p50s[i].iter().zip(&p50s[0]).map(|(a, b)| a / b).collect();
            if let Some(s) = Summary::of_rounds(&ratios) {
                let mut r = case
                    .row(api, "ratio_p50_vs_rust")
                    .field("rounds", ratios.len())
                    .field("note", "per round: this language's p50 / Rust's p50 of the same round; p50 = median over rounds");
                if matches!(case, Case::Hop { .. }) && matches!(*api, "c" | "cpp") {
                    r = r.field("threshold", TARGET).field("pass", s.p50 <= TARGET);
                }
                out.push(r.summary(s));
            }
        }
        eprintln!("[ffi] {describe} ({:.2} s)", t0.elapsed().as_secs_f64());
    }
    let _ = std::fs::remove_dir_all(&build_dir);
    out
}

/// The FFI tables on stdout: the cross-process hop, and the seed's send+recv (p50 and p99 of
/// each language, ratio = median over rounds of p50 / Rust's p50).
pub fn print_table(rows: &[Row]) {
    let ffi: Vec<&Row> = rows
        .iter()
        .filter(|r| r.extra.get("variant").and_then(|v| v.as_str()) == Some("ffi"))
        .collect();
    for (transport, metric, title) in [
        (
            "cross-process",
            "one_way_ns",
            "FFI overhead: the same cross-process hop from each language (one_way_ns",
        ),
        (
            "same-thread",
            "send_recv_ns",
            "FFI overhead, the HORUS seed's table: one send + receive in one thread (send_recv_ns",
        ),
    ] {
        let mine: Vec<&&Row> = ffi.iter().filter(|r| r.transport == transport).collect();
        if mine.is_empty() {
            continue;
        }
        println!("\n# {title} p50 / p99; ratio = median over rounds of p50 / Rust's p50)");
        println!("| message | mode | {} |", APIS.join(" | "));
        println!("|---|---|{}", "---|".repeat(APIS.len()));
        let mut keys: Vec<(&str, &str)> = mine
            .iter()
            .map(|r| (r.message.as_str(), r.mode.as_str()))
            .collect();
        keys.dedup();
        for (message, mode) in keys {
            let cell = |api: &str| -> String {
                let find = |m: &str| {
                    mine.iter().find(|r| {
                        r.message == message && r.mode == mode && r.api == api && r.metric == m
                    })
                };
                match find(metric) {
                    Some(r) if r.error.is_some() => "n/a".into(),
                    Some(r) => {
                        let ratio = find("ratio_p50_vs_rust")
                            .and_then(|x| x.summary.as_ref())
                            .map(|x| format!(" ({:.2}×)", x.p50))
                            .unwrap_or_default();
                        r.summary
                            .as_ref()
                            .map(|s| format!("{:.0} / {:.0} ns{ratio}", s.p50, s.p99))
                            .unwrap_or_default()
                    }
                    None => "-".into(),
                }
            };
            let cells: Vec<String> = APIS.iter().map(|a| cell(a)).collect();
            println!("| {message} | {mode} | {} |", cells.join(" | "));
        }
    }
}
