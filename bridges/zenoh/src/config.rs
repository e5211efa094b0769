//! The bridge's configuration: nerve's part (domain, host name, which topics go out and come
//! in) and Zenoh's own configuration, verbatim, under `zenoh` (mode, listen and connect
//! endpoints, scouting, TLS, access control: Zenoh's documentation is the reference).
//!
//! ```json5
//! {
//!   domain: 0,
//!   host: "robot-1",                 // default: this machine's host name
//!   export: ["**"],                  // Zenoh key expressions over topic names
//!   import: ["**"],
//!   call_timeout_s: 10,              // another host's service call, at most
//!   max_topic_mib: 64,               // what creating one imported topic may allocate here
//!   max_topic_pool_mib: 1024,        // the chunks its messages may fill (images, clouds)
//!   max_imported_mib: 512,           // what creating all imported topics may allocate
//!   max_imported_topics: 256,        // topics imported at once
//!   max_imported_services: 256,      // services served here for other hosts
//!   zenoh: {
//!     mode: "peer",
//!     listen: { endpoints: ["tcp/0.0.0.0:7447"] },
//!     connect: { endpoints: ["tcp/192.168.1.20:7447"] },
//!     scouting: { multicast: { enabled: false } },
//!   },
//! }
//! ```
//!
//! **What other hosts may make this one allocate.** A remote bridge's topic meta says how
//! large a topic is (its type's size, depth and largest message), and importing the topic
//! creates its shared-memory segment here, sized by the meta. A peer is not trusted with that.
//! Creating a segment allocates its header, its ring (a fixed type's messages lie there: 65 536
//! bytes at depth 8192 are 512 MiB) and its chunk pool's bookkeeping at once; a chunked or
//! serialized type's chunks are allocated only as messages are written into them (filling
//! them takes as many bytes from the network). An imported topic is refused when creating it
//! would allocate more than `max_topic_mib` ([`DEFAULT_MAX_TOPIC_BYTES`], 64 MiB), when its
//! chunks could hold more than `max_topic_pool_mib` ([`DEFAULT_MAX_TOPIC_POOL_BYTES`], 1 GiB:
//! 6 MB images at depth 16 take 240 MiB, an action's events topic 520 MiB), when creating it
//! would take what imported topics allocated past `max_imported_mib`
//! ([`DEFAULT_MAX_IMPORTED_BYTES`], 512 MiB), or when `max_imported_topics`
//! ([`DEFAULT_MAX_IMPORTED_TOPICS`], 256) are imported already. Each imported service is a
//! server here (a thread and its topics): at most `max_imported_services`
//! ([`DEFAULT_MAX_IMPORTED_SERVICES`], 256). A refused topic or service is counted
//! and listed in `nerve bridge status` with its host and the reason. A topic that exists here
//! already is joined as it is and costs nothing against the bytes. One refused for the total
//! or the count is asked for again when an imported topic goes; one too large, when its host
//! announces it again.

use std::path::Path;

use zenoh::key_expr::OwnedKeyExpr;

use crate::BridgeError;

/// The one-line setup's variable: the other hosts' bridges, `tcp/10.0.0.2:7447[,…]`.
pub const PEERS_ENV: &str = "NERVE_PEERS";

/// Where a bridge set up by [`PEERS_ENV`] alone listens.
pub const DEFAULT_LISTEN: &str = "tcp/0.0.0.0:7447";

/// How a bridge runs.
#[derive(Debug)]
pub struct BridgeConfig {
    /// The nerve domain bridged (and the `<domain>` of its keys).
    pub domain: u32,
    /// This host's name, as other hosts list it.
    pub host: String,
    /// Local topics sent to other hosts: those matching one of these.
    pub export: Vec<OwnedKeyExpr>,
    /// Remote topics brought in: those matching one of these.
    pub import: Vec<OwnedKeyExpr>,
    /// How long a call of another host's service may take (`call_timeout_s`, default 10).
    pub call_timeout: std::time::Duration,
    /// What creating one imported topic's segment may allocate here, bytes (`max_topic_mib`,
    /// default [`DEFAULT_MAX_TOPIC_BYTES`]).
    pub max_topic_bytes: u64,
    /// The chunks one imported topic's messages may fill, bytes (`max_topic_pool_mib`,
    /// default [`DEFAULT_MAX_TOPIC_POOL_BYTES`]).
    pub max_topic_pool_bytes: u64,
    /// What creating all imported topics' segments may allocate together, bytes
    /// (`max_imported_mib`, default [`DEFAULT_MAX_IMPORTED_BYTES`]).
    pub max_imported_bytes: u64,
    /// Topics imported at once (`max_imported_topics`, default
    /// [`DEFAULT_MAX_IMPORTED_TOPICS`]).
    pub max_imported_topics: usize,
    /// Services of other hosts served here at once (`max_imported_services`, default
    /// [`DEFAULT_MAX_IMPORTED_SERVICES`]).
    pub max_imported_services: usize,
    /// Zenoh's configuration.
    pub zenoh: zenoh::Config,
}

