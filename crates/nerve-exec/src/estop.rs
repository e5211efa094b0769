//! The emergency stop: one handle, any thread or node triggers it, every node enters its safe
//! state.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nerve_transport::sys::{futex, lock};
use nerve_transport::time::now_ns;

/// Publishes a local trigger to other processes (set while an e-stop topic bridge runs).
pub(crate) type RemotePublish = Box<dyn Fn(&str) + Send + Sync>;

/// Interrupts a wake source's wait (see [`WakeSource::interrupter`](crate::WakeSource::interrupter)).
pub(crate) type Waker = Box<dyn Fn() + Send + Sync>;

#[derive(Default)]
pub(crate) struct EStopInner {
    pub(crate) publish: Mutex<Option<RemotePublish>>,
    /// Event lanes' interrupters, called by every kick; keyed for removal.
    pub(crate) wakers: Mutex<Vec<(u64, Waker)>>,
    pub(crate) next_waker: AtomicU64,
    /// Monotonic ns of the first trigger; 0 while not triggered.
    pub(crate) triggered_at: AtomicU64,
    pub(crate) reason: Mutex<Option<String>>,
    /// The futex word every scheduler lane sleeps on; bumped to make them look up.
    pub(crate) word: AtomicU32,
}

/// Emergency stop. Clone it freely and hand it to any node or thread: [`EStop::trigger`] wakes
/// every lane of the scheduler it belongs to, and each node's
/// [`Node::on_safe_state`](crate::Node::on_safe_state) runs once, on its own thread.
///
/// The e-stop latches: it stays triggered until [`EStop::reset`].
#[derive(Clone, Default)]
pub struct EStop {
    pub(crate) inner: Arc<EStopInner>,
}

impl std::fmt::Debug for EStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EStop")
            .field("triggered", &self.is_triggered())
            .field("reason", &self.reason())
            .finish()
    }
}

impl EStop {
    /// A new, untriggered e-stop. Pass it to [`SchedulerBuilder::estop`](crate::SchedulerBuilder::estop)
    /// to share one e-stop between several schedulers, or take the scheduler's own with
    /// [`Scheduler::estop`](crate::Scheduler::estop).
    pub fn new() -> Self {
        Self::default()
    }

    /// Triggers the e-stop (the first trigger's time and reason are kept). Cheap and
    /// non-blocking apart from the short reason lock; safe to call from any thread.
    pub fn trigger(&self, reason: &str) {
        if self.latch(reason) {
            if let Some(p) = lock(&self.inner.publish).as_ref() {
                p(reason);
            }
        }
    }

    /// A trigger that came from another process: not published again.
    pub(crate) fn trigger_from_remote(&self, reason: &str) {
        self.latch(reason);
    }

    pub(crate) fn set_publisher(&self, p: RemotePublish) {
        *lock(&self.inner.publish) = Some(p);
    }

    pub(crate) fn clear_publisher(&self) {
        *lock(&self.inner.publish) = None;
    }

    /// Latches the trigger and wakes the lanes; `true` for the first trigger.
    fn latch(&self, reason: &str) -> bool {
        let now = now_ns().max(1);
        // Release: pairs with the Acquire loads in is_triggered(), triggered_at() and
        // triggered_ns(), so a thread that sees the trigger also sees what the triggering
        // thread did before it. Acquire (success and failure): pairs with the Release store in
        // reset() and with an earlier trigger's Release here.
        if self
            .inner
            .triggered_at
            .compare_exchange(0, now, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            // Wake the lanes first: the reason and the log line are for people, and a
            // formatted log line can take longer than the whole e-stop budget.
            self.kick();
            *lock(&self.inner.reason) = Some(reason.to_owned());
            tracing::warn!(reason, "e-stop triggered");
            return true;
        }
        self.kick();
        false
    }

    /// Whether the e-stop is triggered.
    pub fn is_triggered(&self) -> bool {
        // pairs with the Release of the compare_exchange in EStop::latch()
        self.inner.triggered_at.load(Ordering::Acquire) != 0
    }

    /// The reason given by the first trigger, if triggered.
    pub fn reason(&self) -> Option<String> {
        lock(&self.inner.reason).clone()
    }

    /// When the e-stop was triggered, as time on `CLOCK_MONOTONIC` (nerve's clock,
    /// `nerve::time::now_ns`).
    pub fn triggered_at(&self) -> Option<Duration> {
        match self.triggered_ns() {
            0 => None,
            t => Some(Duration::from_nanos(t)),
        }
    }

    /// Monotonic ns of the first trigger; 0 while not triggered.
    pub(crate) fn triggered_ns(&self) -> u64 {
        // pairs with the Release of the compare_exchange in EStop::latch()
        self.inner.triggered_at.load(Ordering::Acquire)
    }

    /// Clears the e-stop. Nodes stay in safe state until the scheduler restarts them; this only
    /// lets a new trigger be recorded.
    pub fn reset(&self) {
        // pairs with the Acquire of the compare_exchange in EStop::latch(): the next trigger
        // comes after this reset
        self.inner.triggered_at.store(0, Ordering::Release);
        *lock(&self.inner.reason) = None;
    }

    /// Makes every lane sleeping on this e-stop's word look up at once.
    pub(crate) fn kick(&self) {
        // pairs with the Acquire loads of the word in time::sleep_until(), Lane::run_periodic()
        // and Lane::run_event(): a lane that sees the new value also sees the trigger or the
        // stop recorded before this kick
        self.inner.word.fetch_add(1, Ordering::Release);
        futex::wake_all_private(&self.inner.word);
        for (_, wake) in lock(&self.inner.wakers).iter() {
            wake();
        }
    }

    pub(crate) fn add_waker(&self, w: Waker) -> u64 {
        let id = self.inner.next_waker.fetch_add(1, Ordering::Relaxed);
        lock(&self.inner.wakers).push((id, w));
        id
    }

    pub(crate) fn remove_waker(&self, id: u64) {
        lock(&self.inner.wakers).retain(|(i, _)| *i != id);
    }

    pub(crate) fn word(&self) -> &AtomicU32 {
        &self.inner.word
    }
}
