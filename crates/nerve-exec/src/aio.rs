//! Async API on tokio (the rclcpp_async use case): `sleep(d).await`, interval timers as
//! streams, `select!`/`join!`, thousands of concurrent tasks on one thread.
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
use std::task::{Context, Poll};
use std::time::Duration;

use nerve::{Codec, Message, Subscriber};

use crate::remote::Received;

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

/// Waits for `d` (tokio's timer: millisecond granularity, never early).
pub async fn sleep(d: Duration) {
    tokio::time::sleep(d).await
}

/// A periodic timer as a stream: yields the *planned* time of each tick on an absolute
/// timeline (start + k·period). Ticks missed while the consumer was busy are skipped, not
/// bunched up. The first tick is one period after creation.
pub fn interval(period: Duration) -> Interval {
    let start = tokio::time::Instant::now() + period;
    let mut i = tokio::time::interval_at(start, period);
    i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    Interval { inner: i }
}

/// The stream returned by [`interval`].
#[derive(Debug)]
pub struct Interval {
    inner: tokio::time::Interval,
}

impl Stream for Interval {
    type Item = std::time::Instant;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.poll_tick(cx).map(|t| Some(t.into_std()))
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
