//! The server-liveness watch: what a client (and a starting server) knows of the service's
//! server, from its record on `S/server` and a look at its process.

use std::time::{Duration, Instant};

use nerve_transport::sys::ProcessId;
use nerve_transport::Subscriber;

use crate::wire::ServerRecord;

/// How often a waiting caller re-checks that the server process lives.
pub(super) const LIVENESS_EVERY: Duration = Duration::from_millis(20);

/// Watches the server record.
pub(crate) struct ServerWatch {
    sub: Subscriber<ServerRecord>,
    last: Option<ServerRecord>,
    /// When the server process was last seen alive (reading `/proc` costs microseconds, so a
    /// call made soon after a check trusts it; a death in between shows up while waiting).
    seen_alive: Option<Instant>,
}

impl ServerWatch {
    pub(crate) fn new(sub: Subscriber<ServerRecord>) -> Self {
        ServerWatch {
            sub,
            last: None,
            seen_alive: None,
        }
    }

    /// The live server, if there is one; `fresh` forces a look at the process.
    pub(crate) fn alive(&mut self, fresh: bool) -> Option<ServerRecord> {
        while let Ok(Some(r)) = self.sub.try_recv() {
            self.last = Some(r);
            self.seen_alive = None;
        }
        let r = self.last?;
        if r.up != 1 || r.pid == 0 {
            return None;
        }
        if !fresh
            && self
                .seen_alive
                .is_some_and(|t| t.elapsed() < LIVENESS_EVERY)
        {
            return Some(r);
        }
        let id = ProcessId {
            pid: r.pid,
            token: r.token,
        };
        if id.is_alive() {
            self.seen_alive = Some(Instant::now());
            Some(r)
        } else {
            self.seen_alive = None;
            None
        }
    }
}
