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
//!   zenoh: {
//!     mode: "peer",
//!     listen: { endpoints: ["tcp/0.0.0.0:7447"] },
//!     connect: { endpoints: ["tcp/192.168.1.20:7447"] },
//!     scouting: { multicast: { enabled: false } },
//!   },
//! }
//! ```

use std::path::Path;

use zenoh::key_expr::OwnedKeyExpr;

use crate::BridgeError;

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
    /// Zenoh's configuration.
    pub zenoh: zenoh::Config,
}

const KEYS: [&str; 6] = [
    "domain",
    "host",
    "export",
    "import",
    "call_timeout_s",
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
            zenoh: zenoh::Config::default(),
        }
    }

    /// From a JSON5 file (see the module docs); every error names the file and the key.
    pub fn from_file(path: &Path) -> Result<Self, BridgeError> {
        let text = std::fs::read_to_string(path).map_err(|e| BridgeError::Config {
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
        let e = BridgeConfig::from_json5("{ zenoh: { mode: \"teleport\" } }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("zenoh"), "{e}");
    }
}
