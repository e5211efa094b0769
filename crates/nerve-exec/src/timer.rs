//! A precise timer for the async API: deadlines in nanoseconds on `CLOCK_MONOTONIC`, never
//! rounded.
//!
//! Why not tokio's timer: its wheel has 1 ms slots and rounds every deadline *up* to the next
//! slot, so `sleep(1 ms)` takes between 1 and 2 ms, and N tasks registered over a few hundred
//! µs fire in two or three batches a millisecond apart. Here a deadline fires when it passes.
//!
//! How: sleeps registered from a tokio task go into a heap of their runtime thread's
//! [`Mailbox`], served by one fire task on that runtime, which wakes the due sleepers locally
//! (no cross-thread wake per sleeper). A timer thread, asleep on the nearest deadline with an
//! absolute futex wait (1 ns slack), only wakes a mailbox's fire task when the mailbox's
//! earliest deadline comes; a runtime busy registering sleeps wakes its own fire task when it
//! sees one due. Sleeps polled outside a tokio task go to the timer thread directly.

use std::cell::RefCell;
use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};

use nerve_transport::sys::{futex, lock};
use nerve_transport::time::now_ns;

use crate::time::set_min_timer_slack;

/// One registered deadline, shared by its future and the heap that holds it.
pub(crate) struct Entry {
    waker: Mutex<Option<Waker>>,
    /// Set when the deadline passed.
    fired: AtomicBool,
}

impl Entry {
    pub(crate) fn fired(&self) -> bool {
        // pairs with the Release store in Entry::fire()
        self.fired.load(Ordering::Acquire)
    }

    /// Replaces the waker if the task moved (cheap when it did not).
    pub(crate) fn set_waker(&self, w: &Waker) {
        let mut g = lock(&self.waker);
        match g.as_ref() {
            Some(old) if old.will_wake(w) => {}
            _ => *g = Some(w.clone()),
        }
    }

    /// The future was dropped: forget the waker at once.
    pub(crate) fn cancel(&self) {
        lock(&self.waker).take();
    }

    /// Marks the entry fired and takes its waker.
    fn fire(&self) -> Option<Waker> {
        // pairs with the Acquire load in Entry::fired()
        self.fired.store(true, Ordering::Release);
        lock(&self.waker).take()
    }
}

/// What a heap item wakes when its deadline passes.
enum Target {
    /// A sleeper.
    Entry(Arc<Entry>),
    /// A mailbox's fire task (timer thread only).
    Mailbox(Arc<Mailbox>),
}

struct Item {
    deadline: u64,
    seq: u64,
    target: Target,
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

static SEQ: AtomicU64 = AtomicU64::new(0);

fn item(deadline: u64, target: Target) -> Item {
    Item {
        deadline,
        seq: SEQ.fetch_add(1, Ordering::Relaxed),
        target,
    }
}

// ---------------------------------------------------------------------------------------------
// Per-runtime-thread mailboxes

/// The sleepers registered from one runtime thread, and the fire task that wakes them.
pub(crate) struct Mailbox {
    state: Mutex<MailState>,
    /// `MailState::alive` for the registration fast path (written under the lock).
    alive: AtomicBool,
}

struct MailState {
    /// False once the fire task is gone (its runtime shut down): register globally then.
    alive: bool,
    heap: BinaryHeap<Item>,
    /// The earliest deadline the timer thread will wake the fire task for (`u64::MAX`: none).
    /// Kept under this lock with the heap, so every heap minimum has an alarm at or before
    /// it, or the fire task is about to run.
    alarm: u64,
    task: Option<Waker>,
}

impl Mailbox {
    /// Adds a sleeper; `now` is the caller's clock reading.
    fn add(self: &Arc<Self>, deadline: u64, entry: Arc<Entry>, now: u64) -> Result<(), Arc<Entry>> {
        let (alarm, wake) = {
            let mut g = lock(&self.state);
            if !g.alive {
                return Err(entry);
            }
            g.heap.push(item(deadline, Target::Entry(entry)));
            let alarm = (deadline < g.alarm).then(|| {
                g.alarm = deadline;
                deadline
            });
            // A runtime busy registering may not park for a while: if a sleeper is due
            // already, wake our fire task from here (a local wake) instead of waiting for
            // the timer thread.
            let due = g.heap.peek().is_some_and(|i| i.deadline <= now);
            (alarm, if due { g.task.take() } else { None })
        };
        if let Some(d) = alarm {
            global_add(item(d, Target::Mailbox(self.clone())));
        }
        if let Some(t) = wake {
            t.wake();
        }
        Ok(())
    }

