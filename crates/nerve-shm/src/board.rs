//! A domain's notice board: the small shared file `.registry` next to a domain's segments,
//! where processes post what they hold and watchers sleep until something changes.
//!
//! ```text
//! 0     magic u64 | version u32 | header_size u32 | entry_size u32 | capacity u32 | total u64
//! 64    generation  AtomicU32, bumped after every change: the futex word watchers sleep on
//! 128   watchers    AtomicU32, live watchers: no wake-up system call while it is 0
//! 256   watcher slots, 64 × (pid u32, _ u32, life token u64)
//! 4096  entries, CAPACITY × ENTRY_SIZE:
//!       0 seq u32 | 4 state u32 | 8 kind u32 | 12 version u32 | 16 instance u64
//!       24 owner pid u32 | 28 key_len u32 | 32 label_len u32 | 36 counts [u32; 2] | 44 word u32
//!       48 owner life token u64 | 56 hash of the key u64 | 64 key [224] | 288 label [96]
//! ```
//!
//! The memory layer gives the entries no meaning (the transport stores topics in them: the
//! key is a name, the label a type, the kind says where the topic lives). Entries are written
//! only under the domain's `flock` ([`DomainLock`], which every writer already takes to
//! create a segment), each behind its own sequence word (seqlock: odd while written), so
//! readers never lock. `version`, `counts` and `generation` change without the lock: an
//! owner's updates of its own entry, followed by [`Board::bump`].
//!
//! Every byte of the file is untrusted: any process of the user can write it. The header is
//! checked each time a board is looked at ([`Board::header_error`]); an entry is returned only
//! when a consistent copy of it validates (state, lengths within their buffers, UTF-8, the
//! hash of its key), and reading one gives up after a few torn copies. A corrupt board is
//! replaced by an empty one under the lock ([`Board::open`]), never repaired in place.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering::*};
use std::time::Duration;

use crate::liveness::ProcessId;
use crate::region::{HeapRegion, Region};
use crate::segment::{DomainLock, SegmentError, ShmRegion};
use crate::snapshot::pread_exact;
use crate::words;

/// The board's file name in a domain directory.
pub const BOARD_FILE: &str = ".registry";
/// `b"NERVEREG"` as a little-endian u64.
pub const BOARD_MAGIC: u64 = u64::from_le_bytes(*b"NERVEREG");
/// Bumped on any change of this layout (2: owners and watchers named by life token).
pub const BOARD_VERSION: u32 = 2;
/// Bytes before the first entry.
pub const HEADER_SIZE: usize = 4096;
/// Bytes per entry.
pub const ENTRY_SIZE: usize = 384;
/// Entries in a board.
pub const CAPACITY: u32 = 1024;
/// Longest key, in bytes.
pub const KEY_MAX: usize = 224;
/// Longest label, in bytes.
pub const LABEL_MAX: usize = 96;
/// Length of a board file.
pub const BOARD_SIZE: usize = HEADER_SIZE + ENTRY_SIZE * CAPACITY as usize;

const GENERATION: usize = 64;
const WATCHERS: usize = 128;
const WATCHER_SLOTS: usize = 256;
const WATCHER_SLOT_COUNT: usize = 64;

const E_SEQ: usize = 0;
const E_STATE: usize = 4;
const E_KIND: usize = 8;
const E_VERSION: usize = 12;
const E_INSTANCE: usize = 16;
const E_PID: usize = 24;
const E_KEY_LEN: usize = 28;
const E_LABEL_LEN: usize = 32;
const E_COUNTS: usize = 36;
const E_WORD: usize = 44;
const E_TOKEN: usize = 48;
const E_HASH: usize = 56;
const E_KEY: usize = 64;
const E_LABEL: usize = E_KEY + KEY_MAX;
const _: () = assert!(E_LABEL + LABEL_MAX == ENTRY_SIZE);
const _: () = assert!(WATCHER_SLOTS + 16 * WATCHER_SLOT_COUNT <= HEADER_SIZE);

const STATE_USED: u32 = 1;
/// Consistent copies a reader attempts before it calls an entry torn.
const READ_TRIES: u32 = 16;

