//! Each bridge answers `nerve/<domain>/@clock/<bridge>/now` with its host's `CLOCK_REALTIME`
//! and asks every other host's bridge the same every [`EVERY`]: whether it answers
//! (reachable), the round trip, and the clock offset (the answer minus the midpoint of the
//! round trip, within half the round trip). `nerve doctor` shows them from the view: stamps
//! compared across hosts are only as right as this offset is small.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use zenoh::Wait;

use crate::view::HostClock;
use crate::{BridgeError, Inner};

/// How often the other hosts' clocks are asked.
const EVERY: Duration = Duration::from_secs(2);

/// How long a host has to answer before it counts as unreachable.
const DEADLINE: Duration = Duration::from_millis(1000);

/// The wall clock (`CLOCK_REALTIME`), not nerve's stamp clock (`nerve::time::now_ns`, monotonic
/// and so per machine): hosts share only the wall clock's epoch.
fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// Answers other bridges' clock questions.
pub(crate) fn serve(inner: &Arc<Inner>) -> Result<zenoh::query::Queryable<()>, BridgeError> {
    crate::ask::serve(inner, "clock", |_, name| {
        (name == "now").then(|| (now_ns() as i64).to_le_bytes().to_vec())
    })
}

/// Asks every other host's clock every [`EVERY`] until the bridge stops.
pub(crate) fn run(inner: &Arc<Inner>) {
    let domain = inner.config.domain;
    let mut next = Instant::now();
    while !inner.stopping() {
        if Instant::now() < next {
            std::thread::sleep(crate::ask::POLL);
            continue;
        }
        next = Instant::now() + EVERY;
        let hosts = nerve::sys::lock(&inner.hosts).clone();
        let mut clocks = Vec::new();
        for (bridge, host) in hosts {
            clocks.push(ask(inner, domain, &bridge, &host));
        }
        *nerve::sys::lock(&inner.clocks) = clocks;
    }
}

fn ask(inner: &Inner, domain: u32, bridge: &str, host: &str) -> HostClock {
    let mut clock = HostClock {
        bridge: bridge.to_owned(),
        host: host.to_owned(),
        ..HostClock::default()
    };
    let t0 = now_ns();
    let Ok(replies) = inner
        .session
        .get(format!("nerve/{domain}/@clock/{bridge}/now"))
        .timeout(DEADLINE)
        .wait()
    else {
        return clock;
    };
    let Ok(reply) = replies.recv() else {
        return clock;
    };
    let t1 = now_ns();
    let Some(theirs) = reply
        .result()
        .ok()
        .and_then(|s| <[u8; 8]>::try_from(s.payload().to_bytes().as_ref()).ok())
    else {
        return clock; // an answer that is no clock: as good as none
    };
    let theirs = i64::from_le_bytes(theirs) as i128;
    clock.reachable = true;
    clock.rtt_us = (t1 - t0) as f64 / 1e3;
    clock.offset_us = (theirs - (t0 + t1) / 2) as f64 / 1e3;
    clock
}

/// How this bridge's links are secured, from its Zenoh configuration: `plain` (TCP or UDP),
/// `TLS`, or `mutual TLS`.
pub(crate) fn security(config: &zenoh::Config) -> String {
    let endpoints = ["listen/endpoints", "connect/endpoints"]
        .iter()
        .filter_map(|k| config.get_json(k).ok())
        .collect::<Vec<_>>()
        .join(" ");
    let tls = endpoints.contains("tls/") || endpoints.contains("quic/");
    let mutual = config
        .get_json("transport/link/tls/enable_mtls")
        .is_ok_and(|v| v.trim() == "true");
    match (tls, mutual) {
        (false, _) => "plain".into(),
        (true, false) => "TLS".into(),
        (true, true) => "mutual TLS".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_links_security_comes_from_the_endpoints_and_mtls() {
        let mut c = zenoh::Config::default();
        c.insert_json5("listen/endpoints", r#"["tcp/0.0.0.0:7447"]"#)
            .unwrap();
        assert_eq!(security(&c), "plain");
        c.insert_json5("connect/endpoints", r#"["tls/10.0.0.2:7447"]"#)
            .unwrap();
        assert_eq!(security(&c), "TLS");
        c.insert_json5("transport/link/tls/enable_mtls", "true")
            .unwrap();
        assert_eq!(security(&c), "mutual TLS");
    }
}
