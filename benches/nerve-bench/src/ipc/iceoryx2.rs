//! `iceoryx2`: the crate's publish-subscribe with slice payloads (`[u8]`, max slice length =
//! the message size), zero-copy: `loan_slice_uninit` → write in place → `send`.
//!
//! Configured as iceoryx2's own benchmark (`benchmarks/publish-subscribe` in its repository)
//! configures it: history 0, as many publisher and subscriber ports as the topology has, a
//! subscriber buffer of one sample per message in flight (1 for latency; 2 where subscribers
//! `1..S` drain a step late; the window for throughput), safe overflow (the default), and
//! **loan ahead**: each publisher loans the sample its next send fills right after a send,
//! before its side waits, so the loan (which also takes back the samples the subscribers
//! released) is off the round trip's critical path, as in that benchmark. The sender then
//! writes the message into the loaned sample and sends it.
//!
//! Cross-process runs use `ipc::Service` (shared memory between processes); same-thread and
//! cross-thread runs use `local::Service`, iceoryx2's process-local variant. Rows say which in
//! `variant`.
//!
//! Blocking mode is the iceoryx2 way a node waits: an event service per direction; every
//! publisher has a `Notifier` and notifies after each send, every subscriber has a `Listener`
//! and, when `receive` comes back empty, waits in `Listener::timed_wait`.
//!
//! `Check::Untouched` (only the diagnostic row of `shape.rs`, 1:1) runs iceoryx2's benchmark
//! loop exactly: nothing written into a sample, no received payload looked at.

use super::payload::{self, Check};
use super::{
    check_echo, check_message, Deadline, EchoSide, Mode, PingSide, Spec, StepTracker, Transport,
    TIMEOUT,
};
use anyhow::{anyhow, bail, Result};
use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;
use iceoryx2::sample_mut::SampleMut;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory;
use std::fmt::Debug;
use std::time::Instant;

/// Any scenario; iceoryx2 sizes its data segment from the max slice length.
pub fn supports(spec: &Spec) -> Result<(), String> {
    if spec.check == Check::Untouched && (spec.publishers, spec.subscribers) != (1, 1) {
        return Err("an untouched payload carries no step to track: 1:1 only".into());
    }
    Ok(())
}

/// Which iceoryx2 service variant a transport uses.
pub fn variant(spec: &Spec) -> &'static str {
    match spec.transport {
        Transport::CrossProcess => "ipc::Service",
        _ => "local::Service",
    }
}

fn ix<T, E: Debug>(r: Result<T, E>, what: impl FnOnce() -> String) -> Result<T> {
    r.map_err(|e| anyhow!("iceoryx2: {}: {e:?}", what()))
}

fn service_name(name: &str) -> Result<ServiceName> {
    ix(ServiceName::new(name), || format!("service name `{name}`"))
}

/// Samples a subscriber buffers: one per message in flight towards it. Subscribers `1..S` drain
/// step `k` after the echo, while step `k + 1` may already arrive: two there.
fn buffer_size(spec: &Spec) -> usize {
    let lag = if spec.subscribers > 1 { 2 } else { 1 };
    (spec.window.max(1) * lag) as usize
}

/// The publish-subscribe service `name`, opened or created with the same settings by both sides.
fn pubsub<S: Service>(
    node: &Node<S>,
    name: &str,
    spec: &Spec,
    pubs: usize,
    subs: usize,
) -> Result<PortFactory<S, [u8], ()>> {
    ix(
        node.service_builder(&service_name(name)?)
            .publish_subscribe::<[u8]>()
            .max_publishers(pubs)
            .max_subscribers(subs)
            .history_size(0)
            .subscriber_max_buffer_size(buffer_size(spec))
            .enable_safe_overflow(true)
            .open_or_create(),
        || format!("opening publish-subscribe service `{name}`"),
    )
}

fn event<S: Service>(
    node: &Node<S>,
    name: &str,
    notifiers: usize,
    listeners: usize,
) -> Result<iceoryx2::service::port_factory::event::PortFactory<S>> {
    ix(
        node.service_builder(&service_name(name)?)
            .event()
            .max_notifiers(notifiers)
            .max_listeners(listeners)
            .open_or_create(),
        || format!("opening event service `{name}`"),
    )
}

fn publisher<S: Service>(
    f: &PortFactory<S, [u8], ()>,
    spec: &Spec,
) -> Result<Publisher<S, [u8], ()>> {
    ix(
        f.publisher_builder()
            .initial_max_slice_len(spec.payload)
            .create(),
        || "creating a publisher".into(),
    )
}

fn subscriber<S: Service>(
    f: &PortFactory<S, [u8], ()>,
    spec: &Spec,
) -> Result<Subscriber<S, [u8], ()>> {
    ix(
        f.subscriber_builder()
            .buffer_size(buffer_size(spec))
            .create(),
        || "creating a subscriber".into(),
    )
}

/// A publisher and the sample its next send fills (loaned ahead, see the module doc).
struct Port<S: Service> {
    publisher: Publisher<S, [u8], ()>,
    next: Option<SampleMut<S, [u8], ()>>,
}

