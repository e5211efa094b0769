//! Topic segments as files under `/dev/shm/nerve-<uid>-<domain>/`: create, open, validate,
//! reclaim, list and clean. The file name is the rendezvous: no broker, no daemon.
//!
//! Opening and creating happen under an exclusive `flock` on the domain's `.lock` file, so a
//! creator always finishes writing the header before anyone else looks at it; a segment found
//! without its `ready` mark under the lock was left by a creator that died, and is replaced.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

use crate::layout::{
    HeaderFields, LayoutError, StoredType, TopicConfig, TopicParams, ENDPOINTS_OFFSET,
    ENDPOINT_FREE, ENDPOINT_SIZE, MAX_ENDPOINTS, READY,
};
use crate::liveness::ProcessId;
use crate::pool::Pool;
use crate::region::Region;
use crate::ring::Ring;
use crate::scope::Scope;

/// Offset of the `ready` word (in the reserved space after the header fields).
const READY_OFFSET: usize = 1016;
const _: () = assert!(std::mem::size_of::<HeaderFields>() <= READY_OFFSET);

/// A shared mapping of a segment file.
pub struct ShmRegion {
    ptr: NonNull<u8>,
    len: usize,
    path: PathBuf,
    /// (device, inode) of the mapped file: tells whether `path` still names this segment.
    id: (u64, u64),
    /// The mapping's entry in the SIGBUS guard (a file truncated under it).
    guard: Option<crate::sigbus::Registration>,
}

// SAFETY: the mapping is MAP_SHARED, page-aligned (mmap), `len` bytes, unmapped only on drop.
unsafe impl Region for ShmRegion {
    fn base(&self) -> NonNull<u8> {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
}

// SAFETY: shared memory; all concurrent access goes through atomics in the layouts.
unsafe impl Send for ShmRegion {}
// SAFETY: as above.
unsafe impl Sync for ShmRegion {}

impl ShmRegion {
    pub(crate) fn map(file: &File, len: usize, path: &Path, writable: bool) -> io::Result<Self> {
        if len == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "empty segment"));
        }
        let prot = if writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh mapping of an open file descriptor; the kernel picks the address.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let meta = file.metadata()?;
        Ok(ShmRegion {
            id: (
                std::os::unix::fs::MetadataExt::dev(&meta),
                std::os::unix::fs::MetadataExt::ino(&meta),
            ),
            ptr: NonNull::new(p as *mut u8).expect("mmap returned null"),
            len,
            path: path.to_owned(),
            guard: Some(crate::sigbus::register(p as *mut u8, len)),
        })
    }

    /// Makes the SIGBUS guard also set `flag` when this mapping is found damaged.
    ///
    /// # Safety
    /// `flag` must stay valid for as long as this region lives.
    pub unsafe fn watch_damage(&self, flag: &std::sync::atomic::AtomicBool) {
        if let Some(g) = &self.guard {
            // SAFETY: forwarded: the flag outlives the region, which owns the registration.
            unsafe { g.watch(flag) };
        }
    }

    /// Set when a page of this mapping was found past the end of its file (the segment was
    /// truncated under us): what it holds can no longer be trusted.
    pub fn damage_flag(&self) -> &'static std::sync::atomic::AtomicBool {
        match &self.guard {
            Some(g) => g.flag(),
            None => crate::sigbus::Registration::none().flag(),
        }
    }

    /// The file behind the mapping.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the segment's file if no live process uses the topic any more (the last user
    /// closing it cleanly), so closed topics do not keep their memory. Taken under the domain
    /// lock, and only if the path still names this very segment: a newer segment that replaced
    /// it is left alone. Returns whether the file was removed.
    pub fn unlink_if_unused(&self, params: &TopicParams) -> bool {
        let Some(dir) = self.path.parent() else {
            return false;
        };
        let Ok(_lock) = DomainLock::acquire(dir) else {
            return false;
        };
        let same_file = std::fs::metadata(&self.path).is_ok_and(|m| {
            (
                std::os::unix::fs::MetadataExt::dev(&m),
                std::os::unix::fs::MetadataExt::ino(&m),
            ) == self.id
        });
        // SAFETY: params were validated against this mapping, which outlives the ring view.
        let ring = unsafe { Ring::new(self.ptr, params) };
        if same_file && live_endpoints(&ring) == 0 {
            return std::fs::remove_file(&self.path).is_ok();
        }
        false
    }
}

