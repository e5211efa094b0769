//! What a C node watches besides its topics: the domain's registry (topics and endpoints
//! appearing and going, processes dying: what `nerve topic list --watch` shows) and the
//! cross-process e-stop (`nerve/estop`, which every nerve scheduler with an e-stop topic
//! triggers and obeys) — to trigger it, and to wait for it.

use std::ffi::c_char;
use std::time::Duration;

use nerve::exec::{trigger_remote_estop, EStopMsg, ESTOP_TOPIC};
use nerve::registry::{self, Event, Watch};
use nerve::{Subscriber, Topic};

use crate::handle::{self, Handle, ESTOP_TAG, WATCH_TAG};
use crate::status::{fail, guard, NERVE_EMPTY, NERVE_E_IO, NERVE_OK};
use crate::topic::{domain_of, need_out, put, text};

/// `nerve_event.kind`: a topic appeared (or was there when the watch began).
pub const NERVE_TOPIC_APPEARED: u32 = 1;
/// A topic went (removed, replaced, or its in-process owner died).
pub const NERVE_TOPIC_GONE: u32 = 2;
/// A publisher or subscriber appeared.
pub const NERVE_ENDPOINT_APPEARED: u32 = 3;
/// A publisher or subscriber went (closed, or its process died).
pub const NERVE_ENDPOINT_GONE: u32 = 4;
/// A process holding endpoints died without closing them.
pub const NERVE_PROCESS_DIED: u32 = 5;
/// The registry was corrupt and was rebuilt (`topic` holds the reason).
pub const NERVE_REGISTRY_REBUILT: u32 = 6;

/// One change in a domain.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct nerve_event {
    /// `NERVE_TOPIC_APPEARED` … `NERVE_REGISTRY_REBUILT`.
    pub kind: u32,
    /// The process (endpoint events, `NERVE_PROCESS_DIED`, an in-process topic's owner); 0
    /// when none.
    pub pid: u32,
    /// Endpoint events: a publisher (true) or a subscriber.
    pub publisher: bool,
    /// The topic's name (NUL-terminated; for `NERVE_REGISTRY_REBUILT`, the reason, cut to fit).
    pub topic: [c_char; 256],
    /// `NERVE_TOPIC_APPEARED`: its message type's name.
    pub type_name: [c_char; 128],
}

/// A watch on a domain (opaque).
#[allow(non_camel_case_types)]
pub struct nerve_watch {
    _opaque: [u8; 0],
}

/// What an e-stop listener handle holds: the topic and its subscriber.
type EStopEnds = (Topic<EStopMsg>, Subscriber<EStopMsg>);

/// An e-stop listener (opaque).
#[allow(non_camel_case_types)]
pub struct nerve_estop {
    _opaque: [u8; 0],
}

/// `s` into a C char array, NUL-terminated, cut at a UTF-8 boundary to fit.
fn fill<const N: usize>(dst: &mut [c_char; N], s: &str) {
    let mut n = s.len().min(N - 1);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    for (d, &b) in dst.iter_mut().zip(&s.as_bytes()[..n]) {
        *d = b as c_char;
    }
    dst[n] = 0;
}

fn event_of(e: &Event) -> nerve_event {
    let mut out = nerve_event {
        kind: 0,
        pid: 0,
        publisher: false,
        topic: [0; 256],
        type_name: [0; 128],
    };
    match e {
        Event::TopicAppeared(info) => {
            out.kind = NERVE_TOPIC_APPEARED;
            out.pid = info.owner.unwrap_or(0);
            fill(&mut out.topic, &info.name);
            fill(&mut out.type_name, &info.type_name);
        }
        Event::TopicGone { name, owner } => {
            out.kind = NERVE_TOPIC_GONE;
            out.pid = owner.unwrap_or(0);
            fill(&mut out.topic, name);
        }
        Event::EndpointAppeared {
            topic,
            pid,
            publisher,
        }
        | Event::EndpointGone {
            topic,
            pid,
            publisher,
        } => {
            out.kind = if matches!(e, Event::EndpointAppeared { .. }) {
                NERVE_ENDPOINT_APPEARED
            } else {
                NERVE_ENDPOINT_GONE
            };
            out.pid = *pid;
            out.publisher = *publisher;
            fill(&mut out.topic, topic);
        }
        Event::ProcessDied { pid } => {
            out.kind = NERVE_PROCESS_DIED;
            out.pid = *pid;
        }
        Event::RegistryRebuilt { path, reason } => {
            out.kind = NERVE_REGISTRY_REBUILT;
            fill(&mut out.topic, &format!("{}: {reason}", path.display()));
        }
    }
    out
}

