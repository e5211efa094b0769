//! Parameters from C: a node's own (declared with a default and an optional range, read every
//! cycle, changed by `nerve param set` or any client while it runs) and another node's, through
//! its parameter service — the same store and services as Rust's `nerve::rpc::Parameters` and
//! `ParamClient`, so `nerve param` and Python tune a C node as any other.
//!
//! Values cross as their YAML text (`0.5`, `3`, `true`, `fast`, `[1, 2]`), the form
//! `nerve param set` takes; numbers and booleans also have typed getters.

use std::ffi::c_char;
use std::time::Duration;

use nerve::rpc::{ParamClient, ParamDescriptor, ParamError, ParamServer, ParamValue, Parameters};

use crate::handle::{self, Handle, PARAMS_TAG, PARAM_CLIENT_TAG};
use crate::status::{
    fail, guard, Failure, Res, NERVE_E_INVALID_ARGUMENT, NERVE_E_NOT_FOUND, NERVE_OK,
};
use crate::topic::{domain_of, need_out, put, text};

/// A parameter value refused: of another type than declared, out of its range, read-only, or
/// rejected (the text names node, parameter and value).
pub const NERVE_E_PARAM_REJECTED: i32 = -30;

/// A node's parameters, served to other processes while open (opaque).
#[allow(non_camel_case_types)]
pub struct nerve_params {
    _opaque: [u8; 0],
}

/// A client of another node's parameters (opaque).
#[allow(non_camel_case_types)]
pub struct nerve_param_client {
    _opaque: [u8; 0],
}

/// The store and the server answering for it.
struct Served {
    params: Parameters,
    _server: ParamServer,
}

impl From<ParamError> for Failure {
    fn from(e: ParamError) -> Self {
        let code = match e {
            ParamError::Call(c) => return Failure::from(c),
            ParamError::Undeclared { .. } => NERVE_E_NOT_FOUND,
            ParamError::Yaml { .. } => NERVE_E_INVALID_ARGUMENT,
            _ => NERVE_E_PARAM_REJECTED,
        };
        fail(code, e.to_string())
    }
}

fn parse(value: &str, what: &str, name: &str) -> Res<ParamValue> {
    ParamValue::parse(value).ok_or_else(|| {
        fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: parameter '{name}': {value:?} is no parameter value (a number, true/false, text or a list of one of them)"),
        )
    })
}

/// `value`'s text into `(buf, cap)`, NUL-terminated, its length (without the NUL) at `len`;
/// `NERVE_E_BUFFER_TOO_SMALL` gives the length needed.
///
/// # Safety
/// `buf` holds `cap` bytes; `len` is NULL or valid for a write.
unsafe fn give_text(
    value: &ParamValue,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
    what: &str,
) -> Res<i32> {
    let t = match value {
        ParamValue::String(s) => s.clone(),
        v => v.to_string(),
    };
    if !len.is_null() {
        // SAFETY: the caller's promise.
        unsafe { len.write(t.len()) };
    }
    if buf.is_null() || cap <= t.len() {
        return Err(fail(
            crate::status::NERVE_E_BUFFER_TOO_SMALL,
            format!(
                "{what}: the value takes {} bytes and a NUL, the buffer has {cap}",
                t.len()
            ),
        ));
    }
    // SAFETY: `cap` > `t.len()` bytes at `buf` (the caller's promise).
    unsafe {
        std::ptr::copy_nonoverlapping(t.as_ptr(), buf.cast::<u8>(), t.len());
        buf.add(t.len()).write(0);
    }
    Ok(NERVE_OK)
}

/// Opens node `node`'s parameters in `domain` and serves them (`nerve param list <node>`
/// sees them) until `nerve_params_close`.
///
/// # Safety
/// `node` is NUL-terminated; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_params_open(
    node: *const c_char,
    domain: u32,
    out: *mut *mut nerve_params,
) -> i32 {
    const WHAT: &str = "nerve_params_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let node = unsafe { text(node, WHAT, "node") }?;
        let params = Parameters::with_domain(node, domain_of(domain));
        let server = params.serve()?;
        let h = Handle::open(
            PARAMS_TAG,
            "parameters",
            Served {
                params,
                _server: server,
            },
        );
        // SAFETY: the caller's promise.
        unsafe { put(out, h.cast::<nerve_params>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Stops serving and closes the parameters.
///
/// # Safety
/// `params` is NULL or a parameters handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_params_close(params: *mut nerve_params) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            params.cast::<Handle<Served>>(),
            PARAMS_TAG,
            "nerve_params_close",
        )
    }
}

