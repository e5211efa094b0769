//! Sending a frame, and waiting for one: poll, yield the core when this process
//! oversubscribes it, then sleep on the topic's futex (`docs/design/rpc.md`, "Waiting").

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nerve_transport::{Publisher, RecvError, Sample, SendError, Subscriber};

use crate::wire::{RpcFrame, RpcHeader};

/// Polls back to back this long before yielding the core between polls (when this process
/// has more threads polling than the machine has cores).
const PURE_SPIN: Duration = Duration::from_micros(10);

/// Threads of this process polling in [`recv_frame`] right now. Relaxed everywhere: a hint
/// for whether to yield the core, publishing no data; a stale count costs one yield too many
/// or too few.
static POLLING: AtomicUsize = AtomicUsize::new(0);

/// Counts the current thread into [`POLLING`] while the guard lives.
struct Polling;

impl Polling {
    fn enter() -> Self {
        POLLING.fetch_add(1, Relaxed);
        Polling
    }
}

impl Drop for Polling {
    fn drop(&mut self) {
        POLLING.fetch_sub(1, Relaxed);
    }
}

/// The machine's online cores. Not the calling thread's affinity: a process whose threads are
/// pinned to one core each would count one, and its lone caller would yield to nobody between
/// polls (an 8 KB call across two pinned threads took 8-14 µs instead of 3).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| {
        // SAFETY: sysconf reads a system value; it takes no pointers and has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(1)
    })
}

/// Receives the next frame before `until`. Polls for up to `spin` (a round trip takes a few
/// microseconds, and a sleeping receiver pays a futex wake-up of tens of microseconds on a VM),
/// then sleeps on the topic's futex. After [`PURE_SPIN`], while this process has more threads
/// polling than the machine has cores, it yields the core between polls, so that the thread
/// that has to answer (a server, or the caller receiving for the others) gets to run; otherwise
/// it keeps its core (yielding to an unrelated busy process would cost a whole time slice).
/// `Ok(None)` at `until`.
pub(super) fn recv_frame(
    sub: &mut Subscriber<RpcFrame>,
    spin: Duration,
    until: Instant,
) -> Result<Option<Sample<RpcFrame>>, RecvError> {
    if let Some(s) = sub.try_recv()? {
        return Ok(Some(s));
    }
    let _polling = Polling::enter();
    let start = Instant::now();
    let mut polls = 0u32;
    loop {
        if let Some(s) = sub.try_recv()? {
            return Ok(Some(s));
        }
        polls = polls.wrapping_add(1);
        if polls.is_multiple_of(32) {
            let now = Instant::now();
            let waited = now.duration_since(start);
            if waited >= spin || now >= until {
                break;
            }
            if waited >= PURE_SPIN && POLLING.load(Relaxed) > cores() {
                std::thread::yield_now();
                continue;
            }
        }
        std::hint::spin_loop();
    }
    sub.recv_timeout(until.saturating_duration_since(Instant::now()))
}

/// Loans a chunk, writes `header` and `payload` into it and sends it.
pub(super) fn send_frame(
    p: &Publisher<RpcFrame>,
    header: RpcHeader,
    payload: &[u8],
) -> Result<(), SendError<()>> {
    let mut loan = p.loan(payload.len())?;
    *loan.header_mut() = header;
    loan.data_mut().copy_from_slice(payload);
    loan.send()
}
