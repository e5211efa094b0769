//! nerve's exceptions: one class per Rust error variant, named like it (`nerve.TypeMismatch`,
//! ...), raised with the Rust error's message; and the conversions from Rust's errors.
//!
//! The services' and actions' exceptions (`rpc.rs`, `action.rs`) derive from [`NerveError`]
//! too.
//!
//! Two classes have two bases, so that a user catches them either way: `InvalidConfig` is an
//! `OpenError` and a `ValueError` (a bad argument value), and each operation's corruption
//! (`OpenCorrupt`, `SendCorrupt`, `RecvCorrupt`) is a `Corrupt` and that operation's error.
//!
//! [`guard`] runs the body of every entry point of the module: a Rust panic becomes
//! [`InternalError`] instead of pyo3's `PanicException`, a `BaseException` that
//! `except Exception` lets through.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};
use pyo3::{ffi, PyTypeInfo};

/// `create_exception!` for a class with several bases (`PyErr_NewExceptionWithDoc` takes a
/// tuple of them): a marker type whose `PyTypeInfo` makes the class once per interpreter.
macro_rules! exception_with_bases {
    ($name:ident, [$($base:ty),+], $doc:literal) => {
        #[doc = $doc]
        pub(crate) struct $name;

        // SAFETY: `type_object_raw` returns the class made below, a type object kept alive by
        // the static for the life of the interpreter, never null (a failure to make it panics,
        // at import, as `create_exception!` does).
        unsafe impl PyTypeInfo for $name {
            const NAME: &'static str = stringify!($name);
            const MODULE: Option<&'static str> = Some("nerve");
            fn type_object_raw(py: Python<'_>) -> *mut ffi::PyTypeObject {
                static TYPE_OBJECT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
                TYPE_OBJECT
                    .get_or_init(py, || {
                        let bases = PyTuple::new(py, [$(py.get_type::<$base>()),+])
                            .expect("a tuple of classes");
                        // SAFETY: valid NUL-terminated name and doc, a tuple of exception
                        // classes as bases, no dict; returns a new reference or null.
                        let ptr = unsafe {
                            ffi::PyErr_NewExceptionWithDoc(
                                concat!("nerve.", stringify!($name), "\0").as_ptr().cast(),
                                concat!($doc, "\0").as_ptr().cast(),
                                bases.as_ptr(),
                                std::ptr::null_mut(),
                            )
                        };
                        // SAFETY: a new reference (or null with an error set).
                        unsafe { Py::from_owned_ptr_or_err(py, ptr) }
                            .and_then(|t| Ok(t.into_bound(py).downcast_into::<PyType>()?.unbind()))
                            .expect("nerve: making an exception class failed")
                    })
                    .as_ptr()
                    .cast()
            }
        }

        impl $name {
            /// A new exception of this class.
            pub(crate) fn new_err<A>(args: A) -> PyErr
            where
                A: pyo3::PyErrArguments + Send + Sync + 'static,
            {
                PyErr::new::<$name, A>(args)
            }
        }
    };
}

create_exception!(
    nerve,
    NerveError,
    PyException,
    "Base class of every nerve error."
);
create_exception!(
    nerve,
    OpenError,
    NerveError,
    "Opening a topic, publisher or subscriber failed."
);
create_exception!(
    nerve,
    InvalidName,
    OpenError,
    "The topic name is not valid."
);
create_exception!(
    nerve,
    TypeMismatch,
    OpenError,
    "The topic exists with another message type."
);
create_exception!(
    nerve,
    QosMismatch,
    OpenError,
    "The topic exists with another QoS than the one requested."
);
create_exception!(
    nerve,
    Corrupt,
    NerveError,
    "A topic's shared memory failed validation (whichever operation found it: catch this)."
);
create_exception!(
    nerve,
    TooManyEndpoints,
    OpenError,
    "Every endpoint record of the topic is in use."
);
exception_with_bases!(
    InvalidConfig,
    [OpenError, PyValueError],
    "A configuration value is out of range (also a ValueError)."
);
exception_with_bases!(
    OpenCorrupt,
    [Corrupt, OpenError],
    "Opening: the topic's shared-memory segment failed validation."
);
create_exception!(nerve, Io, OpenError, "The operating system refused.");
create_exception!(
    nerve,
    NotFound,
    OpenError,
    "The topic does not exist (joining a topic as it is)."
);
create_exception!(
    nerve,
    NoSpace,
    NerveError,
    "The shared-memory file system is full (whichever operation found it: catch this)."
);
exception_with_bases!(
    OpenNoSpace,
    [NoSpace, OpenError],
    "Opening: /dev/shm has no room for the topic's segment."
);
create_exception!(
    nerve,
    Busy,
    OpenError,
    "A live process held what the open had to wait for, and did not let go in time."
);
create_exception!(nerve, SendError, NerveError, "Sending failed.");
create_exception!(
    nerve,
    Full,
    SendError,
    "Reliable topic: the slowest subscriber stayed a full ring behind."
);
create_exception!(
    nerve,
    TooLarge,
    SendError,
    "The message does not fit a chunk of the topic."
);
create_exception!(
    nerve,
    PoolExhausted,
    SendError,
    "Every chunk of the topic's pool is in use."
);
create_exception!(
    nerve,
    Encode,
    SendError,
    "The message could not be encoded."
);
exception_with_bases!(
    SendNoSpace,
    [NoSpace, SendError],
    "Loaning: /dev/shm has no room for the chunk; nothing was sent."
);
exception_with_bases!(
    SendCorrupt,
    [Corrupt, SendError],
    "Sending: the topic's shared memory is damaged; nothing was sent."
);
create_exception!(nerve, RecvError, NerveError, "Receiving failed.");
create_exception!(
    nerve,
    Timeout,
    RecvError,
    "No message arrived within the timeout."
);
create_exception!(nerve, Decode, RecvError, "A message could not be decoded.");
exception_with_bases!(
    RecvCorrupt,
    [Corrupt, RecvError],
    "Receiving: the topic's shared memory is damaged."
);
create_exception!(
    nerve,
    InternalError,
    NerveError,
    "A bug in nerve (a Rust panic, caught): the message names the operation; please report it."
);

