//! What a C handle points to: a tag saying what it is and whether it is open, and the object.
//!
//! Closing drops the object but keeps the handle's small allocation, so a handle used after
//! it was closed, or closed twice, reads valid memory and gets `NERVE_E_CLOSED` instead of
//! undefined behaviour. Topics, publishers and subscribers live long; the few dozen bytes
//! each closed handle keeps are the price of that check.

use std::sync::atomic::{AtomicU64, Ordering::Acquire, Ordering::Release};
use std::sync::{Mutex, TryLockError};

use crate::status::{fail, Res, NERVE_E_BUSY, NERVE_E_CLOSED, NERVE_E_INVALID_ARGUMENT};

/// Tags of the handle kinds (ASCII of "nervetop", "nervepub", "nervesub", "nerveclt",
/// "nervesrv"); each even, as the closed bit is the lowest.
pub(crate) const TOPIC_TAG: u64 = 0x6e65_7276_6574_6f70;
pub(crate) const PUBLISHER_TAG: u64 = 0x6e65_7276_6570_7562;
pub(crate) const SUBSCRIBER_TAG: u64 = 0x6e65_7276_6573_7562;
pub(crate) const CLIENT_TAG: u64 = 0x6e65_7276_6563_6c74;
pub(crate) const SERVER_TAG: u64 = 0x6e65_7276_6573_7276;
pub(crate) const PARAMS_TAG: u64 = 0x6e65_7276_6570_6172;
pub(crate) const PARAM_CLIENT_TAG: u64 = 0x6e65_7276_6570_636c;
pub(crate) const WATCH_TAG: u64 = 0x6e65_7276_6577_6174;
pub(crate) const ESTOP_TAG: u64 = 0x6e65_7276_6565_7374;

/// Set in a closed handle's tag.
const CLOSED_BIT: u64 = 1;

/// The closed handles' allocations, kept on purpose: held here, they are reachable (and not
/// reported as leaks by LeakSanitizer), while a handle C never closed still is.
static KEPT: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// A C handle's allocation.
pub(crate) struct Handle<T> {
    /// `tag` while open, `tag | CLOSED_BIT` once closed.
    state: AtomicU64,
    /// What the handle is, for messages ("subscriber").
    kind: &'static str,
    object: Mutex<Option<T>>,
}

impl<T> Handle<T> {
    /// A new open handle, leaked to C (freed never: see the module's note).
    pub(crate) fn open(tag: u64, kind: &'static str, object: T) -> *mut Handle<T> {
        debug_assert_eq!(tag & CLOSED_BIT, 0);
        Box::into_raw(Box::new(Handle {
            state: AtomicU64::new(tag),
            kind,
            object: Mutex::new(Some(object)),
        }))
    }
}

/// Resolves a handle the caller passed.
///
/// # Safety
/// `h` is NULL or a pointer this library returned for a handle of this type (open or closed).
unsafe fn resolve<'a, T>(h: *const Handle<T>, tag: u64, what: &str) -> Res<&'a Handle<T>> {
    // SAFETY: the caller's promise: NULL or one of our handles, which are never freed.
    let handle = unsafe { h.as_ref() }.ok_or_else(|| {
        fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: the handle is NULL"),
        )
    })?;
    // Acquire pairs with the Release in `close`: a closed handle is seen closed.
    let state = handle.state.load(Acquire);
    if state & !CLOSED_BIT != tag {
        return Err(fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: not a {} handle", handle_kind_of(tag)),
        ));
    }
    if state & CLOSED_BIT != 0 {
        return Err(fail(
            NERVE_E_CLOSED,
            format!("{what}: the {} was closed", handle.kind),
        ));
    }
    Ok(handle)
}

fn handle_kind_of(tag: u64) -> &'static str {
    match tag {
        TOPIC_TAG => "topic",
        PUBLISHER_TAG => "publisher",
        SUBSCRIBER_TAG => "subscriber",
        CLIENT_TAG => "client",
        SERVER_TAG => "server",
        PARAMS_TAG => "parameters",
        PARAM_CLIENT_TAG => "parameter client",
        WATCH_TAG => "watch",
        ESTOP_TAG => "e-stop listener",
        _ => "nerve",
    }
}

/// Runs `f` on the object behind handle `h`. One thread at a time: a second thread using
/// the same handle meanwhile gets `NERVE_E_BUSY`.
///
/// # Safety
/// As for [`resolve`].
pub(crate) unsafe fn with<T, R>(
    h: *const Handle<T>,
    tag: u64,
    what: &str,
    f: impl FnOnce(&mut T) -> Res<R>,
) -> Res<R> {
    // SAFETY: forwarded from the caller.
    let handle = unsafe { resolve(h, tag, what) }?;
    let mut object = match handle.object.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => {
            return Err(fail(
                NERVE_E_BUSY,
                format!(
                    "{what}: the {} is in use by another thread; use one handle per thread",
                    handle.kind
                ),
            ))
        }
    };
    let object = object.as_mut().ok_or_else(|| {
        fail(
            NERVE_E_CLOSED,
            format!("{what}: the {} was closed", handle.kind),
        )
    })?;
    f(object)
}

/// Closes handle `h`: drops its object (waiting for a call in progress on it to end).
///
/// # Safety
/// As for [`resolve`].
pub(crate) unsafe fn close<T>(h: *const Handle<T>, tag: u64, what: &str) -> Res<()> {
    // SAFETY: forwarded from the caller.
    let handle = unsafe { resolve(h, tag, what) }?;
    let Some(object) = handle
        .object
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
    else {
        // Another thread closed it meanwhile.
        return Err(fail(
            NERVE_E_CLOSED,
            format!("{what}: the {} was closed", handle.kind),
        ));
    };
    // Release pairs with the Acquire in `resolve`.
    handle.state.store(tag | CLOSED_BIT, Release);
    KEPT.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(h as usize);
    drop(object);
    Ok(())
}
