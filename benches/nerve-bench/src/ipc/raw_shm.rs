//! `raw-shm`: the floor. Our own ping-pong through one `/dev/shm` mapping: per direction, one
//! cache line holding the sequence word of each slot, the payload right after it, and one
//! cache line with a futex "bell" for blocking mode. No library, no checks beyond the
//! benchmark's own: the least any shared-memory transport has to do.
//!
//! Poll mode spins on the slot's sequence word (Acquire). Blocking mode is a bare futex: the
//! reader announces itself in `waiters`, re-checks, and sleeps on the bell; the writer rings the
//! bell and calls `FUTEX_WAKE` only when someone waits.

use super::payload::{self, Check};
use super::{
    check_echo, check_message, Deadline, EchoSide, Mode, PingSide, Spec, StepTracker, TIMEOUT,
};
use anyhow::{bail, Context, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

const LINE: usize = 64;

/// Only 1:1: one writer and one reader per cache line is the definition of the floor.
pub fn supports(spec: &Spec) -> Result<(), String> {
    if spec.publishers != 1 || spec.subscribers != 1 {
        return Err(
            "not applicable: raw-shm is the 1:1 floor (one writer, one reader per cache line)"
                .into(),
        );
    }
    Ok(())
}

/// A `/dev/shm` file mapped `MAP_SHARED`; unmapped on drop, unlinked by its creator.
struct Mapping {
    ptr: *mut u8,
    len: usize,
    path: PathBuf,
    owner: bool,
}

impl Mapping {
    fn create(name: &str, len: usize) -> Result<Self> {
        let path = PathBuf::from(format!("/dev/shm/{name}"));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .with_context(|| format!("creating {}", path.display()))?;
        file.set_len(len as u64)?;
        Self::map(file, path, len, true)
    }

    fn open(name: &str) -> Result<Self> {
        let path = PathBuf::from(format!("/dev/shm/{name}"));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        let len = file.metadata()?.len() as usize;
        Self::map(file, path, len, false)
    }

    fn map(file: File, path: PathBuf, len: usize, owner: bool) -> Result<Self> {
        // SAFETY: a fresh shared mapping of a file we hold open; the kernel picks the address.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            bail!(
                "mmap {} ({len} bytes): {}",
                path.display(),
                std::io::Error::last_os_error()
            );
        }
        Ok(Self {
            ptr: ptr.cast(),
            len,
            path,
            owner,
        })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned; nothing borrows the mapping any
        // more (every `Dir` that points into it is owned by the same side and dropped with it).
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
        if self.owner {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// One direction inside a mapping: `[bell line][seq line, payload]...`.
struct Dir {
    base: *mut u8,
    slots: usize,
    slot_size: usize,
    payload: usize,
}

impl Dir {
    fn size(slots: usize, payload: usize) -> usize {
        LINE + slots * (LINE + payload.div_ceil(LINE) * LINE)
    }

    /// # Safety
    /// `base` must point at `Dir::size(slots, payload)` bytes of a live mapping, 64-byte aligned,
    /// that outlive the returned value.
    unsafe fn new(base: *mut u8, slots: usize, payload: usize) -> Self {
        Self {
            base,
            slots,
            slot_size: LINE + payload.div_ceil(LINE) * LINE,
            payload,
        }
    }

    fn bell(&self) -> &AtomicU32 {
        // SAFETY: offset 0 of the direction, 64-byte aligned, inside the mapping (see `new`);
        // only ever accessed atomically by both processes.
        unsafe { &*self.base.cast::<AtomicU32>() }
    }

    fn waiters(&self) -> &AtomicU32 {
        // SAFETY: offset 4 of the bell line, 4-byte aligned, inside the mapping.
        unsafe { &*self.base.add(4).cast::<AtomicU32>() }
    }

    fn slot(&self, seq: u64) -> *mut u8 {
        let i = (seq % self.slots as u64) as usize;
        // SAFETY: `i < slots`, so the slot lies inside `Dir::size` (see `new`).
        unsafe { self.base.add(LINE + i * self.slot_size) }
    }

    fn seq_word(&self, seq: u64) -> &AtomicU64 {
        // SAFETY: the first 8 bytes of a slot, 64-byte aligned, accessed only atomically.
        unsafe { &*self.slot(seq).cast::<AtomicU64>() }
    }

    /// Writes message `seq` into its slot and publishes it.
    fn publish(&self, seq: u64, check: Check, mode: Mode) {
        // SAFETY: the slot's payload follows its sequence line inside the mapping. The reader
        // touches it only after it sees `seq` in the sequence word below, and the protocol
        // (at most `slots` messages in flight, acknowledged on the other direction) means no
        // reader is still reading an older message in this slot.
        let buf = unsafe { std::slice::from_raw_parts_mut(self.slot(seq).add(LINE), self.payload) };
        payload::write(buf, seq, 0, check);
        // Pairs with the Acquire load in `wait`.
        self.seq_word(seq).store(seq, Ordering::Release);
        if mode == Mode::Blocking {
            // SeqCst on both sides: either we see the reader's `waiters = 1`, or it sees our bell.
            self.bell().fetch_add(1, Ordering::SeqCst);
            if self.waiters().load(Ordering::SeqCst) != 0 {
                futex_wake(self.bell());
            }
        }
    }

    /// Waits until message `seq` is in its slot; returns its bytes.
    fn wait(&self, seq: u64, mode: Mode) -> Result<&[u8]> {
        // Pairs with the Release store in `publish`.
        let ready = || self.seq_word(seq).load(Ordering::Acquire) == seq;
        match mode {
            Mode::Poll => {
                let mut d = Deadline::new();
                while !ready() {
                    d.tick(|| format!("raw-shm message {seq}"))?;
                }
            }
            Mode::Blocking => {
                let start = Instant::now();
                while !ready() {
                    // SeqCst: the store of `waiters` and the load of `bell` must not be
                    // reordered (store-load), the mirror of the publisher's SeqCst bell bump
                    // then waiters load; with anything weaker both sides can miss each other
                    // and the reader sleeps through a message.
                    self.waiters().store(1, Ordering::SeqCst);
                    let bell = self.bell().load(Ordering::SeqCst);
                    if !ready() {
                        let left = TIMEOUT.saturating_sub(start.elapsed());
                        if left.is_zero() {
                            // SeqCst: as the store above; no longer waiting.
                            self.waiters().store(0, Ordering::SeqCst);
                            bail!("timed out after {TIMEOUT:?} waiting for raw-shm message {seq}");
                        }
                        futex_wait(self.bell(), bell, left);
                    }
                    // SeqCst: as the store above; no longer waiting.
                    self.waiters().store(0, Ordering::SeqCst);
                }
            }
        }
        // SAFETY: the writer published `seq` (Acquire above) and will not touch this slot
        // again until we acknowledge it; the bytes lie inside the mapping.
        Ok(unsafe { std::slice::from_raw_parts(self.slot(seq).add(LINE), self.payload) })
    }
}

fn futex_wait(word: &AtomicU32, expected: u32, timeout: std::time::Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `word` is a live, aligned u32 (shared between processes, hence no
    // FUTEX_PRIVATE_FLAG); the kernel only reads it and `ts` for the duration of the call.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
        );
    }
}

fn futex_wake(word: &AtomicU32) {
    // SAFETY: `word` is a live, aligned u32; FUTEX_WAKE does not dereference anything else.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, i32::MAX);
    }
}

