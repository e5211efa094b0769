//! Topics, publishers and subscribers of fixed messages (a message copied into the ring slot,
//! a plain C struct): open or join, publish bytes, receive into the caller's buffer.

use std::ffi::{c_char, CStr};
use std::time::Duration;

use nerve::raw::{
    RawLoan, RawMessage, RawPublisher, RawSample, RawSubscriber, RawTopic, StoredType,
};
use nerve::Reliability;

use crate::handle::{self, Handle, PUBLISHER_TAG, SUBSCRIBER_TAG, TOPIC_TAG};
use crate::slots::Slots;
use crate::status::{
    fail, guard, Res, NERVE_EMPTY, NERVE_E_BUFFER_TOO_SMALL, NERVE_E_INVALID_ARGUMENT,
    NERVE_E_WRONG_SIZE, NERVE_OK,
};

/// `nerve_topic_options.domain`: `$NERVE_DOMAIN`, or 0.
pub const NERVE_DOMAIN_DEFAULT: u32 = u32::MAX;
/// `nerve_topic_options.reliability`: best effort (the default): a slow subscriber loses the
/// oldest messages, counted.
pub const NERVE_BEST_EFFORT: u32 = 0;
/// Reliable: a publisher waits for room (up to its timeout) rather than overwrite.
pub const NERVE_RELIABLE: u32 = 1;
/// Latest only: a subscriber sees the newest message.
pub const NERVE_LATEST_ONLY: u32 = 2;
/// `nerve_type.kind`: copied into the ring slot (a plain struct).
pub const NERVE_KIND_FIXED: u32 = 1;
/// `nerve_type.kind`: a header and elements in a shared chunk (images, point clouds).
pub const NERVE_KIND_CHUNKED: u32 = 2;

/// A message type as topics store it: what a generated message struct's `NERVE_TYPE_...`
/// constant holds, and what every language's definition of one type agrees on.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct nerve_type {
    /// The type's name, e.g. `"geometry_msgs/Twist"` (NUL-terminated).
    pub name: *const c_char,
    /// `NERVE_KIND_FIXED` or `NERVE_KIND_CHUNKED`.
    pub kind: u32,
    /// Bytes of the message (fixed) or of its header (chunked).
    pub size: u32,
    /// Alignment of the message or header.
    pub align: u32,
    /// Bytes of one payload element (chunked; 0 for fixed).
    pub elem_size: u32,
    /// The hash of the field layout: two definitions with different fields differ here.
    pub layout_hash: u64,
    /// The type's description as nerve's schemas encode it (fields, offsets, units), carried
    /// by the topic so tools can read its messages; NULL with length 0 for none.
    pub description: *const u8,
    /// Bytes at `description`.
    pub description_len: usize,
}

/// How a topic is opened; start from `nerve_topic_options_default()`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct nerve_topic_options {
    /// `NERVE_DOMAIN_DEFAULT`, or the domain.
    pub domain: u32,
    /// Ring capacity in messages (rounded up to a power of two); 0: the default.
    pub depth: u32,
    /// `NERVE_BEST_EFFORT`, `NERVE_RELIABLE` or `NERVE_LATEST_ONLY`.
    pub reliability: u32,
    /// Publishers and subscribers the topic can hold at once; 0: the default.
    pub max_endpoints: u32,
    /// Largest chunked message in bytes; 0: the default.
    pub max_message_bytes: u64,
    /// Chunks in a chunked topic's pool; 0: the default.
    pub chunks: u32,
    /// 1: the topic lives on this process's heap, for its threads only (no shared memory);
    /// 0: shared memory.
    pub in_process: u32,
}

/// A subscriber's counters.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct nerve_subscriber_stats {
    /// Messages received.
    pub received: u64,
    /// Messages overwritten before this subscriber read them.
    pub lost: u64,
    /// Messages skipped because a publisher died while writing them.
    pub dropped: u64,
    /// Slots whose content was damaged (a hostile or broken writer), skipped.
    pub corrupt: u64,
}

/// An open topic (opaque: C holds pointers to it only).
#[allow(non_camel_case_types)]
pub struct nerve_topic {
    _opaque: [u8; 0],
}
/// A publisher (opaque).
#[allow(non_camel_case_types)]
pub struct nerve_publisher {
    _opaque: [u8; 0],
}
/// A subscriber (opaque).
#[allow(non_camel_case_types)]
pub struct nerve_subscriber {
    _opaque: [u8; 0],
}

/// A NUL-terminated UTF-8 string the caller passed.
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string.
pub(crate) unsafe fn text<'a>(s: *const c_char, what: &str, arg: &str) -> Res<&'a str> {
    if s.is_null() {
        return Err(fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: {arg} is NULL"),
        ));
    }
    // SAFETY: the caller's promise: a NUL-terminated string.
    unsafe { CStr::from_ptr(s) }.to_str().map_err(|_| {
        fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: {arg} is not UTF-8"),
        )
    })
}

