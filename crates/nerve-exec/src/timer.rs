//! A precise timer for the async API: one thread sleeps on the nearest deadline with an
//! absolute `CLOCK_MONOTONIC` futex wait (nanosecond resolution, 1 ns timer slack) and wakes
//! the tasks whose deadlines passed.
//!
//! Why not tokio's timer: its wheel has 1 ms slots and rounds every deadline *up* to the next
//! slot, so `sleep(1 ms)` takes between 1 and 2 ms, and N tasks registered over a few hundred
//! µs fire in two or three batches a millisecond apart. Here a deadline fires when it passes.

use std::cell::RefCell;
use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Waker;
use std::task::{Context, Poll};

use crate::time::{futex_wait_until, futex_wake_all, mono_ns, set_min_timer_slack};

/// One registered deadline, shared by its future and the heap.
pub(crate) struct Entry {
    waker: Mutex<Option<Waker>>,
    /// Where the timer thread delivers the waker: the mailbox of the runtime thread that
    /// registered it, or `None` (wake from the timer thread).
    mailbox: Option<Arc<Mailbox>>,
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

/// Due wakers for one runtime thread, delivered in one batch: the timer thread wakes only the
/// mailbox's [`FireTask`], which then wakes the sleepers from inside the runtime. 5000 sleepers
/// due at once cost one cross-thread wake instead of 5000 (each a lock on tokio's shared
/// queue, contended by the runtime thread popping it).
pub(crate) struct Mailbox {
    state: Mutex<MailState>,
    /// `MailState::alive` for the registration fast path (written under the lock).
    alive: AtomicBool,
}

#[derive(Default)]
struct MailState {
    /// False once the fire task is gone (its runtime shut down): deliver directly then.
    alive: bool,
    wakers: Vec<Waker>,
    task: Option<Waker>,
}

impl Mailbox {
    /// Hands `ws` to the fire task and wakes it; if the task is gone, leaves them in `ws`.
    fn deliver(&self, ws: &mut Vec<Waker>) {
        let task = {
            let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if !g.alive {
                return;
            }
            g.wakers.append(ws);
            g.task.take()
        };
        if let Some(t) = task {
            t.wake();
        }
    }
}

/// The task that wakes a mailbox's sleepers on their runtime (a local wake).
struct FireTask {
    mb: Arc<Mailbox>,
    buf: Vec<Waker>,
}

impl Future for FireTask {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        {
            let mut g = this.mb.state.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::swap(&mut this.buf, &mut g.wakers);
            g.task = Some(cx.waker().clone());
        }
        for w in this.buf.drain(..) {
            w.wake();
        }
        Poll::Pending
    }
}