/// What creating one imported topic may allocate by default: 64 MiB (a ring of 1024
/// messages of 64 KiB).
pub const DEFAULT_MAX_TOPIC_BYTES: u64 = 64 << 20;
/// The chunks one imported topic's messages may fill by default: 1 GiB (6 MB images at depth
/// 16 take 240 MiB; an action's events topic, 256 messages of up to 1 MiB, 520 MiB).
pub const DEFAULT_MAX_TOPIC_POOL_BYTES: u64 = 1 << 30;
/// What creating all imported topics may allocate by default: 512 MiB.
pub const DEFAULT_MAX_IMPORTED_BYTES: u64 = 512 << 20;
/// How many topics may be imported at once by default.
pub const DEFAULT_MAX_IMPORTED_TOPICS: usize = 256;
/// How many services of other hosts may be served here at once by default.
pub const DEFAULT_MAX_IMPORTED_SERVICES: usize = 256;

const KEYS: [&str; 11] = [
    "domain",
    "host",
    "export",
    "import",
    "call_timeout_s",
    "max_topic_mib",
    "max_topic_pool_mib",
    "max_imported_mib",
    "max_imported_topics",
    "max_imported_services",
    "zenoh",
];

impl BridgeConfig {
    /// Peer mode, the environment's domain, every topic both ways.
    pub fn new() -> Self {
        BridgeConfig {
            domain: nerve::default_domain(),
            host: hostname(),
            export: vec![all()],
            import: vec![all()],
            call_timeout: std::time::Duration::from_secs(10),
            max_topic_bytes: DEFAULT_MAX_TOPIC_BYTES,
            max_topic_pool_bytes: DEFAULT_MAX_TOPIC_POOL_BYTES,
            max_imported_bytes: DEFAULT_MAX_IMPORTED_BYTES,
            max_imported_topics: DEFAULT_MAX_IMPORTED_TOPICS,
            max_imported_services: DEFAULT_MAX_IMPORTED_SERVICES,
            zenoh: zenoh::Config::default(),
        }
    }

