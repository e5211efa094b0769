//! Which processes are alive, seen the same from every pid namespace.
//!
//! A pid is not an identity: pids are reused, and two containers sharing `/dev/shm` both have a
//! pid 1. So a record that outlives its process names it by a *life token*, 63 random bits, and
//! keeps the pid only to show. A process proves it lives by holding an open-file-description
//! lock (`F_OFD_SETLK`, a read lock) on its *life file*, `<life dir>/<token, 16 hex digits>`
//! (the life dir is beside the domains: [`crate::scope`]). The kernel drops the lock when the
//! process dies, however it dies, and a lock belongs to the file, not to a pid namespace: any
//! process that sees the directory asks `F_OFD_GETLK` whether a write lock would conflict.
//! Conflict: alive. No conflict, or no file: dead. Nothing else is trusted: a stopped process
//! still holds its lock (alive), a zombie has closed its files (dead).
//!
//! - The life file is made under a temporary name, locked, then renamed into place, so a file
//!   under a token's name is never seen unlocked while its process lives. Each process that
//!   makes its life file removes the files of processes found dead (and temporary files left
//!   for over a minute).
//! - A forked child inherits the descriptor and with it the lock: an `atfork` handler closes
//!   the child's copy, and the child takes a new token of its own when it next needs one.
//!   `exec` closes it too (`O_CLOEXEC`).
//! - Where no life file can be made (a file system without OFD locks), the process falls back
//!   to the old identity, pid + start time from `/proc/<pid>/stat` ([`LEGACY`] tokens), which
//!   holds within one pid namespace only; it says so once.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, IntoRawFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use crate::scope::Scope;

/// Tokens with this bit set hold a start time (clock ticks since boot), not a life file: the
/// fallback identity, valid in the pid namespace of whoever wrote it.
pub const LEGACY: u64 = 1 << 63;

/// A process identity: the pid to show and the life token that says whether it lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProcessId {
    /// The pid, in the pid namespace of the process itself (information only).
    pub pid: u32,
    /// The life token (0: nobody).
    pub token: u64,
}

/// What a life file says of its process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifeInfo {
    /// Its pid, in its own pid namespace.
    pub pid: u32,
    /// Whether its pid namespace is ours (false: its pid means nothing here).
    pub same_pid_namespace: bool,
    /// Its user id.
    pub uid: u32,
    /// Its host name (a container's name, often).
    pub host: String,
}

impl ProcessId {
    /// Nobody: a free record.
    pub const NONE: ProcessId = ProcessId { pid: 0, token: 0 };

    /// This process (its life file is made on first use; a forked child gets its own).
    pub fn current() -> Self {
        let pid = std::process::id();
        let scope = Scope::current();
        let mut me = ME.lock().unwrap_or_else(PoisonError::into_inner);
        if me.pid != pid {
            // A forked child (or the first call): the parent's life files are not ours, and the
            // atfork handler has already closed their descriptors.
            for (_, f) in me.files.drain(..) {
                let _ = f.into_raw_fd();
            }
            *me = Me {
                pid,
                token: 0,
                files: Vec::new(),
            };
        }
        let dir = scope.life_dir();
        if me.token & LEGACY == 0 && !me.files.iter().any(|(d, _)| *d == dir) {
            me.make_life(&scope, dir);
        }
        ProcessId {
            pid,
            token: me.token,
        }
    }

    /// True while the process that owned this identity still runs, in whatever pid namespace.
    /// A process that cannot be proven dead (its life file unreadable) counts as alive.
    pub fn is_alive(&self) -> bool {
        if self.token == 0 {
            return false;
        }
        if self.token & LEGACY != 0 {
            return legacy_alive(self.pid, self.token & !LEGACY);
        }
        if self.is_me() {
            return true;
        }
        match File::open(life_path(&Scope::current().life_dir(), self.token)) {
            Ok(f) => holds_lock(&f),
            Err(e) => e.kind() != io::ErrorKind::NotFound,
        }
    }