impl<S: Service> Port<S> {
    fn new(publisher: Publisher<S, [u8], ()>, spec: &Spec) -> Result<Self> {
        let mut port = Self {
            publisher,
            next: None,
        };
        port.loan_ahead(spec)?;
        Ok(port)
    }

    /// Loans the sample the next send fills, unless one is at hand.
    #[inline]
    fn loan_ahead(&mut self, spec: &Spec) -> Result<()> {
        if self.next.is_none() {
            let sample = ix(self.publisher.loan_slice_uninit(spec.payload), || {
                format!("loaning {} B", spec.payload)
            })?;
            // SAFETY: the slice lies in iceoryx2's data segment, a shared-memory mapping the
            // kernel zero-filled on creation and earlier samples wrote, so every byte holds a
            // defined value and `u8` accepts any value. This is how iceoryx2's own benchmark
            // loans (write only what you send); `Check::Edges` writes header + first/last 64 B,
            // `Check::ReadAll` every byte, `Check::Untouched` none.
            self.next = Some(unsafe { sample.assume_init() });
        }
        Ok(())
    }

    /// Writes message `seq` of `publisher` into the loaned sample and sends it. The caller
    /// loans the next one ([`Port::loan_ahead`]) once it has notified, before it waits.
    #[inline]
    fn send(&mut self, spec: &Spec, seq: u64, publisher: u32) -> Result<()> {
        self.loan_ahead(spec)?;
        let mut sample = self.next.take().expect("loaned above");
        payload::write(sample.payload_mut(), seq, publisher, spec.check);
        let delivered = ix(sample.send(), || format!("sending message {seq}"))?;
        if delivered == 0 {
            bail!("iceoryx2 delivered message {seq} to no subscriber");
        }
        Ok(())
    }
}

/// Receives samples and hands each to `f` while it is borrowed, until `f` says the wait is over.
/// `Check::Untouched`: the first sample ends the wait, its payload unread.
#[inline]
fn receive<S: Service>(
    sub: &Subscriber<S, [u8], ()>,
    listener: Option<&Listener<S>>,
    check: Check,
    what: &dyn Fn() -> String,
    mut f: impl FnMut(&[u8]) -> Result<bool>,
) -> Result<()> {
    let mut d = Deadline::new();
    let mut waited: Option<Instant> = None;
    loop {
        match ix(sub.receive(), what)? {
            Some(sample) => {
                if check == Check::Untouched || f(sample.payload())? {
                    return Ok(());
                }
            }
            None => match listener {
                None => d.tick(what)?,
                Some(l) => {
                    // `timed_wait` can return early without an event; only the clock says when
                    // the peer is stuck.
                    let start = *waited.get_or_insert_with(Instant::now);
                    let left = TIMEOUT.saturating_sub(start.elapsed());
                    if left.is_zero() {
                        bail!("timed out after {TIMEOUT:?} waiting for {}", what());
                    }
                    ix(l.timed_wait(|_| {}, left), what)?;
                }
            },
        }
    }
}

struct IoxPing<S: Service> {
    pubs: Vec<Port<S>>,
    notifiers: Vec<Notifier<S>>,
    sub: Subscriber<S, [u8], ()>,
    listener: Option<Listener<S>>,
    spec: Spec,
    _idle: Vec<Publisher<S, [u8], ()>>,
    _node: Node<S>,
}

struct IoxEcho<S: Service> {
    subs: Vec<Subscriber<S, [u8], ()>>,
    listeners: Vec<Listener<S>>,
    trackers: Vec<StepTracker>,
    publisher: Port<S>,
    notifier: Option<Notifier<S>>,
    spec: Spec,
    _idle: Vec<Subscriber<S, [u8], ()>>,
    _node: Node<S>,
}

fn names(spec: &Spec) -> [String; 4] {
    let n = &spec.name;
    [
        format!("{n}/ping"),
        format!("{n}/pong"),
        format!("{n}/ping-ev"),
        format!("{n}/pong-ev"),
    ]
}

fn node<S: Service>() -> Result<Node<S>> {
    ix(NodeBuilder::new().create::<S>(), || {
        "creating a node".into()
    })
}

