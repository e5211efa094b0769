//! What a C handle points to: a tag saying what it is and whether it is open, and the object.
//!
//! Closing drops the object but keeps the handle's small allocation, so a handle used after
//! it was closed, or closed twice, reads valid memory and gets `NERVE_E_CLOSED` instead of
//! undefined behaviour. Topics, publishers and subscribers live long; the few dozen bytes
//! each closed handle keeps are the price of that check.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, Ordering::Acquire, Ordering::Relaxed, Ordering::Release};
use std::sync::Mutex;

use crate::status::{
    fail, guard, Failure, Res, NERVE_E_BUSY, NERVE_E_CLOSED, NERVE_E_INVALID_ARGUMENT, NERVE_OK,
};

/// Tags of the handle kinds (ASCII of "nervetop", "nervepub", "nervesub", "nerveclt",
/// "nervesrv", ...); each even with its top bit clear, as the closed bit is the lowest and
/// the busy bit the highest.
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
/// Set while a call uses the handle's object (one call at a time: a second thread's call is
/// `NERVE_E_BUSY`, as C is told to use one handle per thread).
const BUSY_BIT: u64 = 1 << 63;

/// The closed handles' allocations, kept on purpose: held here, they are reachable (and not
/// reported as leaks by LeakSanitizer), while a handle C never closed still is.
static KEPT: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// A C handle's allocation.
pub(crate) struct Handle<T> {
    /// `tag` while open and idle, `tag | BUSY_BIT` while a call uses `object`, `tag |
    /// CLOSED_BIT` once closed. One atomic word checks the kind, claims the object and tells
    /// a closed handle apart: one compare-exchange per call.
    state: AtomicU64,
    /// What the handle is, for messages ("subscriber").
    kind: &'static str,
    /// Read and written only by the call that set `BUSY_BIT`.
    object: UnsafeCell<Option<T>>,
}

// SAFETY: `object` is reached only by the one call that set BUSY_BIT in `state` (see `claim`),
// so a `Handle<T>` shared between threads hands `T` from thread to thread, never to two at once:
// `T: Send` is what that needs.
unsafe impl<T: Send> Sync for Handle<T> {}

impl<T> Handle<T> {
    /// A new open handle holding `object`, as C will hold it.
    pub(crate) fn open(tag: u64, kind: &'static str, object: T) -> *mut Handle<T> {
        debug_assert_eq!(tag & (CLOSED_BIT | BUSY_BIT), 0);
        Box::into_raw(Box::new(Handle {
            state: AtomicU64::new(tag),
            kind,
            object: UnsafeCell::new(Some(object)),
        }))
    }
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

/// Gives `state` back to `tag` (idle) when the call that claimed the handle ends, also by a
/// panic.
struct Claimed<'a> {
    state: &'a AtomicU64,
    tag: u64,
}

impl Drop for Claimed<'_> {
    fn drop(&mut self) {
        // Release: pairs with the Acquire of the next `claim`'s compare-exchange, which then
        // sees every write this call made to the object.
        self.state.store(self.tag, Release);
    }
}

/// Claims handle `h` of kind `tag` for this call: the handle, its guard, or why not (NULL, not
/// this kind, closed, in use by another thread).
///
/// # Safety
/// `h` is NULL or a pointer `Handle::open` returned (handles are never freed).
unsafe fn claim<'a, T>(
    h: *const Handle<T>,
    tag: u64,
    what: &str,
) -> Res<(&'a Handle<T>, Claimed<'a>)> {
    // SAFETY: the caller's promise: NULL or a live allocation (never freed).
    let handle = unsafe { h.as_ref() }.ok_or_else(|| {
        fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: the handle is NULL"),
        )
    })?;
    // Acquire: pairs with the Release store of the call (or `open`'s publication through C)
    // that last had the object; Relaxed on failure, where only the bits are read.
    match handle
        .state
        .compare_exchange(tag, tag | BUSY_BIT, Acquire, Relaxed)
    {
        Ok(_) => Ok((
            handle,
            Claimed {
                state: &handle.state,
                tag,
            },
        )),
        Err(state) => Err(refusal(handle, state, tag, what)),
    }
}

/// Why a handle in `state` cannot be claimed as `tag`.
fn refusal<T>(handle: &Handle<T>, state: u64, tag: u64, what: &str) -> Failure {
    if state & !(CLOSED_BIT | BUSY_BIT) != tag {
        return fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: not a {} handle", handle_kind_of(tag)),
        );
    }
    if state & CLOSED_BIT != 0 {
        return fail(
            NERVE_E_CLOSED,
            format!("{what}: the {} was closed", handle.kind),
        );
    }
    fail(
        NERVE_E_BUSY,
        format!(
            "{what}: the {} is in use by another thread; use one handle per thread",
            handle.kind
        ),
    )
}

