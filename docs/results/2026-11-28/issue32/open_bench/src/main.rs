//! Topic open time with other processes' endpoints in the table (the opener reads their records
//! and asks whether their processes live): a child holds a publisher and a subscriber on
//! `bench/open`; this process opens the topic, takes a subscriber and drops both, N times, on
//! core 0 (the child on core 1). Prints one JSON line: p50, p90 and mean ns of an open.
//!
//! `open_bench [N]`

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nerve::prelude::*;

const DOMAIN: u32 = 4_242_001;

fn pin(core: usize) {
    // SAFETY: a zeroed cpu_set_t is empty; CPU_SET sets one bit; sched_setaffinity reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

fn open() -> Topic<CmdVel> {
    Topic::<CmdVel>::builder("bench/open")
        .domain(DOMAIN)
        .open()
        .unwrap()
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    if arg == "hold" {
        pin(1);
        let t = open();
        let _p = t.publisher().unwrap();
        let _s = t.subscriber().unwrap();
        println!("READY");
        std::thread::sleep(Duration::from_secs(600));
        return;
    }
    let n: usize = arg.parse().unwrap_or(2000);
    pin(0);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .arg("hold")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "READY");
    for _ in 0..200 {
        let t = open();
        drop(t.subscriber().unwrap());
    }
    let mut ns: Vec<u64> = (0..n)
        .map(|_| {
            let t0 = Instant::now();
            let t = open();
            let s = t.subscriber().unwrap();
            drop(s);
            drop(t);
            t0.elapsed().as_nanos() as u64
        })
        .collect();
    let _ = child.kill();
    let _ = child.wait();
    ns.sort_unstable();
    let mean = ns.iter().sum::<u64>() as f64 / n as f64;
    println!(
        "{{\"n\": {n}, \"p50_ns\": {}, \"p90_ns\": {}, \"mean_ns\": {mean:.0}}}",
        ns[n / 2],
        ns[n * 9 / 10]
    );
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(DOMAIN));
}
