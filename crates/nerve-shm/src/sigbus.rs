//! Surviving a segment truncated under a live mapping.
//!
//! Any process of the same user can shrink a segment's file (`truncate`, a crashed tool, a
//! hostile program). Touching a page of a shared mapping past the file's new end raises
//! SIGBUS, which by default kills the process. nerve registers every segment mapping here;
//! the first registration installs a SIGBUS handler that, for a fault inside a registered
//! mapping, maps a private zero page over the faulting page (so the access completes, reading
//! zeros) and marks the mapping *damaged*. The transport checks that mark on its slow paths
//! and reports `Corrupt` naming the topic; nothing is delivered from a damaged segment as a
//! message (a zero sequence word reads as "no message").
//!
//! A fault outside every registered mapping goes to the handler that was installed before
//! ours (or to the default action, which ends the process as it would have without nerve).
//!
//! The handler is async-signal-safe: it reads atomics and makes one `mmap` system call.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::*};
use std::sync::OnceLock;

/// Mappings one process can register (a topic is one mapping).
const SLOTS: usize = 8192;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    damaged: AtomicBool,
    /// A flag of the mapping's owner, set with `damaged` (see `Registration::watch`).
    watcher: AtomicPtr<AtomicBool>,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    damaged: AtomicBool::new(false),
    watcher: AtomicPtr::new(std::ptr::null_mut()),
};

static MAPPINGS: [Slot; SLOTS] = [EMPTY; SLOTS];

/// The action that was installed for SIGBUS before nerve's (chained to for other faults).
static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

/// A registered mapping; unregistered when dropped.
pub struct Registration(Option<usize>);

impl Registration {
    /// A registration that protects nothing.
    pub fn none() -> Self {
        Registration(None)
    }

    /// Also sets `flag` when the mapping is found damaged (now, if it already is): an owner
    /// checks a flag of its own on hot paths, next to what it reads there anyway.
    ///
    /// # Safety
    /// `flag` must stay valid until this registration is dropped.
    pub unsafe fn watch(&self, flag: &AtomicBool) {
        if let Some(i) = self.0 {
            MAPPINGS[i]
                .watcher
                .store(flag as *const AtomicBool as *mut AtomicBool, Relaxed);
            if MAPPINGS[i].damaged.load(Relaxed) {
                flag.store(true, Relaxed);
            }
        }
    }

    /// Whether a fault past the end of the file has been absorbed in this mapping.
    pub fn damaged(&self) -> bool {
        self.flag().load(Relaxed)
    }

    /// The flag the handler sets for this mapping (a flag that never gets set when the
    /// mapping is not registered), for callers that check it on every operation.
    pub fn flag(&self) -> &'static AtomicBool {
        static NEVER: AtomicBool = AtomicBool::new(false);
        self.0.map_or(&NEVER, |i| &MAPPINGS[i].damaged)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            MAPPINGS[i].watcher.store(std::ptr::null_mut(), Relaxed);
            MAPPINGS[i].end.store(0, Relaxed);
            // Release pairs with the Acquire CAS of `start` in `register`: the slot's next
            // owner sees it cleared.
            MAPPINGS[i].start.store(0, Release);
        }
    }
}

/// Registers the mapping `[start, start + len)`, installing the handler on first use. A
/// registration that finds no free slot (thousands of topics in one process) or no handler
/// (a platform without `sigaction`) protects nothing and says so once.
pub fn register(start: *mut u8, len: usize) -> Registration {
    if !install() {
        return Registration(None);
    }
    let (start, end) = (start as usize, (start as usize).saturating_add(len));
    for (i, slot) in MAPPINGS.iter().enumerate() {
        // Acquire pairs with the Release store of 0 in `Registration::drop`.
        if slot.start.load(Acquire) == 0
            && slot
                .start
                // Acquire pairs with the Release store in `Registration::drop`; the slot is
                // ours once the CAS succeeds (its `end` is still 0, so the handler skips it).
                .compare_exchange(0, start, Acquire, Relaxed)
                .is_ok()
        {
            slot.damaged.store(false, Relaxed);
            slot.watcher.store(std::ptr::null_mut(), Relaxed);
            // Release pairs with the Acquire load of `end` in the handler: a fault that sees
            // the range sees the slot's other words.
            slot.end.store(end, Release);
            return Registration(Some(i));
        }
    }
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Relaxed) {
        tracing::warn!("more than {SLOTS} shared-memory mappings in this process: the newest are not protected against a file truncated under them");
    }
    Registration(None)
}

/// Installs the handler once; false when that failed.
fn install() -> bool {
    #[cfg(target_os = "linux")]
    {
        PREVIOUS
            .get_or_init(|| {
                // SAFETY: a zeroed sigaction is valid; we fill in the handler and flags, and
                // sigaction only reads `action` and writes `previous`.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_sigbus as *const () as usize;
                    action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut previous: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(libc::SIGBUS, &action, &mut previous) != 0 {
                        tracing::warn!(
                            "cannot install a SIGBUS handler ({}): a segment truncated under this process will end it",
                            std::io::Error::last_os_error()
                        );
                        return None;
                    }
                    Some(previous)
                }
            })
            .is_some()
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// The SIGBUS handler (see the module documentation).
#[cfg(target_os = "linux")]
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    for slot in MAPPINGS.iter() {
        // Acquire pairs with the Release store of `end` in `register`.
        let end = slot.end.load(Acquire);
        let start = slot.start.load(Relaxed);
        if start != 0 && start <= addr && addr < end {
            let page = addr & !4095;
            // SAFETY: replaces one page of our own registered mapping with a private zero
            // page; the mapping stays ours until `munmap` on drop, which unmaps the range
            // including this page.
            let p = unsafe {
                libc::mmap(
                    page as *mut libc::c_void,
                    4096,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                slot.damaged.store(true, Relaxed);
                let watcher = slot.watcher.load(Relaxed);
                if !watcher.is_null() {
                    // SAFETY: a watcher stays valid while the mapping is registered
                    // (`Registration::watch`), and it is: the fault is inside it.
                    unsafe { (*watcher).store(true, Relaxed) };
                }
                return;
            }
            break;
        }
    }
    chain(sig, info, ctx);
}

/// Hands a fault that is not ours to the previous action: its handler, or the default.
#[cfg(target_os = "linux")]
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let previous = PREVIOUS.get().copied().flatten();
    match previous {
        Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
            if p.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: the previous handler was installed for SIGINFO delivery with this
                // signature; we forward what the kernel gave us.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(p.sa_sigaction) };
                f(sig, info, ctx);
            } else {
                // SAFETY: as above, for a plain handler.
                let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(p.sa_sigaction) };
                f(sig);
            }
        }
        _ => {
            // The default action: restore it; returning re-executes the faulting access, which
            // raises SIGBUS again and ends the process as it would have without nerve.
            // SAFETY: a zeroed sigaction with SIG_DFL is valid; signal-safe system call.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &dfl, std::ptr::null_mut());
            }
        }
    }
}
