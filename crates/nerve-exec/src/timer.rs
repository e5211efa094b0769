//! A precise timer for the async API: one thread sleeps on the nearest deadline with an
//! absolute `CLOCK_MONOTONIC` futex wait (nanosecond resolution, 1 ns timer slack) and wakes
//! the tasks whose deadlines passed.
//!
//! Why not tokio's timer: its wheel has 1 ms slots and rounds every deadline *up* to the next
//! slot, so `sleep(1 ms)` takes between 1 and 2 ms, and N tasks registered over a few hundred
//! µs fire in two or three batches a millisecond apart. Here a deadline fires when it passes.

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Waker;

use crate::time::{futex_wait_until, futex_wake_all, mono_ns, set_min_timer_slack};

/// One registered deadline, shared by its future and the heap.
pub(crate) struct Entry {
    waker: Mutex<Option<Waker>>,
    /// Set by the timer thread when the deadline passed. pairs with the Acquire load in
    /// `Entry::fired()`.
    fired: AtomicBool,
}

impl Entry {
    pub(crate) fn fired(&self) -> bool {
        self.fired.load(Ordering::Acquire)
    }

    /// Replaces the waker if the task moved (cheap when it did not).
    pub(crate) fn set_waker(&self, w: &Waker) {
        let mut g = self.waker.lock().unwrap_or_else(|e| e.into_inner());
        match g.as_ref() {
            Some(old) if old.will_wake(w) => {}
            _ => *g = Some(w.clone()),
        }
    }

    /// The future was dropped: let the timer thread forget the waker at once.
    pub(crate) fn cancel(&self) {
        self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

struct Item {
    deadline: u64,
    seq: u64,
    entry: Arc<Entry>,
}

impl PartialEq for Item {
    fn eq(&self, o: &Self) -> bool {
        (self.deadline, self.seq) == (o.deadline, o.seq)
    }
}
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    /// Reversed: `BinaryHeap` is a max-heap and the earliest deadline must come out first.
    fn cmp(&self, o: &Self) -> CmpOrdering {
        (o.deadline, o.seq).cmp(&(self.deadline, self.seq))
    }
}

#[derive(Default)]
struct Heap {
    items: BinaryHeap<Item>,
    seq: u64,
}

struct Timer {
    heap: Mutex<Heap>,
    /// The timer thread sleeps on this word; bumped when an earlier deadline arrives.
    word: AtomicU32,
}

fn timer() -> &'static Timer {
    static T: OnceLock<&'static Timer> = OnceLock::new();
    T.get_or_init(|| {
        let t: &'static Timer = Box::leak(Box::new(Timer {
            heap: Mutex::new(Heap::default()),
            word: AtomicU32::new(0),
        }));
        // If the thread cannot start, every registration still works; deadlines would never
        // fire, so fail loudly instead.
        std::thread::Builder::new()
            .name("nerve-timer".into())
            .spawn(move || run(t))
            .expect("nerve-exec: cannot start the nerve-timer thread");
        t
    })
}

fn run(t: &'static Timer) {
    set_min_timer_slack();
    let mut due: Vec<Waker> = Vec::new();
    loop {
        // Read the word before looking at the heap: a registration after the look bumps it
        // and the wait below returns at once. pairs with the Release increment in register().
        let gen = t.word.load(Ordering::Acquire);
        let next = {
            let mut h = t.heap.lock().unwrap_or_else(|e| e.into_inner());
            let now = mono_ns();
            while h.items.peek().is_some_and(|i| i.deadline <= now) {
                if let Some(i) = h.items.pop() {
                    // pairs with the Acquire load in Entry::fired()
                    i.entry.fired.store(true, Ordering::Release);
                    let w = i
                        .entry
                        .waker
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take();
                    due.extend(w);
                }
            }
            h.items.peek().map_or(u64::MAX, |i| i.deadline)
        };
        // Wake outside the heap lock so tasks re-registering do not wait on us.
        for w in due.drain(..) {
            w.wake();
        }
        futex_wait_until(&t.word, gen, next.min(mono_ns() + 1_000_000_000));
    }
}

/// Registers `deadline` (monotonic ns) for the task of `waker`.
pub(crate) fn register(deadline: u64, waker: &Waker) -> Arc<Entry> {
    let t = timer();
    let entry = Arc::new(Entry {
        waker: Mutex::new(Some(waker.clone())),
        fired: AtomicBool::new(false),
    });
    let earliest = {
        let mut h = t.heap.lock().unwrap_or_else(|e| e.into_inner());
        let earliest = h.items.peek().is_none_or(|i| deadline < i.deadline);
        h.seq += 1;
        let seq = h.seq;
        h.items.push(Item {
            deadline,
            seq,
            entry: entry.clone(),
        });
        earliest
    };
    if earliest {
        // pairs with the Acquire load at the top of run()
        t.word.fetch_add(1, Ordering::Release);
        futex_wake_all(&t.word);
    }
    entry
}