    /// From a JSON5 file (see the module docs); every error names the file and the key.
    pub fn from_file(path: &Path) -> Result<Self, BridgeError> {
        let text = nerve::document::read(path).map_err(|e| BridgeError::Config {
            what: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_json5(&text).map_err(|e| match e {
            BridgeError::Config { what, reason } => BridgeError::Config {
                what: format!("{}: {what}", path.display()),
                reason,
            },
            other => other,
        })
    }

    /// From JSON5 text (see the module docs).
    pub fn from_json5(text: &str) -> Result<Self, BridgeError> {
        let bad = |what: &str, reason: String| BridgeError::Config {
            what: what.to_owned(),
            reason,
        };
        nerve::document::check(text, "the configuration")
            .map_err(|e| bad("the file", e.to_string()))?;
        let value: serde_json::Value =
            json5::from_str(text).map_err(|e| bad("the file", e.to_string()))?;
        let obj = value
            .as_object()
            .ok_or_else(|| bad("the file", "it is not an object ({ ... })".into()))?;
        if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(bad(
                k,
                format!("unknown key; the keys are {}", KEYS.join(", ")),
            ));
        }
        let mut c = BridgeConfig::new();
        if let Some(d) = obj.get("domain") {
            c.domain = d
                .as_u64()
                .and_then(|d| u32::try_from(d).ok())
                .ok_or_else(|| bad("domain", format!("{d} is not a domain number")))?;
        }
        if let Some(h) = obj.get("host") {
            c.host = h
                .as_str()
                .filter(|h| !h.is_empty() && !h.contains(['/', '*', '$', '?', '#', '@']))
                .ok_or_else(|| bad("host", format!("{h} is not a host name")))?
                .to_owned();
        }
        for (key, list) in [("export", &mut c.export), ("import", &mut c.import)] {
            if let Some(v) = obj.get(key) {
                *list = patterns(v).map_err(|reason| bad(key, reason))?;
            }
        }
        if let Some(t) = obj.get("call_timeout_s") {
            c.call_timeout = t
                .as_f64()
                .filter(|t| *t > 0.0 && *t < 86_400.0)
                .map(std::time::Duration::from_secs_f64)
                .ok_or_else(|| bad("call_timeout_s", format!("{t} is not a number of seconds")))?;
        }
        let count = |key: &str, max: u64| -> Result<Option<u64>, BridgeError> {
            obj.get(key)
                .map(|v| {
                    v.as_u64()
                        .filter(|n| *n <= max)
                        .ok_or_else(|| bad(key, format!("{v} is not a whole number up to {max}")))
                })
                .transpose()
        };
        // Mebibytes up to 1 TiB (far above any /dev/shm; the limit only keeps the product sane).
        if let Some(m) = count("max_topic_mib", 1 << 20)? {
            c.max_topic_bytes = m << 20;
        }
        if let Some(m) = count("max_topic_pool_mib", 1 << 20)? {
            c.max_topic_pool_bytes = m << 20;
        }
        if let Some(m) = count("max_imported_mib", 1 << 20)? {
            c.max_imported_bytes = m << 20;
        }
        if let Some(n) = count("max_imported_topics", 1 << 20)? {
            c.max_imported_topics = n as usize;
        }
        if let Some(n) = count("max_imported_services", 1 << 16)? {
            c.max_imported_services = n as usize;
        }
        if let Some(z) = obj.get("zenoh") {
            c.zenoh = zenoh::Config::from_json5(&z.to_string())
                .map_err(|e| bad("zenoh", e.to_string()))?;
        }
        Ok(c)
    }

    /// Sets one key of Zenoh's configuration (`listen/endpoints`, `mode`, ...) to a JSON5
    /// value; the error names the key.
    pub fn set_zenoh(&mut self, key: &str, json5: &str) -> Result<(), BridgeError> {
        self.zenoh
            .insert_json5(key, json5)
            .map_err(|e| BridgeError::Config {
                what: format!("zenoh {key} = {json5}"),
                reason: e.to_string(),
            })
    }

    /// Listens on these Zenoh endpoints (`tcp/0.0.0.0:7447`, `tls/...`).
    pub fn listen(&mut self, endpoints: &[String]) -> Result<(), BridgeError> {
        self.set_zenoh("listen/endpoints", &json_list(endpoints))
    }

    /// Connects to these Zenoh endpoints.
    pub fn connect(&mut self, endpoints: &[String]) -> Result<(), BridgeError> {
        self.set_zenoh("connect/endpoints", &json_list(endpoints))
    }

    /// The one-line setup (`NERVE_PEERS`, comma separated): listen on [`DEFAULT_LISTEN`] and
    /// connect to each of `peers`, no multicast. Each must be a Zenoh endpoint
    /// (`tcp/10.0.0.2:7447`); anything else is an error naming it.
    pub fn peers(&mut self, peers: &str) -> Result<(), BridgeError> {
        let list: Vec<String> = peers
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        self.peer_list(&list, PEERS_ENV, "several separated by commas")
    }

    /// The same from a list (`[network] peers` of the config file, [`crate::network`]);
    /// `what` names where the list came from in an error, `several` how to write more.
    pub fn peer_list(
        &mut self,
        list: &[String],
        what: &str,
        several: &str,
    ) -> Result<(), BridgeError> {
        for p in list {
            if let Err(e) = p.trim().parse::<zenoh::config::EndPoint>() {
                return Err(BridgeError::Config {
                    what: format!("{what}, `{p}`"),
                    reason: format!(
                        "not a Zenoh endpoint ({e}); write it as tcp/<address>:7447, {several}"
                    ),
                });
            }
        }
        if list.is_empty() {
            return Err(BridgeError::Config {
                what: what.into(),
                reason: format!("names no peer; write tcp/<address>:7447, {several}"),
            });
        }
        let list: Vec<String> = list.iter().map(|p| p.trim().to_owned()).collect();
        self.listen(&[DEFAULT_LISTEN.to_owned()])?;
        self.connect(&list)?;
        self.multicast(false)
    }

    /// `peer` (the default), `client` or `router`.
    pub fn mode(&mut self, mode: &str) -> Result<(), BridgeError> {
        self.set_zenoh("mode", &serde_json::Value::from(mode).to_string())
    }

    /// Looks for other hosts by multicast scouting (Zenoh's default) or not.
    pub fn multicast(&mut self, on: bool) -> Result<(), BridgeError> {
        self.set_zenoh(
            "scouting/multicast/enabled",
            if on { "true" } else { "false" },
        )
    }

    /// Replaces the export (or import) patterns.
    pub fn patterns(list: &[String]) -> Result<Vec<OwnedKeyExpr>, BridgeError> {
        list.iter()
            .map(|p| {
                pattern(p).map_err(|reason| BridgeError::Config {
                    what: "export/import".into(),
                    reason,
                })
            })
            .collect()
    }

    /// Whether local topic `topic` is exported.
    pub fn exports(&self, topic: &str) -> bool {
        matches(&self.export, topic)
    }

    /// Whether remote topic `topic` is imported.
    pub fn imports(&self, topic: &str) -> bool {
        matches(&self.import, topic)
    }
}

impl Default for BridgeConfig {
    fn default() -> Self {
        Self::new()
    }
}

fn json_list(items: &[String]) -> String {
    serde_json::Value::from(items.to_vec()).to_string()
}

fn all() -> OwnedKeyExpr {
    OwnedKeyExpr::new("**").expect("** is a key expression")
}

fn patterns(v: &serde_json::Value) -> Result<Vec<OwnedKeyExpr>, String> {
    let list = v
        .as_array()
        .ok_or_else(|| format!("{v} is not a list of patterns"))?;
    list.iter()
        .map(|p| {
            let s = p
                .as_str()
                .ok_or_else(|| format!("{p} is not a pattern (a string)"))?;
            pattern(s)
        })
        .collect()
}

/// A topic pattern: a Zenoh key expression over topic names (`robot/**`, `*/imu`; a leading
/// `/` is dropped as in topic names).
pub fn pattern(s: &str) -> Result<OwnedKeyExpr, String> {
    OwnedKeyExpr::autocanonize(s.trim_start_matches('/').to_owned())
        .map_err(|e| format!("{s:?} is not a pattern: {e}"))
}

fn matches(patterns: &[OwnedKeyExpr], topic: &str) -> bool {
    match zenoh::key_expr::keyexpr::new(topic) {
        Ok(k) => patterns.iter().any(|p| p.includes(k)),
        Err(_) => false,
    }
}

/// This machine's host name.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: `buf` is writable for its length; gethostname writes at most that many bytes.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    match (r, std::str::from_utf8(&buf[..end])) {
        (0, Ok(h)) if !h.is_empty() => h.replace(['/', '*', '$', '?', '#', '@'], "_"),
        _ => "unknown-host".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_sets_what_it_names_and_refuses_what_it_does_not_know() {
        let c = BridgeConfig::from_json5(
            r#"{ domain: 7, host: "robot-1", export: ["robot/**", "/estop"],
                 zenoh: { mode: "peer", scouting: { multicast: { enabled: false } } } }"#,
        )
        .unwrap();
        assert_eq!((c.domain, c.host.as_str()), (7, "robot-1"));
        assert!(c.exports("robot/imu") && c.exports("estop") && !c.exports("camera"));
        assert!(c.imports("anything/at/all"));
        let e = BridgeConfig::from_json5("{ domian: 7 }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("domian") && e.contains("unknown key"), "{e}");
        let e = BridgeConfig::from_json5("{ export: [\"a/$x\"] }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("export"), "{e}");
        let c = BridgeConfig::from_json5(
            "{ max_topic_mib: 8, max_topic_pool_mib: 16, max_imported_mib: 32, \
               max_imported_topics: 3 }",
        )
        .unwrap();
        let caps = |c: &BridgeConfig| {
            (
                c.max_topic_bytes,
                c.max_topic_pool_bytes,
                c.max_imported_bytes,
                c.max_imported_topics,
            )
        };
        assert_eq!(caps(&c), (8 << 20, 16 << 20, 32 << 20, 3));
        assert_eq!(
            caps(&BridgeConfig::new()),
            (64 << 20, 1 << 30, 512 << 20, 256)
        );
        let e = BridgeConfig::from_json5("{ max_topic_mib: -1 }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("max_topic_mib"), "{e}");
        let e = BridgeConfig::from_json5("{ zenoh: { mode: \"teleport\" } }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("zenoh"), "{e}");
    }

    #[test]
    fn one_line_of_peers_sets_listen_connect_and_no_multicast() {
        let mut c = BridgeConfig::new();
        c.peers("tcp/10.0.0.2:7447, tcp/10.0.0.3:7447,").unwrap();
        let json = |k: &str| c.zenoh.get_json(k).unwrap();
        assert_eq!(json("listen/endpoints"), r#"["tcp/0.0.0.0:7447"]"#);
        assert_eq!(
            json("connect/endpoints"),
            r#"["tcp/10.0.0.2:7447","tcp/10.0.0.3:7447"]"#
        );
        assert_eq!(json("scouting/multicast/enabled"), "false");
        let e = c.peers("10.0.0.2").unwrap_err().to_string();
        assert!(
            e.contains("NERVE_PEERS, `10.0.0.2`") && e.contains("tcp/<address>:7447"),
            "{e}"
        );
        assert!(c
            .peers(" , ")
            .unwrap_err()
            .to_string()
            .contains("names no peer"));
    }
}
