//! This process's postings on its domains' registries (`nerve_shm::board`): the hooks the
//! cores call when a topic segment is created, replaced or removed, an in-process topic is
//! created or dropped, or an endpoint is claimed or released. Each posts the change and bumps
//! the registry's generation, which wakes watchers (no system call when nobody watches).
//!
//! Opening and closing only: nothing here is on the publish or receive path. A hook never
//! fails its caller: without a registry (no room in `/dev/shm`, a full board) topics work as
//! before and are only missing from watches (logged once per domain).
//!
//! A leaf of the transport: the cores (`open.rs`, `heap.rs`, `endpoint.rs`, `shared.rs`) call
//! it with plain values; it knows nothing of them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

use nerve_shm::board::{Board, BoardError, Entry, Opened, Slot};
use nerve_shm::layout::TopicParams;
use nerve_shm::peek::peek;
use nerve_shm::segment::{self, DomainLock, SegmentError};
use nerve_shm::ProcessId;

use crate::sys::lock;

/// Entry kind of a shared-memory topic (its segment file is the truth; the entry points to it).
pub(crate) const KIND_SHM: u32 = 1;
/// Entry kind of an in-process topic (the entry is all other processes can know of it).
pub(crate) const KIND_HEAP: u32 = 2;

/// The entry word of a topic: its reliability and ring capacity.
pub(crate) fn qos_word(params: &TopicParams) -> u32 {
    ((params.reliability as u32) << 24) | (params.capacity & 0x00ff_ffff)
}

/// Directory scans made by this process, by domain (`list`, and filling a new or rebuilt
/// registry): a watch never scans, which tests check.
fn dir_scan_counts() -> &'static Mutex<HashMap<u32, u64>> {
    static SCANS: OnceLock<Mutex<HashMap<u32, u64>>> = OnceLock::new();
    SCANS.get_or_init(Default::default)
}

pub(crate) fn count_dir_scan(domain: u32) {
    *lock(dir_scan_counts()).entry(domain).or_default() += 1;
}

pub(crate) fn dir_scans(domain: u32) -> u64 {
    lock(dir_scan_counts()).get(&domain).copied().unwrap_or(0)
}

/// The topic name of a segment file (`a%b.topic` → `a/b`).
pub(crate) fn name_from_file(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().replace('%', "/"))
        .unwrap_or_default()
}

/// Whether `e` is the posting of in-process topic `post` (whatever its counts say).
fn same_heap(e: &Entry, post: &Entry) -> bool {
    e.kind == KIND_HEAP && e.instance == post.instance && e.owner == post.owner && e.key == post.key
}

/// A registry of a domain, as this process uses it.
struct Posted {
    board: Board,
    /// Entry of each shared-memory topic looked up (checked against the entry on use).
    shm: HashMap<String, u32>,
}

/// One of this process's in-process topics.
struct HeapPost {
    /// Address of the topic's memory: tells a dropped topic from a newer one of that name.
    base: usize,
    entry: Entry,
    index: Option<u32>,
}

#[derive(Default)]
struct State {
    boards: HashMap<u32, Posted>,
    heap: HashMap<(u32, String), HeapPost>,
    warned: std::collections::HashSet<u32>,
}

fn state() -> &'static Mutex<State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    STATE.get_or_init(Default::default)
}

fn lock_domain(dir: &Path) -> Result<DomainLock, BoardError> {
    DomainLock::acquire(dir).map_err(|e| match e {
        SegmentError::Io { path, source } => BoardError::Io { path, source },
        other => BoardError::Io {
            path: dir.to_owned(),
            source: std::io::Error::other(other.to_string()),
        },
    })
}

