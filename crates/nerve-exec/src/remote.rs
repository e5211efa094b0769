//! nerve topics as scheduler inputs: the cross-process e-stop topic `nerve/estop`, and topic
//! subscribers as wake sources for event nodes.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nerve_transport::sys::{lock, ProcessId};
use nerve_transport::time::now_ns;
use nerve_transport::{Codec, Message, OpenError, Received, Subscriber, Topic};

use crate::estop::EStop;
use crate::wake::WakeSource;

/// The name of the e-stop topic every scheduler with
/// [`SchedulerBuilder::estop_topic`](crate::SchedulerBuilder::estop_topic) listens and
/// publishes on.
pub const ESTOP_TOPIC: &str = "nerve/estop";

/// Bytes of the reason carried by an [`EStopMsg`].
pub const ESTOP_REASON_LEN: usize = 48;

/// An e-stop request on [`ESTOP_TOPIC`]: 72 bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve_transport::msgs::Message)]
#[message(
    crate = "nerve_transport::msgs",
    name = "nerve/EStop",
    default = "zeroed"
)]
#[repr(C)]
pub struct EStopMsg {
    /// `CLOCK_MONOTONIC` ns at the trigger (same clock for every process of a machine).
    pub stamp_ns: u64,
    /// Pid of the process that triggered it.
    pub pid: u32,
    /// Bytes of `reason` in use.
    pub reason_len: u32,
    /// Life token of the process that triggered it (`nerve_shm::liveness`): a process
    /// ignores its own, never another's with the same pid in another container.
    pub process: u64,
    /// Why, UTF-8, truncated to 48 bytes.
    pub reason: [u8; ESTOP_REASON_LEN],
}

impl EStopMsg {
    /// A message stamped now from this process.
    pub fn new(reason: &str) -> Self {
        let mut n = reason.len().min(ESTOP_REASON_LEN);
        while !reason.is_char_boundary(n) {
            n -= 1;
        }
        let mut r = [0u8; ESTOP_REASON_LEN];
        r[..n].copy_from_slice(&reason.as_bytes()[..n]);
        Self {
            stamp_ns: now_ns(),
            pid: std::process::id(),
            reason_len: n as u32,
            process: ProcessId::current().token,
            reason: r,
        }
    }

    /// The reason as text (invalid UTF-8 is replaced).
    pub fn reason(&self) -> String {
        let n = (self.reason_len as usize).min(ESTOP_REASON_LEN);
        String::from_utf8_lossy(&self.reason[..n]).into_owned()
    }
}

fn open_estop_topic(domain: Option<u32>) -> Result<Topic<EStopMsg>, OpenError> {
    let b = Topic::<EStopMsg>::builder(ESTOP_TOPIC).depth(16);
    match domain {
        Some(d) => b.domain(d).open(),
        None => b.open(),
    }
}

/// Triggers the e-stop of every scheduler listening on `nerve/estop` in `domain` (default:
/// `$NERVE_DOMAIN`), from any process.
pub fn trigger_remote_estop(domain: Option<u32>, reason: &str) -> Result<(), OpenError> {
    let topic = open_estop_topic(domain)?;
    let publisher = topic.publisher()?;
    // best-effort ring: a send only fails for a full reliable topic, which this is not.
    let _ = publisher.send(&EStopMsg::new(reason));
    Ok(())
}

