//! Async API on tokio (the rclcpp_async use case): `sleep(d).await`, interval timers as
//! streams, `select!`/`join!`, thousands of concurrent tasks on one thread.
//!
//! [`sleep`] and [`interval`] run on nerve's own timer thread with nanosecond deadlines:
//! tokio's wheel rounds every deadline up to the next millisecond, so a 1 ms sleep would take
//! up to 2 ms. They work on any executor; on a tokio runtime, due sleepers are woken by a
//! task on that runtime (no cross-thread wake each), and a deadline less than 50 µs away is
//! polled for rather than slept for.
//!
//! ```
//! use nerve_exec::aio::{self, Executor, StreamExt};
//! use std::time::Duration;
//!
//! let ex = Executor::builder().build()?;
//! let total = ex.block_on(async {
//!     let tasks: Vec<_> = (0..1000)
//!         .map(|i| aio::spawn(async move { aio::sleep(Duration::from_millis(1)).await; i }))
//!         .collect();
//!     let mut sum = 0;
//!     for t in tasks { sum += t.await.unwrap(); }
//!     let mut ticks = aio::interval(Duration::from_millis(2)).take(3);
//!     while ticks.next().await.is_some() {}
//!     sum
//! });
//! assert_eq!(total, 999 * 1000 / 2);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Topic subscriptions are streams too: [`subscribe`] turns a `nerve::Subscriber` into a
//! [`Subscription`] for `sub.next().await`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use nerve_transport::time::now_ns;
use nerve_transport::{Codec, Message, Subscriber};

use crate::timer;
use nerve_transport::Received;

pub use tokio::task::JoinHandle;
pub use tokio::{join, select, spawn};
pub use tokio_stream::{Stream, StreamExt};

/// A tokio runtime set up for nodes: timers enabled, current-thread by default.
pub struct Executor {
    rt: tokio::runtime::Runtime,
}

/// Builds an [`Executor`].
#[must_use = "a builder does nothing until .build()"]
#[derive(Debug, Default)]
pub struct ExecutorBuilder {
    workers: usize,
}

impl ExecutorBuilder {
    /// Worker threads: 0 (default) runs every task on the thread that calls `block_on`.
    pub fn worker_threads(mut self, n: usize) -> Self {
        self.workers = n;
        self
    }

    /// Builds the runtime.
    pub fn build(self) -> std::io::Result<Executor> {
        let rt = if self.workers == 0 {
            tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()?
        } else {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(self.workers)
                .thread_name("nerve-async")
                .enable_time()
                .build()?
        };
        Ok(Executor { rt })
    }
}

impl Executor {
    /// Starts building an executor.
    pub fn builder() -> ExecutorBuilder {
        ExecutorBuilder::default()
    }

    /// Runs `f` to completion on this executor, driving every task spawned meanwhile.
    pub fn block_on<F: Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// Spawns a task; it runs while the executor is driven (`block_on`) or on its workers.
    pub fn spawn<F>(&self, f: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.rt.spawn(f)
    }
}

/// Waits for `d`: done when `d` has passed, usually within tens of µs (the nerve timer,
/// nanosecond deadlines; tokio's own `tokio::time::sleep` rounds up to whole milliseconds).
/// Works on any executor; nothing is registered until first polled.
pub fn sleep(d: Duration) -> Sleep {
    Sleep {
        deadline: now_ns().saturating_add(d.as_nanos().min(u64::MAX as u128) as u64),
        entry: None,
    }
}

/// Waits until `deadline` (same clock as [`std::time::Instant`], `CLOCK_MONOTONIC`).
pub fn sleep_until(deadline: Instant) -> Sleep {
    let now = Instant::now();
    let ns = now_ns();
    let deadline = if deadline >= now {
        ns.saturating_add((deadline - now).as_nanos().min(u64::MAX as u128) as u64)
    } else {
        ns.saturating_sub((now - deadline).as_nanos().min(u64::MAX as u128) as u64)
    };
    Sleep {
        deadline,
        entry: None,
    }
}

/// The future returned by [`sleep`] and [`sleep_until`].
#[must_use = "a sleep does nothing unless awaited"]
pub struct Sleep {
    /// Monotonic ns.
    deadline: u64,
    entry: Option<Arc<timer::Entry>>,
}