/// The ping and pong directions of one mapping.
struct Link {
    ping: Dir,
    pong: Dir,
    // Declared last: the directions above point into it.
    _map: Mapping,
}

impl Link {
    fn layout(spec: &Spec) -> (usize, usize) {
        let slots = spec.window.max(1) as usize;
        (slots, Dir::size(slots, spec.payload))
    }

    fn new(map: Mapping, spec: &Spec) -> Result<Self> {
        let (slots, dir) = Self::layout(spec);
        if map.len < 2 * dir {
            bail!(
                "{} is {} bytes, expected {}",
                map.path.display(),
                map.len,
                2 * dir
            );
        }
        // SAFETY: both directions lie inside the mapping (checked above), which is page
        // aligned, and `dir` is a multiple of 64; the mapping lives in `_map` as long as they do.
        let (ping, pong) = unsafe {
            (
                Dir::new(map.ptr, slots, spec.payload),
                Dir::new(map.ptr.add(dir), slots, spec.payload),
            )
        };
        Ok(Self {
            ping,
            pong,
            _map: map,
        })
    }
}

fn idle_name(spec: &Spec, i: usize) -> String {
    format!("{}-idle{i}", spec.name)
}

struct RawEcho {
    link: Link,
    spec: Spec,
    tracker: StepTracker,
    _idle: Vec<Mapping>,
}

struct RawPing {
    link: Link,
    spec: Spec,
    _idle: Vec<Mapping>,
}

/// Creates the mapping (and the idle topics' mappings).
pub fn echo_side(spec: &Spec) -> Result<(Box<dyn EchoSide>, String)> {
    let (_, dir) = Link::layout(spec);
    let link = Link::new(Mapping::create(&spec.name, 2 * dir)?, spec)?;
    let idle = (1..spec.topics)
        .map(|i| Mapping::create(&idle_name(spec, i), Dir::size(1, LINE) * 2))
        .collect::<Result<_>>()?;
    let echo = RawEcho {
        link,
        spec: spec.clone(),
        tracker: StepTracker::new(1),
        _idle: idle,
    };
    Ok((Box::new(echo), spec.name.clone()))
}

/// Opens the mapping the echo side created.
pub fn ping_side(spec: &Spec, rendezvous: &str) -> Result<Box<dyn PingSide>> {
    let link = Link::new(Mapping::open(rendezvous)?, spec)?;
    let idle = (1..spec.topics)
        .map(|i| Mapping::open(&idle_name(spec, i)))
        .collect::<Result<_>>()?;
    Ok(Box::new(RawPing {
        link,
        spec: spec.clone(),
        _idle: idle,
    }))
}

impl PingSide for RawPing {
    fn send(&mut self, seq: u64) -> Result<()> {
        self.link.ping.publish(seq, self.spec.check, self.spec.mode);
        Ok(())
    }

    fn recv_echo(&mut self, seq: u64) -> Result<()> {
        let buf = self.link.pong.wait(seq, self.spec.mode)?;
        check_echo(buf, self.spec.check, seq)
    }
}

impl EchoSide for RawEcho {
    fn recv(&mut self, seq: u64) -> Result<()> {
        self.tracker.begin(seq);
        let buf = self.link.ping.wait(seq, self.spec.mode)?;
        check_message(buf, self.spec.check, &mut self.tracker)
    }

    fn echo(&mut self, seq: u64) -> Result<()> {
        self.link.pong.publish(seq, self.spec.check, self.spec.mode);
        Ok(())
    }

    fn drain_others(&mut self, _seq: u64) -> Result<()> {
        Ok(())
    }
}
