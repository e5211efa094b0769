//! Chunked messages (images, point clouds): a loan is filled in shared memory and sent in
//! O(1); a sample is read in place, its pointers in the shared segment, until released. Both
//! are small structs C holds by value, naming their publisher or subscriber, a slot and a
//! generation (`slots.rs`): sending, discarding or releasing one twice, or after its
//! publisher or subscriber closed, is refused.

use nerve::raw::RawMessage;

use crate::handle::{self, Handle, PUBLISHER_TAG, SUBSCRIBER_TAG};
use crate::slots::Slots;
use crate::status::{
    fail, guard, Res, NERVE_EMPTY, NERVE_E_CLOSED, NERVE_E_FULL, NERVE_E_INVALID_ARGUMENT,
    NERVE_E_WRONG_SIZE, NERVE_OK,
};
use crate::topic::{
    need_out, nerve_publisher, nerve_subscriber, publisher_handle, subscriber_handle,
};

/// A chunk loaned for one message, filled in place and sent with `nerve_loan_send` (or given
/// back with `nerve_loan_discard`). `header` and `data` lie in shared memory; `data` is
/// 64-byte aligned. The first three fields are nerve's.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct nerve_loan {
    /// The publisher that lent it.
    pub owner: *mut nerve_publisher,
    /// nerve's: which of the publisher's loans.
    pub slot: u32,
    /// nerve's: which lending of that slot.
    pub generation: u32,
    /// The message's header (the type's `size` bytes).
    pub header: *mut u8,
    /// Bytes at `header`.
    pub header_len: usize,
    /// The payload.
    pub data: *mut u8,
    /// Bytes at `data` (as asked).
    pub data_len: usize,
}

/// A received chunked message, read in place (zero copy: `header` and `data` point into the
/// shared segment) until `nerve_sample_release`. Holding it keeps its chunk from reuse. The
/// first three fields are nerve's.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct nerve_sample {
    /// The subscriber that received it.
    pub owner: *mut nerve_subscriber,
    /// nerve's: which of the subscriber's samples.
    pub slot: u32,
    /// nerve's: which lending of that slot.
    pub generation: u32,
    /// The message's header.
    pub header: *const u8,
    /// Bytes at `header`.
    pub header_len: usize,
    /// The payload (64-byte aligned).
    pub data: *const u8,
    /// Bytes at `data`.
    pub data_len: usize,
}

impl nerve_loan {
    /// A loan that is no more (sent or discarded).
    const GONE: nerve_loan = nerve_loan {
        owner: std::ptr::null_mut(),
        slot: 0,
        generation: 0,
        header: std::ptr::null_mut(),
        header_len: 0,
        data: std::ptr::null_mut(),
        data_len: 0,
    };
}

impl nerve_sample {
    /// A sample that is no more (released).
    const GONE: nerve_sample = nerve_sample {
        owner: std::ptr::null_mut(),
        slot: 0,
        generation: 0,
        header: std::ptr::null(),
        header_len: 0,
        data: std::ptr::null(),
        data_len: 0,
    };
}

/// Takes back from the handle `owner` (of `tag`) the object C holds as `(slot, generation)`
/// in the table `slots_of` picks; refused when it was taken back already.
///
/// # Safety
/// `owner` is NULL or the handle that lent the object (handles are never freed).
unsafe fn take_back<O, T>(
    owner: *const Handle<O>,
    tag: u64,
    (slot, generation): (u32, u32),
    (what, thing): (&str, &str),
    slots_of: impl FnOnce(&mut O) -> &mut Slots<T>,
) -> Res<T> {
    if owner.is_null() {
        return Err(stale(what, thing));
    }
    // SAFETY: the caller's promise.
    unsafe {
        handle::with(owner, tag, what, |o| {
            slots_of(o)
                .take(slot, generation)
                .ok_or_else(|| stale(what, thing))
        })
    }
}

fn too_many(what: &str, topic: &str, things: &str) -> crate::status::Failure {
    fail(
        NERVE_E_FULL,
        format!(
            "{what}: topic '{topic}': {} {things} are held already; release some",
            crate::slots::MAX_HELD
        ),
    )
}

fn stale(what: &str, thing: &str) -> crate::status::Failure {
    fail(
        NERVE_E_CLOSED,
        format!("{what}: this {thing} was already sent, discarded or released"),
    )
}

/// Loans a chunk for a message of `payload_bytes` (a whole number of the type's elements)
/// and fills `out`; write the header and payload through its pointers, then send it.
/// `NERVE_E_WRONG_SIZE` on a fixed type or a length that is not whole elements,
/// `NERVE_E_TOO_LARGE` over the topic's limit, `NERVE_E_FULL` when the pool has no chunk.
///
/// # Safety
/// `publisher` is a publisher handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_loan_open(
    publisher: *mut nerve_publisher,
    payload_bytes: usize,
    out: *mut nerve_loan,
) -> i32 {
    const WHAT: &str = "nerve_loan_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let loan = unsafe {
            handle::with(publisher_handle(publisher), PUBLISHER_TAG, WHAT, |p| {
                let mut l = p.raw.loan(p.header, payload_bytes)?;
                let (header, header_len) = (l.header_ptr(), l.header_mut().len());
                let (data, data_len) = (l.data_ptr(), l.data_len());
                let (slot, generation) = p
                    .loans
                    .insert(l)
                    .ok_or_else(|| too_many(WHAT, p.raw.topic(), "loans"))?;
                Ok(nerve_loan {
                    owner: publisher,
                    slot,
                    generation,
                    header,
                    header_len,
                    data,
                    data_len,
                })
            })
        }?;
        // SAFETY: `out` is not NULL (checked) and valid for a write (the caller's promise).
        unsafe { out.write(loan) };
        Ok(NERVE_OK)
    })
}