impl Drop for ShmRegion {
    fn drop(&mut self) {
        // Out of the SIGBUS guard before the range is unmapped (and maybe reused).
        self.guard.take();
        // SAFETY: ptr/len came from a successful mmap and are unmapped exactly once.
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len) };
    }
}

/// Why a segment could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    /// The header failed validation.
    #[error("{path}: corrupt segment: {source}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        source: LayoutError,
    },
    /// Live processes use the topic with another type.
    #[error("type mismatch: the topic carries {}, not {}", found.describe(), expected.describe())]
    TypeMismatch {
        /// What the caller asked for.
        expected: StoredType,
        /// What the segment holds.
        found: StoredType,
        /// The segment's type description (empty: none).
        found_schema: Vec<u8>,
    },
    /// The file system has no room for the segment.
    #[error("{path}: no space: the segment needs {needed} bytes, {free} are free")]
    NoSpace {
        /// The file.
        path: PathBuf,
        /// Bytes the segment needs now.
        needed: u64,
        /// Bytes free on the file system.
        free: u64,
    },
    /// Every endpoint record is taken by a live process.
    #[error("{path}: every endpoint record is in use")]
    Full {
        /// The file.
        path: PathBuf,
    },
    /// OS error.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

/// The directory of a domain: `/dev/shm/nerve-<uid>-<domain>` (or `$NERVE_SHM_DIR/...`, or
/// `nerve-g<gid>-<domain>` in the group mode: see [`crate::scope`]).
pub fn domain_dir(domain: u32) -> PathBuf {
    Scope::current().domain_dir(domain)
}

/// Bytes free for an unprivileged user on the file system holding `path` (0 if unknown).
pub fn free_bytes(path: &Path) -> u64 {
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return 0;
    };
    // SAFETY: zeroed statvfs is a valid out-parameter; statvfs writes it on success.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return 0;
    }
    (st.f_bavail as u64).saturating_mul(st.f_frsize as u64)
}

/// Bytes of a segment that must exist before anyone maps it: everything but the pool's
/// chunks, which are allocated on first use (`populate`).
fn reserved_len(header: &HeaderFields, chunks: Option<(usize, u32)>, max_endpoints: u32) -> u64 {
    let total = header.total_size;
    match chunks {
        Some((size, count)) if header.pool_offset != 0 => {
            let meta = Pool::metadata_len(size, count, max_endpoints).unwrap_or(usize::MAX);
            header.pool_offset.saturating_add(meta as u64).min(total)
        }
        _ => total,
    }
}

/// Allocates `len` bytes of `file` from offset 0, so that touching them never raises SIGBUS
/// on a full file system: `NoSpace` instead, naming what was needed and what is free.
pub(crate) fn reserve(file: &File, len: u64, path: &Path) -> Result<(), SegmentError> {
    #[cfg(target_os = "linux")]
    {
        let len = libc::off_t::try_from(len).unwrap_or(libc::off_t::MAX);
        // SAFETY: fallocate on an open descriptor; mode 0 allocates and extends if needed.
        if unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) } != 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ENOSPC) => SegmentError::NoSpace {
                    path: path.to_owned(),
                    needed: len as u64,
                    free: path.parent().map_or(0, free_bytes),
                },
                // A file system without fallocate: pages are promised, as before.
                Some(libc::EOPNOTSUPP) => return Ok(()),
                _ => SegmentError::Io {
                    path: path.to_owned(),
                    source: e,
                },
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, len, path);
    Ok(())
}

/// Makes sure the `len` bytes of a shared mapping at `ptr` exist in the file behind it (a
/// chunk about to be written for the first time by this process): false when the file
/// system is full, where writing them would raise SIGBUS. Cheap for pages that exist.
pub fn populate(ptr: *mut u8, len: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        // Whole pages from the page containing `ptr`.
        let page = 4096usize;
        let start = (ptr as usize) & !(page - 1);
        let end = (ptr as usize).saturating_add(len);
        // SAFETY: madvise only populates page tables of our own mapping (the caller passes a
        // range inside a live mapping); it reads and writes no user memory.
        let r = unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            )
        };
        // EINVAL: a kernel older than 5.14; pages are then promised, as before.
        r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (ptr, len);
        true
    }
}

