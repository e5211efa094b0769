//! What wakes an event-driven node.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use nerve_transport::sys::lock;

/// Something an event node blocks on until it has data. The scheduler calls [`WakeSource::wait`]
/// in a loop on the node's own thread and ticks the node once per `true`.
///
/// Implementations must block (futex, condvar, a subscriber's `recv_timeout`), never poll.
/// The timeout (tens of milliseconds) only bounds how long a stop or e-stop waits for the
/// thread.
pub trait WakeSource: Send + 'static {
    /// Blocks until there is something to do (`true`) or `timeout` passes (`false`).
    fn wait(&mut self, timeout: Duration) -> bool;

    /// A function that makes a blocked [`WakeSource::wait`] return `false` at once, called from
    /// other threads on e-stop and stop, so the node reaches its safe state without waiting
    /// out the timeout. `None` (the default): the wait's timeout bounds that latency.
    fn interrupter(&self) -> Option<Box<dyn Fn() + Send + Sync>> {
        None
    }
}

#[derive(Default)]
struct NotifyInner {
    /// (notifications, interruptions)
    state: Mutex<(u64, u64)>,
    cv: Condvar,
}

/// An in-process wake source: [`Notify::notify`] from any thread wakes the event node that
/// owns a clone. Notifications that arrive while the node is busy are coalesced into one tick.
#[derive(Clone, Default)]
pub struct Notify {
    inner: Arc<NotifyInner>,
    seen: (u64, u64),
}

impl Notify {
    /// A new wake source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Wakes the node waiting on this source (or makes its next wait return at once).
    pub fn notify(&self) {
        let mut c = lock(&self.inner.state);
        c.0 += 1;
        self.inner.cv.notify_all();
    }
}

impl WakeSource for Notify {
    fn wait(&mut self, timeout: Duration) -> bool {
        let c = lock(&self.inner.state);
        let (c, _) = self
            .inner
            .cv
            .wait_timeout_while(c, timeout, |c| *c == self.seen)
            .unwrap_or_else(|e| e.into_inner());
        let woke = c.0 != self.seen.0;
        self.seen = *c;
        woke
    }

    fn interrupter(&self) -> Option<Box<dyn Fn() + Send + Sync>> {
        let inner = self.inner.clone();
        Some(Box::new(move || {
            let mut c = lock(&inner.state);
            c.1 += 1;
            inner.cv.notify_all();
        }))
    }
}
