//! What crosses the network besides a message's bytes, and the key expressions it uses.
//!
//! - `nerve/<domain>/<topic>`: the messages of a topic, in nerve's encoding (a fixed message's
//!   bytes; a chunked one's header, padding and payload as in its chunk). Each carries an
//!   [`Attachment`]: the ring and index of the message, the sender and its sequence number on
//!   that topic, the type's hash.
//! - `nerve/<domain>/@topic/<bridge>/<topic>`: a liveliness token per exported topic (Zenoh's
//!   `@` chunks are not matched by `**`, so these never mix with messages).
//! - `nerve/<domain>/@meta/<bridge>/<topic>`: a queryable answering the topic's [`WireMeta`].
//! - `nerve/<domain>/@host/<bridge>/<hostname>`: a liveliness token per bridge.
//! - `nerve/<domain>/@call/<service>`, `@service/<bridge>/<service>`,
//!   `@smeta/<bridge>/<service>`: services (see `services`).
//! - `nerve/<domain>/@node/<bridge>/<node>`: a liveliness token per node a scheduler on the
//!   bridge's host announces.
//!
//! Everything read here comes from another host: lengths checked, errors named, never a panic.

use std::collections::BTreeMap;

use nerve::raw::TopicMeta;
use serde::{Deserialize, Serialize};

/// The key of topic `topic`'s messages.
pub fn data_key(domain: u32, topic: &str) -> String {
    format!("nerve/{domain}/{topic}")
}

/// The liveliness token of topic `topic` exported by `bridge`.
pub fn topic_token(domain: u32, bridge: &str, topic: &str) -> String {
    format!("nerve/{domain}/@topic/{bridge}/{topic}")
}

/// The queryable of topic `topic`'s [`WireMeta`] at `bridge`.
pub fn meta_key(domain: u32, bridge: &str, topic: &str) -> String {
    format!("nerve/{domain}/@meta/{bridge}/{topic}")
}

/// The queryable answering calls of service `service`.
pub fn call_key(domain: u32, service: &str) -> String {
    format!("nerve/{domain}/@call/{service}")
}

/// The liveliness token of service `service` exported by `bridge`.
pub fn service_token(domain: u32, bridge: &str, service: &str) -> String {
    format!("nerve/{domain}/@service/{bridge}/{service}")
}

/// The queryable of service `service`'s meta at `bridge`.
pub fn smeta_key(domain: u32, bridge: &str, service: &str) -> String {
    format!("nerve/{domain}/@smeta/{bridge}/{service}")
}

/// The liveliness token of node `node` running on `bridge`'s host.
pub fn node_token(domain: u32, bridge: &str, node: &str) -> String {
    format!("nerve/{domain}/@node/{bridge}/{node}")
}

/// The liveliness token of a bridge on `host`.
pub fn host_token(domain: u32, bridge: &str, host: &str) -> String {
    format!("nerve/{domain}/@host/{bridge}/{host}")
}

/// `(bridge, topic)` of a token or meta key `nerve/<domain>/@<what>/<bridge>/<topic>`.
pub fn split_key<'a>(key: &'a str, domain: u32, what: &str) -> Option<(&'a str, &'a str)> {
    let rest = key.strip_prefix(&format!("nerve/{domain}/@{what}/"))?;
    let (bridge, topic) = rest.split_once('/')?;
    nerve::name::validate(topic).ok()?;
    Some((bridge, topic))
}

/// What a bridge says of a topic it exports: enough to create it on another host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireMeta {
    /// [`TopicMeta::to_metadata`].
    pub meta: BTreeMap<String, String>,
    /// The type's description as the topic carries it.
    pub description: Vec<u8>,
    /// The exporting host's name.
    pub host: String,
}

impl WireMeta {
    /// As bytes (MessagePack).
    pub fn encode(&self) -> Vec<u8> {
        rmp_serde::to_vec_named(self).expect("a map of strings and bytes serializes")
    }

    /// From another host's bytes: the meta, or what is wrong with them.
    pub fn decode(bytes: &[u8]) -> Result<(Self, TopicMeta), String> {
        let wire: WireMeta =
            rmp_serde::from_slice(bytes).map_err(|e| format!("an unreadable topic meta: {e}"))?;
        let meta = TopicMeta::from_metadata(&wire.meta)?;
        Ok((wire, meta))
    }
}

/// Sent with every message: which message of which ring it is (the same on every path it
/// takes: from the host bridge or from the publishing process itself), and who sent it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// The segment the message was published in (`RawTopic::ring_id`).
    pub ring: u64,
    /// Its index in that ring: with `ring`, what keeps one of each message when two paths
    /// carry it (a hand-over between the bridge and the publishing process).
    pub index: u64,
    /// The sender (a bridge, or one publisher's egress).
    pub sender: u64,
    /// The sender's count of messages sent on this topic, from 0 (gaps: lost on the way).
    pub seq: u64,
    /// The stored type's layout hash (a message of another type is refused).
    pub layout_hash: u64,
}

/// Bytes of an encoded [`Attachment`].
pub const ATTACHMENT_BYTES: usize = 40;

impl Attachment {
    /// As 40 bytes (little endian).
    pub fn encode(&self) -> [u8; ATTACHMENT_BYTES] {
        let mut out = [0u8; ATTACHMENT_BYTES];
        let words = [
            self.ring,
            self.index,
            self.sender,
            self.seq,
            self.layout_hash,
        ];
        for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// From another host's bytes.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let b: &[u8; ATTACHMENT_BYTES] = bytes.try_into().ok()?;
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        Some(Attachment {
            ring: w(0),
            index: w(1),
            sender: w(2),
            seq: w(3),
            layout_hash: w(4),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_back() {
        let k = topic_token(3, "abc", "robot/imu");
        assert_eq!(split_key(&k, 3, "topic"), Some(("abc", "robot/imu")));
        assert_eq!(split_key(&k, 4, "topic"), None);
        assert_eq!(split_key("nerve/3/@topic/abc/bad//name", 3, "topic"), None);
    }

    #[test]
    fn attachments_round_trip_and_refuse_other_lengths() {
        let a = Attachment {
            ring: 1,
            index: 2,
            sender: 3,
            seq: 42,
            layout_hash: 0xdead_beef,
        };
        assert_eq!(Attachment::decode(&a.encode()), Some(a));
        assert_eq!(Attachment::decode(&a.encode()[..39]), None);
        assert_eq!(Attachment::decode(&[0; 41]), None);
    }

    #[test]
    fn hostile_meta_is_an_error() {
        assert!(WireMeta::decode(b"\xff\xff").is_err());
        let lying = WireMeta {
            meta: BTreeMap::from([("nerve.type".to_owned(), "x".to_owned())]),
            description: vec![],
            host: "h".into(),
        };
        assert!(WireMeta::decode(&lying.encode())
            .unwrap_err()
            .contains("the metadata has no"));
    }
}