/// What a process posts: an opaque kind, an instance (what makes two postings of one key
/// different things), the owning process, a key and a label, and two counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Non-zero; meaning given by the caller.
    pub kind: u32,
    /// Changes when the thing posted under the same key is another one.
    pub instance: u64,
    /// The process that posted it.
    pub owner: ProcessId,
    /// 1 to [`KEY_MAX`] bytes of UTF-8.
    pub key: String,
    /// Up to [`LABEL_MAX`] bytes of UTF-8.
    pub label: String,
    /// Two counters the owner keeps up to date ([`Board::set_counts`]).
    pub counts: [u32; 2],
    /// A word of the caller's, set with the entry.
    pub word: u32,
}

/// An entry as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Nothing posted.
    Free,
    /// A valid entry and its version (bumped by [`Board::bump`] on each change of it).
    Used(Entry, u32),
    /// A consistent copy that does not validate (garbage): nothing posted.
    Invalid(&'static str),
    /// No consistent copy after a few tries: being written, or left half-written by a writer
    /// that died. Readers keep what they knew of it.
    Torn,
}

/// Why a board could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// A board found corrupt by a reader that does not rebuild it.
    #[error("{path}: corrupt domain registry: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// The file system has no room for the board.
    #[error("{path}: no space for the domain registry: it needs {needed} bytes, {free} are free")]
    NoSpace {
        /// The file.
        path: PathBuf,
        /// Bytes needed.
        needed: u64,
        /// Bytes free.
        free: u64,
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

/// FNV-1a of a key: stored with it, so a scan compares one word, and garbage rarely passes.
pub fn key_hash(key: &[u8]) -> u64 {
    key.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The words of a board, wherever they live (a shared mapping or a private copy).
#[derive(Clone, Copy)]
struct Table {
    /// Valid for [`BOARD_SIZE`] bytes, 8-byte aligned, accessed only through atomics.
    base: NonNull<u8>,
}

impl Table {
    fn u32(&self, offset: usize) -> &AtomicU32 {
        debug_assert!(offset + 4 <= BOARD_SIZE && offset.is_multiple_of(4));
        // SAFETY: every offset passed is a constant or an entry field below BOARD_SIZE,
        // 4-aligned; the base is valid for BOARD_SIZE bytes for as long as `self` is used.
        unsafe { &*(self.base.as_ptr().add(offset) as *const AtomicU32) }
    }

    fn u64(&self, offset: usize) -> &AtomicU64 {
        debug_assert!(offset + 8 <= BOARD_SIZE && offset.is_multiple_of(8));
        // SAFETY: as in `u32`, 8-aligned.
        unsafe { &*(self.base.as_ptr().add(offset) as *const AtomicU64) }
    }

    fn entry(i: u32) -> usize {
        HEADER_SIZE + (i.min(CAPACITY - 1) as usize) * ENTRY_SIZE
    }

    /// What is wrong with the header, if anything.
    fn header_error(&self) -> Option<String> {
        let magic = self.u64(0).load(Relaxed);
        if magic != BOARD_MAGIC {
            return Some(format!("magic {magic:#018x} is not a nerve registry's"));
        }
        let fields = [
            (
                "version",
                self.u32(8).load(Relaxed) as u64,
                BOARD_VERSION as u64,
            ),
            (
                "header size",
                self.u32(12).load(Relaxed) as u64,
                HEADER_SIZE as u64,
            ),
            (
                "entry size",
                self.u32(16).load(Relaxed) as u64,
                ENTRY_SIZE as u64,
            ),
            (
                "capacity",
                self.u32(20).load(Relaxed) as u64,
                CAPACITY as u64,
            ),
            ("length", self.u64(24).load(Relaxed), BOARD_SIZE as u64),
        ];
        fields
            .iter()
            .find(|(_, found, want)| found != want)
            .map(|(what, found, want)| format!("{what} {found}, this build uses {want}"))
    }

    fn write_header(&self) {
        self.u32(8).store(BOARD_VERSION, Relaxed);
        self.u32(12).store(HEADER_SIZE as u32, Relaxed);
        self.u32(16).store(ENTRY_SIZE as u32, Relaxed);
        self.u32(20).store(CAPACITY, Relaxed);
        self.u64(24).store(BOARD_SIZE as u64, Relaxed);
        // Written last; nobody reads a board before its creator drops the domain lock.
        self.u64(0).store(BOARD_MAGIC, Relaxed);
    }

    /// Reads entry `i` (a seqlock copy), validated.
    fn read(&self, i: u32) -> Slot {
        let e = Self::entry(i);
        let seq = self.u32(e + E_SEQ);
        for _ in 0..READ_TRIES {
            // Acquire pairs with the Release store of the even sequence in `write`: the
            // fields of a complete entry are visible.
            let s1 = seq.load(Acquire);
            if s1 % 2 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let state = self.u32(e + E_STATE).load(Relaxed);
            let kind = self.u32(e + E_KIND).load(Relaxed);
            let instance = self.u64(e + E_INSTANCE).load(Relaxed);
            let pid = self.u32(e + E_PID).load(Relaxed);
            let token = self.u64(e + E_TOKEN).load(Relaxed);
            let key_len = self.u32(e + E_KEY_LEN).load(Relaxed) as usize;
            let label_len = self.u32(e + E_LABEL_LEN).load(Relaxed) as usize;
            let hash = self.u64(e + E_HASH).load(Relaxed);
            let word = self.u32(e + E_WORD).load(Relaxed);
            let mut key = [0u8; KEY_MAX];
            let mut label = [0u8; LABEL_MAX];
            // SAFETY: the key and label buffers are 8-aligned inside the entry, which lies
            // inside the table; the table is only accessed through atomics.
            unsafe {
                words::load(self.base.as_ptr().add(e + E_KEY), &mut key);
                words::load(self.base.as_ptr().add(e + E_LABEL), &mut label);
            }
            // Pairs with the Release fence in `write`: if any word copied above came from a
            // writer that began after `s1`, the load below sees its odd sequence.
            fence(Acquire);
            if seq.load(Relaxed) != s1 {
                continue;
            }
            if state != STATE_USED {
                return Slot::Free;
            }
            if kind == 0 {
                return Slot::Invalid("kind 0");
            }
            if key_len == 0 || key_len > KEY_MAX || label_len > LABEL_MAX {
                return Slot::Invalid("a length outside its buffer");
            }
            if key_hash(&key[..key_len]) != hash {
                return Slot::Invalid("the key does not match its hash");
            }
            let (Ok(key), Ok(label)) = (
                std::str::from_utf8(&key[..key_len]),
                std::str::from_utf8(&label[..label_len]),
            ) else {
                return Slot::Invalid("a key or label that is not UTF-8");
            };
            let counts = [
                self.u32(e + E_COUNTS).load(Relaxed),
                self.u32(e + E_COUNTS + 4).load(Relaxed),
            ];
            // Acquire pairs with the Release increment in `bump`.
            let version = self.u32(e + E_VERSION).load(Acquire);
            return Slot::Used(
                Entry {
                    kind,
                    instance,
                    owner: ProcessId { pid, token },
                    key: key.to_owned(),
                    label: label.to_owned(),
                    counts,
                    word,
                },
                version,
            );
        }
        Slot::Torn
    }

    /// Writes entry `i` (`None`: frees it). Callers hold the domain lock.
    fn write(&self, i: u32, entry: Option<&Entry>) {
        let e = Self::entry(i);
        let seq = self.u32(e + E_SEQ);
        let s = seq.load(Relaxed);
        // Odd while we write; a sequence left odd by a writer that died moves on past it.
        let odd = if s % 2 == 1 {
            s.wrapping_add(2)
        } else {
            s.wrapping_add(1)
        };
        seq.store(odd, Relaxed);
        // Release pairs with the Acquire fence in `read`: a reader that copies any word
        // stored below sees the odd sequence when it checks again.
        fence(Release);
        let mut key = [0u8; KEY_MAX];
        let mut label = [0u8; LABEL_MAX];
        let (mut key_len, mut label_len) = (0, 0);
        if let Some(en) = entry {
            key_len = en.key.len().min(KEY_MAX);
            label_len = en.label.len().min(LABEL_MAX);
            key[..key_len].copy_from_slice(&en.key.as_bytes()[..key_len]);
            label[..label_len].copy_from_slice(&en.label.as_bytes()[..label_len]);
        }
        let owner = entry.map_or(ProcessId::NONE, |en| en.owner);
        self.u32(e + E_STATE)
            .store(if entry.is_some() { STATE_USED } else { 0 }, Relaxed);
        self.u32(e + E_KIND)
            .store(entry.map_or(0, |en| en.kind), Relaxed);
        self.u64(e + E_INSTANCE)
            .store(entry.map_or(0, |en| en.instance), Relaxed);
        self.u32(e + E_PID).store(owner.pid, Relaxed);
        self.u64(e + E_TOKEN).store(owner.token, Relaxed);
        self.u32(e + E_KEY_LEN).store(key_len as u32, Relaxed);
        self.u32(e + E_LABEL_LEN).store(label_len as u32, Relaxed);
        let counts = entry.map_or([0, 0], |en| en.counts);
        self.u32(e + E_COUNTS).store(counts[0], Relaxed);
        self.u32(e + E_COUNTS + 4).store(counts[1], Relaxed);
        self.u32(e + E_WORD)
            .store(entry.map_or(0, |en| en.word), Relaxed);
        self.u64(e + E_HASH)
            .store(key_hash(&key[..key_len]), Relaxed);
        // SAFETY: as in `read`; the buffers are written whole, so no old byte survives.
        unsafe {
            words::store(self.base.as_ptr().add(e + E_KEY), &key);
            words::store(self.base.as_ptr().add(e + E_LABEL), &label);
        }
        // Release pairs with the Acquire load of the sequence in `read`.
        seq.store(odd.wrapping_add(1), Release);
    }
}

/// How [`Board::open`] found the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opened {
    /// It was there and valid.
    Existing,
    /// There was none: a fresh, empty one was made.
    Created,
    /// It was corrupt (the reason): a fresh, empty one replaced it.
    Replaced(String),
}

/// A domain's board, mapped read-write.
pub struct Board {
    region: ShmRegion,
    /// (device, inode) of the file mapped: tells whether the path still names this board.
    id: (u64, u64),
}

impl Board {
    fn table(&self) -> Table {
        Table {
            base: self.region.base(),
        }
    }

    /// Opens the board of the domain directory `dir` (whose lock the caller holds), creating
    /// it if it is missing and replacing it with an empty one if it is corrupt. Returns the
    /// board and how it was found (an empty board knows none of the segments that exist).
    pub fn open(dir: &Path, _lock: &DomainLock) -> Result<(Board, Opened), BoardError> {
        let path = dir.join(BOARD_FILE);
        let io_err = |source| BoardError::Io {
            path: path.clone(),
            source,
        };
        let reason = match OpenOptions::new().read(true).write(true).open(&path) {
            Ok(f) => {
                let len = f.metadata().map_err(io_err)?.len();
                if len == BOARD_SIZE as u64 {
                    let board = Self::map(&f, &path)?;
                    match board.header_error() {
                        None => return Ok((board, Opened::Existing)),
                        Some(reason) => reason,
                    }
                } else {
                    format!("{len} bytes, a registry has {BOARD_SIZE}")
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok((Self::create(&path)?, Opened::Created))
            }
            Err(e) => return Err(io_err(e)),
        };
        tracing::warn!(path = %path.display(), %reason, "replacing a corrupt domain registry with an empty one");
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_err(e)),
            _ => {}
        }
        Ok((Self::create(&path)?, Opened::Replaced(reason)))
    }

    fn map(file: &File, path: &Path) -> Result<Board, BoardError> {
        let io_err = |source| BoardError::Io {
            path: path.to_owned(),
            source,
        };
        let meta = file.metadata().map_err(io_err)?;
        let region = ShmRegion::map(file, BOARD_SIZE, path, true).map_err(io_err)?;
        Ok(Board {
            region,
            id: (meta.dev(), meta.ino()),
        })
    }

    fn create(path: &Path) -> Result<Board, BoardError> {
        let scope = crate::scope::Scope::current();
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(scope.file_mode())
            .open(path)
            .and_then(|f| scope.adopt(&f, path).map(|()| f))
            .map_err(|source| BoardError::Io {
                path: path.to_owned(),
                source: scope.explain(source, path),
            })?;
        let sized = f
            .set_len(BOARD_SIZE as u64)
            .map_err(|source| SegmentError::Io {
                path: path.to_owned(),
                source,
            })
            .and_then(|()| crate::segment::reserve(&f, BOARD_SIZE as u64, path));
        if let Err(e) = sized {
            let _ = std::fs::remove_file(path);
            return Err(match e {
                SegmentError::NoSpace { needed, free, .. } => BoardError::NoSpace {
                    path: path.to_owned(),
                    needed,
                    free,
                },
                SegmentError::Io { source, .. } => BoardError::Io {
                    path: path.to_owned(),
                    source,
                },
                other => BoardError::Io {
                    path: path.to_owned(),
                    source: io::Error::other(other.to_string()),
                },
            });
        }
        let board = Self::map(&f, path)?;
        board.table().write_header();
        Ok(board)
    }

    /// The board's file.
    pub fn path(&self) -> &Path {
        self.region.path()
    }

    /// What is wrong with the board as mapped: a bad header, or a file truncated under this
    /// process (the SIGBUS guard saw a page past its end).
    pub fn header_error(&self) -> Option<String> {
        if self.region.damage_flag().load(Relaxed) {
            return Some("the file was truncated under this process".into());
        }
        self.table().header_error()
    }

    /// Whether this mapping is still the domain's board: `Err` says why not (corrupt,
    /// removed, or replaced by another file). One `stat`.
    pub fn check(&self) -> Result<(), String> {
        if let Some(e) = self.header_error() {
            return Err(e);
        }
        match std::fs::metadata(self.path()) {
            Ok(m) if (m.dev(), m.ino()) == self.id => Ok(()),
            Ok(_) => Err("replaced by another file".into()),
            Err(e) => Err(format!("gone: {e}")),
        }
    }

    /// Entry `i` (`i < CAPACITY`).
    pub fn read(&self, i: u32) -> Slot {
        self.table().read(i)
    }

    /// The entry under `key` for which `matches` holds (read without the lock).
    pub fn find(&self, key: &str, matches: impl Fn(&Entry) -> bool) -> Option<(u32, Entry)> {
        let t = self.table();
        let hash = key_hash(key.as_bytes());
        (0..CAPACITY).find_map(|i| {
            let e = Table::entry(i);
            if t.u32(e + E_STATE).load(Relaxed) != STATE_USED
                || t.u64(e + E_HASH).load(Relaxed) != hash
            {
                return None;
            }
            match t.read(i) {
                Slot::Used(en, _) if en.key == key && matches(&en) => Some((i, en)),
                _ => None,
            }
        })
    }

    /// Every entry, read without the lock.
    pub fn entries(&self) -> Vec<(u32, Slot)> {
        let t = self.table();
        (0..CAPACITY).map(|i| (i, t.read(i))).collect()
    }

    /// Posts `entry` at `index`, or at a free index when None (garbage and entries left
    /// half-written count as free: the caller holds the lock, so nobody is writing them).
    /// Returns where, or None when the board is full. Caller holds the domain lock.
    pub fn put(&self, _lock: &DomainLock, index: Option<u32>, entry: &Entry) -> Option<u32> {
        let t = self.table();
        let i = index.filter(|&i| i < CAPACITY).or_else(|| {
            (0..CAPACITY).find(|&i| {
                t.u32(Table::entry(i) + E_STATE).load(Relaxed) != STATE_USED
                    || !matches!(t.read(i), Slot::Used(..))
            })
        })?;
        t.write(i, Some(entry));
        Some(i)
    }

    /// Frees entry `i`. Caller holds the domain lock.
    pub fn remove(&self, _lock: &DomainLock, i: u32) {
        if i < CAPACITY {
            self.table().write(i, None);
        }
    }

    /// Sets the two counters of entry `i` (its owner, without the lock; follow with
    /// [`Board::bump`]).
    pub fn set_counts(&self, i: u32, counts: [u32; 2]) {
        if i < CAPACITY {
            let t = self.table();
            let e = Table::entry(i);
            t.u32(e + E_COUNTS).store(counts[0], Relaxed);
            t.u32(e + E_COUNTS + 4).store(counts[1], Relaxed);
        }
    }

    /// Tells watchers that something changed: bumps the version of `entry` (when the change
    /// concerns one), then the generation, and wakes the watchers if there are any. No
    /// system call without watchers.
    pub fn bump(&self, entry: Option<u32>) {
        let t = self.table();
        if let Some(i) = entry.filter(|&i| i < CAPACITY) {
            // Release pairs with the Acquire load of the version in `read`.
            t.u32(Table::entry(i) + E_VERSION).fetch_add(1, Release);
        }
        // SeqCst: the increment and the load of `watchers` below form a Dekker pair with
        // `add_watcher`'s SeqCst store of `watchers` and the watcher's SeqCst load of the
        // generation: either we see the watcher and wake it, or it sees this generation.
        t.u32(GENERATION).fetch_add(1, SeqCst);
        // SeqCst: see the increment above.
        if t.u32(WATCHERS).load(SeqCst) != 0 {
            crate::futex::wake_all(t.u32(GENERATION));
        }
    }

    /// The generation now (see [`Board::bump`]).
    pub fn generation(&self) -> u32 {
        // SeqCst: pairs with the SeqCst increment in `bump` (the Dekker pair described there).
        self.table().u32(GENERATION).load(SeqCst)
    }

    /// Sleeps while the generation is `seen`, for at most `timeout` (returns early on a
    /// change, a signal, or spuriously).
    pub fn wait(&self, seen: u32, timeout: Duration) {
        crate::futex::wait(self.table().u32(GENERATION), seen, Some(timeout));
    }

    /// Counts this process as a watcher (so changes wake it), first freeing the slots of
    /// watchers that died. Caller holds the domain lock.
    pub fn add_watcher(&self, _lock: &DomainLock) {
        self.update_watchers(|slots| {
            if let Some(free) = slots.iter_mut().find(|s| s.pid == 0) {
                *free = ProcessId::current();
            }
        });
    }

    /// Undoes one [`Board::add_watcher`] of this process. Caller holds the domain lock.
    pub fn remove_watcher(&self, _lock: &DomainLock) {
        self.update_watchers(|slots| {
            if let Some(mine) = slots.iter_mut().find(|s| **s == ProcessId::current()) {
                *mine = ProcessId::NONE;
            }
        });
    }

    fn update_watchers(&self, change: impl FnOnce(&mut [ProcessId])) {
        let t = self.table();
        let slot = |i: usize| WATCHER_SLOTS + 16 * i;
        let mut slots: Vec<ProcessId> = (0..WATCHER_SLOT_COUNT)
            .map(|i| ProcessId {
                pid: t.u32(slot(i)).load(Relaxed),
                token: t.u64(slot(i) + 8).load(Relaxed),
            })
            .map(|id| {
                if id.pid != 0 && id.is_alive() {
                    id
                } else {
                    ProcessId::NONE
                }
            })
            .collect();
        change(&mut slots);
        for (i, id) in slots.iter().enumerate() {
            t.u32(slot(i)).store(id.pid, Relaxed);
            t.u64(slot(i) + 8).store(id.token, Relaxed);
        }
        let live = slots.iter().filter(|s| s.pid != 0).count() as u32;
        // SeqCst: pairs with the SeqCst load of `watchers` in `bump` (see there).
        t.u32(WATCHERS).store(live, SeqCst);
    }
}