/// File name for a topic (names are validated by the facade: `/` is mapped to `%`).
pub fn topic_file(name: &str) -> String {
    format!("{}.topic", name.replace('/', "%"))
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SegmentError + '_ {
    move |source| SegmentError::Io {
        path: path.to_owned(),
        source,
    }
}

/// An exclusive lock on a domain directory, released on drop (and by the kernel if we die).
pub struct DomainLock {
    _file: File,
}

impl DomainLock {
    /// Creates the domain directory (mode 0700, or 2770 in the group mode) if needed and
    /// locks it.
    pub fn acquire(dir: &Path) -> Result<Self, SegmentError> {
        let scope = Scope::current();
        scope.prepare_dir(dir).map_err(io_err(dir))?;
        let path = dir.join(".lock");
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .mode(scope.file_mode())
            .open(&path)
            .map_err(|e| scope.explain(e, &path))
            .map_err(io_err(&path))?;
        scope.adopt_if_ours(&f, &path).map_err(io_err(&path))?;
        loop {
            // SAFETY: flock on a valid fd.
            if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(DomainLock { _file: f });
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(SegmentError::Io { path, source: e });
            }
        }
    }
}

/// An open, validated topic segment.
pub struct Segment {
    /// The mapping.
    pub region: ShmRegion,
    /// Validated parameters.
    pub params: TopicParams,
    /// True if this call created it (or replaced a stale one).
    pub created: bool,
    /// The `ENDPOINT_HANDLE` record claimed for this opener under the domain lock, so no other
    /// process reclaims the segment as stale before this one adds its endpoints. The owner
    /// releases it (`Ring::release_endpoint`) when it closes the topic.
    pub handle: u32,
}

fn ready_word(base: NonNull<u8>) -> &'static AtomicU32 {
    // SAFETY: READY_OFFSET is inside the first page of every segment we map (a segment shorter
    // than a page is rejected before this is called) and 4-byte aligned. The 'static lifetime
    // is only used for the duration of the caller's borrow of the region.
    unsafe { &*(base.as_ptr().add(READY_OFFSET) as *const AtomicU32) }
}

/// Reads and validates the header of a mapped segment.
pub fn validate(region: &ShmRegion) -> Result<TopicParams, LayoutError> {
    if region.len() < 4096 {
        return Err(LayoutError::TooShort {
            needed: 4096,
            actual: region.len(),
        });
    }
    // SAFETY: the region is at least a page; HeaderFields is plain integers and bytes, so any
    // bit pattern is valid; one volatile snapshot is taken and validated.
    let h = unsafe { std::ptr::read_volatile(region.base().as_ptr() as *const HeaderFields) };
    h.validate(region.len())
}

/// Whether any endpoint of the segment belongs to a live process.
pub fn live_endpoints(ring: &Ring) -> usize {
    (0..ring.endpoint_count())
        .filter(|&i| {
            let e = ring.endpoint(i);
            // Acquire pairs with the Release store of `state` in `Ring::claim_endpoint`: the
            // pid and life token are those of the record's owner.
            e.state.load(Acquire) != ENDPOINT_FREE
                && ProcessId {
                    pid: e.pid.load(Relaxed),
                    token: e.token.load(Relaxed),
                }
                .is_alive()
        })
        .count()
}