/// Takes back loan `*loan` from its publisher and clears `*loan`; `send`: publishes it.
///
/// # Safety
/// `loan` is NULL or points to a `nerve_loan` filled by `nerve_loan_open` (or cleared).
unsafe fn finish_loan(loan: *mut nerve_loan, send: bool, what: &str) -> Res<i32> {
    // SAFETY: the caller's promise: NULL or a valid loan.
    let l = unsafe { loan.as_mut() }
        .ok_or_else(|| fail(NERVE_E_INVALID_ARGUMENT, format!("{what}: loan is NULL")))?;
    // SAFETY: `owner` is NULL or the publisher handle that filled the loan.
    let taken = unsafe {
        take_back(
            publisher_handle(l.owner),
            PUBLISHER_TAG,
            (l.slot, l.generation),
            (what, "loan"),
            |p| &mut p.loans,
        )
    }?;
    *l = nerve_loan::GONE;
    if send {
        taken.send()?;
    }
    Ok(NERVE_OK)
}

/// Publishes a filled loan (O(1): a descriptor goes into the ring) and clears `*loan`.
///
/// # Safety
/// `loan` is NULL or points to a `nerve_loan` from `nerve_loan_open`.
#[no_mangle]
pub unsafe extern "C" fn nerve_loan_send(loan: *mut nerve_loan) -> i32 {
    const WHAT: &str = "nerve_loan_send";
    // SAFETY: the caller's promise.
    guard(WHAT, || unsafe { finish_loan(loan, true, WHAT) })
}

/// Gives a loan's chunk back unsent and clears `*loan`.
///
/// # Safety
/// `loan` is NULL or points to a `nerve_loan` from `nerve_loan_open`.
#[no_mangle]
pub unsafe extern "C" fn nerve_loan_discard(loan: *mut nerve_loan) -> i32 {
    const WHAT: &str = "nerve_loan_discard";
    // SAFETY: the caller's promise.
    guard(WHAT, || unsafe { finish_loan(loan, false, WHAT) })
}

/// Receives one chunked message in place into `out`: `NERVE_OK`, `NERVE_EMPTY` when none came
/// within `timeout_ns` (0: do not wait; negative: wait for ever), `NERVE_E_WRONG_SIZE` on a
/// fixed topic (use `nerve_recv`), `NERVE_E_FULL` when this subscriber holds too many samples.
///
/// # Safety
/// `subscriber` is a subscriber handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_recv_sample(
    subscriber: *mut nerve_subscriber,
    timeout_ns: i64,
    out: *mut nerve_sample,
) -> i32 {
    const WHAT: &str = "nerve_recv_sample";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let got = unsafe {
            handle::with(subscriber_handle(subscriber), SUBSCRIBER_TAG, WHAT, |s| {
                let got = crate::topic::receive(&mut s.raw, timeout_ns)?;
                let sample = match got {
                    None => return Ok(None),
                    Some(RawMessage::Chunk(sample)) => sample,
                    Some(RawMessage::Fixed(_)) => {
                        return Err(fail(
                            NERVE_E_WRONG_SIZE,
                            format!(
                                "{WHAT}: topic '{}' carries fixed messages: receive them with nerve_recv",
                                s.raw.topic()
                            ),
                        ))
                    }
                };
                let (header, header_len) = (sample.header_ptr(), sample.header_len());
                let (data, data_len) = (sample.data_ptr(), sample.data_len());
                let (slot, generation) = s
                    .samples
                    .insert(sample)
                    .ok_or_else(|| too_many(WHAT, s.raw.topic(), "samples"))?;
                Ok(Some(nerve_sample {
                    owner: subscriber,
                    slot,
                    generation,
                    header,
                    header_len,
                    data,
                    data_len,
                }))
            })
        }?;
        let Some(sample) = got else {
            return Ok(NERVE_EMPTY);
        };
        // SAFETY: `out` is not NULL (checked) and valid for a write (the caller's promise).
        unsafe { out.write(sample) };
        Ok(NERVE_OK)
    })
}

/// Releases a sample (its chunk may be reused; its pointers must not be used any more) and
/// clears `*sample`. A second release is `NERVE_E_CLOSED`.
///
/// # Safety
/// `sample` is NULL or points to a `nerve_sample` from `nerve_recv_sample` (or cleared).
#[no_mangle]
pub unsafe extern "C" fn nerve_sample_release(sample: *mut nerve_sample) -> i32 {
    const WHAT: &str = "nerve_sample_release";
    guard(WHAT, || {
        // SAFETY: the caller's promise: NULL or a valid sample.
        let sample = unsafe { sample.as_mut() }
            .ok_or_else(|| fail(NERVE_E_INVALID_ARGUMENT, format!("{WHAT}: sample is NULL")))?;
        // SAFETY: `owner` is NULL or the subscriber handle that filled the sample.
        let taken = unsafe {
            take_back(
                subscriber_handle(sample.owner),
                SUBSCRIBER_TAG,
                (sample.slot, sample.generation),
                (WHAT, "sample"),
                |s| &mut s.samples,
            )
        }?;
        *sample = nerve_sample::GONE;
        drop(taken);
        Ok(NERVE_OK)
    })
}
