//! Other hosts' topics in: a remote bridge's topic token names a topic it exports; this
//! bridge asks it for the topic's meta, joins or creates the local topic from it, and
//! publishes every message that arrives. A host that lies (a meta that does not parse, a
//! message of another type or size) is counted and refused; everyone else is still served.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::raw::{RawPublisher, RawTopic, TopicMeta};
use zenoh::sample::Sample;
use zenoh::Wait;

use crate::ask::{refused, Asked, Asks, Event, Kind, Outcome, Remote, POLL};
use crate::dedup::Seen;
use crate::limits::{Footprint, Held, Refused, Sequences, Step};
use crate::wire::{self, Attachment, WireMeta};
use crate::{BridgeError, Inner, TopicState};

/// One imported topic.
pub(crate) struct Import {
    /// The remote bridges exporting it now.
    sources: BTreeSet<String>,
    /// Its type's name.
    pub(crate) type_name: String,
    /// Bytes creating its segment allocated (0: it existed here).
    bytes: u64,
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
    tx: Sender<Event>,
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
        let r = Remote {
            kind: Kind::Topic,
            bridge: bridge.to_owned(),
            name: topic.to_owned(),
        };
        let _ = nerve::sys::lock(&tx).send(Event::Token(r, came));
    })
}

/// How often the bridge rewrites its view for this host's tools.
const VIEW_EVERY: Duration = Duration::from_secs(1);

/// Handles token events and meta answers until the bridge stops, rewriting the view every
/// second. Nothing here waits on another host: metas are asked for by `asks`, their answers
/// come back as events.
pub(crate) fn run(
    inner: &Arc<Inner>,
    rx: Receiver<Event>,
    mut asks: Asks,
    view: &nerve::Publisher<nerve::Msgpack<crate::view::BridgeView>>,
) {
    let mut next_view = Instant::now();
    while !inner.stopping() {
        if Instant::now() >= next_view {
            next_view += VIEW_EVERY;
            if let Err(e) = view.send(&inner.view()) {
                tracing::debug!(error = %e, "the bridge's view was not published");
            }
        }
        asks.pump(inner);
        let event = match rx.recv_timeout(POLL) {
            Ok(e) => e,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        match event {
            Event::Token(r, true) => {
                let known = match r.kind {
                    Kind::Topic => joined(inner, &r.bridge, &r.name),
                    Kind::Service => crate::services::joined(inner, &r.bridge, &r.name),
                };
                if !known {
                    asks.came(r);
                }
            }
            Event::Token(r, false) => {
                asks.went(&r);
                let freed = match r.kind {
                    Kind::Topic => gone(inner, &r.bridge, &r.name),
                    Kind::Service => {
                        crate::services::gone(inner, &r.bridge, &r.name);
                        false
                    }
                };
                if freed {
                    asks.unpark();
                }
            }
            Event::Answer(r, got) => {
                if !asks.answered(&r) {
                    continue; // its token went meanwhile
                }
                let outcome = match got.and_then(|bytes| match r.kind {
                    Kind::Topic => answered(inner, &r, &bytes),
                    Kind::Service => crate::services::answered(inner, &r, &bytes),
                }) {
                    Ok(outcome) => outcome,
                    Err(why) => refused(inner, &r, why),
                };
                asks.then(r, outcome);
            }
        }
    }
}

/// `bridge` stopped exporting `topic`: true when that stopped its import (room freed).
fn gone(inner: &Inner, bridge: &str, topic: &str) -> bool {
    let Some(state) = inner.known_topic(topic) else {
        return false;
    };
    let mut slot = state.import.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = slot.as_mut() {
        i.sources.remove(bridge);
        if i.sources.is_empty() {
            tracing::info!(topic, "no host exports it any more: import stops");
            *slot = None;
            return true;
        }
    }
    false
}

/// Another host's topic appeared: true when it is imported already (`bridge` joins its
/// sources), false when its meta must be asked for.
fn joined(inner: &Inner, bridge: &str, topic: &str) -> bool {
    let Some(state) = inner.known_topic(topic) else {
        return false;
    };
    let mut slot = state.import.lock().unwrap_or_else(|e| e.into_inner());
    match slot.as_mut() {
        Some(i) => {
            i.sources.insert(bridge.to_owned());
            true
        }
        None => false,
    }
}

/// Topics imported now, and the bytes creating their segments allocated.
fn held(inner: &Inner) -> Held {
    let topics = inner.topics.lock().unwrap_or_else(|e| e.into_inner());
    let mut held = Held::default();
    for t in topics.values() {
        if let Some(i) = t.import.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            held.topics += 1;
            held.bytes = held.bytes.saturating_add(i.bytes);
        }
    }
    held
}

