//! Local topics out to Zenoh: a topic is exported once it has a publisher other than the
//! bridge's own (so a topic only the bridge publishes, an imported one, is not sent back; an
//! application may run the bridge in its own process),
//! with one thread per topic blocked in its subscriber's `recv`, so a message leaves as soon
//! as it is published.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nerve::plumbing::TopicKind;
use nerve::raw::{RawMessage, RawSubscriber, RawTopic, TopicMeta};
use nerve::registry::{Event, TopicInfo, Watch};
use nerve::Reliability;
use zenoh::qos::CongestionControl;
use zenoh::Wait;

use crate::ask::POLL;
use crate::wire::{self, Attachment, WireMeta};
use crate::{zerr, BridgeError, Inner, TopicState};

/// One exported topic.
pub(crate) struct Export {
    /// What the meta queryable answers for it.
    wire_meta: Vec<u8>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    _token: zenoh::liveliness::LivelinessToken,
}

impl Drop for Export {
    fn drop(&mut self) {
        // Relaxed: a flag the thread polls; the join orders the rest.
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Tells `t`'s export thread to stop, without waiting for it (the bridge stops all of them
/// first, then waits for each: not 100 ms per topic).
pub(crate) fn signal_stop(t: &TopicState) {
    if let Some(e) = t.export.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        // Relaxed: see `Export::drop`.
        e.stop.store(true, Relaxed);
    }
}

/// Stops exporting `t` (its token goes: other hosts stop importing it from here).
pub(crate) fn stop(t: &TopicState) {
    let e = t.export.lock().unwrap_or_else(|e| e.into_inner()).take();
    drop(e);
}

/// Answers other bridges' questions for the meta of a topic exported here.
pub(crate) fn serve_metas(inner: &Arc<Inner>) -> Result<zenoh::query::Queryable<()>, BridgeError> {
    crate::ask::serve(inner, "meta", |inner, topic| {
        let state = inner
            .topics
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(topic)
            .cloned()?;
        let e = state.export.lock().unwrap_or_else(|e| e.into_inner());
        e.as_ref().map(|e| e.wire_meta.clone())
    })
}

/// Follows the local domain: starts exporting a topic when a publisher of another process
/// appears on it, stops when the topic goes.
pub(crate) fn watch_local(inner: &Arc<Inner>, mut watch: Watch) {
    // Live publishers per topic (all processes, the bridge's own included).
    let mut publishers: BTreeMap<String, u32> = BTreeMap::new();
    let mut infos: BTreeMap<String, TopicInfo> = BTreeMap::new();
    // A token per node a scheduler here announces (`nerve/node/<name>`).
    let mut nodes: BTreeMap<String, zenoh::liveliness::LivelinessToken> = BTreeMap::new();
    let node_prefix = nerve::exec::announce::NODE_TOPIC_PREFIX;
    while !inner.stopping() {
        let Some(event) = watch.next(POLL) else {
            continue;
        };
        match event {
            Event::TopicAppeared(info) => {
                if let Some(node) = info.name.strip_prefix(node_prefix) {
                    let key = wire::node_token(inner.config.domain, &inner.id_str, node);
                    match inner.session.liveliness().declare_token(key).wait() {
                        Ok(t) => _ = nodes.insert(node.to_owned(), t),
                        Err(e) => tracing::warn!(node, error = %e, "node not announced"),
                    }
                }
                infos.insert(info.name.clone(), info);
            }
            Event::EndpointAppeared {
                topic,
                publisher: true,
                ..
            } => {
                let n = publishers.entry(topic.clone()).or_insert(0);
                *n += 1;
                if *n <= inner.own_publishers(&topic) {
                    continue; // only the bridge's own
                }
                let Some(info) = infos.get(&topic) else {
                    continue;
                };
                if let Some(service) = nerve::rpc::discovery::server_record_of(info) {
                    if info.owner.is_none() && inner.config.exports(service) {
                        crate::services::export(inner, service);
                    }
                } else if wanted(inner, info) {
                    start(inner, &topic);
                }
            }
            Event::EndpointGone {
                topic,
                publisher: true,
                ..
            } => {
                let n = publishers.entry(topic.clone()).or_insert(0);
                *n = n.saturating_sub(1);
                let others_left = *n > inner.own_publishers(&topic);
                if let Some(service) = infos
                    .get(&topic)
                    .and_then(nerve::rpc::discovery::server_record_of)
                    .filter(|_| !others_left)
                {
                    crate::services::unexport(inner, service);
                }
            }
            Event::TopicGone { name, owner: None } => {
                infos.remove(&name);
                publishers.remove(&name);
                if let Some(node) = name.strip_prefix(node_prefix) {
                    nodes.remove(node);
                }
                let state = inner
                    .topics
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&name)
                    .cloned();
                if let Some(t) = state {
                    stop(&t);
                }
            }
            _ => {}
        }
    }
}

