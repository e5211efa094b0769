//! The watchdog thread: finds nodes stuck in one tick longer than their watchdog timeout and
//! applies their [`HangPolicy`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use nerve_transport::sys::futex;
use nerve_transport::time::{duration_ns, now_ns};

use crate::error::RunError;
use crate::policy::HangPolicy;
use crate::shared::{NodeShared, Shared};

/// The running watchdog; [`Watchdog::stop`] ends it.
pub(super) struct Watchdog {
    done: Arc<AtomicBool>,
    /// `None` if the thread could not start (then nothing is watched).
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the thread; it looks every `tick`.
    pub(super) fn start(shared: &Arc<Shared>, tick: Duration) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let (sh, d) = (shared.clone(), done.clone());
        let thread = std::thread::Builder::new()
            .name("nerve-watchdog".to_owned())
            .spawn(move || watch(&sh, &d, tick));
        if let Err(e) = &thread {
            tracing::error!(error = %e, "could not start the watchdog thread; hung nodes go unnoticed");
        }
        Self {
            done,
            thread: thread.ok(),
        }
    }

    /// Stops the thread and waits for it.
    pub(super) fn stop(self, shared: &Shared) {
        // pairs with the Acquire load in watch()
        self.done.store(true, Ordering::Release);
        shared.kick_ctl();
        if let Some(t) = self.thread {
            let _ = t.join();
        }
    }
}

/// The watchdog's loop: look at every watched node, sleep a tick (or until the control word
/// moves), until `done`.
fn watch(shared: &Shared, done: &AtomicBool, tick: Duration) {
    let word = &shared.ctl;
    // pairs with the Release store in Watchdog::stop()
    while !done.load(Ordering::Acquire) {
        let now = now_ns();
        for n in shared.nodes.iter().filter(|n| n.watchdog_ns != 0) {
            check(shared, n, now);
        }
        // Sleep a watchdog tick; the control word only makes us check `done` sooner.
        // pairs with the Release increment in Shared::kick_ctl()
        let gen = word.load(Ordering::Acquire);
        futex::wait_until_private(word, gen, now_ns().saturating_add(duration_ns(tick)));
    }
}

/// Reports `n` (once per stuck tick) if it has been in one tick longer than its timeout.
fn check(shared: &Shared, n: &NodeShared, now: u64) {
    // pairs with the Release stores of tick_started in Slot::run_tick()
    let started = n.tick_started.load(Ordering::Acquire);
    if started == 0 || now.saturating_sub(started) <= n.watchdog_ns {
        return;
    }
    // Relaxed: only the watchdog thread reads and writes `hang_flagged`, and it carries no
    // data for anyone.
    if n.hang_flagged.swap(started, Ordering::Relaxed) == started {
        return; // already reported this tick
    }
    n.rec().hangs += 1;
    let timeout = Duration::from_nanos(n.watchdog_ns);
    tracing::error!(node = %n.name, ?timeout, policy = ?n.on_hang, "watchdog: node hung in tick");
    match n.on_hang {
        HangPolicy::Warn => {}
        HangPolicy::EStop => shared
            .estop
            .trigger(&format!("watchdog: node {} hung", n.name)),
        HangPolicy::Stop => shared.fail(RunError::NodeHung {
            node: n.name.clone(),
            timeout,
            stuck: Vec::new(),
        }),
    }
}