/// Adds the exception classes above to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("NerveError", py.get_type::<NerveError>())?;
    m.add("OpenError", py.get_type::<OpenError>())?;
    m.add("InvalidName", py.get_type::<InvalidName>())?;
    m.add("TypeMismatch", py.get_type::<TypeMismatch>())?;
    m.add("QosMismatch", py.get_type::<QosMismatch>())?;
    m.add("Corrupt", py.get_type::<Corrupt>())?;
    m.add("OpenCorrupt", py.get_type::<OpenCorrupt>())?;
    m.add("SendCorrupt", py.get_type::<SendCorrupt>())?;
    m.add("RecvCorrupt", py.get_type::<RecvCorrupt>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add("TooManyEndpoints", py.get_type::<TooManyEndpoints>())?;
    m.add("InvalidConfig", py.get_type::<InvalidConfig>())?;
    m.add("Io", py.get_type::<Io>())?;
    m.add("NotFound", py.get_type::<NotFound>())?;
    m.add("SendError", py.get_type::<SendError>())?;
    m.add("Full", py.get_type::<Full>())?;
    m.add("TooLarge", py.get_type::<TooLarge>())?;
    m.add("PoolExhausted", py.get_type::<PoolExhausted>())?;
    m.add("Encode", py.get_type::<Encode>())?;
    m.add("NoSpace", py.get_type::<NoSpace>())?;
    m.add("OpenNoSpace", py.get_type::<OpenNoSpace>())?;
    m.add("SendNoSpace", py.get_type::<SendNoSpace>())?;
    m.add("Busy", py.get_type::<Busy>())?;
    m.add("RecvError", py.get_type::<RecvError>())?;
    m.add("Timeout", py.get_type::<Timeout>())?;
    m.add("Decode", py.get_type::<Decode>())?;
    Ok(())
}

/// The exception of an open error's variant.
pub(crate) fn open_err(e: nerve::OpenError) -> PyErr {
    use nerve::OpenError as E;
    let msg = e.to_string();
    match e {
        E::InvalidName { .. } => InvalidName::new_err(msg),
        E::TypeMismatch { .. } => TypeMismatch::new_err(msg),
        E::QosMismatch { .. } => QosMismatch::new_err(msg),
        E::Corrupt { .. } => OpenCorrupt::new_err(msg),
        E::TooManyEndpoints { .. } => TooManyEndpoints::new_err(msg),
        E::InvalidConfig { .. } => InvalidConfig::new_err(msg),
        E::Io { .. } => Io::new_err(msg),
        E::NotFound { .. } => NotFound::new_err(msg),
        E::NoSpace { .. } => OpenNoSpace::new_err(msg),
        E::Busy { .. } => Busy::new_err(msg),
    }
}

/// The exception of a send error's variant (the unsent message is dropped).
pub(crate) fn send_err<T>(e: nerve::SendError<T>) -> PyErr {
    use nerve::SendError as E;
    let msg = e.to_string();
    match e {
        E::Full { .. } => Full::new_err(msg),
        E::TooLarge { .. } => TooLarge::new_err(msg),
        E::PoolExhausted { .. } => PoolExhausted::new_err(msg),
        E::Encode { .. } => Encode::new_err(msg),
        E::Corrupt { .. } => SendCorrupt::new_err(msg),
        E::NoSpace { .. } => SendNoSpace::new_err(msg),
    }
}

/// The exception of a receive error's variant.
pub(crate) fn recv_err(e: nerve::RecvError) -> PyErr {
    use nerve::RecvError as E;
    let msg = e.to_string();
    match e {
        E::Timeout { .. } => Timeout::new_err(msg),
        E::Decode { .. } => Decode::new_err(msg),
        E::Corrupt { .. } => RecvCorrupt::new_err(msg),
    }
}

/// Runs the body of an entry point of the module (a method, getter, constructor, slot or
/// function Python calls): its result, or `InternalError` naming `op` (`"Subscriber.recv"`) if
/// it panicked. A panic is a bug in nerve; it never reaches Python as pyo3's `PanicException`.
///
/// Every `#[pymethods]` and `#[pyfunction]` body is one call of this (checked by
/// `tests/test_hostile.py`).
pub(crate) fn guard<T>(op: &'static str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    // The state a panic leaves behind is nerve's own (poisoned locks are recovered by
    // `nerve::sys::lock`); what Python sees is only the error.
    catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(internal_error(op, &*payload)))
}

/// Panics inside a guarded entry point: how the tests check that a panic reaches Python as
/// `InternalError` (no entry point is known to panic; this one always does).
#[pyfunction]
pub(crate) fn _panic_for_tests(message: &str) -> PyResult<()> {
    guard("_panic_for_tests", || panic!("{message}"))
}

/// The `InternalError` of a panic in `op`, with the panic's message.
pub(crate) fn internal_error(op: &str, payload: &(dyn Any + Send)) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message");
    InternalError::new_err(format!(
        "nerve: internal error in {op}: {what}. This is a bug in nerve, not in your program: \
         please report it with this message"
    ))
}