    /// Whether this is the calling process (without making a life file).
    fn is_me(&self) -> bool {
        let me = ME.lock().unwrap_or_else(PoisonError::into_inner);
        me.pid == std::process::id() && me.token == self.token && self.token != 0
    }

    /// What the process's life file says of it (None: no life file, or a fallback identity).
    pub fn info(&self) -> Option<LifeInfo> {
        if self.token == 0 || self.token & LEGACY != 0 {
            return None;
        }
        let path = life_path(&Scope::current().life_dir(), self.token);
        let text = std::fs::read_to_string(path).ok()?;
        let field = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(k)?.strip_prefix(' '))
                .map(str::to_owned)
        };
        Some(LifeInfo {
            pid: field("pid")?.parse().ok()?,
            same_pid_namespace: field("pidns")?.parse::<u64>().ok()? == pid_namespace(),
            uid: field("uid")?.parse().ok()?,
            host: field("host").unwrap_or_default(),
        })
    }

    /// The pid as a person should read it: `1234`, or `1234 (in another pid namespace)`
    /// where that pid is not one of ours.
    pub fn describe_pid(&self) -> String {
        match self.info() {
            Some(i) if !i.same_pid_namespace => {
                if i.host.is_empty() {
                    format!("{} (in another pid namespace)", self.pid)
                } else {
                    format!("{} (in another pid namespace, host {})", self.pid, i.host)
                }
            }
            _ => self.pid.to_string(),
        }
    }
}

/// A process being watched: its life file kept open, so each later question costs one
/// `fcntl` (no path lookup). See [`ProcessId::watch`].
#[derive(Debug)]
pub struct Watched {
    id: ProcessId,
    file: Option<File>,
}

impl ProcessId {
    /// Starts watching this process; None if it is dead already.
    pub fn watch(&self) -> Option<Watched> {
        if self.token == 0 {
            return None;
        }
        if self.token & LEGACY != 0 || self.is_me() {
            return self.is_alive().then_some(Watched {
                id: *self,
                file: None,
            });
        }
        let file = match File::open(life_path(&Scope::current().life_dir(), self.token)) {
            Ok(f) => Some(f),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
            // Cannot tell: alive, asked by path each time.
            Err(_) => None,
        };
        let w = Watched { id: *self, file };
        w.is_alive().then_some(w)
    }
}

impl Watched {
    /// True while the process lives.
    pub fn is_alive(&self) -> bool {
        match &self.file {
            Some(f) => holds_lock(f),
            None => self.id.is_alive(),
        }
    }
}

/// This process's identity and life files (one per life directory it used).
struct Me {
    pid: u32,
    token: u64,
    files: Vec<(PathBuf, File)>,
}

static ME: Mutex<Me> = Mutex::new(Me {
    pid: 0,
    token: 0,
    files: Vec::new(),
});

/// The descriptors of this process's life files, for the atfork handler (which may not lock).
/// Relaxed throughout: stored under `ME`'s lock, read by the child handler after `fork`, which
/// orders everything the parent did before it; no other memory is published through them.
static LIFE_FDS: [AtomicI32; 4] = [const { AtomicI32::new(-1) }; 4];

/// Runs in a forked child: closes the inherited life files, so that the child does not keep
/// its parent's locks (and with them its parent) alive.
extern "C" fn close_inherited_lives() {
    for fd in &LIFE_FDS {
        let fd = fd.swap(-1, Relaxed);
        if fd >= 0 {
            // SAFETY: close is async-signal-safe; the descriptor is this child's copy of a
            // life file, which nothing else in the child uses (`Me` forgets it unclosed).
            unsafe { libc::close(fd) };
        }
    }
}

