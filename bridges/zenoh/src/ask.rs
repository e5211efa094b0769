//! Asking other bridges for their metas, and the events the import thread handles: what the
//! topic and service sides share.
//!
//! Metas are asked for concurrently: each ask is a Zenoh query with its own deadline whose
//! answer (or silence) comes back to the import thread as an [`Event::Answer`], so the thread
//! never waits on a remote host. At most [`ASKS_PER_BRIDGE`] asks per remote bridge and
//! [`ASKS_IN_FLIGHT`] in all are out at once; the rest wait their turn, oldest first, skipping
//! a bridge that has its share out. A host that never answers therefore holds its own share
//! and delays no other host's topics.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use zenoh::query::Reply;
use zenoh::sample::{Sample, SampleKind};
use zenoh::Wait;

use crate::{wire, zerr, BridgeError, Inner};

/// How long a remote bridge has to answer for a meta.
const META_TIMEOUT: Duration = Duration::from_secs(5);

/// Asks out to one remote bridge at once.
pub(crate) const ASKS_PER_BRIDGE: usize = 8;

/// Asks out at once, to all bridges.
pub(crate) const ASKS_IN_FLIGHT: usize = 128;

/// How often blocked loops look at their stop flag.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// How long before an unanswered meta is asked for again.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(1);

/// What a token names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Topic,
    Service,
}

/// A topic or service another bridge exports.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Remote {
    pub kind: Kind,
    /// The exporting bridge's id.
    pub bridge: String,
    /// The topic's or service's name.
    pub name: String,
}

impl Remote {
    /// The key its meta is asked for on.
    fn meta_key(&self, domain: u32) -> String {
        match self.kind {
            Kind::Topic => wire::meta_key(domain, &self.bridge, &self.name),
            Kind::Service => wire::smeta_key(domain, &self.bridge, &self.name),
        }
    }

    /// "topic" or "service", for logs.
    pub(crate) fn what(&self) -> &'static str {
        match self.kind {
            Kind::Topic => "topic",
            Kind::Service => "service",
        }
    }
}

/// What the import thread handles.
pub(crate) enum Event {
    /// A remote token came (`true`) or went.
    Token(Remote, bool),
    /// What came back for a meta asked for.
    Answer(Remote, Result<Vec<u8>, Asked>),
}

/// Why a remote bridge's meta is not here.
#[derive(Debug)]
pub(crate) enum Asked {
    /// No answer (yet): a busy or slow host; worth asking again.
    Unanswered(String),
    /// An answer that does not parse or lies: refused.
    Bad(String),
}

/// What became of an answered meta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Imported, or nothing more to do.
    Done,
    /// Ask again later.
    Again,
    /// Refused for this host's limits: asked again when room frees, while its token lives.
    Park,
}

/// An ask out: when the import thread stops waiting for it, and whether its token still lives.
struct Out {
    deadline: Instant,
    live: bool,
}

/// The asks of the import thread: waiting, out, to be asked again, parked.
pub(crate) struct Asks {
    tx: Sender<Event>,
    /// Appearances waiting for an ask, oldest first (`queued` mirrors it for lookups).
    waiting: VecDeque<Remote>,
    queued: BTreeSet<Remote>,
    out: BTreeMap<Remote, Out>,
    later: BTreeMap<Remote, Instant>,
    parked: BTreeSet<Remote>,
}

impl Asks {
    /// Answers arrive on `tx` as [`Event::Answer`].
    pub(crate) fn new(tx: Sender<Event>) -> Self {
        Asks {
            tx,
            waiting: VecDeque::new(),
            queued: BTreeSet::new(),
            out: BTreeMap::new(),
            later: BTreeMap::new(),
            parked: BTreeSet::new(),
        }
    }

    /// `r`'s token came: ask for its meta (unless that is under way).
    pub(crate) fn came(&mut self, r: Remote) {
        if let Some(o) = self.out.get_mut(&r) {
            o.live = true;
            return;
        }
        if self.queued.contains(&r) || self.later.contains_key(&r) || self.parked.contains(&r) {
            return;
        }
        self.queue(r);
    }

