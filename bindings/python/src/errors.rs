//! nerve's exceptions: one class per Rust error variant, named like it (`nerve.TypeMismatch`,
//! ...), raised with the Rust error's message; and the conversions from Rust's errors.
//!
//! The services' and actions' exceptions (`rpc.rs`, `action.rs`) derive from [`NerveError`]
//! too.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

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
    OpenError,
    "The shared-memory segment failed validation."
);
create_exception!(
    nerve,
    TooManyEndpoints,
    OpenError,
    "Every endpoint record of the topic is in use."
);
create_exception!(
    nerve,
    InvalidConfig,
    OpenError,
    "A configuration value is out of range."
);
create_exception!(nerve, Io, OpenError, "The operating system refused.");
create_exception!(
    nerve,
    NoSpace,
    OpenError,
    "The shared-memory file system has no room for the topic."
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
create_exception!(nerve, RecvError, NerveError, "Receiving failed.");
create_exception!(
    nerve,
    Timeout,
    RecvError,
    "No message arrived within the timeout."
);
create_exception!(nerve, Decode, RecvError, "A message could not be decoded.");

/// Adds the exception classes above to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("NerveError", py.get_type::<NerveError>())?;
    m.add("OpenError", py.get_type::<OpenError>())?;
    m.add("InvalidName", py.get_type::<InvalidName>())?;
    m.add("TypeMismatch", py.get_type::<TypeMismatch>())?;
    m.add("QosMismatch", py.get_type::<QosMismatch>())?;
    m.add("Corrupt", py.get_type::<Corrupt>())?;
    m.add("TooManyEndpoints", py.get_type::<TooManyEndpoints>())?;
    m.add("InvalidConfig", py.get_type::<InvalidConfig>())?;
    m.add("Io", py.get_type::<Io>())?;
    m.add("SendError", py.get_type::<SendError>())?;
    m.add("Full", py.get_type::<Full>())?;
    m.add("TooLarge", py.get_type::<TooLarge>())?;
    m.add("PoolExhausted", py.get_type::<PoolExhausted>())?;
    m.add("Encode", py.get_type::<Encode>())?;
    m.add("NoSpace", py.get_type::<NoSpace>())?;
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
        E::Corrupt { .. } => Corrupt::new_err(msg),
        E::TooManyEndpoints { .. } => TooManyEndpoints::new_err(msg),
        E::InvalidConfig { .. } => InvalidConfig::new_err(msg),
        E::Io { .. } => Io::new_err(msg),
        E::NoSpace { .. } => NoSpace::new_err(msg),
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
        E::Corrupt { .. } => Corrupt::new_err(msg),
        E::NoSpace { .. } => NoSpace::new_err(msg),
    }
}

/// The exception of a receive error's variant.
pub(crate) fn recv_err(e: nerve::RecvError) -> PyErr {
    use nerve::RecvError as E;
    let msg = e.to_string();
    match e {
        E::Timeout { .. } => Timeout::new_err(msg),
        E::Decode { .. } => Decode::new_err(msg),
        E::Corrupt { .. } => Corrupt::new_err(msg),
    }
}