/// A private copy of a board read with `pread` (for tools that only look: a truncated file
/// cannot fault them). None when the domain has no board.
pub fn copy(dir: &Path) -> Result<Option<BoardCopy>, BoardError> {
    let path = dir.join(BOARD_FILE);
    let io_err = |source| BoardError::Io {
        path: path.clone(),
        source,
    };
    let f = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(e)),
    };
    let region = HeapRegion::new(BOARD_SIZE);
    // SAFETY: the heap region is ours alone and at least BOARD_SIZE bytes long.
    let buf = unsafe { std::slice::from_raw_parts_mut(region.base().as_ptr(), BOARD_SIZE) };
    let whole = pread_exact(&f, buf, 0).map_err(io_err)?;
    let copy = BoardCopy { region };
    let reason = if whole {
        Table {
            base: copy.region.base(),
        }
        .header_error()
    } else {
        Some("shorter than a registry".into())
    };
    match reason {
        None => Ok(Some(copy)),
        Some(reason) => Err(BoardError::Corrupt { path, reason }),
    }
}

/// See [`copy`].
pub struct BoardCopy {
    region: HeapRegion,
}

impl BoardCopy {
    /// Every entry of the copy.
    pub fn entries(&self) -> Vec<(u32, Slot)> {
        let t = Table {
            base: self.region.base(),
        };
        (0..CAPACITY).map(|i| (i, t.read(i))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> (HeapRegion, Table) {
        let r = HeapRegion::new(BOARD_SIZE);
        let t = Table { base: r.base() };
        t.write_header();
        (r, t)
    }

    fn entry(key: &str) -> Entry {
        Entry {
            kind: 1,
            instance: 9,
            owner: ProcessId { pid: 42, token: 7 },
            key: key.into(),
            label: "a/Type".into(),
            counts: [1, 2],
            word: 5,
        }
    }

    #[test]
    fn entries_round_trip_and_free() {
        let (_r, t) = table();
        assert_eq!(t.header_error(), None);
        assert_eq!(t.read(3), Slot::Free);
        t.write(3, Some(&entry("robot/imu")));
        assert_eq!(t.read(3), Slot::Used(entry("robot/imu"), 0));
        t.write(3, None);
        assert_eq!(t.read(3), Slot::Free);
    }

    #[test]
    fn garbage_is_invalid_or_torn_never_a_panic() {
        let (r, t) = table();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..200 {
            // Random words over one entry (atomics: what another process could store).
            let e = Table::entry(round % CAPACITY);
            for w in 0..ENTRY_SIZE / 8 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                t.u64(e + 8 * w).store(x, Relaxed);
            }
            if round % 3 == 0 {
                t.u32(e + E_STATE).store(STATE_USED, Relaxed);
                t.u32(e + E_SEQ).store(2, Relaxed);
            }
            match t.read(round % CAPACITY) {
                Slot::Used(..) => panic!("garbage validated"),
                Slot::Free | Slot::Invalid(_) | Slot::Torn => {}
            }
        }
        t.u64(0).store(0, Relaxed);
        assert!(t.header_error().unwrap().contains("magic"));
        drop(r);
    }

    #[test]
    #[cfg_attr(miri, ignore = "files")]
    fn a_corrupt_board_is_replaced_and_a_copy_reports_it() {
        let dir = std::env::temp_dir().join(format!("nerve-board-{}", std::process::id()));
        let lock = DomainLock::acquire(&dir).unwrap();
        let (b, opened) = Board::open(&dir, &lock).unwrap();
        assert_eq!(opened, Opened::Created);
        let i = b.put(&lock, None, &entry("x")).unwrap();
        assert_eq!(b.find("x", |_| true).map(|f| f.0), Some(i));
        let g = b.generation();
        b.bump(Some(i));
        assert_eq!(b.generation(), g.wrapping_add(1));
        assert!(matches!(b.read(i), Slot::Used(_, 1)));
        assert!(copy(&dir).unwrap().is_some());
        std::fs::write(dir.join(BOARD_FILE), vec![0xA5u8; BOARD_SIZE]).unwrap();
        assert!(b.check().is_err(), "the mapping sees the garbage header");
        let err = copy(&dir)
            .err()
            .expect("a copy refuses garbage")
            .to_string();
        assert!(err.contains(BOARD_FILE) && err.contains("magic"), "{err}");
        let (b2, opened) = Board::open(&dir, &lock).unwrap();
        assert!(matches!(opened, Opened::Replaced(r) if r.contains("magic")));
        assert_eq!(b2.check(), Ok(()));
        assert!(b2.entries().iter().all(|(_, s)| *s == Slot::Free));
        drop((b, b2, lock));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