/// Exported: selected by the configuration, on shared memory (an in-process topic cannot be
/// joined), and a user's topic (none of nerve's own: node records travel as liveliness
/// tokens, services as queryables, the e-stop and the log on their own paths).
fn wanted(inner: &Inner, info: &TopicInfo) -> bool {
    info.owner.is_none() && !TopicKind::of_info(info).is_nerve() && inner.config.exports(&info.name)
}

fn start(inner: &Arc<Inner>, name: &str) {
    let state = inner.topic(name);
    let mut slot = state.export.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_some() {
        return;
    }
    match open(inner, name, &state) {
        Ok(e) => {
            tracing::info!(topic = name, "exported");
            *slot = Some(e);
        }
        Err(e) => tracing::warn!(topic = name, error = %e, "not exported"),
    }
}

fn open(inner: &Arc<Inner>, name: &str, state: &Arc<TopicState>) -> Result<Export, BridgeError> {
    let domain = inner.config.domain;
    let local = |e: nerve::OpenError| BridgeError::Domain {
        domain,
        reason: e.to_string(),
    };
    let topic = RawTopic::join(name, domain).map_err(local)?;
    let mut sub = topic.subscriber(0).map_err(local)?;
    // The default spin (20 µs) before sleeping: a message that follows soon leaves without
    // a futex wake-up, which on a virtual machine can cost tens of µs.
    sub.set_spin(nerve::DEFAULT_SPIN);
    let meta = TopicMeta::of(&topic);
    // Reliable: wait for room, never drop (a 6 MB image included); best effort and latest
    // only: drop under congestion (counted by the receiver as a gap).
    let congestion = match meta.reliability {
        Reliability::Reliable => CongestionControl::Block,
        _ => CongestionControl::Drop,
    };
    let publisher = inner
        .session
        .declare_publisher(wire::data_key(domain, name))
        .congestion_control(congestion)
        .express(true)
        // Other sessions only: this bridge's own import of the topic (published on two
        // hosts) does not take it back, and the matching status says whether another
        // session wants it (see `Out::check`).
        .allowed_destination(zenoh::sample::Locality::Remote)
        .wait()
        .map_err(zerr)?;
    let wire_meta = WireMeta {
        meta: meta.to_metadata(),
        description: topic.description_bytes(),
        host: inner.config.host.clone(),
    }
    .encode();
    let token = inner
        .session
        .liveliness()
        .declare_token(wire::topic_token(domain, &inner.id_str, name))
        .wait()
        .map_err(zerr)?;
    let stop = Arc::new(AtomicBool::new(false));
    let out = Out {
        topic: topic.clone(),
        publisher,
        state: state.clone(),
        inner: Arc::downgrade(inner),
        sender: u64::from_le_bytes(inner.id[..8].try_into().unwrap_or([0; 8])),
        layout_hash: meta.stored_type.layout_hash,
        count_missed: meta.reliability != Reliability::LatestOnly,
    };
    let thread = crate::spawn(&format!("nerve-zenoh-out {name}"), {
        let stop = stop.clone();
        move || out.run(sub, &stop)
    });
    Ok(Export {
        wire_meta,
        stop,
        thread: Some(thread),
        _token: token,
    })
}

/// How often an export looks at who wants the topic and who sends it already.
const CHECK: Duration = Duration::from_millis(50);