/// A remote topic's meta came: import it, within this host's limits.
fn answered(inner: &Arc<Inner>, r: &Remote, bytes: &[u8]) -> Result<Outcome, Asked> {
    let (bridge, topic) = (r.bridge.as_str(), r.name.as_str());
    if joined(inner, bridge, topic) {
        return Ok(Outcome::Done); // another host's meta came first
    }
    let (wire, meta) = WireMeta::decode(bytes).map_err(Asked::Bad)?;
    let domain = inner.config.domain;
    // A topic that exists here is joined as it is: nothing is created for the remote host.
    let exists = RawTopic::join(topic, domain).is_ok();
    let cost = if exists {
        Some(Footprint::default())
    } else {
        crate::limits::footprint(&meta)
    };
    if let Err(why) = crate::limits::admit(&inner.config, held(inner), cost) {
        // Too large never fits; no room may, once an imported topic goes.
        let (reason, outcome) = match why {
            Refused::TooLarge(r) => (r, Outcome::Done),
            Refused::NoRoom(r) => (r, Outcome::Park),
        };
        let host = inner.host_of(bridge, &wire.host);
        tracing::warn!(
            topic,
            host,
            reason,
            "remote topic refused: over this host's limits"
        );
        let mut refusals = inner.refusals.lock().unwrap_or_else(|e| e.into_inner());
        refusals.note(topic, &host, reason);
        return Ok(outcome);
    }
    let state = inner.topic(topic);
    let mut slot = state.import.lock().unwrap_or_else(|e| e.into_inner());
    let own = crate::OwnPublisher::new(inner, topic);
    let opened = meta
        .open(topic, domain, wire.description.clone())
        .and_then(|t| Ok((t.publisher()?, t.ring_id())));
    let (publisher, ring) = match opened {
        Ok((p, ring)) => {
            // What came from another host leaves from here only through the bridge, which
            // knows not to send it back.
            p.keep_local();
            (p, ring)
        }
        Err(e) => {
            tracing::error!(topic, host = wire.host, error = %e,
                "remote topic not imported: fix the type on one of the two hosts");
            return Ok(Outcome::Done);
        }
    };
    let wire_type = meta.stored_type.name.clone();
    let deliver = Deliver {
        ring,
        layout_hash: meta.stored_type.layout_hash,
        meta,
        publisher,
        state: state.clone(),
        sequences: Mutex::default(),
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
                bytes: cost.map_or(0, |c| c.at_once),
                _subscriber: s,
                _own: own,
            });
        }
        Err(e) => tracing::warn!(topic, error = %e, "remote topic not imported"),
    }
    Ok(Outcome::Done)
}

/// Publishes what arrives on one imported topic.
struct Deliver {
    /// The local topic's ring: a message of it was published on this host.
    ring: u64,
    layout_hash: u64,
    meta: TopicMeta,
    publisher: RawPublisher,
    state: Arc<TopicState>,
    /// Per sender, the sequence number expected next; per ring, the messages seen.
    sequences: Mutex<(Sequences, Seen)>,
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
        if att.ring == self.ring {
            return; // published on this host (its own publisher's copy, sent directly)
        }
        if att.layout_hash != self.layout_hash {
            c.rejected.fetch_add(1, Relaxed);
            return;
        }
        // A chunked message that came in fragments goes into its chunk piece by piece (no
        // joined copy of a 6 MB frame first); anything else is read whole.
        let zbytes = s.payload();
        let fixed_kind = nerve::msgs::MessageKind::from_raw(self.meta.stored_type.kind)
            == Some(nerve::msgs::MessageKind::Fixed);
        let pieces = !fixed_kind && zbytes.slices().nth(1).is_some();
        let whole = if pieces {
            None
        } else {
            Some(zbytes.to_bytes())
        };
        let checked = match &whole {
            Some(bytes) => self.meta.split(bytes).map(Parts::Whole),
            None => self
                .meta
                .split_len(zbytes.len())
                .map(|(h, p)| Parts::Pieces(h, p)),
        };
        let Ok(parts) = checked else {
            c.rejected.fetch_add(1, Relaxed);
            return;
        };
        // A gap counts as lost only up to MAX_SEQ_GAP: a peer's number must not set the figure.
        let (step, first) = {
            let mut s = nerve::sys::lock(&self.sequences);
            (
                s.0.step(att.sender, att.seq),
                s.1.first(att.ring, att.index),
            )
        };
        match step {
            Step::Next => {}
            // Relaxed: statistics, read without ordering against anything (`Bridge::stats`).
            Step::Lost(n) => {
                c.lost.fetch_add(n, Relaxed);
            }
            Step::Reset => {
                c.resets.fetch_add(1, Relaxed);
            }
        }
        if !first {
            c.duplicates.fetch_add(1, Relaxed);
            return;
        }
        // Noted before it is published: the exporter may read it at once.
        let published = match parts {
            Parts::Whole((fixed, payload)) => {
                let travelled = whole.as_deref().unwrap_or(fixed);
                self.state.echo.imported(nerve::echo::hash(travelled));
                self.publisher.send_parts(fixed, payload)
            }
            Parts::Pieces(header, payload) => {
                self.state
                    .echo
                    .imported(nerve::echo::hash_slices(zbytes.slices()));
                self.publish_pieces(zbytes, header, payload)
            }
        };
        match published {
            Ok(()) => c.received.fetch_add(1, Relaxed),
            Err(e) => {
                tracing::debug!(topic = self.publisher.topic(), error = %e, "not published");
                c.dropped.fetch_add(1, Relaxed)
            }
        };
    }
}

/// A received message, checked: whole (its fixed part and payload), or in fragments (the
/// header and payload lengths).
enum Parts<'a> {
    Whole((&'a [u8], &'a [u8])),
    Pieces(usize, usize),
}

impl Deliver {
    /// Writes a chunked message that arrived in fragments into a loaned chunk: each fragment's
    /// header part into the header, its payload part into the payload (the padding between
    /// them is the chunk's own).
    fn publish_pieces(
        &self,
        z: &zenoh::bytes::ZBytes,
        header: usize,
        payload: usize,
    ) -> Result<(), nerve::SendError<()>> {
        let mut loan = self.publisher.loan(header, payload)?;
        let offset = nerve::raw::chunk_data_offset(header);
        let mut pos = 0;
        for piece in z.slices() {
            let end = pos + piece.len();
            if pos < header {
                let n = end.min(header);
                loan.header_mut()[pos..n].copy_from_slice(&piece[..n - pos]);
            }
            if end > offset {
                let from = pos.max(offset);
                loan.data_mut()[from - offset..end - offset].copy_from_slice(&piece[from - pos..]);
            }
            pos = end;
        }
        loan.send()
    }
}