/// For a ready segment of another layout version: its version and the pids of its endpoint
/// records whose processes are alive. None for our own version (or not a nerve segment).
///
/// Every layout version keeps the endpoint table at [`ENDPOINTS_OFFSET`] in 64-byte records
/// that start with `state: u32, pid: u32, token: u64` (before version 5 the start time), and
/// the header's `max_endpoints` where [`HeaderFields`] has it; a layout that cannot keep that
/// must change the magic.
fn other_version_users(region: &ShmRegion) -> Option<(u32, Vec<u32>)> {
    // SAFETY: the caller mapped at least a page; HeaderFields is plain integers and bytes.
    let h = unsafe { std::ptr::read_volatile(region.base().as_ptr() as *const HeaderFields) };
    if h.magic != crate::layout::TOPIC_MAGIC || h.version == crate::layout::LAYOUT_VERSION {
        return None;
    }
    let fit = region.len().saturating_sub(ENDPOINTS_OFFSET) / ENDPOINT_SIZE;
    let records = (h.max_endpoints.min(MAX_ENDPOINTS) as usize).min(fit);
    let users = (0..records)
        .filter_map(|i| {
            // SAFETY: record i lies inside the mapping (i < fit) and is 64-byte aligned; its
            // words are read as atomics (other processes may still write them).
            let (state, pid, start) = unsafe {
                let rec = region
                    .base()
                    .as_ptr()
                    .add(ENDPOINTS_OFFSET + i * ENDPOINT_SIZE);
                (
                    // Acquire pairs with the Release store of `state` in
                    // `Ring::claim_endpoint`, as in `live_endpoints`.
                    (*(rec as *const AtomicU32)).load(Acquire),
                    (*(rec.add(4) as *const AtomicU32)).load(Relaxed),
                    (*(rec.add(8) as *const AtomicU64)).load(Relaxed),
                )
            };
            // Versions before 5 stored the start time where later ones keep the life token.
            let alive = if h.version < 5 {
                crate::liveness::legacy_alive(pid, start)
            } else {
                ProcessId { pid, token: start }.is_alive()
            };
            (state != ENDPOINT_FREE && pid != 0 && alive).then_some(pid)
        })
        .collect();
    Some((h.version, users))
}

/// Frees the endpoint records of dead processes in a mapped segment, with the chunk references
/// they held. Returns how many.
fn reclaim_dead_records(region: &ShmRegion, params: &TopicParams, ring: &Ring) -> usize {
    let pool = (params.pool_len > 0)
        .then(|| {
            // SAFETY: the pool area was validated (with the header) to lie inside the mapping,
            // which outlives this call.
            unsafe {
                Pool::attach(
                    region.base().as_ptr().add(params.pool_offset),
                    params.pool_len,
                    params.max_endpoints,
                )
            }
            .ok()
        })
        .flatten();
    ring.reclaim_dead(pool.as_ref(), |i| ring.endpoint_dead(i), |i, pid, chunks| {
        tracing::info!(path = %region.path().display(), endpoint = i, pid, chunks, "reclaimed the endpoint of a dead process");
    })
}

/// Opens the topic segment `file` in `dir`, creating it from `config` if it does not exist or
/// only dead processes used it. `chunks` = (chunk size, chunk count) for a pool.
pub fn open_or_create(
    dir: &Path,
    file: &str,
    config: &TopicConfig,
    chunks: Option<(usize, u32)>,
) -> Result<Segment, SegmentError> {
    let _lock = DomainLock::acquire(dir)?;
    let path = dir.join(file);
    match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(f) => attach(path, &f, Some((config, chunks))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => create(&path, config, chunks),
        Err(e) => Err(SegmentError::Io { path, source: e }),
    }
}

/// Opens the existing topic segment `file` in `dir` as it is, whatever its type (for tools
/// that adopt a topic's type and description): never creates nor replaces one. A segment
/// that does not exist, or was left unfinished by a creator that died, is `NotFound`.
pub fn join(dir: &Path, file: &str) -> Result<Segment, SegmentError> {
    let _lock = DomainLock::acquire(dir)?;
    let path = dir.join(file);
    match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(f) => attach(path, &f, None),
        Err(e) => Err(SegmentError::Io { path, source: e }),
    }
}