/// Opens `domain`'s registry under the domain lock: creates it if missing, replaces it if
/// corrupt, and then posts every segment of the directory (a fresh board knows none; the one
/// directory scan a registry costs). With `watcher`, counts the caller as a watcher under the
/// same lock.
pub(crate) fn attach(domain: u32, watcher: bool) -> Result<(Board, Opened), BoardError> {
    let dir = segment::domain_dir(domain);
    let lock = lock_domain(&dir)?;
    let (board, opened) = Board::open(&dir, &lock)?;
    if opened != Opened::Existing {
        count_dir_scan(domain);
        if let Ok(files) = std::fs::read_dir(&dir) {
            for file in files.flatten() {
                let path = file.path();
                if path.extension().and_then(|e| e.to_str()) == Some("topic") {
                    post_segment(&board, &lock, &dir, &name_from_file(&path));
                }
            }
        }
    }
    if watcher {
        board.add_watcher(&lock);
    }
    Ok((board, opened))
}

/// Undoes `attach(_, true)`.
pub(crate) fn detach_watcher(domain: u32, board: &Board) {
    if let Ok(lock) = lock_domain(&segment::domain_dir(domain)) {
        board.remove_watcher(&lock);
    }
}

/// Makes the entry of segment `name` say what the file says (caller holds the lock): posted
/// with its type, inode and creator while it exists, removed once it is gone. Bumps the
/// generation if that changed anything. Returns the entry.
fn post_segment(board: &Board, lock: &DomainLock, dir: &Path, name: &str) -> Option<u32> {
    let path = dir.join(segment::topic_file(name));
    let existing = board.find(name, |e| e.kind == KIND_SHM);
    let me = ProcessId::current();
    let entry = match peek(&path) {
        Ok(p) => Entry {
            kind: KIND_SHM,
            instance: p.id.1,
            owner: ProcessId {
                pid: p.params.creator_pid,
                token: p.params.creator_token,
            },
            key: name.to_owned(),
            label: p.params.stored_type.name.clone(),
            counts: [0, 0],
            word: qos_word(&p.params),
        },
        Err(SegmentError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            if let Some((i, _)) = existing {
                board.remove(lock, i);
                board.bump(None);
            }
            return None;
        }
        // Corrupt or unreadable: posted all the same (a watcher reports the error).
        Err(_) => Entry {
            kind: KIND_SHM,
            instance: std::fs::metadata(&path)
                .map_or(0, |m| std::os::unix::fs::MetadataExt::ino(&m)),
            owner: me,
            key: name.to_owned(),
            label: String::new(),
            counts: [0, 0],
            word: 0,
        },
    };
    if let Some((i, old)) = &existing {
        if *old == entry {
            return Some(*i);
        }
    }
    let index = put(board, lock, dir, existing.map(|(i, _)| i), &entry);
    board.bump(index);
    index
}

/// Posts `entry` (at `index`, or a free entry), pruning the board when it is full.
fn put(
    board: &Board,
    lock: &DomainLock,
    dir: &Path,
    index: Option<u32>,
    entry: &Entry,
) -> Option<u32> {
    if let Some(i) = board.put(lock, index, entry) {
        return Some(i);
    }
    prune_board(board, lock, dir);
    let i = board.put(lock, None, entry);
    if i.is_none() {
        tracing::warn!(topic = %entry.key, registry = %board.path().display(), "the domain registry is full ({} topics): this topic is not announced to watchers", nerve_shm::board::CAPACITY);
    }
    i
}

/// Frees the entries of in-process topics whose process died and of segments whose file is
/// gone (caller holds the lock). Returns how many.
fn prune_board(board: &Board, lock: &DomainLock, dir: &Path) -> usize {
    let mut n = 0;
    for (i, slot) in board.entries() {
        if let Slot::Used(e, _) = slot {
            let stale = match e.kind {
                KIND_HEAP => !e.owner.is_alive(),
                _ => !dir.join(segment::topic_file(&e.key)).exists(),
            };
            if stale {
                board.remove(lock, i);
                n += 1;
            }
        }
    }
    if n > 0 {
        board.bump(None);
    }
    n
}