    /// `r`'s token went: forget it (an ask out is let run, its answer ignored).
    pub(crate) fn went(&mut self, r: &Remote) {
        if self.queued.remove(r) {
            self.waiting.retain(|w| w != r);
        }
        self.later.remove(r);
        self.parked.remove(r);
        if let Some(o) = self.out.get_mut(r) {
            o.live = false;
        }
    }

    /// `r`'s answer came: true when it is still wanted (its token lives).
    pub(crate) fn answered(&mut self, r: &Remote) -> bool {
        self.out.remove(r).is_some_and(|o| o.live)
    }

    /// Does what `outcome` says with `r`.
    pub(crate) fn then(&mut self, r: Remote, outcome: Outcome) {
        match outcome {
            Outcome::Done => {}
            Outcome::Again => {
                self.later.insert(r, Instant::now() + RETRY_AFTER);
            }
            Outcome::Park => {
                self.parked.insert(r);
            }
        }
    }

    /// Room freed (an import stopped): ask again for what was refused for the limits.
    pub(crate) fn unpark(&mut self) {
        for r in std::mem::take(&mut self.parked) {
            self.queue(r);
        }
    }

    fn queue(&mut self, r: Remote) {
        self.queued.insert(r.clone());
        self.waiting.push_back(r);
    }

    /// Sends the asks whose turn it is: those due again, then waiting ones while the bounds
    /// allow. An ask whose answer is long overdue (Zenoh never ended it) counts as unanswered.
    pub(crate) fn pump(&mut self, inner: &Inner) {
        let now = Instant::now();
        let overdue: Vec<Remote> = self
            .out
            .iter()
            .filter(|(_, o)| o.deadline <= now)
            .map(|(r, _)| r.clone())
            .collect();
        for r in overdue {
            if self.out.remove(&r).is_some_and(|o| o.live) {
                self.later.insert(r, now);
            }
        }
        let due: Vec<Remote> = self
            .later
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(r, _)| r.clone())
            .collect();
        for r in due {
            self.later.remove(&r);
            self.queue(r);
        }
        if self.waiting.is_empty() || self.out.len() >= ASKS_IN_FLIGHT {
            return;
        }
        let mut per_bridge: BTreeMap<String, usize> = BTreeMap::new();
        for r in self.out.keys() {
            *per_bridge.entry(r.bridge.clone()).or_default() += 1;
        }
        let mut i = 0;
        while i < self.waiting.len() && self.out.len() < ASKS_IN_FLIGHT {
            let n = per_bridge
                .entry(self.waiting[i].bridge.clone())
                .or_default();
            if *n >= ASKS_PER_BRIDGE {
                i += 1;
                continue;
            }
            *n += 1;
            let r = self.waiting.remove(i).expect("i is in range");
            self.queued.remove(&r);
            self.send(inner, r);
        }
    }

    /// Asks `r`'s bridge for its meta; the answer comes back as an event.
    fn send(&mut self, inner: &Inner, r: Remote) {
        let answer = Mutex::new(Answer {
            tx: self.tx.clone(),
            remote: Some(r.clone()),
        });
        let sent = inner
            .session
            .get(r.meta_key(inner.config.domain))
            .timeout(META_TIMEOUT)
            .callback(move |reply: Reply| {
                let got = match reply.result() {
                    Ok(sample) => Ok(sample.payload().to_bytes().to_vec()),
                    Err(e) => Err(Asked::Unanswered(format!(
                        "its bridge answered with an error: {}",
                        String::from_utf8_lossy(&e.payload().to_bytes())
                    ))),
                };
                nerve::sys::lock(&answer).send(got);
            })
            .wait();
        match sent {
            Ok(()) => {
                let deadline = Instant::now() + META_TIMEOUT + RETRY_AFTER;
                self.out.insert(
                    r,
                    Out {
                        deadline,
                        live: true,
                    },
                );
            }
            Err(e) => {
                tracing::debug!(name = r.name, bridge = r.bridge, error = %e, "a meta was not asked for");
                self.later.insert(r, Instant::now() + RETRY_AFTER);
            }
        }
    }
}