/// Maps and validates the segment `f` at `path` (under the domain lock) and claims a handle
/// record. With `want` (the config a creator would use, and its pool), a segment left
/// unfinished, of another version by dead processes, or used only by dead processes is
/// replaced, and one of another type refused; without, the first is `NotFound` and the
/// others are joined as they are.
fn attach(
    path: PathBuf,
    f: &File,
    want: Option<(&TopicConfig, Option<(usize, u32)>)>,
) -> Result<Segment, SegmentError> {
    let rebuild = |path: &Path| match want {
        Some((config, chunks)) => replace(path, config, chunks),
        None => Err(SegmentError::Io {
            path: path.to_owned(),
            source: io::Error::new(
                io::ErrorKind::NotFound,
                "left unfinished by a creator that died",
            ),
        }),
    };
    let len = f.metadata().map_err(io_err(&path))?.len() as usize;
    let region = match ShmRegion::map(f, len, &path, true) {
        Ok(r) if len >= 4096 => r,
        // Empty or truncated: a creator died before sizing it (we hold the lock).
        _ => return rebuild(&path),
    };
    // A creator that died before finishing leaves zeros or our magic without the ready mark
    // (we hold the lock, so it is not still writing): replace it. Anything else that fails
    // validation is not ours to delete: report it.
    // SAFETY: the mapping is at least a page long; the magic is its first 8 bytes.
    let magic = unsafe { std::ptr::read_volatile(region.base().as_ptr() as *const u64) };
    // Acquire pairs with the creator's Release store of READY after initialising.
    if (magic == 0 || magic == crate::layout::TOPIC_MAGIC)
        && ready_word(region.base()).load(Acquire) != READY
    {
        drop(region);
        return rebuild(&path);
    }
    // Left by another version of nerve (an upgrade, then a restart): rebuilt when none of its
    // users is alive, else a clear error naming them.
    if let Some((version, users)) = other_version_users(&region) {
        if users.is_empty() && want.is_some() {
            tracing::info!(path = %path.display(), version, "replacing a topic segment of another nerve layout version left by dead processes");
            drop(region);
            return rebuild(&path);
        }
        return Err(SegmentError::Corrupt {
            path,
            source: LayoutError::Invalid {
                field: "version",
                detail: format!(
                    "layout version {version} (this build reads {}), in use by processes \
                     {users:?} built with another nerve version: stop them (or build \
                     everything against one nerve)",
                    crate::layout::LAYOUT_VERSION
                ),
            },
        });
    }
    let params = validate(&region).map_err(|source| SegmentError::Corrupt {
        path: path.clone(),
        source,
    })?;
    // SAFETY: params validated against this mapping, which the ring does not outlive.
    let ring = unsafe { Ring::new(region.base(), &params) };
    if let Some((config, _)) = want {
        if live_endpoints(&ring) == 0 {
            tracing::debug!(path = %path.display(), "reclaiming topic segment left by dead processes");
            drop(region);
            return rebuild(&path);
        }
        if params.stored_type != config.stored_type {
            return Err(SegmentError::TypeMismatch {
                expected: config.stored_type.clone(),
                found_schema: schema_bytes(&region, &params),
                found: params.stored_type,
            });
        }
    }
    let handle = match ring.claim_endpoint(crate::layout::ENDPOINT_HANDLE) {
        Some(h) => h,
        // Every record taken: free those of dead processes (and the chunks they held) before
        // giving up; nothing else would on a topic whose live endpoints never run short
        // themselves.
        None if reclaim_dead_records(&region, &params, &ring) > 0 => ring
            .claim_endpoint(crate::layout::ENDPOINT_HANDLE)
            .ok_or(SegmentError::Full { path: path.clone() })?,
        None => return Err(SegmentError::Full { path }),
    };
    Ok(Segment {
        region,
        params,
        created: false,
        handle,
    })
}

fn replace(
    path: &Path,
    config: &TopicConfig,
    chunks: Option<(usize, u32)>,
) -> Result<Segment, SegmentError> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(SegmentError::Io {
                path: path.to_owned(),
                source: e,
            })
        }
    }
    create(path, config, chunks)
}

/// The header a creator writes for `config`, with room for a pool of `chunks` = (chunk size,
/// count) when given. Errors name the value out of range.
pub fn plan(
    config: &TopicConfig,
    chunks: Option<(usize, u32)>,
) -> Result<HeaderFields, LayoutError> {
    let mut config = config.clone();
    if let Some((size, count)) = chunks {
        config.pool_len = Pool::area_len(size, count, config.max_endpoints).ok_or_else(|| {
            LayoutError::Invalid {
                field: "pool",
                detail: format!("{count} chunks of {size} bytes overflow"),
            }
        })?;
    }
    let me = ProcessId::current();
    config.header(me.pid, me.token)
}

