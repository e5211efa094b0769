//! `Struct`, the base of every message class: the bytes of one message, owned (inline or on
//! the heap) or viewed (a nested struct, a chunk's header).

use std::cell::UnsafeCell;
use std::ptr::NonNull;

use pyo3::exceptions::PyTypeError;
use pyo3::impl_::pyclass_init::PyObjectInit;
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::PyClassInitializer;

use crate::lent::LoanMemory;

/// What keeps a struct's bytes alive.
pub(crate) enum Keep {
    /// They are `Struct::inline` (an owned struct of at most `INLINE_BYTES`: most fixed
    /// messages, such as CmdVel or Twist, need no allocation of their own).
    Inline,
    /// Its own 8-aligned allocation (`Box<[u64]>` of this many words, freed on drop).
    Heap(usize),
    /// A parent struct (a nested view): read-only, and closed with a loan, like it.
    Struct(Py<Struct>),
    /// A received chunk (`Sample`) that keeps the memory mapped and pinned.
    Chunk(#[allow(dead_code)] Py<PyAny>),
    /// A loan's memory (the view is a loan's header): writable until the loan is sent or
    /// discarded. Made by [`Keep::loan`], which counts the view (until this is dropped).
    Loan(Py<LoanMemory>),
}

impl Keep {
    /// A view of the loan `memory`'s header (counted by it until the view is freed).
    pub(crate) fn loan(memory: Py<LoanMemory>) -> Keep {
        memory.get().count_header_view(true);
        Keep::Loan(memory)
    }
}

/// Base of every nerve message class: the struct's bytes, owned or viewed.
#[pyclass(module = "nerve._nerve", subclass, frozen)]
pub struct Struct {
    /// The bytes, unless `Keep::Inline` (then dangling: see `base`).
    ptr: NonNull<u8>,
    size: usize,
    readonly: bool,
    _keep: Keep,
    /// The bytes of a `Keep::Inline` struct. Their address is only taken once the struct is
    /// in its Python object (which never moves), by `base`.
    inline: UnsafeCell<[u64; INLINE_BYTES / 8]>,
}

/// Owned structs up to this size keep their bytes inside their Python object.
const INLINE_BYTES: usize = 64;

// SAFETY: the bytes (behind `ptr`, or in `inline`'s cell) are only read or written with the
// GIL held (every access is a Python method or descriptor call; the publisher copies them
// before releasing the GIL), like a `bytearray`'s, and what keeps them alive (`Keep`) is itself
// Send + Sync.
unsafe impl Send for Struct {}
// SAFETY: as above.
unsafe impl Sync for Struct {}

impl Drop for Keep {
    fn drop(&mut self) {
        if let Keep::Loan(memory) = self {
            memory.get().count_header_view(false);
        }
    }
}

impl Drop for Struct {
    fn drop(&mut self) {
        if let Keep::Heap(words) = self._keep {
            // SAFETY: `ptr` came from `Box::into_raw` of a `[u64]` of `words` elements
            // (`owned`), freed only here.
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.ptr.as_ptr().cast::<u64>(),
                    words,
                ))
            });
        }
    }
}

/// Creates an instance of `cls` holding `value`.
///
/// # Safety
/// `cls` must be `Struct` or a class derived from it.
pub(super) unsafe fn new_of_type<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    value: Struct,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: per the contract, `cls` lays out a `Struct`; `into_new_object` allocates with
    // its `tp_alloc` and moves `value` in, returning a new reference.
    unsafe {
        let obj = PyClassInitializer::from(value).into_new_object(py, cls.as_type_ptr())?;
        Ok(Bound::from_owned_ptr(py, obj))
    }
}

