//! SIGINT/SIGTERM stop the scheduler cleanly: every node's `shutdown` runs.
//!
//! The test re-executes its own binary with `NERVE_EXEC_SIGNAL_CHILD` set; in the child,
//! `signal_child` runs a scheduler until a signal arrives and prints what happened.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nerve_exec::prelude::*;

const CHILD_ENV: &str = "NERVE_EXEC_SIGNAL_CHILD";

struct Loud(String);

impl Node for Loud {
    fn name(&self) -> &str {
        &self.0
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
    fn shutdown(&mut self, _ctx: &mut Context<'_>) {
        println!("shutdown {}", self.0);
    }
}

/// Not a test on its own: the child half of `signal_runs_every_shutdown`.
#[test]
fn signal_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let mut s = Scheduler::builder()
        .print_stats(false)
        .node(Loud("a".into()))
        .rate(100.0)
        .node(Loud("b".into()))
        .rate(10.0)
        .node(Loud("c".into()))
        .wake_on(Notify::new())
        .build()
        .unwrap();
    let h = s.handle();
    std::thread::spawn(move || {
        // Ready once the first ticks ran, i.e. the handlers are installed.
        while h.stats()[0].ticks() == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        println!("\nNERVE-CHILD-READY");
    });
    let r = s.run();
    println!("result {r:?}");
}

fn run_child(sig: libc::c_int) -> Vec<String> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["signal_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Never hang the test suite: kill the child if it is still there after 20 s.
    let pid = child.id() as libc::pid_t;
    let t = Instant::now();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(20));
        // SAFETY: kill takes a pid and a signal number; if the child is gone this is ESRCH.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    });
    let mut ready = false;
    for l in lines.by_ref() {
        if l.unwrap().contains("NERVE-CHILD-READY") {
            ready = true;
            break;
        }
    }
    assert!(
        ready && t.elapsed() < Duration::from_secs(20),
        "child never got ready"
    );
    // SAFETY: kill with a valid pid of our own child and a valid signal number.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert!(status.success(), "child exited with {status:?}: {rest:?}");
    rest
}

#[test]
fn signal_runs_every_shutdown() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let out = run_child(sig);
        for n in ["a", "b", "c"] {
            assert!(
                out.iter().any(|l| l.contains(&format!("shutdown {n}"))),
                "signal {sig}: {out:?}"
            );
        }
        let want = format!("result Ok(Signal({sig}))");
        assert!(
            out.iter().any(|l| l.contains(&want)),
            "signal {sig}: {out:?}"
        );
    }
}