    fn wake_task(&self) {
        let t = lock(&self.state).task.take();
        if let Some(t) = t {
            t.wake();
        }
    }
}

/// Below this, the fire task re-polls itself instead of arming an alarm: a wake-up through the
/// timer thread and back costs tens of µs on a VM, and thousands of sleepers registered within
/// a few ms have deadlines a few hundred ns apart.
const SPIN_NS: u64 = 50_000;

/// The task that wakes a mailbox's due sleepers on their runtime (local wakes).
struct FireTask {
    mb: Arc<Mailbox>,
    buf: Vec<Waker>,
}

impl Future for FireTask {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let alarm = {
            let mut g = lock(&this.mb.state);
            // Read under the lock: an alarm the timer thread fired while `task` was empty
            // (we were already woken) has then passed by `now`, and is renewed below.
            let now = now_ns();
            while g.heap.peek().is_some_and(|i| i.deadline <= now) {
                if let Some(Item {
                    target: Target::Entry(e),
                    ..
                }) = g.heap.pop()
                {
                    this.buf.extend(e.fire());
                }
            }
            g.task = Some(cx.waker().clone());
            let next = g.heap.peek().map_or(u64::MAX, |i| i.deadline);
            if next != u64::MAX && next - now < SPIN_NS {
                // Due sooner than a wake-up through the timer thread would take: poll again
                // after the tasks just woken have run.
                cx.waker().wake_by_ref();
                None
            } else if next != u64::MAX && (g.alarm <= now || next < g.alarm) {
                // A passed alarm has done its work (it woke us); a later one is not early
                // enough.
                g.alarm = next;
                Some(next)
            } else {
                if next == u64::MAX {
                    g.alarm = u64::MAX;
                }
                None
            }
        };
        if let Some(d) = alarm {
            global_add(item(d, Target::Mailbox(this.mb.clone())));
        }
        for w in this.buf.drain(..) {
            w.wake();
        }
        Poll::Pending
    }
}

impl Drop for FireTask {
    fn drop(&mut self) {
        // The runtime is gone. Sleepers still registered here (a future moved elsewhere)
        // move to the timer thread, so they still fire.
        let left = {
            let mut g = lock(&self.mb.state);
            g.alive = false;
            // pairs with the Acquire load in local_mailbox()
            self.mb.alive.store(false, Ordering::Release);
            g.task = None;
            std::mem::take(&mut g.heap)
        };
        for i in left {
            if let Target::Entry(e) = i.target {
                global_add(item(i.deadline, Target::Entry(e)));
            }
        }
    }
}

thread_local! {
    static MAILBOX: RefCell<Option<Arc<Mailbox>>> = const { RefCell::new(None) };
}

/// This thread's mailbox, when the caller is a task polled by a tokio runtime (so a fire task
/// spawned from here will run); started on first use and again after its runtime ended.
fn local_mailbox() -> Option<Arc<Mailbox>> {
    tokio::task::try_id()?;
    MAILBOX.with(|m| {
        let mut m = m.borrow_mut();
        if let Some(mb) = m.as_ref() {
            // pairs with the Release store in FireTask::drop(); a stale `true` is harmless:
            // Mailbox::add checks again under the lock.
            if mb.alive.load(Ordering::Acquire) {
                return Some(mb.clone());
            }
        }
        let mb = Arc::new(Mailbox {
            state: Mutex::new(MailState {
                alive: true,
                heap: BinaryHeap::new(),
                alarm: u64::MAX,
                task: None,
            }),
            alive: AtomicBool::new(true),
        });
        tokio::spawn(FireTask {
            mb: mb.clone(),
            buf: Vec::new(),
        });
        *m = Some(mb.clone());
        Some(mb)
    })
}

// ---------------------------------------------------------------------------------------------
// The timer thread

