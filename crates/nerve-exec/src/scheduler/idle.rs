//! The busy-polling threads of
//! [`SchedulerBuilder::idle_poll`](crate::SchedulerBuilder::idle_poll): one per CPU an RT lane
//! is pinned to, at `SCHED_IDLE`, so the CPU never halts between ticks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::rt;
use crate::shared::Shared;

/// The pollers of one run; [`IdlePollers::stop`] ends them.
pub(super) struct IdlePollers {
    done: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl IdlePollers {
    /// Starts a poller on each of `cpus`. Returns once every thread has tried to pin itself
    /// and go to `SCHED_IDLE` (each step recorded in the RT report), so no lane runs beside a
    /// poller still at normal priority.
    pub(super) fn start(cpus: &[usize], shared: &Arc<Shared>) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let threads = cpus
            .iter()
            .filter_map(|&cpu| start_one(cpu, shared, &done))
            .collect();
        Self { done, threads }
    }

    /// Stops the pollers and waits for them.
    pub(super) fn stop(self) {
        // Relaxed: the flag carries no data, and a late look only polls a little longer.
        self.done.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
    }
}

/// The poller for `cpu`; it spins until `done` is set, and only once it is pinned and at
/// `SCHED_IDLE`.
fn start_one(cpu: usize, shared: &Arc<Shared>, done: &Arc<AtomicBool>) -> Option<JoinHandle<()>> {
    let (sh, done) = (shared.clone(), done.clone());
    let what = format!("idle poller on cpu {cpu} at SCHED_IDLE (idle_poll)");
    let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel::<()>(1);
    let r = std::thread::Builder::new()
        .name(format!("nerve-poll-c{cpu}"))
        .spawn(move || {
            let r = rt::pin_to(cpu).and_then(|()| rt::set_idle());
            let ok = r.is_ok();
            sh.report_rt(what, r);
            let _ = ready_tx.send(());
            // Relaxed: the flag carries no data, and a late look only polls a little longer.
            while ok && !done.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
    match r {
        Ok(h) => {
            // An Err only means the thread died before it could say so; it is joined later.
            let _ = ready_rx.recv();
            Some(h)
        }
        Err(e) => {
            shared.report_rt(
                format!("idle poller on cpu {cpu} (idle_poll)"),
                Err(format!("could not start the thread: {e}")),
            );
            None
        }
    }
}
