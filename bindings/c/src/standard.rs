//! nerve's standard message types by name, for C: their `nerve_type` (layout hash and
//! description included), so that a C struct laid out as the Rust type (the generated
//! `nerve/msgs.h`) shares its topics with Rust and Python nodes.

use std::ffi::c_char;

use nerve::msgs::described::TypeDoc;
use nerve::msgs::schema::Schema;
use nerve::msgs::{STANDARD, STANDARD_STRUCTS};

use crate::declare::type_of;
use crate::status::{fail, guard, Res, NERVE_E_NOT_FOUND, NERVE_E_TYPE_MISMATCH, NERVE_OK};
use crate::topic::{need_out, nerve_type, put, text};

/// The standard struct `name` names: a type name (`"nerve/CmdVel"`) or a class name in other
/// languages (`"CmdVel"`, `"ImageHeader"`, `"Image"`, `"Vector3"`).
fn standard_schema(name: &str, what: &str) -> Res<&'static Schema> {
    STANDARD_STRUCTS
        .iter()
        .find(|s| s.class == name || s.chunked == Some(name))
        .map(|s| s.schema)
        .or_else(|| STANDARD.iter().copied().find(|s| s.name == name))
        .ok_or_else(|| {
            fail(
                NERVE_E_NOT_FOUND,
                format!("{what}: '{name}' is no standard message type (see docs/messages.md)"),
            )
        })
}

/// Fills `out` with the standard message type `name`: its type name (`"nerve/CmdVel"`) or its
/// class name in other languages (`"CmdVel"`, `"Imu"`, `"Image"`; a nested struct's, as
/// `"Vector3"`, gives a `NERVE_KIND_STRUCT` type). The pointers in `out` stay valid for the
/// process's life. `NERVE_E_NOT_FOUND` for a name that is none of them.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn nerve_standard_type(name: *const c_char, out: *mut nerve_type) -> i32 {
    const WHAT: &str = "nerve_standard_type";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        let t = type_of(&TypeDoc::of(standard_schema(name, WHAT)?))?;
        // SAFETY: the caller's promise: `out` is valid for a write.
        unsafe { put(out, t, WHAT) }?;
        Ok(NERVE_OK)
    })
}

/// `nerve_standard_type`, checked against the layout hash the caller was compiled with (what
/// the generated `nerve/msgs.h` passes): a header of another nerve version than the library is
/// `NERVE_E_TYPE_MISMATCH` here, rather than messages read with the wrong layout.
///
/// # Safety
/// As `nerve_standard_type`.
#[no_mangle]
pub unsafe extern "C" fn nerve_standard_type_checked(
    name: *const c_char,
    layout_hash: u64,
    out: *mut nerve_type,
) -> i32 {
    const WHAT: &str = "nerve_standard_type_checked";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        let t = type_of(&TypeDoc::of(standard_schema(name, WHAT)?))?;
        if t.layout_hash != layout_hash {
            return Err(fail(
                NERVE_E_TYPE_MISMATCH,
                format!(
                    "{WHAT}: {name} is {:#018x} in libnerve_c but {layout_hash:#018x} in the header \
                     this program was compiled with: build it against the nerve.h / nerve/msgs.h \
                     installed with this library",
                    t.layout_hash
                ),
            ));
        }
        // SAFETY: the caller's promise: `out` is valid for a write.
        unsafe { put(out, t, WHAT) }?;
        Ok(NERVE_OK)
    })
}
