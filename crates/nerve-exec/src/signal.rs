//! SIGINT/SIGTERM → an atomic flag and a futex wake; the scheduler then stops cleanly.
//!
//! Who touches what: the handler ([`on_signal`]) runs on whichever thread the kernel picks,
//! possibly while the thread that runs the scheduler installs or restores the handlers
//! ([`SignalGuard`]). The wake word belongs to the scheduler and lives only as long as it, so
//! the guard, once it has taken the word away from [`WAKE`], waits for every handler that may
//! still hold it ([`IN_HANDLER`]) before the word's owner may go.

use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32, Ordering};

use nerve_transport::sys::futex;

/// The signal that arrived last and was not taken yet; 0: none.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);
/// The word the scheduler's wait loop sleeps on while a [`SignalGuard`] lives; null otherwise.
static WAKE: AtomicPtr<AtomicU32> = AtomicPtr::new(std::ptr::null_mut());
/// Handlers between their look at [`WAKE`] and their last use of the word it gave them.
static IN_HANDLER: AtomicU32 = AtomicU32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: atomic operations and a raw futex syscall.
    //
    // Relaxed: published by the Release increment of the wake word below, which the wait
    // loop reads with Acquire before it calls take_signal().
    SIGNALLED.store(sig, Ordering::Relaxed);
    // SeqCst, with the load of WAKE below and SignalGuard::drop()'s store of WAKE and load of
    // IN_HANDLER: a store then a load on each side, of the other side's variable (the
    // store-buffer pattern), which only a single total order of the four rules out both
    // missing each other. With it, either this handler reads WAKE after the guard nulled it
    // (and never touches the word), or the guard's load of IN_HANDLER sees this increment
    // (and waits for the decrement below). Acquire/Release would let both loads read the old
    // values, and the handler use a word that is already gone.
    IN_HANDLER.fetch_add(1, Ordering::SeqCst);
    // SeqCst: the other half of the store-buffer pattern above. Also Acquire for the pointer:
    // pairs with the Release store in SignalGuard::install(), so the word it points to is
    // seen initialised.
    let p = WAKE.load(Ordering::SeqCst);
    if !p.is_null() {
        // SAFETY: WAKE points at a word that outlives the guard which set it
        // (SignalGuard::install's contract), and the guard, when dropped, nulls WAKE and then
        // waits until IN_HANDLER (incremented above, before this handler read WAKE) is back
        // to 0, so the word lives until after the decrement below.
        let word = unsafe { &*p };
        // pairs with the Acquire load of the word in the scheduler's wait loop
        // (run::wait_for_end()): it then sees SIGNALLED in take_signal().
        word.fetch_add(1, Ordering::Release);
        futex::wake_all_private(word);
    }
    // pairs with the SeqCst (Acquire) load in SignalGuard::drop(): this handler's use of the
    // word happens before the guard returns.
    IN_HANDLER.fetch_sub(1, Ordering::Release);
}

/// Takes the pending signal number, if SIGINT/SIGTERM arrived since the last call.
pub(crate) fn take_signal() -> Option<i32> {
    // Relaxed: the caller loaded the wake word with Acquire first (run::wait_for_end()), which
    // orders this after the store of a handler whose kick it saw; and a read-modify-write
    // reads the last value in SIGNALLED's modification order, so no signal is taken twice.
    match SIGNALLED.swap(0, Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// Installs the SIGINT/SIGTERM handlers while alive; restores the previous ones on drop.
pub(crate) struct SignalGuard {
    old: [(libc::c_int, libc::sigaction); 2],
    /// How many of `old` were replaced (and are restored on drop).
    installed: usize,
}

impl SignalGuard {
    /// `word` must outlive the guard; the handlers increment it and wake its waiters.
    pub(crate) fn install(word: &AtomicU32) -> std::io::Result<Self> {
        // pairs with the SeqCst (so Acquire) load in on_signal(), so a handler on another
        // thread sees the word initialised; set before the handlers exist. Not part of the
        // store-buffer pattern (no handler of ours can run before the sigaction below).
        WAKE.store(
            word as *const AtomicU32 as *mut AtomicU32,
            Ordering::Release,
        );
        // Relaxed: a leftover from an earlier run; only this thread calls take_signal(), and
        // no handler of ours is installed yet.
        SIGNALLED.store(0, Ordering::Relaxed);
        let old = [
            // SAFETY: sigaction is plain data; all-zero is a valid (default) value.
            (libc::SIGINT, unsafe {
                std::mem::zeroed::<libc::sigaction>()
            }),
            // SAFETY: as above.
            (libc::SIGTERM, unsafe {
                std::mem::zeroed::<libc::sigaction>()
            }),
        ];
        // From here on, dropping the guard undoes what was done, also on an error.
        let mut guard = Self { old, installed: 0 };
        for (sig, prev) in guard.old.iter_mut() {
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
            guard.installed += 1;
        }
        Ok(guard)
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for (sig, prev) in &self.old[..self.installed] {
            // SAFETY: `prev` is the action sigaction returned for this signal earlier.
            unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
        }
        // SeqCst, with the load below: the guard's half of the store-buffer pattern explained
        // in on_signal(). A handler that starts from now on finds no word.
        WAKE.store(std::ptr::null_mut(), Ordering::SeqCst);
        // SeqCst (also Acquire: pairs with the Release decrement in on_signal()). A handler
        // that read the word before the store above is counted here; wait until it is done
        // with the word (a few instructions and one system call, it never blocks; sleeping
        // rather than spinning lets it finish even if it was preempted on this CPU by a
        // thread of ours at a higher priority).
        while IN_HANDLER.load(Ordering::SeqCst) != 0 {
            std::thread::sleep(std::time::Duration::from_micros(10));
        }
    }
}
