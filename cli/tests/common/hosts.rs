//! The helper processes of the bridge tests (`bridge.rs`, `direct.rs`): each test binary
//! re-executes itself with `NERVE_BRIDGE_HELPER` set, on one host's shared memory (and, with
//! [`Helper::start_on`], in its network namespace), to publish or receive CmdVel messages or
//! 6 MB images, checking every one.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nerve::msgs::{CmdVel, Image};
use nerve::prelude::*;

use crate::net::{self, Net};

/// What a helper process does, from `NERVE_BRIDGE_HELPER` (`key=value` words):
/// `kind` cmd | image, `topic`, `id` (this publisher's tag), `n` (messages to publish),
/// `hz`, `expect` (messages to receive before reporting), `go` (publish once this file
/// exists), `secs` (give up receiving after this long).
pub struct Spec(pub BTreeMap<String, String>);

impl Spec {
    /// The helper's spec, when this process is one (`NERVE_BRIDGE_HELPER`).
    pub fn from_env() -> Option<Spec> {
        let spec = std::env::var("NERVE_BRIDGE_HELPER").ok()?;
        Some(Spec(
            spec.split_whitespace()
                .filter_map(|w| w.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        ))
    }
    pub fn get(&self, k: &str) -> &str {
        self.0.get(k).map(String::as_str).unwrap_or("")
    }
    pub fn num(&self, k: &str) -> u64 {
        self.get(k).parse().unwrap_or(0)
    }
}

pub const IMAGE_W: u32 = 2048;

/// The topic's QoS from `qos=` (reliable unless `best` or `latest`).
pub fn qos<T: Message>(b: nerve::TopicBuilder<T>, spec: &Spec) -> nerve::TopicBuilder<T>
where
    T::Kind: nerve::Codec<T>,
{
    match spec.get("qos") {
        "best" => b.best_effort(),
        "latest" => b.latest_only(),
        _ => b.reliable(),
    }
}

pub fn pixel(seq: u64, k: usize) -> u8 {
    ((seq as usize + k) % 251) as u8
}

/// Waits for the go file (the bridges are ready), then paces `n` sends at `hz`.
pub fn paced(spec: &Spec, mut send: impl FnMut(u64)) {
    let go = spec.get("go").to_owned();
    while !Path::new(&go).exists() {
        std::thread::sleep(Duration::from_millis(10));
    }
    let period = Duration::from_secs_f64(1.0 / spec.num("hz").max(1) as f64);
    let start = Instant::now();
    for i in 0..spec.num("n") {
        let due = start + period * i as u32;
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        send(i);
    }
}

/// Publishes CmdVel `(stamp_ns = i, linear = i / 2, angular = id)` and receives: per sender
/// id, how many arrived, how many went backwards (or repeated), how many were wrong; stops
/// at `expect` messages, or at the one stamped `last`.
pub fn run_cmd(spec: &Spec) {
    let depth = if spec.get("qos") == "latest" { 1 } else { 1024 };
    let topic = qos(Topic::<CmdVel>::builder(spec.get("topic")), spec)
        .depth(depth)
        .open()
        .unwrap();
    // Only a receiving helper subscribes (a reliable topic waits for its subscribers); only
    // a publishing one has a publisher (the bridge exports topics that have one).
    let mut sub = (spec.num("expect") > 0).then(|| topic.subscriber().unwrap());
    let publisher = (spec.num("n") > 0).then(|| topic.publisher().unwrap());
    println!("READY");
    let id = spec.num("id") as f32;
    let sender = std::thread::spawn({
        let n = spec.num("n");
        let spec = Spec(spec.0.clone());
        move || {
            if let Some(publisher) = publisher.filter(|_| n > 0) {
                paced(&spec, |i| {
                    publisher
                        .send(&CmdVel {
                            stamp_ns: i,
                            linear: i as f32 / 2.0,
                            angular: id,
                        })
                        .unwrap()
                });
            }
        }
    });
    let (expect, end) = (
        spec.num("expect"),
        Instant::now() + Duration::from_secs(spec.num("secs").max(1)),
    );
    let last = spec.0.get("last").and_then(|l| l.parse::<u64>().ok());
    let mut next: BTreeMap<u64, u64> = BTreeMap::new();
    let (mut got, mut bad, mut out_of_order) = (0u64, 0u64, 0u64);
    while got < expect && Instant::now() < end {
        let sub = sub.as_mut().expect("a receiving helper subscribes");
        let Some(m) = sub.recv_timeout(Duration::from_millis(100)).unwrap() else {
            continue;
        };
        got += 1;
        let from = m.angular as u64;
        if m.linear != m.stamp_ns as f32 / 2.0 {
            bad += 1;
        }
        let n = next.entry(from).or_insert(0);
        if m.stamp_ns < *n {
            out_of_order += 1;
        }
        *n = m.stamp_ns + 1;
        if last == Some(m.stamp_ns) {
            break;
        }
    }
    sender.join().unwrap();
    let per: Vec<String> = next.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    println!(
        "RESULT got={got} bad={bad} out_of_order={out_of_order} from={}",
        per.join(",")
    );
}

/// Publishes `n` rgb8 images of `bytes` (default 6 MB; header stamp = i, bytes a pattern of
/// i) or receives `expect` of them, checking every byte.
pub fn run_image(spec: &Spec) {
    let bytes = match spec.num("bytes") {
        0 => 2048 * 1024 * 3,
        b => b as u32,
    };
    let height = bytes / (IMAGE_W * 3);
    let topic = qos(Topic::<Image>::builder(spec.get("topic")), spec)
        .depth(4)
        .max_message_bytes(bytes as usize)
        .open()
        .unwrap();
    let mut sub = (spec.num("expect") > 0).then(|| topic.subscriber().unwrap());
    let publisher = (spec.num("n") > 0).then(|| topic.publisher().unwrap());
    println!("READY");
    if let Some(publisher) = publisher {
        paced(spec, |i| {
            let mut loan = publisher.loan(bytes as usize).unwrap();
            for (k, b) in loan.data_mut().iter_mut().enumerate() {
                *b = pixel(i, k);
            }
            let h = loan.header_mut();
            h.header.stamp_ns = i;
            (h.width, h.height, h.step) = (IMAGE_W, height, IMAGE_W * 3);
            loan.send().unwrap();
        });
    }
    let (expect, end) = (
        spec.num("expect"),
        Instant::now() + Duration::from_secs(spec.num("secs").max(1)),
    );
    let (mut got, mut bad, mut out_of_order, mut next) = (0u64, 0u64, 0u64, 0u64);
    while got < expect && Instant::now() < end {
        let sub = sub.as_mut().expect("a receiving helper subscribes");
        let Some(m) = sub.recv_timeout(Duration::from_millis(100)).unwrap() else {
            continue;
        };
        let seq = m.header().header.stamp_ns;
        if seq < next {
            out_of_order += 1;
        }
        next = seq + 1;
        let whole = m.data().len() == bytes as usize;
        if !whole
            || m.data()
                .iter()
                .enumerate()
                .any(|(k, b)| *b != pixel(seq, k))
        {
            bad += 1;
        }
        got += 1;
    }
    println!("RESULT got={got} bad={bad} out_of_order={out_of_order} from= last={next}");
}

/// A helper process on host `shm`, once it printed READY (killed if the test ends first).
pub struct Helper {
    pub child: net::Proc,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Helper {
    /// On host `host`'s shared memory (in this namespace: no network of its own).
    pub fn start(net: &Net, host: usize, spec: &str) -> Helper {
        Self::spawn(
            Command::new(std::env::current_exe().unwrap()),
            net,
            host,
            spec,
        )
    }

    /// On host `host`'s shared memory and in its network namespace (it may reach the host's
    /// bridge and the other hosts).
    pub fn start_on(net: &Net, host: usize, spec: &str) -> Helper {
        let exe = std::env::current_exe().unwrap();
        Self::spawn(net.command(host, &exe.to_string_lossy()), net, host, spec)
    }

    fn spawn(mut command: Command, net: &Net, host: usize, spec: &str) -> Helper {
        let mut child = command
            .args(["--exact", "helper", "--nocapture", "--test-threads", "1"])
            .env("NERVE_BRIDGE_HELPER", spec)
            .env("NERVE_SHM_DIR", &net.hosts[host].shm)
            .env("NERVE_DOMAIN", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        loop {
            let line = lines
                .next()
                .expect("the helper ended before READY")
                .unwrap();
            // libtest prints "test helper ... " before the helper's first line.
            if line.trim_end().ends_with("READY") {
                break;
            }
        }
        Helper {
            child: net::Proc(child),
            lines,
        }
    }

    /// Its RESULT line, as `key → value`.
    pub fn result(mut self) -> BTreeMap<String, String> {
        for line in self.lines.by_ref() {
            let line = line.unwrap();
            if let Some((_, r)) = line.split_once("RESULT ") {
                let _ = self.child.0.wait();
                return r
                    .split_whitespace()
                    .filter_map(|w| w.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
            }
        }
        panic!("the helper ended without a RESULT");
    }
}

pub fn go(net: &Net, name: &str) -> String {
    net.path(name).display().to_string()
}

pub fn release(go: &str) {
    std::fs::write(go, b"go").unwrap();
}
