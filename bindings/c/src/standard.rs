//! nerve's standard message types by name, for C: their `nerve_type` (layout hash and
//! description included), so that a C struct laid out as the Rust type shares its topics with
//! Rust and Python nodes.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use nerve::msgs::described::TypeDoc;
use nerve::msgs::{STANDARD, STANDARD_STRUCTS};

use crate::status::{fail, guard, NERVE_E_NOT_FOUND, NERVE_OK};
use crate::topic::{need_out, nerve_type, text};

/// A standard type's name and description, kept for the process's life (C holds pointers).
struct Kept {
    name: CString,
    description: Vec<u8>,
}

fn kept() -> &'static [Kept] {
    static KEPT: OnceLock<Vec<Kept>> = OnceLock::new();
    KEPT.get_or_init(|| {
        STANDARD
            .iter()
            .map(|s| Kept {
                name: CString::new(s.name).unwrap_or_default(),
                description: TypeDoc::of(s).to_bytes(),
            })
            .collect()
    })
}

/// Fills `out` with the standard message type `name`: its type name (`"nerve/CmdVel"`) or its
/// class name in other languages (`"CmdVel"`, `"Imu"`, `"Image"`). The pointers in `out` stay
/// valid for the process's life. `NERVE_E_NOT_FOUND` for a name that is none of them.
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
        let by_class = STANDARD_STRUCTS
            .iter()
            .find(|s| s.class == name)
            .map(|s| s.schema.name);
        let wanted = by_class.unwrap_or(name);
        let found = STANDARD
            .iter()
            .zip(kept())
            .find_map(|(s, k)| (s.name == wanted).then(|| s.fingerprint().map(|f| (f, k))))
            .flatten();
        let Some((f, k)) = found else {
            return Err(fail(
                NERVE_E_NOT_FOUND,
                format!("{WHAT}: '{name}' is no standard message type (see docs/messages.md)"),
            ));
        };
        let t = nerve_type {
            name: k.name.as_ptr(),
            kind: f.kind as u32,
            size: f.size,
            align: f.align,
            elem_size: f.elem_size,
            layout_hash: f.layout_hash,
            description: k.description.as_ptr(),
            description_len: k.description.len(),
        };
        // SAFETY: `out` is not NULL (checked) and valid for a write (the caller's promise).
        unsafe { out.write(t) };
        Ok(NERVE_OK)
    })
}
