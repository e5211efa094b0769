//! The bridge tests' hosts (`nerve_testing::netns`), with what they do there: start
//! `nerve bridge zenoh`, run `nerve`, wait for a bridge's log to say something.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

pub use nerve_testing::netns::{Net, Proc};

use crate::common::NERVE;

/// Kills a process (`kill -9`) and reaps it.
pub fn kill(p: Proc) {
    drop(p);
}

/// Ends a bridge with SIGINT (its summary is printed) and reaps it.
pub fn stop(p: Proc) {
    p.interrupt();
}

/// What the bridge tests do on a [`Net`].
pub trait BridgeNet {
    /// Starts `nerve bridge zenoh` on host `i` (listening on its address, connecting to host
    /// 0's unless it is host 0), its output in `<dir>/bridge-<i>.log`.
    fn bridge(&self, i: usize, extra: &[&str]) -> Proc;
    /// Starts `nerve bridge zenoh ARGS --stats-every 1` on host `i`.
    fn bridge_args(&self, i: usize, args: &[&str]) -> Proc;
    /// Bridge `i`'s log.
    fn log(&self, i: usize) -> PathBuf;
    /// Waits until bridge `i`'s log contains `text` (panics with the log after `within`).
    fn wait_log(&self, i: usize, text: &str, within: Duration);
    /// `nerve ARGS` on host `i`: its stdout.
    fn nerve(&self, i: usize, args: &[&str]) -> String;
    /// `nerve ARGS` on host `i`: (status, stdout, stderr).
    fn nerve_full(&self, i: usize, args: &[&str]) -> (i32, String, String);
    /// Waits until `nerve ARGS` on host `i` prints something containing `text` (or, with
    /// `present` false, stops printing it).
    fn wait_nerve(&self, i: usize, args: &[&str], text: &str, present: bool);
}

impl BridgeNet for Net {
    fn bridge(&self, i: usize, extra: &[&str]) -> Proc {
        let listen = format!("tcp/{}:7447", self.hosts[i].ip);
        let connect = format!("tcp/{}:7447", self.hosts[0].ip);
        let host = format!("h{i}");
        let mut args = vec!["--listen", &listen, "--no-multicast", "--host", &host];
        if i != 0 {
            args.extend(["--connect", &connect]);
        }
        args.extend(extra);
        self.bridge_args(i, &args)
    }

    fn bridge_args(&self, i: usize, args: &[&str]) -> Proc {
        let log = std::fs::File::create(self.log(i)).unwrap();
        self.command(i, NERVE)
            .args(["bridge", "zenoh"])
            .args(args)
            .args(["--stats-every", "1"])
            .env("RUST_LOG", "nerve_zenoh=info")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .map(Proc)
            .expect("start a bridge")
    }

    fn log(&self, i: usize) -> PathBuf {
        self.dir.join(format!("bridge-{i}.log"))
    }

    fn wait_log(&self, i: usize, text: &str, within: Duration) {
        let end = Instant::now() + within;
        loop {
            let log = std::fs::read_to_string(self.log(i)).unwrap_or_default();
            if log.contains(text) {
                return;
            }
            assert!(
                Instant::now() < end,
                "bridge {i} never said {text:?}; its log:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn nerve(&self, i: usize, args: &[&str]) -> String {
        self.nerve_full(i, args).1
    }

    fn nerve_full(&self, i: usize, args: &[&str]) -> (i32, String, String) {
        let shm = self.hosts[i].shm.display().to_string();
        crate::common::nerve_env(
            &[("NERVE_SHM_DIR", shm), ("NERVE_DOMAIN", "0".into())],
            args,
        )
    }

    fn wait_nerve(&self, i: usize, args: &[&str], text: &str, present: bool) {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let out = self.nerve(i, args);
            if out.contains(text) == present {
                return;
            }
            if Instant::now() >= end {
                // What the host had then, so a failure explains itself.
                let topics = self.nerve(i, &["topic", "list", "-a"]);
                let services = self.nerve(i, &["service", "list", "--all"]);
                let log = std::fs::read_to_string(self.log(i)).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(40).collect();
                panic!(
                    "`nerve {}` on h{i}: {text:?} {} within 20 s; it printed:\n{out}\n\
                     topics on h{i}:\n{topics}\nservices on h{i}:\n{services}\n\
                     the bridge's log on h{i}, newest first:\n{}",
                    args.join(" "),
                    if present {
                        "never appeared"
                    } else {
                        "never went"
                    },
                    tail.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}
