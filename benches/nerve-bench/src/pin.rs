//! Core pinning with `sched_setaffinity`.

use anyhow::{bail, Result};

/// The CPUs this process may run on, in ascending order.
pub fn allowed_cores() -> Vec<usize> {
    // SAFETY: `cpu_set_t` is plain data for which all-zero is a valid (empty) set, and
    // `sched_getaffinity` writes at most `size_of::<cpu_set_t>()` bytes into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the pointer and size describe `set` exactly.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect();
    }
    // SAFETY: `set` was filled by the kernel above; CPU_ISSET only reads it.
    (0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// Pins the calling thread to one CPU.
pub fn pin_current_thread(core: usize) -> Result<()> {
    if core >= libc::CPU_SETSIZE as usize {
        bail!("core {core} is out of range for sched_setaffinity");
    }
    // SAFETY: all-zero is an empty `cpu_set_t`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `core < CPU_SETSIZE` was checked above, so CPU_SET stays inside `set`.
    unsafe { libc::CPU_SET(core, &mut set) };
    // SAFETY: pid 0 is the calling thread; the pointer and size describe `set` exactly.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        bail!(
            "sched_setaffinity(core {core}) failed: {}; run with at least two usable cores",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// The two cores the ping side and the echo side run on: the first two this process may use
/// (cores 0 and 1 on the reference machine). With one core, both sides share it.
pub fn bench_cores() -> (usize, usize) {
    let cores = allowed_cores();
    match cores.as_slice() {
        [] => (0, 0),
        [only] => (*only, *only),
        [a, b, ..] => (*a, *b),
    }
}