fn build_echo<S: Service + 'static>(spec: &Spec) -> Result<Box<dyn EchoSide>> {
    let node = node::<S>()?;
    let [ping, pong, ping_ev, pong_ev] = names(spec);
    let (p, s) = (spec.publishers as usize, spec.subscribers as usize);
    let ping = pubsub(&node, &ping, spec, p, s)?;
    let pong = pubsub(&node, &pong, spec, 1, 1)?;
    let subs = (0..s)
        .map(|_| subscriber(&ping, spec))
        .collect::<Result<Vec<_>>>()?;
    let publisher = Port::new(publisher(&pong, spec)?, spec)?;
    let (listeners, notifier) = if spec.mode == Mode::Blocking {
        let ping_ev = event(&node, &ping_ev, p, s)?;
        let pong_ev = event(&node, &pong_ev, 1, 1)?;
        let listeners = (0..s)
            .map(|_| {
                ix(ping_ev.listener_builder().create(), || {
                    "creating a listener".into()
                })
            })
            .collect::<Result<Vec<_>>>()?;
        (
            listeners,
            Some(ix(pong_ev.notifier_builder().create(), || {
                "creating a notifier".into()
            })?),
        )
    } else {
        (Vec::new(), None)
    };
    let idle = (1..spec.topics)
        .map(|i| {
            subscriber(
                &pubsub(&node, &format!("{}/idle{i}", spec.name), spec, 1, 1)?,
                spec,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Box::new(IoxEcho {
        trackers: vec![StepTracker::new(spec.publishers); s],
        subs,
        listeners,
        publisher,
        notifier,
        spec: spec.clone(),
        _idle: idle,
        _node: node,
    }))
}

fn build_ping<S: Service + 'static>(spec: &Spec) -> Result<Box<dyn PingSide>> {
    let node = node::<S>()?;
    let [ping, pong, ping_ev, pong_ev] = names(spec);
    let (p, s) = (spec.publishers as usize, spec.subscribers as usize);
    let ping = pubsub(&node, &ping, spec, p, s)?;
    let pong = pubsub(&node, &pong, spec, 1, 1)?;
    let pubs = (0..p)
        .map(|_| Port::new(publisher(&ping, spec)?, spec))
        .collect::<Result<Vec<_>>>()?;
    let sub = subscriber(&pong, spec)?;
    let (notifiers, listener) = if spec.mode == Mode::Blocking {
        let ping_ev = event(&node, &ping_ev, p, s)?;
        let pong_ev = event(&node, &pong_ev, 1, 1)?;
        let notifiers = (0..p)
            .map(|_| {
                ix(ping_ev.notifier_builder().create(), || {
                    "creating a notifier".into()
                })
            })
            .collect::<Result<Vec<_>>>()?;
        (
            notifiers,
            Some(ix(pong_ev.listener_builder().create(), || {
                "creating a listener".into()
            })?),
        )
    } else {
        (Vec::new(), None)
    };
    let idle = (1..spec.topics)
        .map(|i| {
            publisher(
                &pubsub(&node, &format!("{}/idle{i}", spec.name), spec, 1, 1)?,
                spec,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Box::new(IoxPing {
        pubs,
        notifiers,
        sub,
        listener,
        spec: spec.clone(),
        _idle: idle,
        _node: node,
    }))
}

/// Creates the services and the subscribing ports.
pub fn echo_side(spec: &Spec) -> Result<(Box<dyn EchoSide>, String)> {
    let side = match spec.transport {
        Transport::CrossProcess => build_echo::<ipc::Service>(spec)?,
        _ => build_echo::<local::Service>(spec)?,
    };
    Ok((side, String::new()))
}

/// Opens the services and creates the publishing ports.
pub fn ping_side(spec: &Spec, _rendezvous: &str) -> Result<Box<dyn PingSide>> {
    match spec.transport {
        Transport::CrossProcess => build_ping::<ipc::Service>(spec),
        _ => build_ping::<local::Service>(spec),
    }
}

impl<S: Service> PingSide for IoxPing<S> {
    fn send(&mut self, seq: u64) -> Result<()> {
        let p = self.pubs.len();
        for i in (1..p).chain(std::iter::once(0)) {
            self.pubs[i].send(&self.spec, seq, i as u32)?;
            if let Some(n) = self.notifiers.get(i) {
                ix(n.notify(), || "notifying".into())?;
            }
            self.pubs[i].loan_ahead(&self.spec)?;
        }
        Ok(())
    }

    fn recv_echo(&mut self, seq: u64) -> Result<()> {
        let check = self.spec.check;
        receive(
            &self.sub,
            self.listener.as_ref(),
            check,
            &|| format!("iceoryx2 echo {seq}"),
            |buf| check_echo(buf, check, seq).map(|_| true),
        )
    }
}

impl<S: Service> IoxEcho<S> {
    fn drain(&mut self, j: usize, seq: u64) -> Result<()> {
        let tracker = &mut self.trackers[j];
        tracker.begin(seq);
        if tracker.complete() {
            return Ok(());
        }
        let check = self.spec.check;
        receive(
            &self.subs[j],
            self.listeners.get(j),
            check,
            &|| format!("iceoryx2 message {seq} on subscriber {j}"),
            |buf| {
                check_message(buf, check, tracker)?;
                Ok(tracker.complete())
            },
        )
    }
}

impl<S: Service> EchoSide for IoxEcho<S> {
    fn recv(&mut self, seq: u64) -> Result<()> {
        self.drain(0, seq)
    }

    fn echo(&mut self, seq: u64) -> Result<()> {
        self.publisher.send(&self.spec, seq, 0)?;
        if let Some(n) = &self.notifier {
            ix(n.notify(), || "notifying".into())?;
        }
        self.publisher.loan_ahead(&self.spec)
    }

    fn drain_others(&mut self, seq: u64) -> Result<()> {
        for j in 1..self.subs.len() {
            self.drain(j, seq)?;
        }
        Ok(())
    }
}
