//! The compute pool: helper threads that run, together with the compute lane's own thread,
//! the ticks of one *group* (nodes due at the same instant with the same `order`) in parallel.
//!
//! The lane thread publishes a [`Batch`] of slots, wakes the helpers, claims slots itself from
//! the same counter, and waits until every slot of the batch is done before it touches any
//! slot again. A helper that wakes late finds nothing left to claim, so a batch of tiny ticks
//! costs little more than running them in sequence.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use nerve_transport::sys::{futex, lock};
use nerve_transport::time::now_ns;

use super::slot::Slot;
use crate::shared::Shared;
use crate::time::Clock;

/// A slot handed to whichever thread claims its index.
#[derive(Clone, Copy)]
pub(super) struct SlotPtr(pub(super) *mut Slot);

// SAFETY: a `Slot` is `Send` (its node and wake source are `Send`, the rest is owned data and
// `Arc`s of `Sync` types). The pointer is dereferenced only by the one thread that claimed its
// index from `Batch::next` (see `Batch::work`), while the lane thread that owns the slots waits
// for `Batch::done` and does not touch them.
unsafe impl Send for SlotPtr {}
// SAFETY: sharing the pointer value between threads is harmless; see the `Send` impl for who
// may dereference it.
unsafe impl Sync for SlotPtr {}

/// One group of ticks.
pub(super) struct Batch {
    items: Vec<SlotPtr>,
    /// Next index to claim.
    next: AtomicUsize,
    /// Slots finished; the lane thread futex-waits on it.
    done: AtomicU32,
    clock: Clock,
    start: u64,
}

impl Batch {
    /// `items` must point at distinct slots that stay alive and untouched by anyone else until
    /// [`Pool::run`] returns.
    pub(super) fn new(items: Vec<SlotPtr>, clock: Clock, start: u64) -> Self {
        Self {
            items,
            next: AtomicUsize::new(0),
            done: AtomicU32::new(0),
            clock,
            start,
        }
    }

    /// Claims and runs slots until none is left.
    fn work(&self, shared: &Shared) {
        let len = self.items.len();
        loop {
            // Relaxed: the counter only hands out each index once. The slots and the batch
            // reach this thread through the batch mutex (Pool::run() -> helper()), and the
            // lane thread waits for `done` before it touches a slot again.
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= len {
                return;
            }
            let p = self.items[i].0;
            // A panic outside the node's own calls (they are caught in Slot::run_tick) must still
            // count the slot as done, or the lane thread would wait forever.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: index `i` was claimed by this thread alone (fetch_add above), so no
                // other reference to this slot exists; the lane thread keeps the slots alive
                // and untouched until `done` reaches `len` (Pool::run), which is after this
                // call returns.
                let slot = unsafe { &mut *p };
                slot.run_tick(shared, &self.clock, self.start);
            }));
            // pairs with the Acquire load in Pool::run(): the slot's writes are visible to
            // the lane thread once it sees the count (the increments form one release
            // sequence, so seeing the last one is seeing them all). Nothing is read here.
            if self.done.fetch_add(1, Ordering::Release) as usize + 1 == len {
                futex::wake_all_private(&self.done);
            }
        }
    }
}

struct Inner {
    shared: Arc<Shared>,
    /// Bumped for every batch (and to quit); helpers sleep on it.
    gen: AtomicU32,
    quit: AtomicBool,
    batch: Mutex<Option<Arc<Batch>>>,
}

/// The helper threads of a compute lane.
pub(super) struct Pool {
    inner: Arc<Inner>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Pool {
    /// Starts `helpers` threads named after `lane`. Threads that cannot start are left out
    /// (and logged): the pool only gets smaller.
    pub(super) fn start(helpers: usize, shared: Arc<Shared>, lane: &str) -> Self {
        let inner = Arc::new(Inner {
            shared,
            gen: AtomicU32::new(0),
            quit: AtomicBool::new(false),
            batch: Mutex::new(None),
        });
        let mut threads = Vec::new();
        for k in 1..=helpers {
            let inner = inner.clone();
            let r = std::thread::Builder::new()
                .name(format!("{lane}-{k}"))
                .spawn(move || helper(&inner));
            match r {
                Ok(t) => threads.push(t),
                Err(e) => {
                    tracing::warn!(lane, error = %e, "could not start a compute pool thread; the pool is smaller")
                }
            }
        }
        Self { inner, threads }
    }

    /// Threads working on a batch, the caller included.
    pub(super) fn width(&self) -> usize {
        self.threads.len() + 1
    }

    /// Runs every slot of `batch` on the helpers and the calling thread; returns when all are
    /// done.
    pub(super) fn run(&self, batch: Batch) {
        let len = batch.items.len() as u32;
        let b = Arc::new(batch);
        *lock(&self.inner.batch) = Some(b.clone());
        // pairs with the Acquire load of `gen` in helper()
        self.inner.gen.fetch_add(1, Ordering::Release);
        futex::wake_all_private(&self.inner.gen);
        b.work(&self.inner.shared);
        loop {
            // pairs with the Release increments in Batch::work()
            let d = b.done.load(Ordering::Acquire);
            if d >= len {
                break;
            }
            futex::wait_until_private(&b.done, d, now_ns() + 1_000_000_000);
        }
        // Helpers that still hold the batch find nothing to claim; drop ours.
        *lock(&self.inner.batch) = None;
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // pairs with the Acquire load of `quit` in helper()
        self.inner.quit.store(true, Ordering::Release);
        // pairs with the Acquire load of `gen` in helper(): a helper that sees this
        // generation also sees `quit`
        self.inner.gen.fetch_add(1, Ordering::Release);
        futex::wake_all_private(&self.inner.gen);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn helper(inner: &Inner) {
    let mut seen = 0;
    loop {
        // pairs with the Release increments in Pool::run() and Pool::drop()
        let g = inner.gen.load(Ordering::Acquire);
        // pairs with the Release store in Pool::drop()
        if inner.quit.load(Ordering::Acquire) {
            return;
        }
        if g != seen {
            seen = g;
            let b = lock(&inner.batch).clone();
            if let Some(b) = b {
                b.work(&inner.shared);
            }
            continue;
        }
        futex::wait_until_private(&inner.gen, g, now_ns() + 1_000_000_000);
    }
}
