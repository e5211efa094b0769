//! The one futex wrapper of nerve (Linux): wait/wake on a 32-bit word.
//!
//! Two flavours, which must be paired (a waiter is only woken by a wake of its own flavour):
//! - **shared** ([`wait`], [`wake_all`]): the word may live in memory mapped by several
//!   processes (a topic's sequence word);
//! - **private** ([`wait_until_private`], [`wake_all_private`]): the word is seen by this
//!   process only (a scheduler's lanes, an e-stop), which spares the kernel a lookup of the
//!   mapping; the wait takes an absolute `CLOCK_MONOTONIC` deadline.
//!
//! Other platforms fall back to a short sleep, which keeps the semantics (spurious wake-ups
//! are allowed) at a cost in latency. Every wait may return early: callers re-check.

use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// Blocks while `*word == expected`, for at most `timeout` (None: forever). Returns on wake-up,
/// timeout, signal or a changed value; callers re-check their condition.
pub fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) {
    // SAFETY: the address comes from a live AtomicU32.
    unsafe { wait_raw(word.as_ptr(), expected, timeout) }
}

/// [`wait`] on a raw address: the low half of a 64-bit sequence word, which Rust code only
/// ever accesses as 64 bits (the kernel reads the 32 bits itself).
///
/// # Safety
/// `word` must be 4-byte aligned and point into memory that stays mapped for the call.
pub unsafe fn wait_raw(word: *const u32, expected: u32, timeout: Option<Duration>) {
    #[cfg(target_os = "linux")]
    {
        let ts = timeout.map(|d| libc::timespec {
            tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
            tv_nsec: d.subsec_nanos() as libc::c_long,
        });
        let ts_ptr = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: callers pass a valid, 4-byte aligned address inside live memory; the kernel
        // only reads it. FUTEX_WAIT (not _PRIVATE) because the word may be shared across
        // processes. `ts_ptr` is null or points to a live timespec.
        unsafe { futex(word, libc::FUTEX_WAIT, expected, ts_ptr, 0) };
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (word, expected);
        std::thread::sleep(
            timeout
                .unwrap_or(Duration::from_micros(100))
                .min(Duration::from_micros(100)),
        );
    }
}

/// Wakes every waiter blocked in [`wait`] on `word`.
pub fn wake_all(word: &AtomicU32) {
    // SAFETY: the address comes from a live AtomicU32.
    unsafe { wake_all_raw(word.as_ptr()) }
}

/// [`wake_all`] on a raw address (see [`wait_raw`]).
///
/// # Safety
/// `word` must be 4-byte aligned and point into mapped memory (the kernel uses it as a key).
pub unsafe fn wake_all_raw(word: *const u32) {
    #[cfg(target_os = "linux")]
    // SAFETY: FUTEX_WAKE only uses the address as a key; it dereferences nothing.
    unsafe {
        futex(word, libc::FUTEX_WAKE, i32::MAX as u32, std::ptr::null(), 0)
    };
    #[cfg(not(target_os = "linux"))]
    let _ = word;
}

/// Waits on a process-private `word` while it still holds `expected`, until `deadline_ns` on
/// `CLOCK_MONOTONIC` (absolute, so a late wake-up never shifts the next deadline).
///
/// `FUTEX_WAIT_BITSET` without `FUTEX_CLOCK_REALTIME` takes an absolute `CLOCK_MONOTONIC`
/// deadline: the same hrtimer as `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, with the
/// difference that a [`wake_all_private`] on `word` ends the sleep at once.
pub fn wait_until_private(word: &AtomicU32, expected: u32, deadline_ns: u64) {
    #[cfg(target_os = "linux")]
    {
        let ts = libc::timespec {
            tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: `word` is a live, aligned u32 for the duration of the call; `ts` outlives
        // it. The kernel only reads both. EINTR/ETIMEDOUT/EAGAIN are all fine: callers
        // re-check.
        unsafe {
            futex(
                word.as_ptr(),
                libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG,
                expected,
                &ts,
                libc::FUTEX_BITSET_MATCH_ANY as u32,
            )
        };
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (word, expected, deadline_ns);
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// Wakes every thread waiting in [`wait_until_private`] on `word`. Async-signal-safe (one
/// system call, no allocation, no lock).
pub fn wake_all_private(word: &AtomicU32) {
    #[cfg(target_os = "linux")]
    // SAFETY: FUTEX_WAKE only uses the address as a key; it never dereferences user memory.
    unsafe {
        futex(
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX as u32,
            std::ptr::null(),
            0,
        )
    };
    #[cfg(not(target_os = "linux"))]
    let _ = word;
}

/// The `futex(2)` system call; the result is ignored (every caller re-checks its condition).
///
/// # Safety
/// `word` must be 4-byte aligned and mapped for the call; `timeout` null or a live timespec.
#[cfg(target_os = "linux")]
unsafe fn futex(
    word: *const u32,
    op: libc::c_int,
    val: u32,
    timeout: *const libc::timespec,
    bitset: u32,
) {
    // SAFETY: forwarded from the caller; the kernel reads `word` (for waits) and `timeout`.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word,
            op,
            val,
            timeout,
            std::ptr::null::<u32>(),
            bitset,
        );
    }
}