struct Timer {
    /// New items; the timer thread moves them into its own heap. A short lock on both sides.
    inbox: Mutex<Vec<Item>>,
    /// The deadline the timer thread sleeps until; 0 while it is busy (it then looks at
    /// `earliest_new` before sleeping).
    sleeping_until: AtomicU64,
    /// The earliest deadline added since the timer thread last emptied the inbox.
    earliest_new: AtomicU64,
    /// The timer thread sleeps on this word; bumped when an earlier deadline arrives.
    word: AtomicU32,
}

fn timer() -> &'static Timer {
    static T: OnceLock<&'static Timer> = OnceLock::new();
    T.get_or_init(|| {
        let t: &'static Timer = Box::leak(Box::new(Timer {
            inbox: Mutex::new(Vec::new()),
            sleeping_until: AtomicU64::new(0),
            earliest_new: AtomicU64::new(u64::MAX),
            word: AtomicU32::new(0),
        }));
        // Without the thread no deadline would ever fire: fail loudly instead.
        std::thread::Builder::new()
            .name("nerve-timer".into())
            .spawn(move || run(t))
            .expect("nerve-exec: cannot start the nerve-timer thread");
        t
    })
}

fn run(t: &'static Timer) {
    set_min_timer_slack();
    let mut heap: BinaryHeap<Item> = BinaryHeap::new();
    let mut inbox: Vec<Item> = Vec::new();
    let mut due: Vec<Waker> = Vec::new();
    let mut boxes: Vec<Arc<Mailbox>> = Vec::new();
    loop {
        // Busy: an addition from now on does not wake us; we look at `earliest_new` before
        // sleeping instead. SeqCst on `sleeping_until` and `earliest_new`, here and in
        // global_add(): either the addition sees the deadline we sleep until, or we see its
        // deadline. A burst of later deadlines neither wakes us nor keeps us looping.
        t.sleeping_until.store(0, Ordering::SeqCst);
        t.earliest_new.store(u64::MAX, Ordering::SeqCst);
        // pairs with the Release increment in global_add()
        let gen = t.word.load(Ordering::Acquire);
        std::mem::swap(&mut inbox, &mut *lock(&t.inbox));
        heap.extend(inbox.drain(..));
        let now = now_ns();
        while heap.peek().is_some_and(|i| i.deadline <= now) {
            match heap.pop().map(|i| i.target) {
                Some(Target::Entry(e)) => due.extend(e.fire()),
                Some(Target::Mailbox(mb)) => boxes.push(mb),
                None => {}
            }
        }
        for mb in boxes.drain(..) {
            mb.wake_task();
        }
        for w in due.drain(..) {
            w.wake();
        }
        let next = heap.peek().map_or(u64::MAX, |i| i.deadline);
        // SeqCst, this store then the load below, against global_add()'s fetch_min then
        // load: the store-buffer pattern described at the top of the loop, which needs one
        // total order over the four.
        t.sleeping_until.store(next, Ordering::SeqCst);
        if t.earliest_new.load(Ordering::SeqCst) < next {
            continue; // an earlier deadline arrived while we were busy: take it first
        }
        futex::wait_until_private(&t.word, gen, next.min(now_ns() + 1_000_000_000));
    }
}

fn global_add(i: Item) {
    let t = timer();
    let deadline = i.deadline;
    lock(&t.inbox).push(i);
    // SeqCst pairs with the SeqCst store and load in run(): either the timer thread sees
    // this deadline before it sleeps (and looks again if it is earlier than its own), or we
    // see the deadline it sleeps until.
    t.earliest_new.fetch_min(deadline, Ordering::SeqCst);
    let until = t.sleeping_until.load(Ordering::SeqCst);
    if until != 0 && deadline < until {
        // pairs with the Acquire load in run()
        t.word.fetch_add(1, Ordering::Release);
        futex::wake_all_private(&t.word);
    }
}

/// Registers `deadline` (monotonic ns) for the task of `waker`; `now` is the caller's clock
/// reading.
pub(crate) fn register(deadline: u64, waker: &Waker, now: u64) -> Arc<Entry> {
    let entry = Arc::new(Entry {
        waker: Mutex::new(Some(waker.clone())),
        fired: AtomicBool::new(false),
    });
    let e = match local_mailbox() {
        Some(mb) => match mb.add(deadline, entry.clone(), now) {
            Ok(()) => return entry,
            Err(e) => e,
        },
        None => entry.clone(),
    };
    global_add(item(deadline, Target::Entry(e)));
    entry
}
