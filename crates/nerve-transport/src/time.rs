//! Time stamps comparable across processes on one machine.

/// Nanoseconds of `CLOCK_MONOTONIC`: the same clock in every process of the machine, so a
/// subscriber can compute latency from a publisher's stamp.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we pass; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