/// The answer to one ask, sent once: the first reply, or (dropped by Zenoh when the query
/// ends without one) silence.
struct Answer {
    tx: Sender<Event>,
    remote: Option<Remote>,
}

impl Answer {
    fn send(&mut self, got: Result<Vec<u8>, Asked>) {
        if let Some(r) = self.remote.take() {
            let _ = self.tx.send(Event::Answer(r, got));
        }
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        self.send(Err(Asked::Unanswered(
            "its bridge did not answer for its meta".to_owned(),
        )));
    }
}

/// Counts and logs a meta that could not be had: asked again when it went unanswered.
pub(crate) fn refused(inner: &Inner, r: &Remote, why: Asked) -> Outcome {
    let (what, name, bridge) = (r.what(), r.name.as_str(), r.bridge.as_str());
    match why {
        Asked::Unanswered(reason) => {
            tracing::debug!(what, name, bridge, reason, "meta unanswered; asking again");
            Outcome::Again
        }
        Asked::Bad(reason) => {
            // Relaxed: a statistic.
            inner.bad_metas.fetch_add(1, Relaxed);
            tracing::warn!(what, name, bridge, reason, "remote meta refused");
            Outcome::Done
        }
    }
}

/// Follows other bridges' liveliness tokens `nerve/<domain>/@<what>/<bridge>/<name>` (those
/// there now, then each coming or going): `f(inner, came, bridge, name)` for every one not
/// this bridge's own. Runs on Zenoh's thread: `f` must not wait for answers.
pub(crate) fn follow(
    inner: &Arc<Inner>,
    what: &'static str,
    f: impl Fn(&Inner, bool, &str, &str) + Send + Sync + 'static,
) -> Result<zenoh::pubsub::Subscriber<()>, BridgeError> {
    let weak: Weak<Inner> = Arc::downgrade(inner);
    let domain = inner.config.domain;
    inner
        .session
        .liveliness()
        .declare_subscriber(format!("nerve/{domain}/@{what}/**"))
        .history(true)
        .callback(move |s: Sample| {
            let Some(inner) = weak.upgrade() else { return };
            let Some((bridge, name)) = crate::wire::split_key(s.key_expr().as_str(), domain, what)
            else {
                return;
            };
            if bridge != inner.id_str {
                f(&inner, s.kind() == SampleKind::Put, bridge, name);
            }
        })
        .wait()
        .map_err(zerr)
}

/// Answers other bridges' questions `nerve/<domain>/@<what>/<this bridge>/<name>` with what
/// `lookup` finds for `name` (nothing: no reply, the asker times out and asks again).
pub(crate) fn serve(
    inner: &Arc<Inner>,
    what: &'static str,
    lookup: impl Fn(&Inner, &str) -> Option<Vec<u8>> + Send + Sync + 'static,
) -> Result<zenoh::query::Queryable<()>, BridgeError> {
    let weak: Weak<Inner> = Arc::downgrade(inner);
    let domain = inner.config.domain;
    inner
        .session
        .declare_queryable(format!("nerve/{domain}/@{what}/{}/**", inner.id_str))
        .callback(move |query| {
            let Some(inner) = weak.upgrade() else { return };
            let key = query.key_expr().as_str().to_owned();
            let Some((_, name)) = crate::wire::split_key(&key, domain, what) else {
                return;
            };
            if let Some(answer) = lookup(&inner, name) {
                if let Err(e) = query.reply(key.as_str(), answer).wait() {
                    tracing::warn!(what, name, error = %e, "a meta could not be sent");
                }
            }
        })
        .wait()
        .map_err(zerr)
}
