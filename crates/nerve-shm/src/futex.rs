//! futex wait/wake on a 32-bit word in shared memory (Linux). Other platforms fall back to a
//! short sleep, which keeps the semantics (spurious wake-ups are allowed) at a cost in latency.

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
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word,
                libc::FUTEX_WAIT,
                expected,
                ts_ptr,
                std::ptr::null::<u32>(),
                0u32,
            );
        }
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

/// Wakes every waiter blocked on `word`.
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
    {
        // SAFETY: FUTEX_WAKE only uses the address as a key; it dereferences nothing.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word,
                libc::FUTEX_WAKE,
                i32::MAX,
                std::ptr::null::<libc::timespec>(),
                std::ptr::null::<u32>(),
                0u32,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = word;
}
