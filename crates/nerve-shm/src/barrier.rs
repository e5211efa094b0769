//! Asymmetric memory barriers: a fast side that pays nothing and a slow side that pays for both.
//!
//! A topic with a single publisher lets that publisher claim messages with plain stores instead
//! of locked read-modify-writes (see `ring.rs`, "solo writer"). Two rare events still need a
//! store→load fence between the publisher and another thread: a second publisher revoking the
//! solo right, and a reader about to sleep. Both are Dekker-style handshakes ("I store my flag,
//! then load yours"), and on x86-64 a plain store may still sit in the store buffer when the
//! next load executes. Instead of a fence on every message, the fast side issues only a
//! [`light`] barrier (a compiler fence) and the slow side calls [`heavy`]:
//! `membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)`, which makes the kernel run a full memory
//! barrier on every CPU currently running a thread of a process that [`register`]ed. After it
//! returns, each such thread is either past a full barrier (its earlier stores are visible, its
//! later loads see ours) or was not running (a context switch is a full barrier). This is the
//! pattern of userspace RCU and of `folly::asymmetricLightBarrier`.
//!
//! A process may only take the fast side once [`register`] succeeded; where the kernel lacks
//! the command (or a sandbox forbids it), publishers keep the locked path and everything stays
//! correct, only slower.

use std::sync::atomic::{compiler_fence, fence, Ordering::SeqCst};
use std::sync::OnceLock;

#[cfg(target_os = "linux")]
const MEMBARRIER_CMD_GLOBAL_EXPEDITED: libc::c_long = 1 << 1;
#[cfg(target_os = "linux")]
const MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED: libc::c_long = 1 << 2;

#[cfg(target_os = "linux")]
fn membarrier(cmd: libc::c_long) -> bool {
    // SAFETY: membarrier takes (cmd, flags, cpu_id) integers and touches no user memory.
    unsafe {
        libc::syscall(
            libc::SYS_membarrier,
            cmd,
            0 as libc::c_long,
            0 as libc::c_long,
        ) == 0
    }
}

/// Registers this process as a target of [`heavy`] barriers (once per process). Returns
/// whether the fast side may be used: false without kernel support, and always under miri.
pub fn register() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        if cfg!(miri) || std::env::var_os("NERVE_NO_SOLO").is_some() {
            return false;
        }
        #[cfg(target_os = "linux")]
        {
            let ok = membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED);
            if !ok {
                tracing::debug!(
                    "membarrier unavailable: single-publisher topics use locked claims"
                );
            }
            ok
        }
        #[cfg(not(target_os = "linux"))]
        false
    })
}

/// The fast side: orders this thread's accesses for the compiler only. Correct only in pairing
/// with a [`heavy`] barrier on the other side, and only after [`register`] returned true.
#[inline(always)]
pub fn light() {
    // SeqCst: no memory access of this thread moves across it in compilation; the CPU-level
    // order comes from the `heavy` barrier it pairs with, run by the other side.
    compiler_fence(SeqCst);
}

/// The slow side: a full barrier on every CPU running a registered process, then on this one.
/// Falls back to a local full fence when the call fails; callers that depend on it for
/// correctness are only reached when some process registered, so the kernel supports it.
pub fn heavy() {
    // SeqCst: full fences before and after the membarrier, which pairs with the other side's
    // `light` barrier; without the call (it failed), they are at least this thread's part.
    fence(SeqCst);
    #[cfg(target_os = "linux")]
    if !cfg!(miri) && !membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) {
        tracing::warn!(
            "membarrier(GLOBAL_EXPEDITED) failed: {}",
            std::io::Error::last_os_error()
        );
    }
    // SeqCst: the closing half of the pair above.
    fence(SeqCst);
}
