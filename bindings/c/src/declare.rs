//! C and C++ structs that describe themselves: a struct's field list (the `NERVE_FIELD`
//! macros of `nerve.h` give each field's name, kind, offset and size) becomes the same
//! description and fingerprint that Rust's `#[derive(Message)]` and Python's `@nerve.message`
//! give the same definition (`nerve::msgs::declare`). A C struct that disagrees with another
//! language's definition of its type then fails loudly on the topic (`NERVE_E_TYPE_MISMATCH`,
//! naming the first field that differs), and one that disagrees with its own field list (a
//! wrong kind, a forgotten field, implicit padding) fails here, naming the field.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::{Mutex, OnceLock, PoisonError};

use nerve::msgs::declare::{declare, Declaration, DeclareError, DeclaredKind, FieldSpec};
use nerve::msgs::described::{KindDoc, TypeDoc};

use crate::status::{fail, guard, Res, NERVE_E_INVALID_ARGUMENT, NERVE_E_TYPE_MISMATCH, NERVE_OK};
use crate::topic::{need_out, nerve_type, put, text, NERVE_KIND_CHUNKED, NERVE_KIND_FIXED};

/// `nerve_type_declare`'s kind for a plain struct other declared types nest (it crosses no
/// topic by itself).
pub const NERVE_KIND_STRUCT: u32 = 0;

/// Fills a `nerve_type` for a nested struct (a `NERVE_STRUCT` type's function).
#[allow(non_camel_case_types)]
pub type nerve_type_fn = Option<unsafe extern "C" fn(out: *mut nerve_type) -> i32>;

/// One field of a declared struct; written by the `NERVE_FIELD...` macros.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct nerve_field {
    /// The field's name (NUL-terminated).
    pub name: *const c_char,
    /// Its kind: `"u8"` … `"u64"`, `"i8"` … `"i64"`, `"f32"`, `"f64"`, `"bool"`, `"text[N]"`,
    /// a standard struct's name (`"Header"`, `"Vector3"`), any of them as `"T[N]"`; NULL when
    /// `nested` gives the type.
    pub kind: *const c_char,
    /// A declared struct's type function, for a field of a user struct (`kind` NULL).
    pub nested: nerve_type_fn,
    /// With `nested`: 0 for one struct, N for an array of N.
    pub count: u32,
    /// `offsetof` the field in the C struct.
    pub offset: usize,
    /// `sizeof` the field in the C struct.
    pub size: usize,
}

/// A declared type's name and description, kept for the process's life (C holds pointers to
/// them); the same declaration made twice is kept once.
fn keep(name: &str, description: Vec<u8>) -> (*const c_char, *const u8, usize) {
    type Kept = HashMap<(String, Vec<u8>), (CString, Box<[u8]>)>;
    static KEPT: OnceLock<Mutex<Kept>> = OnceLock::new();
    let mut kept = KEPT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let (n, d) = kept
        .entry((name.to_owned(), description.clone()))
        .or_insert_with(|| {
            (
                CString::new(name).unwrap_or_default(),
                description.into_boxed_slice(),
            )
        });
    (n.as_ptr(), d.as_ptr(), d.len())
}

/// A `nerve_type` of a description (its fingerprint as a Rust type with the same definition
/// stores it).
pub(crate) fn type_of(doc: &TypeDoc) -> Res<nerve_type> {
    let root = doc.root();
    let (kind, elem_size) = match &root.kind {
        KindDoc::Struct => (NERVE_KIND_STRUCT, 0),
        KindDoc::Fixed => (NERVE_KIND_FIXED, 0),
        KindDoc::Chunked(e) => (
            NERVE_KIND_CHUNKED,
            doc.size_of(e, 0)
                .map_err(|e| fail(NERVE_E_INVALID_ARGUMENT, e.to_string()))?,
        ),
    };
    let (name, description, description_len) = keep(&root.name, doc.to_bytes());
    Ok(nerve_type {
        name,
        kind,
        size: root.size,
        align: root.align,
        elem_size,
        layout_hash: doc.hash(),
        description,
        description_len,
    })
}

