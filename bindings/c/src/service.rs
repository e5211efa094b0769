//! Services from C: a client calling with request bytes into the caller's response buffer,
//! and a server running a C handler on nerve's threads. The same services as Rust's and
//! Python's: a C client calls a Rust server, a Python client a C one.

use std::ffi::{c_char, c_void};
use std::sync::Arc;
use std::time::Duration;

use nerve::rpc::{CallError, Failure, RawClient, RawResult, ServeError, Server, Service};

use crate::handle::{self, Handle, CLIENT_TAG, SERVER_TAG};
use crate::status::{
    fail, guard, Failure as CFailure, NERVE_E_BUFFER_TOO_SMALL, NERVE_E_INVALID_ARGUMENT, NERVE_OK,
};
use crate::topic::{bytes, domain_of, need_out, put, text};

/// The service has no live server.
pub const NERVE_E_NO_SERVER: i32 = -20;
/// No response within the call's timeout (the server is alive).
pub const NERVE_E_TIMEOUT: i32 = -21;
/// The server died or stopped during the call.
pub const NERVE_E_SERVER_DIED: i32 = -22;
/// The handler failed; the text is its message.
pub const NERVE_E_HANDLER: i32 = -23;
/// The server could not decode the request.
pub const NERVE_E_BAD_REQUEST: i32 = -24;
/// Another live server serves the service already.
pub const NERVE_E_ALREADY_SERVED: i32 = -25;

/// A service client (opaque).
#[allow(non_camel_case_types)]
pub struct nerve_client {
    _opaque: [u8; 0],
}

/// A running server (opaque); closing it stops serving.
#[allow(non_camel_case_types)]
pub struct nerve_server {
    _opaque: [u8; 0],
}

/// Where a C handler puts its answer (valid during the handler's call only).
#[allow(non_camel_case_types)]
pub struct nerve_reply {
    _opaque: [u8; 0],
}

/// A C handler: `request` (`request_len` bytes) in; answer with `nerve_reply_set` or
/// `nerve_reply_error` on `reply`, and return `NERVE_OK`. Runs on nerve's threads (as many at
/// once as the server has workers), with the `context` given at `nerve_server_open`.
#[allow(non_camel_case_types)]
pub type nerve_handler = Option<
    unsafe extern "C" fn(
        context: *mut c_void,
        request: *const u8,
        request_len: usize,
        reply: *mut nerve_reply,
    ) -> i32,
>;

impl From<CallError> for CFailure {
    fn from(e: CallError) -> Self {
        let code = match &e {
            CallError::NoServer { .. } => NERVE_E_NO_SERVER,
            CallError::Timeout { .. } => NERVE_E_TIMEOUT,
            CallError::ServerDied { .. } => NERVE_E_SERVER_DIED,
            CallError::Handler { .. } => NERVE_E_HANDLER,
            CallError::BadRequest { .. } => NERVE_E_BAD_REQUEST,
            CallError::Send { source, .. } => crate::status::send_code(source),
            CallError::Open { source, .. } => crate::status::open_code(source),
            _ => NERVE_E_INVALID_ARGUMENT,
        };
        fail(code, e.to_string())
    }
}

impl From<ServeError> for CFailure {
    fn from(e: ServeError) -> Self {
        let code = match &e {
            ServeError::AlreadyServed { .. } => NERVE_E_ALREADY_SERVED,
            ServeError::Open { source, .. } => crate::status::open_code(source),
            ServeError::TooManyWorkers { .. } => NERVE_E_INVALID_ARGUMENT,
            _ => crate::status::NERVE_E_IO,
        };
        fail(code, e.to_string())
    }
}

fn config(name: &str, domain: u32) -> nerve::rpc::ServiceConfig {
    Service::<(), ()>::builder(name)
        .domain(domain_of(domain))
        .build()
        .config()
        .clone()
}

/// Opens a client of service `name` in `domain` (`NERVE_DOMAIN_DEFAULT` for the default).
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_client_open(
    name: *const c_char,
    domain: u32,
    out: *mut *mut nerve_client,
) -> i32 {
    const WHAT: &str = "nerve_client_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        let client = RawClient::open(config(name, domain))?;
        let h = Handle::open(CLIENT_TAG, "client", client);
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, h.cast::<nerve_client>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Closes a client.
///
/// # Safety
/// `client` is NULL or a client handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_client_close(client: *mut nerve_client) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            client.cast::<Handle<RawClient>>(),
            CLIENT_TAG,
            "nerve_client_close",
        )
    }
}

/// Calls the service with `request` and waits up to `timeout_ns` for the response, copied into
/// `(response, cap)` with its length at `response_len`. `NERVE_E_BUFFER_TOO_SMALL` gives the
/// length needed (the response is lost); the other failures say why (`NERVE_E_NO_SERVER`,
/// `NERVE_E_TIMEOUT`, `NERVE_E_HANDLER` with the handler's message, ...).
///
/// # Safety
/// `client` is a client handle; `request` points to `request_len` readable bytes; `response`
/// to `cap` writable bytes; `response_len` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_call(
    client: *mut nerve_client,
    request: *const u8,
    request_len: usize,
    timeout_ns: i64,
    response: *mut u8,
    cap: usize,
    response_len: *mut usize,
) -> i32 {
    const WHAT: &str = "nerve_call";
    guard(WHAT, || {
        need_out(response_len, WHAT)?;
        if response.is_null() && cap != 0 {
            return Err(fail(
                NERVE_E_INVALID_ARGUMENT,
                format!("{WHAT}: response is NULL"),
            ));
        }
        // SAFETY: the caller's promise for `request`.
        let req = unsafe { bytes(request, request_len, WHAT, "request") }?;
        let timeout = Duration::from_nanos(timeout_ns.max(0) as u64);
        // SAFETY: the caller's promise for `client`.
        let resp = unsafe {
            handle::with(client.cast::<Handle<RawClient>>(), CLIENT_TAG, WHAT, |c| {
                Ok(c.call_bytes(req, timeout)?)
            })
        }?;
        // SAFETY: `response_len` is not NULL (checked) and valid (the caller's promise).
        unsafe { response_len.write(resp.len()) };
        if resp.len() > cap {
            return Err(fail(
                NERVE_E_BUFFER_TOO_SMALL,
                format!(
                    "{WHAT}: a response of {} bytes does not fit a buffer of {cap}",
                    resp.len()
                ),
            ));
        }
        if !resp.is_empty() {
            // SAFETY: `response` holds `cap` ≥ `resp.len()` writable bytes (the caller's
            // promise), and `resp` is our own vector.
            unsafe { std::ptr::copy_nonoverlapping(resp.as_ptr(), response, resp.len()) };
        }
        Ok(NERVE_OK)
    })
}