/// Frees what dead processes left on `domain`'s registry (for `clean`); rebuilds it if it is
/// corrupt.
pub(crate) fn prune(domain: u32) {
    with_board(domain, false, |p| {
        let dir = segment::domain_dir(domain);
        if let Ok(lock) = lock_domain(&dir) {
            prune_board(&p.board, &lock, &dir);
        }
    });
}

/// Runs `f` on `domain`'s registry, (re)attached if this process has none yet or the one it
/// has was replaced or damaged; then this process's in-process topics are posted again. With
/// `create` false, a domain whose directory is gone is left alone (None).
fn with_board<R>(domain: u32, create: bool, f: impl FnOnce(&mut Posted) -> R) -> Option<R> {
    let mut st = lock(state());
    let State {
        boards,
        heap,
        warned,
    } = &mut *st;
    let current = boards.get(&domain).is_some_and(|p| p.board.check().is_ok());
    if !current {
        boards.remove(&domain);
        if !create && !segment::domain_dir(domain).is_dir() {
            return None;
        }
        match attach(domain, false) {
            Ok((board, _)) => {
                let mut posted = Posted {
                    board,
                    shm: HashMap::new(),
                };
                repost_heap(domain, &mut posted, heap);
                boards.insert(domain, posted);
            }
            Err(e) => {
                if warned.insert(domain) {
                    tracing::warn!(domain, error = %e, "no domain registry: topics work, but watchers will not see them");
                }
                return None;
            }
        }
    }
    boards.get_mut(&domain).map(f)
}

/// Posts this process's in-process topics of `domain` on a registry that does not hold them
/// (a new or rebuilt one).
fn repost_heap(domain: u32, posted: &mut Posted, heap: &mut HashMap<(u32, String), HeapPost>) {
    let mine: Vec<_> = heap
        .iter_mut()
        .filter(|((d, _), _)| *d == domain)
        .map(|(_, p)| p)
        .collect();
    if mine.is_empty() {
        return;
    }
    let dir = segment::domain_dir(domain);
    let Ok(lock) = lock_domain(&dir) else { return };
    for post in mine {
        let found = posted
            .board
            .find(&post.entry.key, |e| same_heap(e, &post.entry))
            .map(|f| f.0);
        post.index = found.or_else(|| put(&posted.board, &lock, &dir, None, &post.entry));
    }
    posted.board.bump(None);
}

/// A topic segment was opened (created, replaced or joined): its entry is made to match it.
pub(crate) fn segment_opened(domain: u32, name: &str) {
    post_or_withdraw(domain, name, true);
}

fn post_or_withdraw(domain: u32, name: &str, create: bool) {
    with_board(domain, create, |p| {
        let dir = segment::domain_dir(domain);
        let Ok(lock) = lock_domain(&dir) else { return };
        match post_segment(&p.board, &lock, &dir, name) {
            Some(i) => p.shm.insert(name.to_owned(), i),
            None => p.shm.remove(name),
        };
    });
}

/// A topic segment was removed (its last user closed it, `clean`, `remove_topic`): its entry
/// goes, unless a new segment of that name exists by now.
pub(crate) fn segment_removed(domain: u32, name: &str) {
    post_or_withdraw(domain, name, false);
}

/// An endpoint of a shared-memory topic was claimed or released (or reclaimed): the topic's
/// entry is bumped, so watchers read its endpoint table again.
pub(crate) fn segment_endpoints(domain: u32, name: &str) {
    let posted = |p: &Posted, i: u32| matches!(p.board.read(i), Slot::Used(e, _) if e.kind == KIND_SHM && e.key == name);
    let missing = with_board(domain, false, |p| {
        match p.shm.get(name).copied().filter(|&i| posted(p, i)) {
            Some(i) => {
                p.board.bump(Some(i));
                false
            }
            None => match p.board.find(name, |e| e.kind == KIND_SHM) {
                Some((i, _)) => {
                    p.shm.insert(name.to_owned(), i);
                    p.board.bump(Some(i));
                    false
                }
                None => true,
            },
        }
    });
    if missing == Some(true) {
        // Posted by nobody yet (a registry rebuilt meanwhile): post it, which bumps.
        post_or_withdraw(domain, name, false);
    }
}

