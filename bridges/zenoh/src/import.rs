//! Other hosts' topics in: a remote bridge's topic token names a topic it exports; this
//! bridge asks it for the topic's meta, joins or creates the local topic from it, and
//! publishes every message that arrives. A host that lies (a meta that does not parse, a
//! message of another type or size) is counted and refused; everyone else is still served.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::raw::{RawPublisher, TopicMeta};
use zenoh::sample::Sample;
use zenoh::Wait;

use crate::ask::{ask, refused, Asked, TokenEvent, POLL, RETRY_AFTER};
use crate::wire::{self, Attachment, WireMeta};
use crate::{BridgeError, Inner, TopicState};

/// One imported topic.
pub(crate) struct Import {
    /// The remote bridges exporting it now.
    sources: BTreeSet<String>,
    /// Its type's name.
    pub(crate) type_name: String,
    _subscriber: zenoh::pubsub::Subscriber<()>,
    /// Dropped after the subscriber (and with it the publisher).
    _own: crate::OwnPublisher,
}

/// Stops importing `t`.
pub(crate) fn stop(t: &TopicState) {
    let i = t.import.lock().unwrap_or_else(|e| e.into_inner()).take();
    drop(i);
}

/// Follows other hosts' bridges (their host tokens).
pub(crate) fn follow_hosts(
    inner: &Arc<Inner>,
) -> Result<zenoh::pubsub::Subscriber<()>, BridgeError> {
    crate::ask::follow(inner, "host", |inner, came, bridge, host| {
        let mut hosts = inner.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if came {
            tracing::info!(bridge, host, "host up");
            hosts.insert(bridge.to_owned(), host.to_owned());
        } else {
            tracing::info!(bridge, host, "host gone");
            hosts.remove(bridge);
        }
    })
}

/// Follows the nodes other hosts run (their node tokens).
pub(crate) fn follow_nodes(
    inner: &Arc<Inner>,
) -> Result<zenoh::pubsub::Subscriber<()>, BridgeError> {
    crate::ask::follow(inner, "node", |inner, came, bridge, node| {
        let pair = (bridge.to_owned(), node.to_owned());
        let mut nodes = inner.remote_nodes.lock().unwrap_or_else(|e| e.into_inner());
        if came {
            nodes.insert(pair);
        } else {
            nodes.remove(&pair);
        }
    })
}

/// Follows other hosts' topic tokens, handing them to [`run`] (answers are awaited there, not
/// in Zenoh's callback).
pub(crate) fn follow_topics(
    inner: &Arc<Inner>,
    tx: Sender<TokenEvent>,
) -> Result<zenoh::pubsub::Subscriber<()>, BridgeError> {
    let tx = Mutex::new(tx);
    crate::ask::follow(inner, "topic", move |inner, came, bridge, topic| {
        let pair = (bridge.to_owned(), topic.to_owned());
        {
            let mut remote = inner
                .remote_topics
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if came {
                remote.insert(pair);
            } else {
                remote.remove(&pair);
            }
        }
        if !inner.config.imports(topic) {
            return;
        }
        let (bridge, topic) = (bridge.to_owned(), topic.to_owned());
        let event = if came {
            TokenEvent::Appeared { bridge, topic }
        } else {
            TokenEvent::Gone { bridge, topic }
        };
        let _ = tx.lock().unwrap_or_else(|e| e.into_inner()).send(event);
    })
}

/// How often the bridge rewrites its view for this host's tools.
const VIEW_EVERY: Duration = Duration::from_secs(1);

/// Handles token events until the bridge stops, rewriting the view every second.
pub(crate) fn run(
    inner: &Arc<Inner>,
    rx: Receiver<TokenEvent>,
    view: &nerve::Publisher<nerve::Msgpack<crate::view::BridgeView>>,
) {
    let mut next_view = Instant::now();
    // Appearances whose meta went unanswered (a busy or slow host): asked again later, as
    // long as their token lives.
    let mut retry: Vec<(Instant, TokenEvent)> = Vec::new();
    while !inner.stopping() {
        let now = Instant::now();
        if now >= next_view {
            next_view += VIEW_EVERY;
            if let Err(e) = view.send(&inner.view()) {
                tracing::debug!(error = %e, "the bridge's view was not published");
            }
        }
        let event = match retry.iter().position(|(at, _)| *at <= now) {
            Some(i) => retry.swap_remove(i).1,
            None => match rx.recv_timeout(POLL) {
                Ok(e) => e,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return,
            },
        };
        let again = match &event {
            TokenEvent::Appeared { bridge, topic } => appeared(inner, bridge, topic),
            TokenEvent::ServiceAppeared { bridge, service } => {
                crate::services::appeared(inner, bridge, service)
            }
            TokenEvent::Gone { bridge, topic } => {
                let came = TokenEvent::Appeared {
                    bridge: bridge.clone(),
                    topic: topic.clone(),
                };
                retry.retain(|(_, e)| *e != came);
                gone(inner, bridge, topic);
                false
            }
            TokenEvent::ServiceGone { bridge, service } => {
                let came = TokenEvent::ServiceAppeared {
                    bridge: bridge.clone(),
                    service: service.clone(),
                };
                retry.retain(|(_, e)| *e != came);
                crate::services::gone(inner, bridge, service);
                false
            }
        };
        if again {
            retry.push((Instant::now() + RETRY_AFTER, event));
        }
    }
}

