//! A read-write shared mapping of a whole file, unmapped when dropped: what a test (or the
//! soak's ledger) uses to look at memory other processes share.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;

/// `len` bytes of a file, mapped `MAP_SHARED` read-write.
pub struct SharedMapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: shared memory accessed through atomics or volatile reads by its users; the mapping
// itself is unmapped once, on drop.
unsafe impl Send for SharedMapping {}
// SAFETY: as above.
unsafe impl Sync for SharedMapping {}

impl SharedMapping {
    /// Maps the first `len` bytes of `file`.
    pub fn new(file: &File, len: usize) -> std::io::Result<Self> {
        if len == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "an empty file cannot be mapped",
            ));
        }
        // SAFETY: a fresh shared mapping of an open descriptor; the kernel picks the address.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let ptr =
            NonNull::new(p as *mut u8).ok_or_else(|| std::io::Error::other("null mapping"))?;
        Ok(SharedMapping { ptr, len })
    }

    /// The first byte.
    pub fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Bytes mapped.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: an empty file is refused.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        // SAFETY: ptr/len came from a successful mmap and are unmapped once.
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len) };
    }
}