impl Drop for FireTask {
    fn drop(&mut self) {
        let left = {
            let mut g = self.mb.state.lock().unwrap_or_else(|e| e.into_inner());
            g.alive = false;
            self.mb.alive.store(false, Ordering::Release);
            g.task = None;
            std::mem::take(&mut g.wakers)
        };
        for w in left {
            w.wake();
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
            // deliver() checks again under the lock and hands the waker back.
            if mb.alive.load(Ordering::Acquire) {
                return Some(mb.clone());
            }
        }
        let mb = Arc::new(Mailbox {
            state: Mutex::new(MailState {
                alive: true,
                ..MailState::default()
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

struct Timer {
    /// New registrations; the timer thread moves them into its own heap. A short lock on
    /// both sides, so thousands of tasks registering at once do not queue behind the heap.
    inbox: Mutex<Vec<Item>>,
    seq: AtomicU64,
    /// The deadline the timer thread sleeps until; 0 while it is busy (it then looks at
    /// `earliest_new` before sleeping).
    sleeping_until: AtomicU64,
    /// The earliest deadline registered since the timer thread last emptied the inbox.
    earliest_new: AtomicU64,
    /// The timer thread sleeps on this word; bumped when an earlier deadline arrives.
    word: AtomicU32,
}

fn timer() -> &'static Timer {
    static T: OnceLock<&'static Timer> = OnceLock::new();
    T.get_or_init(|| {
        let t: &'static Timer = Box::leak(Box::new(Timer {
            inbox: Mutex::new(Vec::new()),
            seq: AtomicU64::new(0),
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
    // Wakers for one mailbox, handed over in chunks so its runtime starts on the first ones
    // while we pop the rest.
    let mut chunk: Vec<Waker> = Vec::new();
    let mut chunk_box: Option<Arc<Mailbox>> = None;
    let flush = |chunk: &mut Vec<Waker>, mb: &Option<Arc<Mailbox>>, due: &mut Vec<Waker>| {
        if let Some(mb) = mb {
            mb.deliver(chunk);
        }
        due.append(chunk); // the fire task is gone: wake them from here
    };
    loop {
        // Busy: a registration from now on does not wake us; we look at `earliest_new` before
        // sleeping instead. SeqCst on `sleeping_until` and `earliest_new`, here and in
        // register(): either the registration sees the deadline we sleep until, or we see
        // its deadline. A burst of later deadlines neither wakes us nor keeps us looping.
        t.sleeping_until.store(0, Ordering::SeqCst);
        t.earliest_new.store(u64::MAX, Ordering::SeqCst);
        // pairs with the Release increment in register()
        let gen = t.word.load(Ordering::Acquire);
        std::mem::swap(
            &mut inbox,
            &mut *t.inbox.lock().unwrap_or_else(|e| e.into_inner()),
        );
        heap.extend(inbox.drain(..));
        let now = mono_ns();
        while heap.peek().is_some_and(|i| i.deadline <= now) {
            if let Some(i) = heap.pop() {
                // pairs with the Acquire load in Entry::fired()
                i.entry.fired.store(true, Ordering::Release);
                let w = i
                    .entry
                    .waker
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take();
                let Some(w) = w else { continue };
                match &i.entry.mailbox {
                    Some(mb) => {
                        let same = chunk_box.as_ref().is_some_and(|c| Arc::ptr_eq(c, mb));
                        if !same || chunk.len() >= 256 {
                            flush(&mut chunk, &chunk_box, &mut due);
                            chunk_box = Some(mb.clone());
                        }
                        chunk.push(w);
                    }
                    None => due.push(w),
                }
            }
        }
        flush(&mut chunk, &chunk_box, &mut due);
        chunk_box = None;
        for w in due.drain(..) {
            w.wake();
        }
        let next = heap.peek().map_or(u64::MAX, |i| i.deadline);
        t.sleeping_until.store(next, Ordering::SeqCst);
        if t.earliest_new.load(Ordering::SeqCst) < next {
            continue; // an earlier deadline arrived while we were busy: drain it first
        }
        futex_wait_until(&t.word, gen, next.min(mono_ns() + 1_000_000_000));
    }
}

/// Registers `deadline` (monotonic ns) for the task of `waker`.
pub(crate) fn register(deadline: u64, waker: &Waker) -> Arc<Entry> {
    let t = timer();
    let entry = Arc::new(Entry {
        waker: Mutex::new(Some(waker.clone())),
        mailbox: local_mailbox(),
        fired: AtomicBool::new(false),
    });
    let seq = t.seq.fetch_add(1, Ordering::Relaxed);
    t.inbox
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Item {
            deadline,
            seq,
            entry: entry.clone(),
        });
    // SeqCst pairs with the SeqCst store and load in run(): either the timer thread sees
    // this deadline before it sleeps (and drains again if it is earlier than its own), or we
    // see the deadline it sleeps until.
    t.earliest_new.fetch_min(deadline, Ordering::SeqCst);
    let until = t.sleeping_until.load(Ordering::SeqCst);
    if until != 0 && deadline < until {
        // pairs with the Acquire load in run()
        t.word.fetch_add(1, Ordering::Release);
        futex_wake_all(&t.word);
    }
    entry
}