/// A C handler and its context, called from nerve's threads.
struct CHandler {
    f: unsafe extern "C" fn(*mut c_void, *const u8, usize, *mut nerve_reply) -> i32,
    context: *mut c_void,
}

// SAFETY: the C caller promises (nerve_server_open's contract) that the handler may be called
// from nerve's threads with its context, as many at once as the server has workers.
unsafe impl Send for CHandler {}
// SAFETY: as above.
unsafe impl Sync for CHandler {}

/// What a handler answered (behind a `nerve_reply` pointer during its call).
#[derive(Default)]
struct Reply {
    result: Option<RawResult>,
}

impl CHandler {
    fn call(&self, request: &[u8]) -> RawResult {
        let mut reply = Reply::default();
        // SAFETY: the handler's contract: it reads `request_len` bytes at `request` and writes
        // its answer through the reply pointer (valid for this call) with nerve_reply_*.
        let rc = unsafe {
            (self.f)(
                self.context,
                request.as_ptr(),
                request.len(),
                (&mut reply as *mut Reply).cast::<nerve_reply>(),
            )
        };
        match (rc, reply.result) {
            (NERVE_OK, Some(r)) => r,
            (NERVE_OK, None) => Ok(Vec::new()),
            (_, Some(Err(f))) => Err(f),
            (rc, _) => Err(Failure::Handler(format!("the C handler returned {rc}"))),
        }
    }
}

/// Answers with `len` bytes at `bytes` (copied).
///
/// # Safety
/// `reply` is the pointer the handler was given, during its call; `bytes` points to `len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn nerve_reply_set(
    reply: *mut nerve_reply,
    data: *const u8,
    len: usize,
) -> i32 {
    const WHAT: &str = "nerve_reply_set";
    guard(WHAT, || {
        // SAFETY: the caller's promise for `data`.
        let data = unsafe { bytes(data, len, WHAT, "data") }?;
        // SAFETY: the caller's promise: the reply of a handler call in progress.
        let reply = unsafe { reply.cast::<Reply>().as_mut() }
            .ok_or_else(|| fail(NERVE_E_INVALID_ARGUMENT, format!("{WHAT}: reply is NULL")))?;
        reply.result = Some(Ok(data.to_vec()));
        Ok(NERVE_OK)
    })
}

/// Answers with a failure: the caller gets `NERVE_E_HANDLER` with `message`.
///
/// # Safety
/// `reply` is the pointer the handler was given, during its call; `message` is a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nerve_reply_error(reply: *mut nerve_reply, message: *const c_char) -> i32 {
    const WHAT: &str = "nerve_reply_error";
    guard(WHAT, || {
        // SAFETY: the caller's promise for `message`.
        let message = unsafe { text(message, WHAT, "message") }?;
        // SAFETY: the caller's promise: the reply of a handler call in progress.
        let reply = unsafe { reply.cast::<Reply>().as_mut() }
            .ok_or_else(|| fail(NERVE_E_INVALID_ARGUMENT, format!("{WHAT}: reply is NULL")))?;
        reply.result = Some(Err(Failure::Handler(message.to_owned())));
        Ok(NERVE_OK)
    })
}

/// Serves `name` in `domain` with `handler` on `workers` threads (0 or 1: one thread, the
/// lowest latency; at most 256, else `NERVE_E_INVALID_ARGUMENT`) until `nerve_server_close`.
/// `NERVE_E_ALREADY_SERVED` when another live server has it.
///
/// # Safety
/// `name` is a NUL-terminated string; `handler` may be called from nerve's threads, `workers`
/// at once, with `context`, until the server is closed; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_server_open(
    name: *const c_char,
    domain: u32,
    workers: u32,
    handler: nerve_handler,
    context: *mut c_void,
    out: *mut *mut nerve_server,
) -> i32 {
    const WHAT: &str = "nerve_server_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        let f = handler
            .ok_or_else(|| fail(NERVE_E_INVALID_ARGUMENT, format!("{WHAT}: handler is NULL")))?;
        let c = Arc::new(CHandler { f, context });
        let server = Server::start(
            config(name, domain),
            workers.max(1) as usize,
            Arc::new(move |req: &[u8]| c.call(req)),
        )?;
        let h = Handle::open(SERVER_TAG, "server", server);
        // SAFETY: the caller's promise for `out`.
        unsafe { put(out, h.cast::<nerve_server>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Stops serving (waits for handlers running now to return). A handler may close its own
/// server: the call returns `NERVE_OK` once the other handlers have returned, and the
/// calling handler's thread ends when it returns.
///
/// # Safety
/// `server` is NULL or a server handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_server_close(server: *mut nerve_server) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            server.cast::<Handle<Server>>(),
            SERVER_TAG,
            "nerve_server_close",
        )
    }
}
