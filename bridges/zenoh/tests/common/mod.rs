//! A rogue host for the bridge's tests: a plain Zenoh session (no nerve in it) that speaks the
//! bridge's wire protocol as it pleases, and a bridge on loopback for it to talk to (multicast
//! scouting off, explicit endpoints).

#![allow(dead_code)]

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::msgs::{CmdVel, Image};
use nerve::prelude::*;
use nerve::raw::{stored_type, StoredType, TopicMeta};
use nerve_zenoh::wire::{self, Attachment, WireMeta};
use nerve_zenoh::{Bridge, BridgeConfig, TopicStats};
use zenoh::liveliness::LivelinessToken;
use zenoh::query::{Query, Queryable};
use zenoh::Wait;

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn zenoh_config(json: &[(&str, String)]) -> zenoh::Config {
    let mut c = zenoh::Config::default();
    c.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    for (k, v) in json {
        c.insert_json5(k, v).unwrap();
    }
    c
}

pub fn stats_of(bridge: &Bridge, topic: &str) -> TopicStats {
    bridge
        .stats()
        .into_iter()
        .find(|t| t.topic == topic)
        .unwrap_or_default()
}

pub fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < end, "never: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A bridge of domain `domain` listening on a free loopback port: the bridge and the
/// endpoint to connect to it.
pub fn bridge(domain: u32, config: BridgeConfig) -> (Bridge, String) {
    let endpoint = format!("[\"tcp/127.0.0.1:{}\"]", free_port());
    let bridge = Bridge::start(BridgeConfig {
        domain,
        zenoh: zenoh_config(&[("listen/endpoints", endpoint.clone())]),
        ..config
    })
    .unwrap();
    (bridge, endpoint)
}

/// The wire meta of a topic of `T` at depth 16.
pub fn wire_meta<T: Message>() -> Vec<u8> {
    let meta = TopicMeta {
        stored_type: stored_type::<T>(),
        reliability: nerve::Reliability::Reliable,
        depth: 16,
        max_payload_bytes: 0,
    };
    let description = nerve::raw::description::<T>()
        .map(|d| d.to_bytes())
        .unwrap_or_default();
    encode(&meta, description)
}

/// The wire meta of a fixed type of `size` bytes at `depth` (no description).
pub fn blob_meta(size: u32, depth: u64) -> Vec<u8> {
    let meta = TopicMeta {
        stored_type: StoredType {
            name: "rogue/Blob".into(),
            kind: 1, // fixed
            size,
            align: 8,
            elem_size: 0,
            layout_hash: 0xb10b,
        },
        reliability: nerve::Reliability::BestEffort,
        depth,
        max_payload_bytes: 0,
    };
    encode(&meta, Vec::new())
}

/// The wire meta of an Image topic whose messages carry up to `max_payload` bytes, at `depth`.
pub fn image_meta(max_payload: usize, depth: u64) -> Vec<u8> {
    let meta = TopicMeta {
        stored_type: stored_type::<Image>(),
        reliability: nerve::Reliability::Reliable,
        depth,
        max_payload_bytes: max_payload,
    };
    encode(&meta, Vec::new())
}

fn encode(meta: &TopicMeta, description: Vec<u8>) -> Vec<u8> {
    WireMeta {
        meta: meta.to_metadata(),
        description,
        host: "rogue".into(),
    }
    .encode()
}

/// The rogue: a Zenoh session connected to a bridge's endpoint.
pub struct Rogue {
    /// Its queryables and tokens (dropped before the session).
    keep: Vec<Box<dyn std::any::Any>>,
    /// Queries it never answers (held, so the asker hears nothing until its deadline).
    pub held: Arc<Mutex<Vec<Query>>>,
    pub session: zenoh::Session,
    domain: u32,
}

impl Rogue {
    pub fn connect(domain: u32, endpoint: &str) -> Rogue {
        let session = zenoh::open(zenoh_config(&[("connect/endpoints", endpoint.to_owned())]))
            .wait()
            .unwrap();
        Rogue {
            session,
            domain,
            held: Arc::default(),
            keep: Vec::new(),
        }
    }

    /// Answers meta questions to bridge `bridge` with `answer(topic)`; `None`: holds the
    /// question, never answering.
    pub fn answer(
        &mut self,
        bridge: &str,
        answer: impl Fn(&str) -> Option<Vec<u8>> + Send + Sync + 'static,
    ) {
        let (held, prefix) = (
            self.held.clone(),
            format!("nerve/{}/@meta/{bridge}/", self.domain),
        );
        let q: Queryable<()> = self
            .session
            .declare_queryable(format!("{prefix}**"))
            .callback(move |q| {
                let key = q.key_expr().as_str().to_owned();
                let topic = key.strip_prefix(&prefix).unwrap_or_default();
                match answer(topic) {
                    Some(meta) => q.reply(key.as_str(), meta).wait().unwrap(),
                    None => held.lock().unwrap().push(q),
                }
            })
            .wait()
            .unwrap();
        self.keep.push(Box::new(q));
    }

    /// Announces topic `topic` as exported by bridge `bridge` (until the token is dropped).
    pub fn announce(&self, bridge: &str, topic: &str) -> LivelinessToken {
        self.session
            .liveliness()
            .declare_token(wire::topic_token(self.domain, bridge, topic))
            .wait()
            .unwrap()
    }

    /// Announces bridge `bridge` on host `host`.
    pub fn host(&mut self, bridge: &str, host: &str) {
        let t = self
            .session
            .liveliness()
            .declare_token(wire::host_token(self.domain, bridge, host))
            .wait()
            .unwrap();
        self.keep.push(Box::new(t));
    }

    /// Puts `payload` on topic `topic` with an attachment (sender, seq, hash), or without.
    pub fn put(&self, topic: &str, payload: Vec<u8>, attachment: Option<Vec<u8>>) {
        let p = self
            .session
            .put(wire::data_key(self.domain, topic), payload);
        match attachment {
            Some(a) => p.attachment(a).wait().unwrap(),
            None => p.wait().unwrap(),
        }
    }
}

/// An attachment from sender `0xbd` with its sequence number `seq`, of a message of ring
/// `0xbd` no other call names (the next index).
pub fn att(seq: u64, layout_hash: u64) -> Vec<u8> {
    static INDEX: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    Attachment {
        ring: 0xbd,
        index: INDEX.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        sender: 0xbd,
        seq,
        layout_hash,
    }
    .encode()
    .to_vec()
}

/// A CmdVel's bytes.
pub fn cmd(stamp: u64) -> Vec<u8> {
    bytemuck::bytes_of(&CmdVel {
        stamp_ns: stamp,
        linear: 1.5,
        angular: -0.5,
    })
    .to_vec()
}