/// Bytes the caller passed (NULL allowed only with length 0).
///
/// # Safety
/// `p` is NULL or points to `len` readable bytes.
pub(crate) unsafe fn bytes<'a>(p: *const u8, len: usize, what: &str, arg: &str) -> Res<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: {arg} is NULL but its length is {len}"),
        ));
    }
    // SAFETY: the caller's promise: `len` readable bytes at `p`.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// The domain a C caller means: `NERVE_DOMAIN_DEFAULT` is `$NERVE_DOMAIN` or 0.
pub(crate) fn domain_of(domain: u32) -> u32 {
    if domain == NERVE_DOMAIN_DEFAULT {
        nerve::default_domain()
    } else {
        domain
    }
}

/// The next message within `timeout_ns` (0: do not wait; negative: wait for ever), as every
/// receiving entry point takes it.
pub(crate) fn receive(
    raw: &mut RawSubscriber,
    timeout_ns: i64,
) -> Result<Option<RawMessage<'_>>, nerve::RecvError> {
    match timeout_ns {
        0 => raw.try_recv(),
        t if t < 0 => raw.recv().map(Some),
        t => raw.recv_timeout(Duration::from_nanos(t as u64)),
    }
}

/// Refuses a NULL out-pointer before anything is opened (so nothing is left open behind it).
pub(crate) fn need_out<T>(out: *mut T, what: &str) -> Res<()> {
    if out.is_null() {
        return Err(fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: the out-pointer is NULL"),
        ));
    }
    Ok(())
}

/// Stores `value` at the caller's out-pointer.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub(crate) unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Res<()> {
    if out.is_null() {
        return Err(fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: the out-pointer is NULL"),
        ));
    }
    // SAFETY: the caller's promise: `out` is valid for a write.
    unsafe { out.write(value) };
    Ok(())
}

/// Every option at its default.
#[no_mangle]
pub extern "C" fn nerve_topic_options_default() -> nerve_topic_options {
    nerve_topic_options {
        domain: NERVE_DOMAIN_DEFAULT,
        depth: 0,
        reliability: NERVE_BEST_EFFORT,
        max_endpoints: 0,
        max_message_bytes: 0,
        chunks: 0,
        in_process: 0,
    }
}