impl Sleep {
    pub(crate) fn at_ns(deadline: u64) -> Self {
        Self {
            deadline,
            entry: None,
        }
    }

    /// Re-arms this sleep for a new deadline (monotonic ns), dropping the old registration.
    fn reset_ns(&mut self, deadline: u64) {
        if let Some(e) = self.entry.take() {
            e.cancel();
        }
        self.deadline = deadline;
    }
}

impl std::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline_ns", &self.deadline)
            .finish()
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(e) = &self.entry {
            if e.fired() {
                return Poll::Ready(());
            }
            e.set_waker(cx.waker());
            return Poll::Pending;
        }
        let now = now_ns();
        if now >= self.deadline {
            return Poll::Ready(());
        }
        let e = timer::register(self.deadline, cx.waker(), now);
        self.entry = Some(e);
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(e) = self.entry.take() {
            // A fired entry gave its waker away already: nothing to cancel.
            if !e.fired() {
                e.cancel();
            }
        }
    }
}

/// A periodic timer as a stream: yields the *planned* time of each tick on an absolute
/// timeline (start + k·period, never accumulating lateness), on the same precise timer as
/// [`sleep`]. Ticks missed while the consumer was busy are skipped, not bunched up. The first
/// tick is one period after creation.
pub fn interval(period: Duration) -> Interval {
    let period_ns = (period.as_nanos().min(u64::MAX as u128) as u64).max(1);
    let start_ns = now_ns();
    Interval {
        start: Instant::now(),
        start_ns,
        period_ns,
        k: 1,
        sleep: Sleep::at_ns(start_ns + period_ns),
    }
}

/// The stream returned by [`interval`].
#[derive(Debug)]
pub struct Interval {
    start: Instant,
    start_ns: u64,
    period_ns: u64,
    /// The next tick's index: planned at start + k·period.
    k: u64,
    sleep: Sleep,
}

impl Interval {
    /// Waits for the next tick; the planned time of that tick.
    pub async fn tick(&mut self) -> Instant {
        match StreamExt::next(self).await {
            Some(t) => t,
            None => unreachable!("an Interval never ends"),
        }
    }
}

impl Stream for Interval {
    type Item = Instant;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if Pin::new(&mut self.sleep).poll(cx).is_pending() {
            return Poll::Pending;
        }
        let planned = self.start + Duration::from_nanos(self.k * self.period_ns);
        // Next tick: k+1, or the first one still in the future if the consumer fell behind.
        let now = now_ns().saturating_sub(self.start_ns);
        self.k = (self.k + 1).max(now / self.period_ns + 1);
        let next = self.start_ns + self.k * self.period_ns;
        self.sleep.reset_ns(next);
        Poll::Ready(Some(planned))
    }
}

/// A topic subscription as a stream of messages (`sub.next().await`), made by [`subscribe`].
///
/// A small thread blocks in the subscriber's `recv_timeout` (futex wait, ≈0 % CPU) and hands
/// messages to the async side through a bounded channel of `capacity`; when the async side
/// falls behind, the subscriber's own ring absorbs (and counts) the loss. The thread ends when
/// the stream is dropped.
pub struct Subscription<T: Message>
where
    T::Kind: Codec<T>,
{
    rx: tokio::sync::mpsc::Receiver<Received<T>>,
}

/// Turns `sub` into an async stream; see [`Subscription`].
pub fn subscribe<T: Message>(mut sub: Subscriber<T>, capacity: usize) -> Subscription<T>
where
    T::Kind: Codec<T>,
    Received<T>: Send + 'static,
    Subscriber<T>: Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(capacity.max(1));
    let name = format!("nerve-sub-{}", sub.topic());
    let _ = std::thread::Builder::new().name(name).spawn(move || {
        while !tx.is_closed() {
            // The timeout only bounds how long a dropped stream keeps this thread.
            match sub.recv_timeout(Duration::from_millis(50)) {
                Ok(Some(m)) => {
                    if tx.blocking_send(m).is_err() {
                        break;
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(topic = %sub.topic(), error = %e, "subscription stream ended");
                    break;
                }
            }
        }
    });
    Subscription { rx }
}

impl<T: Message> Stream for Subscription<T>
where
    T::Kind: Codec<T>,
{
    type Item = Received<T>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }
}
