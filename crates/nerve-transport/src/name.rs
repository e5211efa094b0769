//! Topic name rules: what may become a file name under `/dev/shm` and a Zenoh key.

use std::sync::OnceLock;

use crate::error::OpenError;

/// Longest topic name, in bytes.
pub const MAX_NAME_LEN: usize = 200;

/// A topic name as a ROS 2 user types it: `/imu` is the topic `imu` (one leading `/` is
/// dropped; what remains must still [`validate`]).
pub fn canonical(name: &str) -> &str {
    name.strip_prefix('/').unwrap_or(name)
}

/// The prefix of nerve's own domain-wide topics, which every process shares whatever its
/// namespace.
pub const RESERVED_PREFIX: &str = "nerve/";

/// How a process's names resolve: relative names (`imu`) take the namespace (`r1/imu`),
/// absolute ones (`/imu`) do not (`imu`), and a remap rule renames a topic, service or node
/// before that, as ROS 2's `--ros-args -r` does. `nerve launch` gives each process its own
/// (`NERVE_NAMESPACE`, `NERVE_REMAP`); without them every name resolves as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolver {
    namespace: String,
    remaps: Vec<(String, String)>,
}

impl Resolver {
    /// A resolver with `namespace` (`r1`, `/r1`, or empty) and `remaps` written as
    /// `from:=to,from2:=to2` (empty: none). Malformed rules are skipped with a warning.
    pub fn new(namespace: &str, remaps: &str) -> Resolver {
        let namespace = namespace.trim_matches('/').to_owned();
        let mut r = Resolver {
            namespace,
            remaps: Vec::new(),
        };
        for rule in remaps.split(',').map(str::trim).filter(|r| !r.is_empty()) {
            match rule.split_once(":=") {
                Some((from, to)) if !from.is_empty() && !to.is_empty() => {
                    let from = r.full(from);
                    let to = r.full(to);
                    r.remaps.push((from, to));
                }
                _ => tracing::warn!(rule, "NERVE_REMAP: a rule is from:=to; this one is skipped"),
            }
        }
        r
    }

    /// `name` with the namespace applied (absolute names lose their leading `/`).
    fn full(&self, name: &str) -> String {
        match name.strip_prefix('/') {
            Some(abs) => abs.to_owned(),
            None if self.namespace.is_empty() => name.to_owned(),
            None => format!("{}/{name}", self.namespace),
        }
    }

    /// The name `name` stands for in this process. nerve's own domain-wide topics
    /// (`nerve/...`: the e-stop, the log, node records) are never namespaced nor remapped.
    pub fn resolve(&self, name: &str) -> String {
        let bare = canonical(name);
        if bare.starts_with(RESERVED_PREFIX) {
            return bare.to_owned();
        }
        let full = self.full(name);
        self.remaps
            .iter()
            .find(|(from, _)| *from == full)
            .map_or(full, |(_, to)| to.clone())
    }
}

/// This process's resolver, from `$NERVE_NAMESPACE` and `$NERVE_REMAP` (read once).
pub fn resolver() -> &'static Resolver {
    static RESOLVER: OnceLock<Resolver> = OnceLock::new();
    RESOLVER.get_or_init(|| {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        Resolver::new(&var("NERVE_NAMESPACE"), &var("NERVE_REMAP"))
    })
}

/// The topic, service or node `name` stands for in this process: its namespace and remap
/// rules applied ([`Resolver`]); without them, [`canonical`].
pub fn resolve(name: &str) -> String {
    resolver().resolve(name)
}

/// Checks a topic name: 1..=200 bytes of `[A-Za-z0-9_./-]`, not starting with `/` or `.`,
/// no empty segments (`//`), no `..`, not ending with `/`.
pub fn validate(name: &str) -> Result<(), OpenError> {
    let fail = |reason| {
        Err(OpenError::InvalidName {
            name: name.to_owned(),
            reason,
        })
    };
    if name.is_empty() {
        return fail("it is empty");
    }
    if name.len() > MAX_NAME_LEN {
        return fail("it is longer than 200 bytes");
    }
    if name.starts_with('/') || name.starts_with('.') {
        return fail("it starts with '/' or '.'");
    }
    if name.ends_with('/') {
        return fail("it ends with '/'");
    }
    if name.contains("//") || name.contains("..") {
        return fail("it contains '//' or '..'");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')))
    {
        let _ = c;
        return fail("it contains a character outside [A-Za-z0-9_./-]");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{canonical, validate};

    #[test]
    fn accepts_robot_names_and_rejects_the_rest() {
        for ok in ["imu", "robot/cmd_vel", "cam.front/image-raw", "a/b/c_1"] {
            assert!(validate(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/abs",
            ".hidden",
            "a//b",
            "a/../b",
            "sp ace",
            "tab\t",
            "ü",
            "end/",
            "a%b",
            "x".repeat(201).as_str(),
        ] {
            let err = validate(bad).unwrap_err().to_string();
            assert!(err.contains("invalid topic name"), "{bad}: {err}");
        }
        assert_eq!(canonical("/imu"), "imu");
        assert_eq!(canonical("imu"), "imu");
        assert!(validate(canonical("//imu")).is_err());
    }

    #[test]
    fn namespaces_and_remaps_resolve_as_in_ros() {
        use super::Resolver;
        let none = Resolver::new("", "");
        assert_eq!(
            (none.resolve("imu"), none.resolve("/imu")),
            ("imu".into(), "imu".into())
        );
        let r = Resolver::new("/r1", "cmd_vel:=/base/cmd, /scan:=scan_front, bad");
        assert_eq!(r.resolve("imu"), "r1/imu");
        assert_eq!(r.resolve("/imu"), "imu");
        assert_eq!(r.resolve("cmd_vel"), "base/cmd");
        assert_eq!(
            r.resolve("/r1/cmd_vel"),
            "base/cmd",
            "matched by its full name too"
        );
        assert_eq!(r.resolve("/scan"), "r1/scan_front");
        assert_eq!(
            r.resolve("scan"),
            "r1/scan",
            "a rule for /scan does not catch r1/scan"
        );
    }
}