/// Opens topic `name` of `type` (creating it if it does not exist) with `options` (NULL: the
/// defaults), and stores the handle at `out`. A topic that exists with another type is
/// `NERVE_E_TYPE_MISMATCH`, naming both.
///
/// # Safety
/// `name` is a NUL-terminated string; `type` points to a `nerve_type` whose `name` is one and
/// whose `description` holds `description_len` bytes; `options` is NULL or valid; `out` is
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_topic_open(
    name: *const c_char,
    r#type: *const nerve_type,
    options: *const nerve_topic_options,
    out: *mut *mut nerve_topic,
) -> i32 {
    const WHAT: &str = "nerve_topic_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise: a NUL-terminated name.
        let name = unsafe { text(name, WHAT, "name") }?;
        // SAFETY: the caller's promise: NULL or a valid `nerve_type`.
        let t = unsafe { r#type.as_ref() }
            .ok_or_else(|| fail(NERVE_E_INVALID_ARGUMENT, format!("{WHAT}: type is NULL")))?;
        // SAFETY: the caller's promise: NULL or valid options.
        let options = unsafe { options.as_ref() }
            .copied()
            .unwrap_or_else(|| nerve_topic_options_default());
        // SAFETY: the caller's promise: the type's name is NUL-terminated...
        let type_name = unsafe { text(t.name, WHAT, "type.name") }?;
        // SAFETY: ...and its description holds `description_len` bytes.
        let description =
            unsafe { bytes(t.description, t.description_len, WHAT, "type.description") }?;
        let stored = StoredType {
            name: type_name.to_owned(),
            kind: t.kind,
            size: t.size,
            align: t.align,
            elem_size: t.elem_size,
            layout_hash: t.layout_hash,
        };
        let mut b = RawTopic::builder(name, stored).description_bytes(description.to_vec());
        if options.domain != NERVE_DOMAIN_DEFAULT {
            b = b.domain(options.domain);
        }
        if options.depth != 0 {
            b = b.depth(options.depth);
        }
        b = b.reliability(match options.reliability {
            NERVE_BEST_EFFORT => Reliability::BestEffort,
            NERVE_RELIABLE => Reliability::Reliable,
            NERVE_LATEST_ONLY => Reliability::LatestOnly,
            other => {
                return Err(fail(
                    NERVE_E_INVALID_ARGUMENT,
                    format!("{WHAT}: topic '{name}': reliability {other} is none of NERVE_BEST_EFFORT, NERVE_RELIABLE, NERVE_LATEST_ONLY"),
                ))
            }
        });
        if options.max_endpoints != 0 {
            b = b.max_endpoints(options.max_endpoints);
        }
        if options.max_message_bytes != 0 {
            let bytes = usize::try_from(options.max_message_bytes).map_err(|_| {
                fail(
                    NERVE_E_INVALID_ARGUMENT,
                    format!("{WHAT}: topic '{name}': max_message_bytes is too large"),
                )
            })?;
            b = b.max_message_bytes(bytes);
        }
        if options.chunks != 0 {
            b = b.chunks(options.chunks);
        }
        match options.in_process {
            0 => {}
            1 => b = b.in_process(),
            other => {
                return Err(fail(
                    NERVE_E_INVALID_ARGUMENT,
                    format!("{WHAT}: topic '{name}': in_process is {other}, not 0 or 1"),
                ))
            }
        }
        let topic = b.open()?;
        let h = Handle::open(TOPIC_TAG, "topic", topic);
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, h.cast::<nerve_topic>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Joins topic `name` of `domain` (`NERVE_DOMAIN_DEFAULT` for the default) as it exists, with
/// its type and settings; `NERVE_E_NOT_FOUND` if there is none.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_topic_join(
    name: *const c_char,
    domain: u32,
    out: *mut *mut nerve_topic,
) -> i32 {
    const WHAT: &str = "nerve_topic_join";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        let topic = RawTopic::join(name, domain_of(domain))?;
        let h = Handle::open(TOPIC_TAG, "topic", topic);
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, h.cast::<nerve_topic>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// The allocation behind a C handle (the C types are names only; the pointer is a `Handle`'s).
fn topic_handle(t: *const nerve_topic) -> *const Handle<RawTopic> {
    t.cast()
}

pub(crate) fn publisher_handle(p: *const nerve_publisher) -> *const Handle<Pub> {
    p.cast()
}

pub(crate) fn subscriber_handle(s: *const nerve_subscriber) -> *const Handle<Sub> {
    s.cast()
}

/// What a publisher handle holds: the publisher and its loans being filled.
pub(crate) struct Pub {
    pub raw: RawPublisher,
    pub loans: Slots<RawLoan>,
    /// The type's header bytes (a loan's header).
    pub header: usize,
}

/// What a subscriber handle holds: the subscriber and the samples C holds.
pub(crate) struct Sub {
    pub raw: RawSubscriber,
    pub samples: Slots<RawSample>,
}

/// Closes a topic handle (its publishers and subscribers stay open). A second close, or a use
/// after it, is `NERVE_E_CLOSED`.
///
/// # Safety
/// `topic` is NULL or a handle from `nerve_topic_open` / `nerve_topic_join`.
#[no_mangle]
pub unsafe extern "C" fn nerve_topic_close(topic: *mut nerve_topic) -> i32 {
    // SAFETY: the caller's promise.
    unsafe { handle::close_entry(topic_handle(topic), TOPIC_TAG, "nerve_topic_close") }
}

/// The largest payload of a chunked message on `topic`, in bytes, into `out` (0 for a fixed
/// type).
///
/// # Safety
/// `topic` is a topic handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_topic_max_payload_bytes(
    topic: *const nerve_topic,
    out: *mut u64,
) -> i32 {
    const WHAT: &str = "nerve_topic_max_payload_bytes";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let n = unsafe {
            handle::with(topic_handle(topic), TOPIC_TAG, WHAT, |t| {
                Ok(t.max_payload_bytes() as u64)
            })
        }?;
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, n, WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Opens a publisher on `topic`.
///
/// # Safety
/// `topic` is a topic handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_publisher_open(
    topic: *const nerve_topic,
    out: *mut *mut nerve_publisher,
) -> i32 {
    const WHAT: &str = "nerve_publisher_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let (raw, header) = unsafe {
            handle::with(topic_handle(topic), TOPIC_TAG, WHAT, |t| {
                Ok((t.publisher()?, t.stored_type().size as usize))
            })
        }?;
        let p = Pub {
            raw,
            loans: Slots::default(),
            header,
        };
        let h = Handle::open(PUBLISHER_TAG, "publisher", p);
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, h.cast::<nerve_publisher>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Closes a publisher.
///
/// # Safety
/// `publisher` is NULL or a publisher handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_publisher_close(publisher: *mut nerve_publisher) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            publisher_handle(publisher),
            PUBLISHER_TAG,
            "nerve_publisher_close",
        )
    }
}