/// Runs `f` on the object of handle `h` of kind `tag`.
///
/// # Safety
/// `h` is NULL or a pointer `Handle::open` returned.
pub(crate) unsafe fn with<T, R>(
    h: *const Handle<T>,
    tag: u64,
    what: &str,
    f: impl FnOnce(&mut T) -> Res<R>,
) -> Res<R> {
    // SAFETY: the caller's promise.
    let (handle, _claimed) = unsafe { claim(h, tag, what) }?;
    // SAFETY: BUSY_BIT is ours until `_claimed` drops: no other call reaches `object`.
    let object = unsafe { &mut *handle.object.get() };
    // An idle handle that is not closed holds its object (`close` sets CLOSED_BIT after taking it).
    let object = object.as_mut().ok_or_else(|| {
        fail(
            NERVE_E_CLOSED,
            format!("{what}: the {} was closed", handle.kind),
        )
    })?;
    f(object)
}

/// Closes handle `h` of kind `tag`: drops its object and marks it closed (the allocation is
/// kept, see the module docs).
///
/// # Safety
/// `h` is NULL or a pointer `Handle::open` returned.
pub(crate) unsafe fn close<T>(h: *const Handle<T>, tag: u64, what: &str) -> Res<()> {
    // SAFETY: the caller's promise.
    let (handle, claimed) = unsafe { claim(h, tag, what) }?;
    // SAFETY: BUSY_BIT is ours: no other call reaches `object`.
    let object = unsafe { &mut *handle.object.get() }.take();
    std::mem::forget(claimed);
    // Release: pairs with the Acquire of any later claim, which fails on CLOSED_BIT.
    handle.state.store(tag | CLOSED_BIT, Release);
    KEPT.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(h as usize);
    drop(object);
    Ok(())
}

/// The body of every `nerve_*_close` entry point: [`close`] in a guard, as a status.
///
/// # Safety
/// `h` is NULL or a pointer `Handle::open` returned.
pub(crate) unsafe fn close_entry<T>(h: *const Handle<T>, tag: u64, what: &str) -> i32 {
    guard(what, || {
        // SAFETY: the caller's promise.
        unsafe { close(h, tag, what) }?;
        Ok(NERVE_OK)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A handle for the tests (leaked, as C's are).
    fn open<T>(tag: u64, object: T) -> usize {
        Handle::open(tag, "test", object) as usize
    }

    /// `f` on the object of test handle `h`.
    fn call<T, R>(h: usize, tag: u64, f: impl FnOnce(&mut T) -> Res<R>) -> Res<R> {
        // SAFETY: `h` came from `Handle::open` (via `open`) and is never freed.
        unsafe { with(h as *const Handle<T>, tag, "test", f) }
    }

    fn shut<T>(h: usize, tag: u64) -> Res<()> {
        // SAFETY: as in `call`.
        unsafe { close(h as *const Handle<T>, tag, "test") }
    }

    fn code<R>(r: Res<R>) -> Option<i32> {
        r.err().map(|f| f.code())
    }

    #[test]
    fn a_handle_is_claimed_by_one_call_at_a_time_and_refused_after_close() {
        let h = open(TOPIC_TAG, 5u32);
        assert_eq!(call(h, TOPIC_TAG, |v: &mut u32| Ok(*v)).ok(), Some(5));
        assert_eq!(
            code(call(h, PUBLISHER_TAG, |v: &mut u32| Ok(*v))),
            Some(NERVE_E_INVALID_ARGUMENT)
        );
        // A call from inside a call (another thread's, as far as the handle can tell) is busy.
        let nested = call(h, TOPIC_TAG, |_: &mut u32| {
            Ok(call(h, TOPIC_TAG, |v: &mut u32| Ok(*v)))
        });
        assert_eq!(nested.ok().and_then(code), Some(NERVE_E_BUSY));
        // A panic inside a call gives the handle back.
        let panicked = std::panic::catch_unwind(|| {
            call(h, TOPIC_TAG, |_: &mut u32| -> Res<()> { panic!("inside") })
        });
        assert!(panicked.is_err());
        assert_eq!(call(h, TOPIC_TAG, |v: &mut u32| Ok(*v)).ok(), Some(5));
        assert!(shut::<u32>(h, TOPIC_TAG).is_ok());
        assert_eq!(
            code(call(h, TOPIC_TAG, |v: &mut u32| Ok(*v))),
            Some(NERVE_E_CLOSED)
        );
        assert_eq!(code(shut::<u32>(h, TOPIC_TAG)), Some(NERVE_E_CLOSED));
    }

    #[test]
    fn two_threads_never_reach_the_object_at_once() {
        let h = open(SUBSCRIBER_TAG, (0u64, 0u64));
        let work = move || {
            let mut done = 0u64;
            for _ in 0..20_000 {
                let r = call(h, SUBSCRIBER_TAG, |o: &mut (u64, u64)| {
                    // Not atomic: a second thread inside at once would lose updates.
                    o.0 += 1;
                    o.1 = o.1.wrapping_add(o.0);
                    Ok(())
                });
                match r {
                    Ok(()) => done += 1,
                    Err(f) => assert_eq!(f.code(), NERVE_E_BUSY, "{}", f.message()),
                }
            }
            done
        };
        let (a, b) = (std::thread::spawn(work), std::thread::spawn(work));
        let done = a.join().unwrap() + b.join().unwrap();
        let seen = call(h, SUBSCRIBER_TAG, |o: &mut (u64, u64)| Ok(o.0));
        assert_eq!(seen.ok(), Some(done), "every claimed call counted once");
    }
}
