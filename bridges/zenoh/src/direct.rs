//! A process's own way to other hosts (issue 35): its publishers put into Zenoh themselves,
//! with no host bridge between them and the network.
//!
//! [`install`] gives the process nerve's [`Remote`] hook. A publisher whose topic another
//! host wants (the `remote` word the host bridge writes) asks it for an egress on its first
//! such send; the first egress opens the process's Zenoh session in the background, a peer
//! that connects to the host bridge (and to the peers the bridge connects to) with the zenoh
//! block of the bridge's configuration as it is: TLS, mutual TLS and access control hold as for
//! the bridge. From then on each message goes into Zenoh on the sending thread, right after
//! the local subscribers have it. A process that never has remote interest never opens a
//! session and pays one load per send.
//!
//! The egress raises its publisher's `direct` flag while its session is connected to every
//! host bridge it knows of (their `@host` tokens): the bridge then stops exporting the topic.
//! Until then, and whenever a new host is not reached yet, the bridge exports as before; both
//! copies carry the message's ring and index, and the receiver keeps one.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use nerve::remote::{DirectFlag, Egress, HeldChunk, Remote, RemoteTopic};
use nerve::Reliability;
use zenoh::qos::CongestionControl;
use zenoh::sample::{Sample, SampleKind};
use zenoh::Wait;

use crate::wire::{self, Attachment};
use crate::{zerr, BridgeConfig, BridgeError};

/// How often the process's egresses are looked after: declared, their flags set.
const TICK: Duration = Duration::from_millis(100);

/// The Zenoh configuration of a process's own session, made from its host bridge's.
#[derive(Clone, Debug)]
pub struct DirectConfig {
    zenoh: zenoh::Config,
}

impl DirectConfig {
    /// Beside the bridge configured by `bridge` on this host: its zenoh block, in peer mode,
    /// listening nowhere, connecting to the bridge's listening endpoints (an unspecified
    /// address as loopback) and to the peers the bridge connects to.
    pub fn beside(bridge: &BridgeConfig) -> Result<Self, BridgeError> {
        let mut zenoh = bridge.zenoh.clone();
        let list = |key: &str| -> Vec<String> {
            zenoh
                .get_json(key)
                .ok()
                .and_then(|j| serde_json::from_str::<Vec<String>>(&j).ok())
                .unwrap_or_default()
        };
        let mut connect: Vec<String> = list("listen/endpoints")
            .into_iter()
            .map(|e| {
                e.replace("/0.0.0.0:", "/127.0.0.1:")
                    .replace("/[::]:", "/[::1]:")
            })
            .collect();
        connect.extend(list("connect/endpoints"));
        let set = |z: &mut zenoh::Config, k: &str, v: String| {
            z.insert_json5(k, &v).map_err(|e| BridgeError::Config {
                what: format!("the process's own session, {k}"),
                reason: e.to_string(),
            })
        };
        set(&mut zenoh, "mode", "\"peer\"".into())?;
        set(&mut zenoh, "listen/endpoints", "[]".into())?;
        set(
            &mut zenoh,
            "connect/endpoints",
            serde_json::to_string(&connect).unwrap_or_default(),
        )?;
        Ok(DirectConfig { zenoh })
    }

    /// As JSON (what the bridge's view carries: `join`).
    pub fn json(&self) -> String {
        self.zenoh.to_string()
    }
}

/// Whether `NERVE_DIRECT` lets this process send to other hosts itself (anything but `0`).
pub fn enabled() -> bool {
    std::env::var("NERVE_DIRECT").map_or(true, |v| v.trim() != "0")
}

/// Installs this process's own way to other hosts, configured by the host bridge when it is
/// first needed (its view's `join`: the bridge's zenoh block, pointed at the bridge). This is
/// what nerve's CLI, Python and C fronts call at start-up; a process with no remote interest
/// never opens anything. Does nothing with `NERVE_DIRECT=0` (a process that must not open
/// sockets keeps to the bridge). False: not installed (disabled, or installed already).
pub fn install_auto() -> bool {
    enabled() && install_with(None)
}

/// Installs this process's own way to other hosts. False: one was installed already.
/// Publishers that sent before it keep to the bridge.
pub fn install(config: DirectConfig) -> bool {
    install_with(Some(config))
}

