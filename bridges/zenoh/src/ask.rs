//! Asking other bridges (their metas), and the token events the import thread handles: what
//! the topic and service sides share.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use zenoh::Wait;

use std::sync::{Arc, Weak};

use zenoh::sample::{Sample, SampleKind};

use crate::{zerr, BridgeError, Inner};

/// How long a remote bridge has to answer for a meta.
const META_TIMEOUT: Duration = Duration::from_secs(5);

/// How often blocked loops look at their stop flag.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// A remote topic or service token came or went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenEvent {
    Appeared { bridge: String, topic: String },
    Gone { bridge: String, topic: String },
    ServiceAppeared { bridge: String, service: String },
    ServiceGone { bridge: String, service: String },
}

/// How long before an unanswered meta is asked for again.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Why a remote bridge's meta is not here.
pub(crate) enum Asked {
    /// No answer (yet): a busy or slow host; worth asking again.
    Unanswered(String),
    /// An answer that does not parse or lies: refused.
    Bad(String),
}

/// Asks a remote bridge's queryable `key` for a meta.
pub(crate) fn ask(inner: &Inner, key: String) -> Result<Vec<u8>, Asked> {
    let replies = inner
        .session
        .get(key)
        .timeout(META_TIMEOUT)
        .wait()
        .map_err(|e| Asked::Unanswered(format!("asking for its meta failed: {e}")))?;
    let reply = replies
        .recv()
        .map_err(|_| Asked::Unanswered("its bridge did not answer for its meta".to_owned()))?;
    match reply.result() {
        Ok(sample) => Ok(sample.payload().to_bytes().to_vec()),
        Err(e) => Err(Asked::Unanswered(format!(
            "its bridge answered with an error: {}",
            String::from_utf8_lossy(&e.payload().to_bytes())
        ))),
    }
}

/// Counts and logs a meta that could not be had; true when it is worth asking again.
pub(crate) fn refused(inner: &Inner, what: &str, name: &str, bridge: &str, why: Asked) -> bool {
    match why {
        Asked::Unanswered(reason) => {
            tracing::debug!(what, name, bridge, reason, "meta unanswered; asking again");
            true
        }
        Asked::Bad(reason) => {
            // Relaxed: a statistic.
            inner.bad_metas.fetch_add(1, Relaxed);
            tracing::warn!(what, name, bridge, reason, "remote meta refused");
            false
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