/// Watches `domain`: every topic there now comes first as `NERVE_TOPIC_APPEARED` (with its
/// endpoints), then changes as they happen.
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_watch_open(domain: u32, out: *mut *mut nerve_watch) -> i32 {
    const WHAT: &str = "nerve_watch_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        let watch = registry::watch(domain_of(domain))
            .map_err(|e| fail(NERVE_E_IO, format!("{WHAT}: {e}")))?;
        let h = Handle::open(WATCH_TAG, "watch", watch);
        // SAFETY: the caller's promise.
        unsafe { put(out, h.cast::<nerve_watch>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// The next change within `timeout_ns` (0: do not wait; negative: wait for ever) into `out`;
/// `NERVE_EMPTY` when nothing changed in time.
///
/// # Safety
/// `watch` is a watch handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_watch_next(
    watch: *mut nerve_watch,
    timeout_ns: i64,
    out: *mut nerve_event,
) -> i32 {
    const WHAT: &str = "nerve_watch_next";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let event = unsafe {
            handle::with(watch.cast::<Handle<Watch>>(), WATCH_TAG, WHAT, |w| {
                Ok(if timeout_ns < 0 {
                    Some(w.recv())
                } else {
                    w.next(Duration::from_nanos(timeout_ns as u64))
                })
            })
        }?;
        let Some(event) = event else {
            return Ok(NERVE_EMPTY);
        };
        // SAFETY: the caller's promise.
        unsafe { put(out, event_of(&event), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Closes a watch.
///
/// # Safety
/// `watch` is NULL or a watch handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_watch_close(watch: *mut nerve_watch) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            watch.cast::<Handle<Watch>>(),
            WATCH_TAG,
            "nerve_watch_close",
        )
    }
}

/// Triggers the e-stop of every scheduler and listener on `nerve/estop` in `domain`, from this
/// process, with `reason` (cut to 48 bytes).
///
/// # Safety
/// `reason` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn nerve_estop_trigger(domain: u32, reason: *const c_char) -> i32 {
    const WHAT: &str = "nerve_estop_trigger";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let reason = unsafe { text(reason, WHAT, "reason") }?;
        trigger_remote_estop(Some(domain_of(domain)), reason)?;
        Ok(NERVE_OK)
    })
}

/// Listens for e-stops on `nerve/estop` in `domain`, from now on (open it at start-up: a
/// driver's motors stop on the first).
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_estop_open(domain: u32, out: *mut *mut nerve_estop) -> i32 {
    const WHAT: &str = "nerve_estop_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        let topic = Topic::<EStopMsg>::builder(ESTOP_TOPIC)
            .domain(domain_of(domain))
            .depth(16)
            .open()?;
        let sub = topic.subscriber()?;
        let h = Handle::open(ESTOP_TAG, "e-stop listener", (topic, sub) as EStopEnds);
        // SAFETY: the caller's promise.
        unsafe { put(out, h.cast::<nerve_estop>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Waits up to `timeout_ns` (0: do not wait; negative: for ever) for an e-stop: `NERVE_OK` with
/// its reason in `(reason, cap)` (NUL-terminated, cut to fit; NULL: not wanted) and the
/// triggering process at `pid` (NULL: not wanted), or `NERVE_EMPTY`.
///
/// # Safety
/// `estop` is an e-stop handle; `reason` holds `cap` bytes or is NULL; `pid` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn nerve_estop_wait(
    estop: *mut nerve_estop,
    timeout_ns: i64,
    reason: *mut c_char,
    cap: usize,
    pid: *mut u32,
) -> i32 {
    const WHAT: &str = "nerve_estop_wait";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let got = unsafe {
            handle::with(
                estop.cast::<Handle<EStopEnds>>(),
                ESTOP_TAG,
                WHAT,
                |(_, sub)| {
                    Ok(match timeout_ns {
                        0 => sub.try_recv()?,
                        t if t < 0 => Some(sub.recv()?),
                        t => sub.recv_timeout(Duration::from_nanos(t as u64))?,
                    })
                },
            )
        }?;
        let Some(msg) = got else {
            return Ok(NERVE_EMPTY);
        };
        if !reason.is_null() && cap > 0 {
            let r = msg.reason();
            let mut n = r.len().min(cap - 1);
            while !r.is_char_boundary(n) {
                n -= 1;
            }
            // SAFETY: `cap` > `n` bytes at `reason` (the caller's promise).
            unsafe {
                std::ptr::copy_nonoverlapping(r.as_ptr(), reason.cast::<u8>(), n);
                reason.add(n).write(0);
            }
        }
        if !pid.is_null() {
            // SAFETY: the caller's promise.
            unsafe { pid.write(msg.pid) };
        }
        Ok(NERVE_OK)
    })
}

/// Closes an e-stop listener.
///
/// # Safety
/// `estop` is NULL or an e-stop handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_estop_close(estop: *mut nerve_estop) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            estop.cast::<Handle<EStopEnds>>(),
            ESTOP_TAG,
            "nerve_estop_close",
        )
    }
}