fn install_with(config: Option<DirectConfig>) -> bool {
    let direct = Arc::new(Direct {
        config,
        session: OnceLock::new(),
        egresses: Mutex::default(),
        hosts: Arc::default(),
        started: std::sync::Once::new(),
    });
    nerve::remote::install(Box::new(Hook(direct)))
}

/// The process's session and its egresses.
struct Direct {
    /// None: the host bridge's (read from its view when the session opens).
    config: Option<DirectConfig>,
    session: OnceLock<zenoh::Session>,
    /// Every egress made, looked after by the tick thread until its publisher goes.
    egresses: Mutex<Vec<Weak<Out>>>,
    /// The host bridges alive now (their Zenoh ids), from their `@host` tokens.
    hosts: Arc<Mutex<BTreeSet<String>>>,
    started: std::sync::Once,
}

struct Hook(Arc<Direct>);

impl Remote for Hook {
    fn egress(&self, topic: RemoteTopic, flag: DirectFlag) -> Option<Box<dyn Egress>> {
        let out = Arc::new(Out {
            key: wire::data_key(topic.domain, &topic.name),
            topic,
            flag,
            publisher: OnceLock::new(),
            sender: nerve::sys::liveness::random_id(),
            seq: AtomicU64::new(0),
        });
        nerve::sys::lock(&self.0.egresses).push(Arc::downgrade(&out));
        let direct = self.0.clone();
        self.0.started.call_once(|| {
            let weak = Arc::downgrade(&direct);
            crate::spawn("nerve-direct", move || tick(&weak));
        });
        Some(Box::new(OutRef(out)))
    }
}

/// One publisher's egress.
struct Out {
    topic: RemoteTopic,
    key: String,
    flag: DirectFlag,
    /// Declared by the tick thread once the session is open.
    publisher: OnceLock<zenoh::pubsub::Publisher<'static>>,
    /// This egress's identity and its count of messages sent (the receiver counts gaps).
    sender: u64,
    seq: AtomicU64,
}

/// What the publisher holds: dropping it lowers the flag and undeclares the Zenoh publisher.
struct OutRef(Arc<Out>);

impl Drop for OutRef {
    fn drop(&mut self) {
        self.0.flag.set(false);
    }
}

impl Egress for OutRef {
    fn send(&self, index: u64, bytes: &[u8]) {
        self.put(index, bytes.to_vec().into());
    }

    fn send_chunk(&self, index: u64, chunk: HeldChunk) {
        // The chunk itself, no copy: Zenoh drops it (releasing it to the pool) once its
        // bytes are in its batches.
        self.put(index, bytes::Bytes::from_owner(chunk).into());
    }
}

impl OutRef {
    fn put(&self, index: u64, payload: zenoh::bytes::ZBytes) {
        let out = &self.0;
        let Some(p) = out.publisher.get() else {
            return; // not declared yet: the bridge exports meanwhile
        };
        let attachment = Attachment {
            ring: out.topic.ring_id,
            index,
            sender: out.sender,
            // Relaxed: a count only this publisher's sends advance, one at a time.
            seq: out.seq.fetch_add(1, Relaxed),
            layout_hash: out.topic.layout_hash,
        };
        if let Err(e) = p
            .put(payload)
            .attachment(attachment.encode().to_vec())
            .wait()
        {
            tracing::debug!(topic = out.topic.name, error = %e, "a message was not sent directly");
        }
    }
}