/// A copy of the type description of a segment validated as `params` in `region`: bytes
/// another process wrote, to be validated by whoever decodes them.
pub fn schema_bytes(region: &dyn Region, params: &TopicParams) -> Vec<u8> {
    let (offset, len) = (params.schema_offset, params.schema_len);
    if offset.saturating_add(len) > region.len() {
        return Vec::new();
    }
    // SAFETY: the area lies inside the region (checked above; validated to sit before the
    // slots). It is written once before the segment is marked ready; a hostile process that
    // rewrites it can only change the bytes we copy (volatile reads of plain bytes).
    (0..len)
        .map(|i| unsafe { std::ptr::read_volatile(region.base().as_ptr().add(offset + i)) })
        .collect()
}

/// Writes a planned header (and its pool) into a fresh region and returns the validated
/// parameters. The same code lays out shared-memory segments and in-process heap topics.
///
/// # Safety
/// `base` must point to `len` zeroed bytes, page-aligned, that nobody else can see yet, with
/// `len >= header.total_size`.
pub unsafe fn initialize(
    base: NonNull<u8>,
    len: usize,
    header: &HeaderFields,
    chunks: Option<(usize, u32)>,
    schema: &[u8],
) -> Result<TopicParams, LayoutError> {
    // SAFETY: the caller guarantees a private, zeroed region of at least a page.
    unsafe { std::ptr::write(base.as_ptr() as *mut HeaderFields, *header) };
    // SAFETY: as above; `len` bytes are readable.
    let copy = unsafe { std::ptr::read_volatile(base.as_ptr() as *const HeaderFields) };
    let params = copy.validate(header.total_size as usize)?;
    debug_assert!(params.total_size <= len);
    if schema.len() != params.schema_len {
        return Err(LayoutError::Invalid {
            field: "schema_len",
            detail: format!("{} planned, {} given", params.schema_len, schema.len()),
        });
    }
    // SAFETY: the schema area lies inside the region (validated above), which is private.
    unsafe {
        let at = base.as_ptr().add(params.schema_offset);
        std::ptr::copy_nonoverlapping(schema.as_ptr(), at, schema.len());
    }
    if let Some((size, count)) = chunks {
        // SAFETY: the pool area lies inside the region (validated above) and is zeroed.
        unsafe {
            Pool::init(
                base.as_ptr().add(params.pool_offset),
                params.pool_len,
                size,
                count,
                params.max_endpoints,
            )
        };
    }
    Ok(params)
}

fn create(
    path: &Path,
    config: &TopicConfig,
    chunks: Option<(usize, u32)>,
) -> Result<Segment, SegmentError> {
    let corrupt = |source| SegmentError::Corrupt {
        path: path.to_owned(),
        source,
    };
    let header = plan(config, chunks).map_err(corrupt)?;
    let scope = Scope::current();
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(scope.file_mode())
        .open(path)
        .map_err(|e| scope.explain(e, path))
        .map_err(io_err(path))?;
    scope.adopt(&f, path).map_err(io_err(path))?;
    let sized = f
        .set_len(header.total_size)
        .map_err(io_err(path))
        .and_then(|()| {
            reserve(
                &f,
                reserved_len(&header, chunks, config.max_endpoints),
                path,
            )
        });
    if let Err(e) = sized {
        // Nothing of it is usable: leave no file behind.
        let _ = std::fs::remove_file(path);
        return Err(e);
    }
    let region =
        ShmRegion::map(&f, header.total_size as usize, path, true).map_err(io_err(path))?;
    // SAFETY: the mapping is fresh (create_new), zero-filled, page-aligned, private to us under
    // the domain lock, and exactly `total_size` long.
    let params =
        unsafe { initialize(region.base(), region.len(), &header, chunks, &config.schema) }
            .map_err(corrupt)?;
    // Release pairs with the Acquire load in `open_or_create`: a segment marked ready has its
    // header and pool written.
    ready_word(region.base()).store(READY, Release);
    // SAFETY: params validated against this mapping, which the ring does not outlive.
    let ring = unsafe { Ring::new(region.base(), &params) };
    let handle = ring
        .claim_endpoint(crate::layout::ENDPOINT_HANDLE)
        .ok_or_else(|| SegmentError::Full {
            path: path.to_owned(),
        })?;
    Ok(Segment {
        region,
        params,
        created: true,
        handle,
    })
}
