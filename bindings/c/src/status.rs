//! Status codes, the calling thread's last error, and the guard every entry point runs in (no
//! Rust panic crosses into C).

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use nerve::{OpenError, RecvError, SendError};

/// Success.
pub const NERVE_OK: i32 = 0;
/// Nothing to receive: `nerve_recv` found no message within its timeout. Not a failure;
/// `nerve_last_error()` is not set.
pub const NERVE_EMPTY: i32 = 1;
/// A null pointer, a length that does not fit, a string that is not UTF-8, an option out of
/// range.
pub const NERVE_E_INVALID_ARGUMENT: i32 = -1;
/// The handle was closed (or released) before this call.
pub const NERVE_E_CLOSED: i32 = -2;
/// Joining a topic that does not exist.
pub const NERVE_E_NOT_FOUND: i32 = -3;
/// The topic exists with another type (the text names both and the first field that differs).
pub const NERVE_E_TYPE_MISMATCH: i32 = -4;
/// The topic exists with other QoS settings.
pub const NERVE_E_QOS_MISMATCH: i32 = -5;
/// The topic's shared memory is damaged.
pub const NERVE_E_CORRUPT: i32 = -6;
/// The shared-memory file system is full.
pub const NERVE_E_NO_SPACE: i32 = -7;
/// A reliable topic stayed full for the publisher's whole timeout, or the chunk pool is
/// exhausted.
pub const NERVE_E_FULL: i32 = -8;
/// A message larger than the topic allows.
pub const NERVE_E_TOO_LARGE: i32 = -9;
/// The caller's buffer cannot hold the message (the needed length is returned).
pub const NERVE_E_BUFFER_TOO_SMALL: i32 = -10;
/// A call that does not fit the topic's kind of message (bytes for a chunked type, a loan for
/// a fixed one), or a size that is not the type's.
pub const NERVE_E_WRONG_SIZE: i32 = -11;
/// The handle is in use by another thread right now (a subscriber receives on one thread at a
/// time).
pub const NERVE_E_BUSY: i32 = -12;
/// Every endpoint record of the topic is taken.
pub const NERVE_E_TOO_MANY_ENDPOINTS: i32 = -13;
/// The operating system refused.
pub const NERVE_E_IO: i32 = -14;
/// nerve panicked: a bug in nerve (the text says where). The handle may be unusable.
pub const NERVE_E_PANIC: i32 = -99;

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

/// Why a call failed: its status code and its text. Boxed, so a call's `Res<i32>` is two
/// words and comes back in registers: every call pays for the size of its result type, a
/// failure's allocation only when it fails.
#[derive(Debug)]
pub(crate) struct Failure(Box<(i32, String)>);

impl Failure {
    /// The status code.
    pub fn code(&self) -> i32 {
        self.0 .0
    }

    /// The text.
    pub fn message(&self) -> &str {
        &self.0 .1
    }
}

pub(crate) type Res<T> = Result<T, Failure>;

pub(crate) fn fail(code: i32, message: impl Into<String>) -> Failure {
    Failure(Box::new((code, message.into())))
}

fn set_last(message: &str) {
    // A NUL inside a message would cut it short in C: shown as a space instead.
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = c);
}

/// Runs an entry point's body: its status code, or the failure's code with its text kept for
/// `nerve_last_error()`; a panic is `NERVE_E_PANIC`.
pub(crate) fn guard(what: &str, body: impl FnOnce() -> Res<i32>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(code)) => code,
        Ok(Err(f)) => {
            set_last(f.message());
            f.code()
        }
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            set_last(&format!("{what}: nerve panicked ({why}); please report it"));
            NERVE_E_PANIC
        }
    }
}

/// The status code of an open error.
pub(crate) fn open_code(e: &OpenError) -> i32 {
    match e {
        OpenError::InvalidName { .. } | OpenError::InvalidConfig { .. } => NERVE_E_INVALID_ARGUMENT,
        OpenError::NotFound { .. } => NERVE_E_NOT_FOUND,
        OpenError::TypeMismatch { .. } => NERVE_E_TYPE_MISMATCH,
        OpenError::QosMismatch { .. } => NERVE_E_QOS_MISMATCH,
        OpenError::Corrupt { .. } => NERVE_E_CORRUPT,
        OpenError::TooManyEndpoints { .. } => NERVE_E_TOO_MANY_ENDPOINTS,
        OpenError::NoSpace { .. } => NERVE_E_NO_SPACE,
        OpenError::Busy { .. } => NERVE_E_BUSY,
        _ => NERVE_E_IO,
    }
}

impl From<OpenError> for Failure {
    fn from(e: OpenError) -> Self {
        fail(open_code(&e), e.to_string())
    }
}

/// The status code of a send error.
pub(crate) fn send_code(e: &SendError<()>) -> i32 {
    match e {
        SendError::Full { .. } | SendError::PoolExhausted { .. } => NERVE_E_FULL,
        SendError::TooLarge { .. } => NERVE_E_TOO_LARGE,
        SendError::NoSpace { .. } => NERVE_E_NO_SPACE,
        SendError::Encode { .. } => NERVE_E_WRONG_SIZE,
        SendError::Corrupt { .. } => NERVE_E_CORRUPT,
    }
}

impl From<SendError<()>> for Failure {
    fn from(e: SendError<()>) -> Self {
        fail(send_code(&e), e.to_string())
    }
}

impl From<RecvError> for Failure {
    fn from(e: RecvError) -> Self {
        let code = match &e {
            RecvError::Corrupt { .. } => NERVE_E_CORRUPT,
            _ => NERVE_E_IO,
        };
        fail(code, e.to_string())
    }
}

/// The text of this thread's last failed call (`""` if none): the same text as nerve's Rust
/// errors, naming the topic and what to do. Valid until this thread's next failing call; copy
/// it to keep it.
#[no_mangle]
pub extern "C" fn nerve_last_error() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}