impl Struct {
    /// A struct owning a copy of `bytes`.
    pub(super) fn owned(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE_BYTES {
            let mut inline = [0u64; INLINE_BYTES / 8];
            bytemuck::cast_slice_mut::<u64, u8>(&mut inline)[..bytes.len()].copy_from_slice(bytes);
            return Struct {
                ptr: NonNull::dangling(),
                size: bytes.len(),
                readonly: false,
                _keep: Keep::Inline,
                inline: UnsafeCell::new(inline),
            };
        }
        let words = bytes.len().div_ceil(8).max(1);
        let raw = Box::into_raw(vec![0u64; words].into_boxed_slice()).cast::<u8>();
        // SAFETY: the allocation holds `words * 8 >= bytes.len()` bytes, fresh.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), raw, bytes.len()) };
        Struct {
            ptr: NonNull::new(raw).expect("Box never returns null"),
            size: bytes.len(),
            readonly: false,
            _keep: Keep::Heap(words),
            inline: UnsafeCell::new([0; INLINE_BYTES / 8]),
        }
    }

    /// A struct viewing `size` bytes at `ptr`, kept valid by `keep` (a parent struct, a
    /// chunk or a loan's memory).
    ///
    /// # Safety
    /// `ptr..ptr + size` must stay valid (and, unless `readonly` or closed with a loan,
    /// writable by this struct alone with the GIL held) while `keep` lives.
    pub(crate) unsafe fn view(ptr: *mut u8, size: usize, readonly: bool, keep: Keep) -> Self {
        Struct {
            ptr: NonNull::new(ptr).expect("a view of mapped memory"),
            size,
            readonly,
            _keep: keep,
            inline: UnsafeCell::new([0; INLINE_BYTES / 8]),
        }
    }

    /// The loan whose header this struct views (directly or through a parent), if any.
    pub(crate) fn loan(&self) -> Option<&Py<LoanMemory>> {
        match &self._keep {
            Keep::Loan(m) => Some(m),
            Keep::Struct(parent) => parent.get().loan(),
            _ => None,
        }
    }

    /// True when the struct was made read-only, without the loan's state (nested views
    /// inherit this and look up the loan themselves).
    pub(super) fn made_readonly(&self) -> bool {
        self.readonly
    }

    /// Where the struct's bytes start: valid for `size` bytes while `self` lives (in place, in
    /// its Python object, for an inline struct); read and written only with the GIL held.
    pub(super) fn base(&self) -> *mut u8 {
        match self._keep {
            Keep::Inline => self.inline.get().cast(),
            _ => self.ptr.as_ptr(),
        }
    }

    /// The struct's bytes. Valid while `self` lives; only read with the GIL held.
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr..ptr + size` is valid while `self` lives (owned, or kept by `_keep`);
        // writers hold the GIL, as does every reader of this slice.
        unsafe { std::slice::from_raw_parts(self.base(), self.size) }
    }

    /// The number of bytes.
    pub(super) fn size(&self) -> usize {
        self.size
    }

    /// True when the struct views read-only memory (a received chunk's header) or the header
    /// of a loan already sent or discarded.
    pub(super) fn is_readonly(&self) -> bool {
        self.readonly || self.loan().is_some_and(|m| !m.get().is_open())
    }

    /// Refuses to write the field `owner.field` of a read-only struct.
    pub(super) fn check_writable(&self, owner: &str, field: &str) -> PyResult<()> {
        // A closed loan's header first: a view of it made after `send` is read-only too.
        if self.loan().is_some_and(|m| !m.get().is_open()) {
            return Err(PyTypeError::new_err(format!(
                "{owner}.{field}: this loan was already sent or discarded, its header is \
                 frozen (subscribers may be reading it); loan a new chunk to send again"
            )));
        }
        if self.readonly {
            return Err(PyTypeError::new_err(format!(
                "{owner}.{field}: this message is read-only (it views a received message in \
                 shared memory); .copy() gives a writable copy"
            )));
        }
        Ok(())
    }

    /// A new instance of the message class `cls` holding a copy of `bytes`.
    ///
    /// # Safety
    /// `cls` must be `Struct` or a class derived from it.
    pub(crate) unsafe fn new_owned<'py>(
        py: Python<'py>,
        cls: &Bound<'py, PyType>,
        bytes: &[u8],
    ) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: per the contract.
        unsafe { new_of_type(py, cls, Struct::owned(bytes)) }
    }
}