/// Opens the session, declares each egress's publisher, and keeps each flag true to whether
/// the session reaches every host bridge, for the life of the process.
fn tick(direct: &Weak<Direct>) {
    let mut followed: Option<zenoh::pubsub::Subscriber<()>> = None;
    let mut warned = false;
    loop {
        std::thread::sleep(TICK);
        let Some(d) = direct.upgrade() else { return };
        let mut egresses = nerve::sys::lock(&d.egresses);
        egresses.retain(|w| w.strong_count() > 0);
        let outs: Vec<Arc<Out>> = egresses.iter().filter_map(Weak::upgrade).collect();
        drop(egresses);
        let session = match d.session.get() {
            Some(s) => s,
            None => match open(&d, &outs) {
                Ok(s) => d.session.get_or_init(|| s),
                Err(e) => {
                    if !warned {
                        tracing::warn!(error = %e, "this process cannot open its own Zenoh session: its messages go through the host bridge");
                        warned = true;
                    }
                    std::thread::sleep(Duration::from_secs(1));
                    continue;
                }
            },
        };
        if followed.is_none() {
            if let Some(domain) = outs.first().map(|o| o.topic.domain) {
                match follow_hosts(session, domain, d.hosts.clone()) {
                    Ok(s) => followed = Some(s),
                    Err(e) => tracing::warn!(error = %e, "host bridges not followed"),
                }
            }
        }
        let peers: BTreeSet<String> = session
            .info()
            .peers_zid()
            .wait()
            .map(|z| z.to_string())
            .collect();
        let reached = {
            let hosts = nerve::sys::lock(&d.hosts);
            !hosts.is_empty() && hosts.iter().all(|h| peers.contains(h))
        };
        for out in outs {
            // Declared once the session reaches every host bridge (before, the bridge alone
            // sends: no copy of each message on two paths while the links come up); kept
            // after, so that a new host not reached yet costs a second copy, never a gap.
            if out.publisher.get().is_none() && reached {
                match declare(session, &out) {
                    Ok(p) => _ = out.publisher.set(p),
                    Err(e) => {
                        tracing::warn!(topic = out.topic.name, error = %e, "not sent directly");
                        continue;
                    }
                }
            }
            // Up once every host bridge is connected and a subscriber there is known to this
            // session (its declaration arrived: a put now reaches it).
            let matched = reached
                && out
                    .publisher
                    .get()
                    .and_then(|p| p.matching_status().wait().ok())
                    .is_some_and(|m| m.matching());
            if out.flag.get() != matched {
                tracing::debug!(topic = out.topic.name, matched, "direct");
                out.flag.set(matched);
            }
        }
    }
}

/// Opens the process's session: with its own configuration, or the host bridge's `join`.
fn open(d: &Direct, outs: &[Arc<Out>]) -> Result<zenoh::Session, String> {
    let config = match &d.config {
        Some(c) => c.zenoh.clone(),
        None => {
            let domain = outs
                .first()
                .map_or_else(nerve::default_domain, |o| o.topic.domain);
            let view = crate::view::read(domain)
                .ok_or_else(|| format!("no bridge runs on this host (domain {domain})"))?;
            if view.join.is_empty() {
                return Err("the host bridge offers no way to join it".into());
            }
            zenoh::Config::from_json5(&view.join)
                .map_err(|e| format!("the host bridge's `join`: {e}"))?
        }
    };
    zenoh::open(config).wait().map_err(|e| e.to_string())
}

/// The egress's Zenoh publisher: QoS as the bridge maps it (reliable: wait for room; best
/// effort, latest only: drop under congestion).
fn declare(
    session: &zenoh::Session,
    out: &Out,
) -> Result<zenoh::pubsub::Publisher<'static>, BridgeError> {
    let congestion = match out.topic.reliability {
        Reliability::Reliable => CongestionControl::Block,
        _ => CongestionControl::Drop,
    };
    session
        .declare_publisher(out.key.clone())
        .congestion_control(congestion)
        .express(true)
        .wait()
        .map_err(zerr)
}

/// Keeps `hosts` to the host bridges alive (their `@host` tokens).
fn follow_hosts(
    session: &zenoh::Session,
    domain: u32,
    hosts: Arc<Mutex<BTreeSet<String>>>,
) -> Result<zenoh::pubsub::Subscriber<()>, BridgeError> {
    session
        .liveliness()
        .declare_subscriber(format!("nerve/{domain}/@host/**"))
        .history(true)
        .callback(move |s: Sample| {
            let Some((bridge, _)) = wire::split_key(s.key_expr().as_str(), domain, "host") else {
                return;
            };
            let mut h = nerve::sys::lock(&hosts);
            if s.kind() == SampleKind::Put {
                h.insert(bridge.to_owned());
            } else {
                h.remove(bridge);
            }
        })
        .wait()
        .map_err(zerr)
}
