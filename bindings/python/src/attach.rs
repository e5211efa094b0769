//! Calls into Python from threads nerve created (scheduler lanes, service workers).
//!
//! `Python::attach` on a thread without a Python thread state creates one and deletes it again
//! when it returns. Python 3.11 also maps a fresh frame stack for each new state and unmaps it
//! with the state: several microseconds and two page faults on every call. [`attach_kept`]
//! keeps one state for the thread's life instead, so later calls only take and drop the GIL.

use std::cell::RefCell;

use pyo3::prelude::*;

/// This thread's kept Python state; released when the thread ends (see [`Kept::drop`]).
struct Kept {
    gstate: pyo3::ffi::PyGILState_STATE,
    saved: *mut pyo3::ffi::PyThreadState,
}

impl Drop for Kept {
    fn drop(&mut self) {
        // SAFETY: `saved` is this thread's state, saved by `PyEval_SaveThread` in `attach_kept`
        // on this same thread (thread-locals are dropped on their own thread), and `gstate` is
        // what the matching `PyGILState_Ensure` returned. The threads that ask for release
        // (scheduler lanes) end inside `Scheduler.run`, while the interpreter is running; the
        // check below skips the release if it is not.
        unsafe {
            if pyo3::ffi::Py_IsInitialized() != 0 {
                pyo3::ffi::PyEval_RestoreThread(self.saved);
                pyo3::ffi::PyGILState_Release(self.gstate);
            }
        }
    }
}

thread_local! {
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
    static LEAKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the GIL on a thread nerve created, keeping the thread's Python state between
/// calls. `release_at_exit`: give the state back when the thread ends — for threads known to
/// end while the interpreter runs (scheduler lanes, joined inside `run`). Threads that may
/// outlive it (service workers, whose server can be dropped at interpreter exit) keep it for
/// the process's life: one state per thread.
pub(crate) fn attach_kept<R>(release_at_exit: bool, f: impl FnOnce(Python<'_>) -> R) -> R {
    let kept = KEPT.with_borrow(Option::is_some) || LEAKED.get();
    if !kept {
        // SAFETY: the interpreter is initialised (the node or handler was registered from
        // Python, and `Python::attach` below needs no more than these calls do), and this
        // thread holds no GIL (nerve's threads take it only inside `attach_kept`).
        // `PyGILState_Ensure` creates this thread's state and takes the GIL;
        // `PyEval_SaveThread` drops the GIL and keeps the state. Its gilstate counter stays at
        // 1, so the `PyGILState_Ensure` / `PyGILState_Release` pair inside `Python::attach`
        // reuses the state instead of creating and deleting one.
        let k = unsafe {
            let gstate = pyo3::ffi::PyGILState_Ensure();
            let saved = pyo3::ffi::PyEval_SaveThread();
            Kept { gstate, saved }
        };
        if release_at_exit {
            KEPT.set(Some(k));
        } else {
            std::mem::forget(k);
            LEAKED.set(true);
        }
    }
    Python::attach(f)
}