fn gone(inner: &Inner, bridge: &str, topic: &str) {
    let state = inner
        .topics
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(topic)
        .cloned();
    let Some(state) = state else { return };
    let mut slot = state.import.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = slot.as_mut() {
        i.sources.remove(bridge);
        if i.sources.is_empty() {
            tracing::info!(topic, "no host exports it any more: import stops");
            *slot = None;
        }
    }
}

/// Another host's topic appeared: import it. True when its meta went unanswered (ask again).
fn appeared(inner: &Arc<Inner>, bridge: &str, topic: &str) -> bool {
    let state = inner.topic(topic);
    let mut slot = state.import.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = slot.as_mut() {
        i.sources.insert(bridge.to_owned());
        return false;
    }
    let asked = ask(inner, wire::meta_key(inner.config.domain, bridge, topic))
        .and_then(|bytes| WireMeta::decode(&bytes).map_err(Asked::Bad));
    let (wire, meta) = match asked {
        Ok(m) => m,
        Err(why) => return refused(inner, "topic", topic, bridge, why),
    };
    let domain = inner.config.domain;
    let own = crate::OwnPublisher::new(inner, topic);
    let publisher = match meta
        .open(topic, domain, wire.description.clone())
        .and_then(|t| t.publisher())
    {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(topic, host = wire.host, error = %e,
                "remote topic not imported: fix the type on one of the two hosts");
            return false;
        }
    };
    let wire_type = meta.stored_type.name.clone();
    let deliver = Deliver {
        me: inner.id,
        layout_hash: meta.stored_type.layout_hash,
        meta,
        publisher,
        state: state.clone(),
        next_seq: Mutex::default(),
    };
    let subscriber = inner
        .session
        .declare_subscriber(wire::data_key(domain, topic))
        .callback(move |s: Sample| deliver.deliver(&s))
        .wait();
    match subscriber {
        Ok(s) => {
            tracing::info!(topic, host = wire.host, "imported");
            *slot = Some(Import {
                sources: BTreeSet::from([bridge.to_owned()]),
                type_name: wire_type,
                _subscriber: s,
                _own: own,
            });
        }
        Err(e) => tracing::warn!(topic, error = %e, "remote topic not imported"),
    }
    false
}

/// Publishes what arrives on one imported topic.
struct Deliver {
    me: [u8; 16],
    layout_hash: u64,
    meta: TopicMeta,
    publisher: RawPublisher,
    state: Arc<TopicState>,
    /// Per sending bridge, the sequence number expected next.
    next_seq: Mutex<BTreeMap<[u8; 16], u64>>,
}

impl Deliver {
    fn deliver(&self, s: &Sample) {
        let c = &self.state.counters;
        let Some(att) = s
            .attachment()
            .and_then(|a| Attachment::decode(&a.to_bytes()))
        else {
            // Relaxed (all counters here): statistics.
            c.rejected.fetch_add(1, Relaxed);
            return;
        };
        if att.bridge == self.me {
            return; // this bridge's own export, delivered locally by Zenoh
        }
        if att.layout_hash != self.layout_hash {
            c.rejected.fetch_add(1, Relaxed);
            return;
        }
        let bytes = s.payload().to_bytes();
        let (fixed, payload) = match self.meta.split(&bytes) {
            Ok(parts) => parts,
            Err(_) => {
                c.rejected.fetch_add(1, Relaxed);
                return;
            }
        };
        {
            let mut next = self.next_seq.lock().unwrap_or_else(|e| e.into_inner());
            let expected = next.entry(att.bridge).or_insert(0);
            if att.seq > *expected {
                c.lost.fetch_add(att.seq - *expected, Relaxed);
            }
            // A sequence that goes back: the sender's topic restarted; follow it.
            *expected = att.seq + 1;
        }
        // Noted before it is published: the exporter may read it at once.
        self.state.echo.imported(nerve::echo::hash(&bytes));
        match self.publisher.send_parts(fixed, payload) {
            Ok(()) => c.received.fetch_add(1, Relaxed),
            Err(e) => {
                tracing::debug!(topic = self.publisher.topic(), error = %e, "not published");
                c.dropped.fetch_add(1, Relaxed)
            }
        };
    }
}
