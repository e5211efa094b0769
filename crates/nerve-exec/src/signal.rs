//! SIGINT/SIGTERM → an atomic flag and a futex wake; the scheduler then stops cleanly.

use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32, Ordering};

use nerve_transport::sys::futex;

static SIGNALLED: AtomicI32 = AtomicI32::new(0);
static WAKE: AtomicPtr<AtomicU32> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: atomic stores and a raw futex syscall.
    SIGNALLED.store(sig, Ordering::SeqCst);
    let p = WAKE.load(Ordering::SeqCst);
    if !p.is_null() {
        // SAFETY: WAKE is set by SignalGuard::install to a word that outlives the guard, and
        // the guard nulls it before it is dropped.
        let word = unsafe { &*p };
        word.fetch_add(1, Ordering::SeqCst);
        futex::wake_all_private(word);
    }
}

/// Takes the pending signal number, if SIGINT/SIGTERM arrived since the last call.
pub(crate) fn take_signal() -> Option<i32> {
    match SIGNALLED.swap(0, Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Installs the SIGINT/SIGTERM handlers while alive; restores the previous ones on drop.
pub(crate) struct SignalGuard {
    old: [(libc::c_int, libc::sigaction); 2],
}

impl SignalGuard {
    /// `word` must outlive the guard.
    pub(crate) fn install(word: &AtomicU32) -> std::io::Result<Self> {
        WAKE.store(word as *const AtomicU32 as *mut AtomicU32, Ordering::SeqCst);
        SIGNALLED.store(0, Ordering::SeqCst);
        let mut old = [
            // SAFETY: sigaction is plain data; all-zero is a valid (default) value.
            (libc::SIGINT, unsafe {
                std::mem::zeroed::<libc::sigaction>()
            }),
            // SAFETY: as above.
            (libc::SIGTERM, unsafe {
                std::mem::zeroed::<libc::sigaction>()
            }),
        ];
        for (sig, prev) in old.iter_mut() {
            // SAFETY: all-zero sigaction is valid; we then set the handler and an empty mask.
            let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            // SAFETY: sa.sa_mask is a valid sigset_t to initialise.
            unsafe { libc::sigemptyset(&mut sa.sa_mask) };
            // SAFETY: `sa` and `prev` are valid; the handler is async-signal-safe (see above).
            if unsafe { libc::sigaction(*sig, &sa, prev) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(Self { old })
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: `prev` is the action sigaction returned for this signal earlier.
            unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
        }
        WAKE.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}