/// Declares parameter `name` with its default (YAML text: `0.5` is a float, `3` an int,
/// `true`, `fast`, `[1, 2]`), allowed between `min` and `max` when `min <= max` (ints and
/// floats; pass `min > max` for no range), with a description for tools (NULL for none). A
/// value loaded or set before is kept if valid.
///
/// # Safety
/// `params` is a parameters handle; `name` and `default_value` are NUL-terminated;
/// `description` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_declare(
    params: *mut nerve_params,
    name: *const c_char,
    default_value: *const c_char,
    min: f64,
    max: f64,
    description: *const c_char,
) -> i32 {
    const WHAT: &str = "nerve_param_declare";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        // SAFETY: the caller's promise.
        let value = parse(
            unsafe { text(default_value, WHAT, "default_value") }?,
            WHAT,
            name,
        )?;
        let mut d = match (&value, min <= max) {
            (ParamValue::Int(_), true) => ParamDescriptor::new(name, value).int_range(min as i64, max as i64),
            (ParamValue::Float(_), true) => ParamDescriptor::new(name, value).float_range(min, max),
            (_, true) => {
                return Err(fail(
                    NERVE_E_INVALID_ARGUMENT,
                    format!("{WHAT}: parameter '{name}': only ints and floats have a range (pass min > max for none)"),
                ))
            }
            (_, false) => ParamDescriptor::new(name, value),
        };
        if !description.is_null() {
            // SAFETY: the caller's promise.
            d = d.description(unsafe { text(description, WHAT, "description") }?);
        }
        // SAFETY: the caller's promise.
        unsafe {
            handle::with(params.cast::<Handle<Served>>(), PARAMS_TAG, WHAT, |s| {
                Ok(s.params.declare(d)?)
            })
        }?;
        Ok(NERVE_OK)
    })
}

/// The current value of `name`, `f` picking what the caller asked for.
///
/// # Safety
/// `params` is a parameters handle; `name` is NUL-terminated.
unsafe fn current<R>(
    params: *mut nerve_params,
    name: *const c_char,
    what: &str,
    f: impl FnOnce(&str, ParamValue) -> Res<R>,
) -> Res<R> {
    // SAFETY: the caller's promise.
    let name = unsafe { text(name, what, "name") }?;
    // SAFETY: the caller's promise.
    unsafe {
        handle::with(params.cast::<Handle<Served>>(), PARAMS_TAG, what, |s| {
            let v = s.params.get(name).ok_or_else(|| {
                fail(
                    NERVE_E_NOT_FOUND,
                    format!("{what}: node '{}' has no parameter '{name}': declare it first (nerve_param_declare)", s.params.node()),
                )
            })?;
            f(name, v)
        })
    }
}

fn wrong(what: &str, name: &str, want: &str, v: &ParamValue) -> Failure {
    fail(
        NERVE_E_PARAM_REJECTED,
        format!("{what}: parameter '{name}' is {} ({v}), not {want}: use nerve_param_get_text for any type", v.ty()),
    )
}

/// Parameter `name` as `T` (`pick` says whether the value is one, `want` names it) into `out`.
///
/// # Safety
/// `params` is a parameters handle; `name` is NUL-terminated; `out` valid for a write.
unsafe fn get_typed<T>(
    params: *mut nerve_params,
    name: *const c_char,
    out: *mut T,
    (what, want): (&str, &str),
    pick: fn(&ParamValue) -> Option<T>,
) -> i32 {
    guard(what, || {
        need_out(out, what)?;
        // SAFETY: the caller's promise.
        let v = unsafe {
            current(params, name, what, |n, v| {
                pick(&v).ok_or_else(|| wrong(what, n, want, &v))
            })
        }?;
        // SAFETY: the caller's promise.
        unsafe { put(out, v, what) }?;
        Ok(NERVE_OK)
    })
}

/// A float parameter (an int one converted) into `out`.
///
/// # Safety
/// `params` is a parameters handle; `name` is NUL-terminated; `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_get_f64(
    params: *mut nerve_params,
    name: *const c_char,
    out: *mut f64,
) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        get_typed(
            params,
            name,
            out,
            ("nerve_param_get_f64", "a number"),
            ParamValue::as_float,
        )
    }
}

/// An int parameter into `out`.
///
/// # Safety
/// As `nerve_param_get_f64`.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_get_i64(
    params: *mut nerve_params,
    name: *const c_char,
    out: *mut i64,
) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        get_typed(
            params,
            name,
            out,
            ("nerve_param_get_i64", "an int"),
            ParamValue::as_int,
        )
    }
}

/// A bool parameter into `out`.
///
/// # Safety
/// As `nerve_param_get_f64`.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_get_bool(
    params: *mut nerve_params,
    name: *const c_char,
    out: *mut bool,
) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        get_typed(
            params,
            name,
            out,
            ("nerve_param_get_bool", "a bool"),
            ParamValue::as_bool,
        )
    }
}