/// Publishes one fixed message: exactly the type's `size` bytes at `message`, copied into the
/// ring. `NERVE_E_WRONG_SIZE` for another length or a chunked type; `NERVE_E_FULL` when a
/// reliable topic stays full.
///
/// # Safety
/// `publisher` is a publisher handle; `message` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn nerve_publish(
    publisher: *const nerve_publisher,
    message: *const u8,
    len: usize,
) -> i32 {
    const WHAT: &str = "nerve_publish";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let bytes = unsafe { bytes(message, len, WHAT, "message") }?;
        // SAFETY: the caller's promise.
        unsafe {
            handle::with(publisher_handle(publisher), PUBLISHER_TAG, WHAT, |p| {
                Ok(p.raw.send_bytes(bytes)?)
            })
        }?;
        Ok(NERVE_OK)
    })
}

/// Opens a subscriber on `topic`, starting with up to `history` recent messages (0: only new
/// ones).
///
/// # Safety
/// `topic` is a topic handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_subscriber_open(
    topic: *const nerve_topic,
    history: u64,
    out: *mut *mut nerve_subscriber,
) -> i32 {
    const WHAT: &str = "nerve_subscriber_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let s = unsafe {
            handle::with(topic_handle(topic), TOPIC_TAG, WHAT, |t| {
                Ok(t.subscriber(history)?)
            })
        }?;
        let s = Sub {
            raw: s,
            samples: Slots::default(),
        };
        let h = Handle::open(SUBSCRIBER_TAG, "subscriber", s);
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, h.cast::<nerve_subscriber>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Closes a subscriber.
///
/// # Safety
/// `subscriber` is NULL or a subscriber handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_subscriber_close(subscriber: *mut nerve_subscriber) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            subscriber_handle(subscriber),
            SUBSCRIBER_TAG,
            "nerve_subscriber_close",
        )
    }
}

/// Receives one fixed message into `(buf, cap)` and stores its length at `len`: `NERVE_OK`,
/// `NERVE_EMPTY` when none came within `timeout_ns` (0: do not wait; negative: wait for ever),
/// `NERVE_E_BUFFER_TOO_SMALL` (with the needed length at `len`; the message is lost to this
/// subscriber), `NERVE_E_WRONG_SIZE` on a chunked topic.
///
/// # Safety
/// `subscriber` is a subscriber handle; `buf` points to `cap` writable bytes; `len` is valid for
/// a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_recv(
    subscriber: *mut nerve_subscriber,
    timeout_ns: i64,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> i32 {
    const WHAT: &str = "nerve_recv";
    guard(WHAT, || {
        if len.is_null() || (buf.is_null() && cap != 0) {
            return Err(fail(
                NERVE_E_INVALID_ARGUMENT,
                format!("{WHAT}: buf or len is NULL"),
            ));
        }
        // SAFETY: the caller's promise.
        unsafe {
            handle::with(subscriber_handle(subscriber), SUBSCRIBER_TAG, WHAT, |s| {
                let got = receive(&mut s.raw, timeout_ns)?;
                // The message's length, or None for a chunked one; copied out if it fits.
                let n = match &got {
                    None => return Ok(NERVE_EMPTY),
                    Some(RawMessage::Chunk(_)) => None,
                    Some(RawMessage::Fixed(bytes)) => {
                        if !bytes.is_empty() && bytes.len() <= cap {
                            // SAFETY: `buf` holds `cap` ≥ `bytes.len()` writable bytes (the
                            // caller's promise) and cannot overlap the subscriber's buffer.
                            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, bytes.len());
                        }
                        Some(bytes.len())
                    }
                };
                drop(got);
                let Some(n) = n else {
                    return Err(fail(
                        NERVE_E_WRONG_SIZE,
                        format!(
                            "{WHAT}: topic '{}' carries chunked messages: receive them with nerve_recv_sample",
                            s.raw.topic()
                        ),
                    ));
                };
                // SAFETY: the caller's promise for `len`.
                len.write(n);
                if n > cap {
                    return Err(fail(
                        NERVE_E_BUFFER_TOO_SMALL,
                        format!(
                            "{WHAT}: topic '{}': a message of {n} bytes does not fit a buffer of {cap}",
                            s.raw.topic()
                        ),
                    ));
                }
                Ok(NERVE_OK)
            })
        }
    })
}

/// The subscriber's counters into `out`.
///
/// # Safety
/// `subscriber` is a subscriber handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_subscriber_get_stats(
    subscriber: *mut nerve_subscriber,
    out: *mut nerve_subscriber_stats,
) -> i32 {
    const WHAT: &str = "nerve_subscriber_get_stats";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let st = unsafe {
            handle::with(subscriber_handle(subscriber), SUBSCRIBER_TAG, WHAT, |s| {
                Ok(s.raw.stats())
            })
        }?;
        let stats = nerve_subscriber_stats {
            received: st.received,
            lost: st.lost,
            dropped: st.dropped,
            corrupt: st.corrupt,
        };
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, stats, WHAT) }?;
        Ok(NERVE_OK)
    })
}