/// What a `nerve_field` declares.
///
/// # Safety
/// `f.name` and `f.kind` are NULL or NUL-terminated; `f.nested` is a type function.
unsafe fn spec_of(f: &nerve_field, what: &str, owner: &str) -> Res<(String, FieldSpec)> {
    // SAFETY: the caller's promise.
    let name = unsafe { text(f.name, what, "a field's name") }?.to_owned();
    let spec = match (f.kind.is_null(), f.nested) {
        (false, None) => {
            // SAFETY: the caller's promise.
            FieldSpec::Kind(unsafe { text(f.kind, what, "a field's kind") }?.to_owned())
        }
        (true, Some(nested)) => {
            let mut t = std::mem::MaybeUninit::<nerve_type>::zeroed();
            // SAFETY: the caller's promise: a type function, given a valid out-pointer.
            let code = unsafe { nested(t.as_mut_ptr()) };
            if code != NERVE_OK {
                return Err(fail(
                    code,
                    format!("{what}: {owner}.{name}: the nested type's declaration failed (see the error before this one)"),
                ));
            }
            // SAFETY: zeroed, then written by the type function.
            let t = unsafe { t.assume_init() };
            // SAFETY: a type function's description holds `description_len` bytes.
            let bytes = unsafe { crate::topic::bytes(t.description, t.description_len, what, "a nested type's description") }?;
            let doc = TypeDoc::from_bytes(bytes).map_err(|e| {
                fail(
                    NERVE_E_INVALID_ARGUMENT,
                    format!("{what}: {owner}.{name}: the nested type has no valid description ({e}): declare it with NERVE_STRUCT"),
                )
            })?;
            match f.count {
                0 => FieldSpec::Doc(doc),
                n => FieldSpec::Array(Box::new(FieldSpec::Doc(doc)), n),
            }
        }
        _ => {
            return Err(fail(
                NERVE_E_INVALID_ARGUMENT,
                format!("{what}: {owner}.{name}: give a field either a kind string or a nested type function, not both or neither"),
            ))
        }
    };
    Ok((name, spec))
}

/// How C spells `n` bytes of padding as field number `i`.
fn c_pad(i: usize, n: u32) -> String {
    match n {
        1 | 2 | 4 | 8 => format!(
            "`uint{}_t _pad{i};` with NERVE_FIELD(T, _pad{i}, \"u{}\")",
            8 * n,
            8 * n
        ),
        _ => format!("`uint8_t _pad{i}[{n}];` with NERVE_FIELD(T, _pad{i}, \"u8[{n}]\")"),
    }
}

/// Checks the declaration against the C struct the compiler laid out: every field where the
/// declaration puts it, with its size, and the struct's size and alignment.
fn check_layout(
    doc: &TypeDoc,
    fields: &[nerve_field],
    size: usize,
    align: usize,
    what: &str,
) -> Res<()> {
    let root = doc.root();
    for (f, c) in root.fields.iter().zip(fields) {
        let want = doc.size_of(&f.ty, 0).unwrap_or(0) as usize;
        if f.offset as usize != c.offset || want != c.size {
            return Err(fail(
                NERVE_E_TYPE_MISMATCH,
                format!(
                    "{what}: {}.{}: the C struct has it at byte {} with {} bytes, its declaration at byte {} with {want} bytes: \
                     the struct and its NERVE_FIELD list disagree (a wrong kind, a missing field, or padding the compiler added: declare padding as `_padN` fields)",
                    root.name, f.name, c.offset, c.size, f.offset
                ),
            ));
        }
    }
    if root.size as usize != size || root.align as usize != align {
        return Err(fail(
            NERVE_E_TYPE_MISMATCH,
            format!(
                "{what}: {}: the C struct is {size} bytes aligned to {align}, its declared fields make {} bytes aligned to {}: \
                 declare every field (trailing padding as a `_padN` field)",
                root.name, root.size, root.align
            ),
        ));
    }
    Ok(())
}