/// Any parameter as text (a string as itself, others in YAML) into `(buf, cap)`,
/// NUL-terminated; its length at `len` (NULL: not wanted). `NERVE_E_BUFFER_TOO_SMALL` gives
/// the length needed.
///
/// # Safety
/// `params` is a parameters handle; `name` is NUL-terminated; `buf` holds `cap` bytes; `len`
/// is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_get_text(
    params: *mut nerve_params,
    name: *const c_char,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> i32 {
    const WHAT: &str = "nerve_param_get_text";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let v = unsafe { current(params, name, WHAT, |_, v| Ok(v)) }?;
        // SAFETY: the caller's promise.
        unsafe { give_text(&v, buf, cap, len, WHAT) }
    })
}

/// Sets parameter `name` to `value` (YAML text), checked against its type and range.
///
/// # Safety
/// `params` is a parameters handle; `name` and `value` are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_set(
    params: *mut nerve_params,
    name: *const c_char,
    value: *const c_char,
) -> i32 {
    const WHAT: &str = "nerve_param_set";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        // SAFETY: the caller's promise.
        let value = parse(unsafe { text(value, WHAT, "value") }?, WHAT, name)?;
        // SAFETY: the caller's promise.
        unsafe {
            handle::with(params.cast::<Handle<Served>>(), PARAMS_TAG, WHAT, |s| {
                Ok(s.params.set(name, value)?)
            })
        }?;
        Ok(NERVE_OK)
    })
}

/// Opens a client of node `node`'s parameters in `domain`.
///
/// # Safety
/// `node` is NUL-terminated; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_client_open(
    node: *const c_char,
    domain: u32,
    out: *mut *mut nerve_param_client,
) -> i32 {
    const WHAT: &str = "nerve_param_client_open";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let node = unsafe { text(node, WHAT, "node") }?;
        let client = ParamClient::with_domain(node, domain_of(domain))?;
        let h = Handle::open(PARAM_CLIENT_TAG, "parameter client", client);
        // SAFETY: the caller's promise.
        unsafe { put(out, h.cast::<nerve_param_client>(), WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// Closes a parameter client.
///
/// # Safety
/// `client` is NULL or a parameter client handle.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_client_close(client: *mut nerve_param_client) -> i32 {
    // SAFETY: the caller's promise.
    unsafe {
        handle::close_entry(
            client.cast::<Handle<ParamClient>>(),
            PARAM_CLIENT_TAG,
            "nerve_param_client_close",
        )
    }
}

fn timeout(ns: i64) -> Duration {
    // A negative timeout waits "for ever": a day.
    Duration::from_nanos(if ns < 0 {
        86_400_000_000_000
    } else {
        ns as u64
    })
}

/// The remote node's parameter `name` as text into `(buf, cap)` (as `nerve_param_get_text`),
/// waiting up to `timeout_ns` for the node.
///
/// # Safety
/// `client` is a parameter client handle; `name` is NUL-terminated; `buf` holds `cap` bytes;
/// `len` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_client_get(
    client: *mut nerve_param_client,
    name: *const c_char,
    timeout_ns: i64,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> i32 {
    const WHAT: &str = "nerve_param_client_get";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        // SAFETY: the caller's promise.
        let v = unsafe {
            handle::with(
                client.cast::<Handle<ParamClient>>(),
                PARAM_CLIENT_TAG,
                WHAT,
                |c| Ok(c.get(name, timeout(timeout_ns))?),
            )
        }?;
        // SAFETY: the caller's promise.
        unsafe { give_text(&v, buf, cap, len, WHAT) }
    })
}

/// Sets the remote node's parameter `name` to `value` (YAML text), waiting up to `timeout_ns`;
/// the node's refusal is `NERVE_E_PARAM_REJECTED` with its reason.
///
/// # Safety
/// `client` is a parameter client handle; `name` and `value` are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn nerve_param_client_set(
    client: *mut nerve_param_client,
    name: *const c_char,
    value: *const c_char,
    timeout_ns: i64,
) -> i32 {
    const WHAT: &str = "nerve_param_client_set";
    guard(WHAT, || {
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        // SAFETY: the caller's promise.
        let value = parse(unsafe { text(value, WHAT, "value") }?, WHAT, name)?;
        // SAFETY: the caller's promise.
        unsafe {
            handle::with(
                client.cast::<Handle<ParamClient>>(),
                PARAM_CLIENT_TAG,
                WHAT,
                |c| Ok(c.set(name, value, timeout(timeout_ns))?),
            )
        }?;
        Ok(NERVE_OK)
    })
}