impl Me {
    /// Makes and locks a life file in `dir`; on failure falls back to a legacy identity.
    fn make_life(&mut self, scope: &Scope, dir: PathBuf) {
        let first = self.files.is_empty();
        if first && self.token == 0 {
            self.token = random_token();
        }
        match make_life_file(scope, &dir, self.token) {
            Ok(file) => {
                if first {
                    static ATFORK: std::sync::Once = std::sync::Once::new();
                    ATFORK.call_once(|| {
                        // SAFETY: registers a handler that only closes descriptors (async-
                        // signal-safe); it stays valid for the life of the process.
                        unsafe { libc::pthread_atfork(None, None, Some(close_inherited_lives)) };
                    });
                }
                if let Some(slot) = LIFE_FDS.iter().find(|s| s.load(Relaxed) < 0) {
                    slot.store(file.as_raw_fd(), Relaxed);
                }
                self.files.push((dir.clone(), file));
                remove_dead_lives(&dir, self.token);
            }
            Err(e) if first => {
                tracing::warn!(dir = %dir.display(), error = %e,
                    "cannot make this process's life file: falling back to pid + start time, \
                     which other pid namespaces (containers) cannot check");
                self.token = LEGACY | start_time(self.pid).unwrap_or(0);
            }
            Err(e) => {
                tracing::error!(dir = %dir.display(), error = %e,
                    "cannot make this process's life file: other processes in this directory \
                     will see this one as dead");
            }
        }
    }
}

fn life_path(dir: &Path, token: u64) -> PathBuf {
    dir.join(format!("{token:016x}"))
}

/// 63 random bits, never 0: an identity (a process's life token, a segment's ring id).
pub fn random_id() -> u64 {
    random_token()
}

/// 63 random bits, never 0.
fn random_token() -> u64 {
    loop {
        let mut b = [0u8; 8];
        // SAFETY: getrandom writes at most `b.len()` bytes into `b`.
        let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
        let t = if n == 8 {
            u64::from_ne_bytes(b)
        } else {
            // No getrandom: time and pid, distinct enough for a process identity.
            let ns = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            ns ^ (u64::from(std::process::id()) << 40)
        } & !LEGACY;
        if t != 0 {
            return t;
        }
    }
}

/// Takes (`F_OFD_SETLK`) or tests (`F_OFD_GETLK`) a whole-file lock of `kind` on `f`.
fn ofd_lock(f: &File, cmd: libc::c_int, kind: libc::c_short) -> io::Result<libc::c_short> {
    // SAFETY: zeroed flock is valid (l_start 0 and l_len 0 cover the whole file; l_pid must
    // be 0 for OFD commands).
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: fcntl with an OFD lock command on an open descriptor and a valid flock.
    if unsafe { libc::fcntl(f.as_raw_fd(), cmd, &mut fl) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fl.l_type)
}

/// Whether some process holds a lock on `f` (an error: cannot tell, so yes).
fn holds_lock(f: &File) -> bool {
    ofd_lock(f, libc::F_OFD_GETLK, libc::F_WRLCK as libc::c_short)
        .map_or(true, |t| t != libc::F_UNLCK as libc::c_short)
}

fn make_life_file(scope: &Scope, dir: &Path, token: u64) -> io::Result<File> {
    scope.prepare_dir(dir)?;
    let tmp = dir.join(format!(".new-{token:016x}"));
    let _ = std::fs::remove_file(&tmp);
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(scope.file_mode())
        .open(&tmp)
        .map_err(|e| scope.explain(e, dir))?;
    let made = (|| {
        scope.adopt(&f, &tmp)?;
        ofd_lock(&f, libc::F_OFD_SETLK, libc::F_RDLCK as libc::c_short)?;
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        // SAFETY: getuid has no preconditions.
        let uid = unsafe { libc::getuid() };
        write!(
            f,
            "nerve life file\npid {}\npidns {}\nuid {uid}\nhost {}\n",
            std::process::id(),
            pid_namespace(),
            host.trim()
        )?;
        std::fs::rename(&tmp, life_path(dir, token))
    })();
    if let Err(e) = made {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(f)
}

/// The live processes of this scope (every pid namespace that shares its directory), with
/// what their life files say; this process among them once it has made its own.
pub fn live_processes() -> Vec<(ProcessId, LifeInfo)> {
    let Ok(entries) = std::fs::read_dir(Scope::current().life_dir()) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let token = u64::from_str_radix(name.to_str()?, 16).ok()?;
            if token == 0 || token & LEGACY != 0 || name.len() != 16 {
                return None;
            }
            let info = ProcessId { pid: 0, token }.info()?;
            let id = ProcessId {
                pid: info.pid,
                token,
            };
            id.is_alive().then_some((id, info))
        })
        .collect()
}

