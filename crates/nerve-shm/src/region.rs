//! Memory regions the rings and pools live in: a zeroed heap buffer (tests, in-process topics)
//! or a shared mapping of a `/dev/shm` file (production). Everything above this layer sees only
//! a base pointer and a length, so the same lock-free code runs under miri on the heap.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// Alignment of every region: a page, so layouts can align slots to cache lines and chunks to
/// pages regardless of where the region came from.
pub const REGION_ALIGN: usize = 4096;

/// A contiguous, zero-initialised (at creation), page-aligned block of memory that may be shared
/// with other threads or processes.
///
/// # Safety
/// Implementors guarantee that `base()` is valid for reads and writes of `len()` bytes, aligned
/// to [`REGION_ALIGN`], for as long as the region value lives, and that the memory is never
/// moved.
pub unsafe trait Region: Send + Sync {
    /// Start of the region.
    fn base(&self) -> NonNull<u8>;
    /// Length in bytes.
    fn len(&self) -> usize;
    /// True when the region is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A zeroed heap allocation, used for unit tests (miri) and in-process topics.
pub struct HeapRegion {
    ptr: NonNull<u8>,
    len: usize,
}

impl HeapRegion {
    /// Allocates `len` zeroed bytes (at least one page).
    pub fn new(len: usize) -> Self {
        let len = len.max(REGION_ALIGN);
        let layout = Layout::from_size_align(len, REGION_ALIGN).expect("region layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Self { ptr, len }
    }
}

impl Drop for HeapRegion {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(self.len, REGION_ALIGN).expect("region layout");
        // SAFETY: allocated in `new` with this exact layout and not freed before.
        unsafe { dealloc(self.ptr.as_ptr(), layout) };
    }
}

// SAFETY: the allocation is owned, page-aligned, `len` bytes long and never moves.
unsafe impl Region for HeapRegion {
    fn base(&self) -> NonNull<u8> {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
}

// SAFETY: the region is plain memory; all concurrent access goes through atomics in the layouts
// built on top of it.
unsafe impl Send for HeapRegion {}
// SAFETY: as above.
unsafe impl Sync for HeapRegion {}