/// One exported topic's sending side.
struct Out {
    topic: RawTopic,
    publisher: zenoh::pubsub::Publisher<'static>,
    state: Arc<TopicState>,
    inner: Weak<Inner>,
    /// This bridge as a sender (its Zenoh id's first half).
    sender: u64,
    layout_hash: u64,
    count_missed: bool,
}

impl Out {
    /// Sends every message of the topic until `stop`, except while all of its publishers send
    /// it themselves (`direct`): then the subscriber goes (a reliable ring must not wait for
    /// a reader that does not read) and comes back when one does not. It comes back at the
    /// index the ring had at the last check that found them all direct: whatever a new
    /// publisher wrote since is sent (what the direct ones sent too, the receivers drop as
    /// the duplicates they are).
    fn run(&self, sub: RawSubscriber, stop: &AtomicBool) {
        let mut sub = Some(sub);
        let mut seq = 0u64;
        let mut missed_before = 0u64;
        let mut next_check = Instant::now();
        // While left to the publishers: the ring's next index at the last check.
        let mut all_direct_until = 0u64;
        // Relaxed: see `Export::drop`.
        while !stop.load(Relaxed) {
            if Instant::now() >= next_check {
                next_check = Instant::now() + CHECK;
                let head = self.topic.next_index();
                let leave = self.check();
                match (&sub, leave) {
                    (Some(s), true) => {
                        missed_before += s.stats().lost;
                        sub = None;
                        all_direct_until = head;
                        tracing::info!(
                            topic = self.topic.name(),
                            "its publishers send it to other hosts themselves"
                        );
                    }
                    (None, true) => all_direct_until = head,
                    (None, false) => {
                        match self.topic.subscriber(head.saturating_sub(all_direct_until)) {
                            Ok(mut s) => {
                                s.set_spin(nerve::DEFAULT_SPIN);
                                sub = Some(s);
                                tracing::info!(
                                    topic = self.topic.name(),
                                    "exported by the bridge again"
                                );
                            }
                            Err(e) => {
                                tracing::warn!(topic = self.topic.name(), error = %e, "export stops");
                                return;
                            }
                        }
                    }
                    _ => {}
                }
            }
            let Some(s) = sub.as_mut() else {
                std::thread::sleep(CHECK);
                continue;
            };
            if self.count_missed {
                // Relaxed: a statistic.
                let missed = missed_before + s.stats().lost;
                self.state.counters.missed.store(missed, Relaxed);
            }
            let (index, msg) = match s.recv_timeout_indexed(CHECK) {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(topic = self.topic.name(), error = %e, "export stops");
                    return;
                }
            };
            let bytes: &[u8] = match &msg {
                RawMessage::Fixed(b) => b,
                RawMessage::Chunk(s) => s.chunk_bytes(),
            };
            let state = &self.state;
            // A message this bridge imported is not sent back (hashed only while imports wait).
            if state.echo.has_pending() && state.echo.is_echo(nerve::echo::hash(bytes)) {
                continue;
            }
            let attachment = Attachment {
                ring: self.topic.ring_id(),
                index,
                sender: self.sender,
                seq,
                layout_hash: self.layout_hash,
            };
            seq += 1;
            match self
                .publisher
                .put(bytes.to_vec())
                .attachment(attachment.encode().to_vec())
                .wait()
            {
                // Relaxed: a statistic.
                Ok(()) => _ = state.counters.sent.fetch_add(1, Relaxed),
                Err(e) => {
                    tracing::warn!(topic = self.topic.name(), error = %e, "a message was not sent")
                }
            }
        }
    }

    /// Tells the topic's publishers whether another host wants it (a Zenoh subscriber of
    /// another session matches), and says whether all of them send it themselves.
    fn check(&self) -> bool {
        let wanted = self
            .publisher
            .matching_status()
            .wait()
            .map_or(true, |m| m.matching());
        self.topic.set_remote_interest(u32::from(wanted));
        let (all, direct) = self.topic.publishers_direct();
        let own = self
            .inner
            .upgrade()
            .map_or(0, |i| i.own_publishers(self.topic.name()));
        let others = all.saturating_sub(own);
        let leave = others > 0 && direct >= others;
        // Relaxed: a statistic for the view.
        self.state.counters.direct.store(leave, Relaxed);
        leave
    }
}