/// Connects an [`EStop`] to the `nerve/estop` topic while alive: a message from another
/// process triggers it (woken by the subscriber's futex, no polling), and a local trigger is
/// published for the others.
pub(crate) struct EStopBridge {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl EStopBridge {
    pub(crate) fn start(estop: &EStop, domain: Option<u32>) -> Result<Self, OpenError> {
        let topic = open_estop_topic(domain)?;
        let mut sub = topic.subscriber()?;
        // Any lane may trigger: the publisher (Send, not Sync) goes behind a lock.
        let publisher = std::sync::Mutex::new(topic.publisher()?);
        let me = ProcessId::current().token;
        estop.set_publisher(Box::new(move |reason: &str| {
            let _ = lock(&publisher).send(&EStopMsg::new(reason));
        }));
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        let e = estop.clone();
        let thread = std::thread::Builder::new()
            .name("nerve-estop".to_owned())
            .spawn(move || {
                // pairs with the Release store in EStopBridge::drop()
                while !d.load(Ordering::Acquire) {
                    // The timeout only bounds how long shutdown waits for this thread.
                    match sub.recv_timeout(Duration::from_millis(50)) {
                        Ok(Some(m)) if m.process != me => {
                            let from = ProcessId {
                                pid: m.pid,
                                token: m.process,
                            };
                            e.trigger_from_remote(&format!(
                                "remote (pid {}): {}",
                                from.describe_pid(),
                                m.reason()
                            ));
                        }
                        Ok(_) => {}
                        Err(err) => {
                            tracing::error!(error = %err, "e-stop topic failed; remote e-stops no longer reach this process");
                            break;
                        }
                    }
                }
            })
            .map_err(|source| OpenError::Io {
                topic: ESTOP_TOPIC.to_owned(),
                source,
            })?;
        Ok(Self {
            done,
            thread: Some(thread),
        })
    }
}

impl Drop for EStopBridge {
    fn drop(&mut self) {
        // pairs with the Acquire load in the bridge thread's loop (EStopBridge::start())
        self.done.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The node's side of [`TopicSource`]: messages the wake source received, to drain in `tick`.
pub struct Inbox<T: Message>
where
    T::Kind: Codec<T>,
{
    q: Arc<Mutex<VecDeque<Received<T>>>>,
    dropped: Arc<AtomicU64>,
}

impl<T: Message> Clone for Inbox<T>
where
    T::Kind: Codec<T>,
{
    fn clone(&self) -> Self {
        Self {
            q: self.q.clone(),
            dropped: self.dropped.clone(),
        }
    }
}

impl<T: Message> Inbox<T>
where
    T::Kind: Codec<T>,
{
    /// The oldest message not yet taken.
    pub fn pop(&self) -> Option<Received<T>> {
        lock(&self.q).pop_front()
    }

    /// Every message not yet taken, oldest first.
    pub fn drain(&self) -> Vec<Received<T>> {
        lock(&self.q).drain(..).collect()
    }

    /// Messages dropped because the node did not take them (the inbox holds `capacity`).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// A topic subscriber as the wake source of an event node: the lane thread blocks in the
/// subscriber's `recv_timeout` (futex, ≈0 % CPU) and ticks the node when a message arrives;
/// the node reads the messages from its [`Inbox`].
///
/// ```no_run
/// # use nerve_exec::{prelude::*, TopicSource};
/// # use nerve_transport::{Topic, msgs::CmdVel};
/// let sub = Topic::<CmdVel>::builder("robot/cmd_vel").open()?.subscriber()?;
/// let (source, inbox) = TopicSource::new(sub, 64);
/// // give `inbox` to the node, then: Scheduler::builder().node(n).wake_on(source) …
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TopicSource<T: Message>
where
    T::Kind: Codec<T>,
{
    sub: Subscriber<T>,
    inbox: Inbox<T>,
    capacity: usize,
}

impl<T: Message> TopicSource<T>
where
    T::Kind: Codec<T>,
{
    /// Wraps `sub`; the inbox keeps at most `capacity` messages (older ones are dropped and
    /// counted).
    pub fn new(sub: Subscriber<T>, capacity: usize) -> (Self, Inbox<T>) {
        let inbox = Inbox {
            q: Arc::new(Mutex::new(VecDeque::new())),
            dropped: Arc::new(AtomicU64::new(0)),
        };
        (
            Self {
                sub,
                inbox: inbox.clone(),
                capacity: capacity.max(1),
            },
            inbox,
        )
    }

    fn push(&self, m: Received<T>) {
        let mut q = lock(&self.inbox.q);
        if q.len() >= self.capacity {
            q.pop_front();
            self.inbox.dropped.fetch_add(1, Ordering::Relaxed);
        }
        q.push_back(m);
    }
}

impl<T: Message> WakeSource for TopicSource<T>
where
    T::Kind: Codec<T>,
    Received<T>: Send,
    Subscriber<T>: Send,
{
    fn wait(&mut self, timeout: Duration) -> bool {
        match self.sub.recv_timeout(timeout) {
            Ok(Some(m)) => {
                self.push(m);
                // Take whatever else is already there, so one tick sees the whole burst.
                while let Ok(Some(m)) = self.sub.try_recv() {
                    self.push(m);
                }
                true
            }
            Ok(None) => false,
            Err(e) => {
                tracing::error!(topic = %self.sub.topic(), error = %e, "event node's subscriber failed");
                std::thread::sleep(timeout);
                false
            }
        }
    }
}