/// An in-process topic was created in this process, at `base`.
pub(crate) fn heap_created(domain: u32, name: &str, params: &TopicParams, base: usize) {
    static INSTANCE: AtomicU64 = AtomicU64::new(1);
    let entry = Entry {
        kind: KIND_HEAP,
        instance: INSTANCE.fetch_add(1, Relaxed),
        owner: ProcessId::current(),
        key: name.to_owned(),
        label: params.stored_type.name.clone(),
        counts: [0, 0],
        word: qos_word(params),
    };
    let key = (domain, name.to_owned());
    // Kept first, so that a registry rebuilt from now on gets it again (`repost_heap`).
    lock(state()).heap.insert(
        key.clone(),
        HeapPost {
            base,
            entry: entry.clone(),
            index: None,
        },
    );
    let index = with_board(domain, true, |p| {
        let dir = segment::domain_dir(domain);
        let lock = lock_domain(&dir).ok()?;
        let index = match p.board.find(name, |e| same_heap(e, &entry)) {
            Some((i, _)) => Some(i),
            None => put(&p.board, &lock, &dir, None, &entry),
        };
        p.board.bump(index);
        index
    })
    .flatten();
    if let Some(post) = lock(state()).heap.get_mut(&key).filter(|p| p.base == base) {
        post.index = index;
    }
}

/// The in-process topic `name` at `base` was dropped (a newer one of that name is left alone).
pub(crate) fn heap_dropped(domain: u32, name: &str, base: usize) {
    let key = (domain, name.to_owned());
    let post = {
        let mut st = lock(state());
        match st.heap.get(&key) {
            Some(p) if p.base == base => st.heap.remove(&key),
            _ => None,
        }
    };
    let Some(post) = post else { return };
    with_board(domain, false, |p| {
        let found = post
            .index
            .filter(|&i| matches!(p.board.read(i), Slot::Used(e, _) if same_heap(&e, &post.entry)))
            .or_else(|| {
                p.board
                    .find(name, |e| same_heap(e, &post.entry))
                    .map(|f| f.0)
            });
        if let Some(i) = found {
            if let Ok(lock) = lock_domain(&segment::domain_dir(domain)) {
                p.board.remove(&lock, i);
            }
        }
        p.board.bump(None);
    });
}

/// The endpoints of this process's in-process topic `name` at `base` changed: `counts` =
/// (publishers, subscribers).
pub(crate) fn heap_endpoints(domain: u32, name: &str, base: usize, counts: [u32; 2]) {
    let (index, entry) = {
        let mut st = lock(state());
        match st.heap.get_mut(&(domain, name.to_owned())) {
            Some(p) if p.base == base => {
                p.entry.counts = counts;
                (p.index, p.entry.clone())
            }
            _ => return,
        }
    };
    with_board(domain, false, |p| {
        let ours = |i: u32| matches!(p.board.read(i), Slot::Used(e, _) if same_heap(&e, &entry));
        match index.filter(|&i| ours(i)) {
            Some(i) => {
                p.board.set_counts(i, counts);
                p.board.bump(Some(i));
            }
            None => p.board.bump(None),
        }
    });
}

/// Posts this process's in-process topics again on `domain`'s registry if it was replaced
/// (a watcher that rebuilt a corrupt registry calls this for its own process).
pub(crate) fn refresh(domain: u32) {
    with_board(domain, false, |_| ());
}

/// Where `domain`'s registry lives.
pub(crate) fn board_path(domain: u32) -> PathBuf {
    segment::domain_dir(domain).join(nerve_shm::board::BOARD_FILE)
}