/// Declares a C struct as message type `name` and fills `out` with its `nerve_type`
/// (description included; the pointers stay valid for the process's life). `kind` is
/// `NERVE_KIND_FIXED`, `NERVE_KIND_CHUNKED` (then `elem` gives the element type: its `kind` or
/// `nested`, and its `size`) or `NERVE_KIND_STRUCT` (a struct other declarations nest).
/// `fields` are the struct's `n_fields` fields in order; `size` and `align` its `sizeof` and
/// alignment. A declaration that is not how the compiler laid the struct out, or that Rust
/// would lay out differently (implicit padding), is `NERVE_E_TYPE_MISMATCH` or
/// `NERVE_E_INVALID_ARGUMENT` naming the field. Use the `NERVE_STRUCT` macros rather than this
/// call.
///
/// # Safety
/// `name` is NUL-terminated; `fields` points to `n_fields` valid `nerve_field`s; `elem` is
/// NULL or valid; `out` is valid for a write.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn nerve_type_declare(
    name: *const c_char,
    kind: u32,
    fields: *const nerve_field,
    n_fields: usize,
    size: usize,
    align: usize,
    elem: *const nerve_field,
    out: *mut nerve_type,
) -> i32 {
    const WHAT: &str = "nerve_type_declare";
    guard(WHAT, || {
        need_out(out, WHAT)?;
        // SAFETY: the caller's promise.
        let name = unsafe { text(name, WHAT, "name") }?;
        if fields.is_null() || n_fields == 0 || n_fields > 4096 {
            return Err(fail(
                NERVE_E_INVALID_ARGUMENT,
                format!("{WHAT}: {name}: fields is NULL or n_fields ({n_fields}) is not 1 to 4096"),
            ));
        }
        // SAFETY: the caller's promise: `n_fields` valid fields.
        let fields = unsafe { std::slice::from_raw_parts(fields, n_fields) };
        let specs = fields
            .iter()
            // SAFETY: the caller's promise: valid fields.
            .map(|f| unsafe { spec_of(f, WHAT, name) })
            .collect::<Res<Vec<_>>>()?;
        // SAFETY: the caller's promise: NULL or valid.
        let elem = unsafe { elem.as_ref() };
        let kind = match (kind, elem) {
            (NERVE_KIND_FIXED, None) => DeclaredKind::Fixed,
            (NERVE_KIND_STRUCT, None) => DeclaredKind::Struct,
            // SAFETY: the caller's promise: a valid field.
            (NERVE_KIND_CHUNKED, Some(e)) => DeclaredKind::Chunked(unsafe { spec_of(e, WHAT, name) }?.1),
            _ => {
                return Err(fail(
                    NERVE_E_INVALID_ARGUMENT,
                    format!("{WHAT}: {name}: kind is NERVE_KIND_FIXED or NERVE_KIND_STRUCT with no elem, or NERVE_KIND_CHUNKED with one, got kind {kind}"),
                ))
            }
        };
        let decl = Declaration {
            name,
            kind,
            fields: specs,
            doc: "",
            ros2: "",
        };
        let doc = declare(&decl, &c_pad).map_err(|e| {
            let text = match e {
                DeclareError::Kind(s) | DeclareError::Layout(s) => s,
            };
            fail(NERVE_E_INVALID_ARGUMENT, format!("{WHAT}: {text}"))
        })?;
        check_layout(&doc, fields, size, align, WHAT)?;
        let t = type_of(&doc)?;
        if let (Some(e), KindDoc::Chunked(_)) = (elem, &doc.root().kind) {
            if e.size != t.elem_size as usize {
                return Err(fail(
                    NERVE_E_TYPE_MISMATCH,
                    format!(
                        "{WHAT}: {name}: the element is {} bytes in C, its declaration makes {}",
                        e.size, t.elem_size
                    ),
                ));
            }
        }
        // SAFETY: the caller's promise: `out` is valid for a write.
        unsafe { put(out, t, WHAT) }?;
        Ok(NERVE_OK)
    })
}
