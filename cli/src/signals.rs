//! Ctrl-C and SIGTERM for the verbs that run until stopped (`demo`, `record`, `play`): the
//! handler only sets a flag, which the verb's loop reads, so every verb ends its own way (the
//! demo stops its children, the recorder finalizes its file).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // Relaxed: a flag polled by the main loop; it hands over no data.
    STOP.store(true, Ordering::Relaxed);
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
}

/// Whether SIGINT or SIGTERM arrived since [`install`].
pub fn stopped() -> bool {
    // Relaxed: see `on_signal`.
    STOP.load(Ordering::Relaxed)
}