/// Whether this process names itself by a life file (false: the pid + start time fallback,
/// which holds in its own pid namespace only).
pub fn has_life_file() -> bool {
    ProcessId::current().token & LEGACY == 0
}

/// Removes the life files of dead processes in `dir` (and temporary ones over a minute old).
fn remove_dead_lives(dir: &Path, mine: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let old = SystemTime::now() - Duration::from_secs(60);
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let (hex, temporary) = match name.strip_prefix(".new-") {
            Some(hex) => (hex, true),
            None => (name, false),
        };
        if hex.len() != 16 || u64::from_str_radix(hex, 16).ok() == Some(mine) {
            continue;
        }
        let path = e.path();
        let Ok(f) = File::open(&path) else { continue };
        if holds_lock(&f) {
            continue;
        }
        if temporary
            && f.metadata()
                .and_then(|m| m.modified())
                .map_or(true, |t| t > old)
        {
            continue;
        }
        let _ = std::fs::remove_file(&path);
    }
}

/// The inode of this process's pid namespace (0 if unknown).
fn pid_namespace() -> u64 {
    std::fs::metadata("/proc/self/ns/pid").map_or(0, |m| m.ino())
}

/// The fallback check: pid `pid` runs (not a zombie) and started at `start` (0: any start).
pub fn legacy_alive(pid: u32, start: u64) -> bool {
    pid != 0
        && match start_time(pid) {
            Some(t) => start == 0 || t == start,
            None => false,
        }
}

/// Reads field 22 (starttime) of `/proc/<pid>/stat`. None if the process does not exist or is
/// a zombie.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces: parse after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    // `rest` starts at field 3 (state); starttime is field 22, i.e. 19 further on.
    fields.nth(18)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "makes files and takes OFD locks, which miri isolates")]
    fn current_process_is_alive_and_unknown_tokens_are_not() {
        let me = ProcessId::current();
        assert!(me.is_alive());
        assert_eq!(me.token & LEGACY, 0, "a life file, not the fallback");
        assert_eq!(me.info().unwrap().pid, std::process::id());
        assert!(me.info().unwrap().same_pid_namespace);
        assert_eq!(me.describe_pid(), std::process::id().to_string());
        let file = life_path(&Scope::current().life_dir(), me.token);
        // Another descriptor of the same file sees our lock (OFD locks conflict per open file).
        assert!(holds_lock(&File::open(&file).unwrap()));
        let gone = ProcessId {
            pid: u32::MAX - 7,
            token: 0x1234_5678_9abc_def0,
        };
        assert!(!gone.is_alive());
        assert!(!ProcessId::NONE.is_alive());
        assert!(!ProcessId {
            pid: u32::MAX - 7,
            token: LEGACY | 1
        }
        .is_alive());
        // An unlocked file under a token's name is a dead process's, and is removed.
        let dead = life_path(&Scope::current().life_dir(), 0x0123_4567_89ab_cdef);
        std::fs::write(&dead, "nerve life file\n").unwrap();
        assert!(!ProcessId {
            pid: 1,
            token: 0x0123_4567_89ab_cdef
        }
        .is_alive());
        remove_dead_lives(file.parent().unwrap(), me.token);
        assert!(!dead.exists());
        assert!(file.exists(), "our own life file stays");
    }
}
