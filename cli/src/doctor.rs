//! `nerve doctor`: what on this machine keeps nerve from its promises, each finding with what
//! to do about it. Exit status 1 when anything needs attention.

use nerve::registry;
use nerve::sys::{liveness, scope::Scope};

/// A finding: fine, or a problem and its remedy.
struct Finding {
    ok: bool,
    what: String,
    fix: String,
}

fn fine(what: String) -> Finding {
    Finding {
        ok: true,
        what,
        fix: String::new(),
    }
}

fn problem(what: String, fix: &str) -> Finding {
    Finding {
        ok: false,
        what,
        fix: fix.to_owned(),
    }
}

const MIB: u64 = 1 << 20;

fn shm() -> Finding {
    let root = Scope::current().root;
    let shown = root.display();
    let mut s = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    let Ok(c) = std::ffi::CString::new(root.as_os_str().as_encoded_bytes()) else {
        return problem(
            format!("{shown}: a path with a NUL byte"),
            "fix NERVE_SHM_DIR",
        );
    };
    // SAFETY: `c` is a NUL-terminated path and `s` is a valid place for the result.
    let rc = unsafe { libc::statvfs(c.as_ptr(), s.as_mut_ptr()) };
    if rc != 0 {
        return problem(
            format!(
                "{shown} cannot be read: {}",
                std::io::Error::last_os_error()
            ),
            "mount a tmpfs on /dev/shm (nerve's topics live there), or point NERVE_SHM_DIR at one",
        );
    }
    // SAFETY: statvfs returned 0, so it filled `s`.
    let s = unsafe { s.assume_init() };
    let block = s.f_frsize;
    let (size, free) = (s.f_blocks * block, s.f_bavail * block);
    let what = format!("{shown}: {} MiB, {} MiB free", size / MIB, free / MIB);
    if size < 512 * MIB {
        problem(what, "too small for camera or point-cloud topics: in Docker run with --shm-size=2g; elsewhere `sudo mount -o remount,size=2G /dev/shm`")
    } else if free < 128 * MIB {
        problem(what, "nearly full: `nerve clean` removes the segments no process uses; `nerve topic list -v` shows the large ones")
    } else {
        fine(what)
    }
}

fn limit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `r` is a valid rlimit to fill.
    (unsafe { libc::getrlimit(resource, &mut r) } == 0).then_some(r.rlim_cur)
}

fn memlock() -> Finding {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return fine("memlock: root (no limit applies)".into());
    }
    match limit(libc::RLIMIT_MEMLOCK) {
        Some(libc::RLIM_INFINITY) => fine("memlock: unlimited".into()),
        Some(n) if n >= 256 * MIB => fine(format!("memlock: {} MiB", n / MIB)),
        Some(n) => problem(
            format!("memlock: {} KiB", n / 1024),
            "real-time lanes lock the process's memory (no page faults mid-tick) and will run without: `ulimit -l unlimited`, or `@robot - memlock unlimited` in /etc/security/limits.conf, or LimitMEMLOCK=infinity in a systemd unit",
        ),
        None => problem("memlock: unknown".into(), "getrlimit failed"),
    }
}

fn rtprio() -> Finding {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    match limit(libc::RLIMIT_RTPRIO) {
        _ if root => fine("rtprio: root (any priority)".into()),
        Some(n) if n > 0 => fine(format!("rtprio: up to {n}")),
        _ => problem(
            "rtprio: 0".into(),
            "real-time lanes cannot take SCHED_FIFO: `@robot - rtprio 90` in /etc/security/limits.conf, or LimitRTPRIO=90 in a systemd unit, or `sudo setcap cap_sys_nice+ep` on the binary",
        ),
    }
}

/// Whether this thread may take SCHED_FIFO (tried on a short-lived thread, then dropped).
fn sched_fifo() -> Finding {
    let allowed = std::thread::spawn(|| {
        let p = libc::sched_param { sched_priority: 1 };
        // SAFETY: pthread_self is this thread; `p` is a valid parameter.
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &p) == 0 }
    })
    .join()
    .unwrap_or(false);
    if allowed {
        fine("SCHED_FIFO: permitted".into())
    } else {
        problem(
            "SCHED_FIFO: refused".into(),
            "nodes in the RT class run without a real-time priority (the scheduler says so in its RT report); grant rtprio (see above) or run in a container with --cap-add=SYS_NICE",
        )
    }
}

fn membarrier() -> Finding {
    const QUERY: libc::c_long = 0;
    const GLOBAL_EXPEDITED: libc::c_long = 1 << 1;
    // SAFETY: membarrier takes (cmd, flags, cpu_id) integers and touches no user memory.
    let mask = unsafe {
        libc::syscall(
            libc::SYS_membarrier,
            QUERY,
            0 as libc::c_long,
            0 as libc::c_long,
        )
    };
    if mask >= 0 && mask & GLOBAL_EXPEDITED != 0 {
        fine(
            "membarrier: global expedited available (single-publisher topics use plain stores)"
                .into(),
        )
    } else {
        problem(
            "membarrier: not available".into(),
            "single-publisher topics fall back to locked claims (correct, some ns slower): a kernel ≥ 4.16, and a seccomp profile that allows membarrier",
        )
    }
}

fn segments(domain: u32) -> Vec<Finding> {
    let topics = registry::list(domain);
    let mut stale = Vec::new();
    let mut foreign = Vec::new();
    let mut corrupt = Vec::new();
    for t in &topics {
        match &t.error {
            Some(e) if e.contains("layout version") => foreign.push(t.name.clone()),
            Some(_) => corrupt.push(t.name.clone()),
            None if !t.endpoints.is_empty() && t.endpoints.iter().all(|e| !e.alive) => {
                stale.push(t.name.clone())
            }
            None => {}
        }
    }
    let dir = registry::domain_dir(domain);
    let mut out = vec![fine(format!(
        "domain {domain}: {} topics in {}",
        topics.len(),
        dir.display()
    ))];
    let list = |v: &[String]| {
        let mut s = v.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        if v.len() > 5 {
            s.push_str(&format!(" and {} more", v.len() - 5));
        }
        s
    };
    if !stale.is_empty() {
        out.push(problem(
            format!(
                "{} stale topics (every process using them died): {}",
                stale.len(),
                list(&stale)
            ),
            "`nerve clean` removes them",
        ));
    }
    if !foreign.is_empty() {
        out.push(problem(
            format!(
                "{} topics from another nerve version's layout: {}",
                foreign.len(),
                list(&foreign)
            ),
            "stop the processes of the other version, then `nerve clean`",
        ));
    }
    if !corrupt.is_empty() {
        out.push(problem(
            format!("{} damaged topics: {}", corrupt.len(), list(&corrupt)),
            "stop their processes and run `nerve clean`; `nerve topic info NAME` says what is wrong",
        ));
    }
    out
}

/// The ROS 2 bridge of this host, if one runs or ran: what it carries, what failed, what it
/// skipped.
fn ros2_bridge(domain: u32) -> Vec<Finding> {
    let Some((v, alive)) = nerve_ros2::view::read(domain) else {
        return vec![fine(
            "no ROS 2 bridge on this host (a ROS 2 graph: `nerve bridge ros2`)".into(),
        )];
    };
    if !alive {
        return vec![problem(
            format!(
                "the ROS 2 bridge of this host stopped or died (pid {})",
                v.pid
            ),
            "start it again: `nerve bridge ros2 [--config <file>]`; ROS 2 sees none of this \
             domain's topics meanwhile",
        )];
    }
    let mut out = vec![fine(format!(
        "ROS 2 bridge (pid {}): {} topics to ROS 2, {} from ROS 2, {} services",
        v.pid,
        v.exports.len(),
        v.imports.len(),
        v.ros_services.len() + v.nerve_services.len()
    ))];
    let failed: Vec<String> = v
        .exports
        .iter()
        .chain(&v.imports)
        .chain(&v.ros_services)
        .chain(&v.nerve_services)
        .filter(|(_, c)| c.failed > 0)
        .take(5)
        .map(|(n, c)| format!("{n} ({} failed)", c.failed))
        .collect();
    if !failed.is_empty() {
        out.push(problem(
            format!(
                "the ROS 2 bridge failed messages or calls: {}",
                failed.join(", ")
            ),
            "its log says why (a message that does not convert, a full topic, a dead server)",
        ));
    }
    if !v.skipped.is_empty() {
        let some: Vec<String> = v
            .skipped
            .iter()
            .take(5)
            .map(|(w, why)| format!("{w}: {why}"))
            .collect();
        // A type with no counterpart on the other side is skipped by design: said, not a fault.
        out.push(fine(format!(
            "the ROS 2 bridge skips {} topic(s) or service(s) (`nerve bridge status` lists \
             all): {}",
            v.skipped.len(),
            some.join("; ")
        )));
    }
    out
}

/// Clocks further apart than this, beyond what the round trip leaves uncertain, are a
/// problem: stamps compared across hosts are off by as much.
const CLOCK_APART_MS: f64 = 5.0;

/// What the bridge learnt of another host by asking its clock.
fn clock(c: &nerve_zenoh::view::HostClock) -> Finding {
    let host = &c.host;
    if !c.reachable {
        return problem(
            format!("{host}: its bridge does not answer (no reply within a second)"),
            "check the network between the hosts, and that its bridge listens where this one \
             connects (or the other way round)",
        );
    }
    let (rtt, offset) = (c.rtt_us / 1e3, c.offset_us / 1e3);
    let line = format!(
        "{host}: reachable, round trip {rtt:.2} ms, clock offset {offset:+.3} ms (±{:.3})",
        rtt / 2.0
    );
    if offset.abs() - rtt / 2.0 > CLOCK_APART_MS {
        return problem(
            line,
            "the two clocks differ: latencies and the order of stamps across hosts are off by \
             as much; keep both hosts on one time source (chrony, PTP)",
        );
    }
    fine(line)
}

/// The Zenoh bridge of this host, if one runs or ran: the hosts it sees and what it lost or
/// refused.
fn bridge(domain: u32) -> Vec<Finding> {
    let view_topic = registry::list(domain)
        .into_iter()
        .find(|t| t.name == nerve::plumbing::ZENOH_VIEW_TOPIC);
    let Some(topic) = view_topic else {
        return vec![fine(
            "no Zenoh bridge on this host (other machines: `nerve bridge zenoh`)".into(),
        )];
    };
    let Some(v) = nerve_zenoh::view::read(domain) else {
        let pid = topic
            .endpoints
            .iter()
            .find(|e| e.publisher)
            .map(|e| e.process.pid);
        return vec![problem(
            format!(
                "the Zenoh bridge of this host is dead (pid {})",
                pid.map_or("?".into(), |p| p.to_string())
            ),
            "start it again: `nerve bridge zenoh --config <file>`; other hosts see nothing \
             of this one meanwhile",
        )];
    };
    let sum = |f: fn(&nerve_zenoh::TopicStats) -> u64| v.stats.iter().map(f).sum::<u64>();
    let (lost, rejected) = (sum(|s| s.lost), sum(|s| s.rejected) + v.bad_metas);
    let hosts: Vec<&str> = v.hosts.iter().map(|(_, h)| h.as_str()).collect();
    let mut out = vec![fine(format!(
        "Zenoh bridge {} (host {}, pid {}): sees {} other host(s) [{}]; {} topics out, {} in",
        v.bridge,
        v.host,
        v.pid,
        hosts.len(),
        hosts.join(", "),
        v.stats.iter().filter(|s| s.exported).count(),
        v.stats.iter().filter(|s| s.imported).count(),
    ))];
    out.extend(v.clocks.iter().map(clock));
    if !v.security.is_empty() {
        out.push(fine(match v.security.as_str() {
            "plain" => "links to other hosts: plain (unencrypted; TLS and mutual TLS in the \
                        bridge's configuration, docs/bridges.md)"
                .into(),
            s => format!("links to other hosts: {s}"),
        }));
    }
    if hosts.is_empty() {
        out.push(problem(
            "the Zenoh bridge sees no other host".into(),
            "check its connect/listen endpoints, the network, certificates (a refused TLS \
             handshake shows in the bridge's log with RUST_LOG=zenoh=warn)",
        ));
    }
    if lost > 0 || rejected > 0 {
        let worst: Vec<String> = v
            .stats
            .iter()
            .filter(|s| s.lost + s.rejected > 0)
            .take(5)
            .map(|s| format!("{} (lost {}, rejected {})", s.topic, s.lost, s.rejected))
            .collect();
        out.push(problem(
            format!(
                "the Zenoh bridge lost {lost} and refused {rejected} messages or metas: {}",
                worst.join(", ")
            ),
            "lost: a best-effort topic under congestion or a link that went down (make it \
             reliable if every message matters); refused: a host sending another type or \
             malformed data (check the type on both hosts)",
        ));
    }
    if v.refused_imports > 0 {
        let newest: Vec<String> = v
            .refused
            .iter()
            .rev()
            .take(3)
            .map(|r| format!("{} from {} ({})", r.topic, r.host, r.reason))
            .collect();
        out.push(problem(
            format!(
                "the Zenoh bridge refused {} remote topic(s) over this host's limits: {}",
                v.refused_imports,
                newest.join("; ")
            ),
            "if these topics are wanted here, raise max_topic_mib, max_imported_mib or \
             max_imported_topics in the bridge's configuration (`nerve bridge status` lists \
             them); else stop the other host from exporting them",
        ));
    }
    out
}

pub fn doctor(domain: u32) -> anyhow::Result<()> {
    let mut findings = vec![shm(), memlock(), rtprio(), sched_fifo(), membarrier()];
    findings.extend(containers());
    findings.extend(segments(domain));
    findings.extend(bridge(domain));
    findings.extend(ros2_bridge(domain));
    let problems = findings.iter().filter(|f| !f.ok).count();
    for f in &findings {
        if f.ok {
            outln!("ok    {}", f.what)?;
        } else {
            outln!("FIX   {}\n      → {}", f.what, f.fix)?;
        }
    }
    if problems > 0 {
        anyhow::bail!("{problems} findings need attention (see above)");
    }
    outln!("all good")
}

/// The container runtime this process runs under, if it can tell.
fn container_runtime() -> Option<&'static str> {
    if std::path::Path::new("/.dockerenv").exists() {
        return Some("docker");
    }
    if std::path::Path::new("/run/.containerenv").exists() {
        return Some("podman");
    }
    if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
        return Some("kubernetes");
    }
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    ["docker", "kubepods", "containerd", "libpod", "lxc"]
        .into_iter()
        .find(|k| cgroup.contains(k))
        .or_else(|| (std::process::id() == 1).then_some("a pid namespace of its own"))
}

/// Containers: whether this process is in one, who shares its nerve directory (and from how
/// many pid namespaces), and whether liveness holds across them (life files, not pids).
fn containers() -> Vec<Finding> {
    let scope = Scope::current();
    let mut out = Vec::new();
    let runtime = container_runtime();
    if let Some(rt) = runtime {
        out.push(fine(format!(
            "container: {rt}; nerve's directory {} ({})",
            scope.root.display(),
            match &scope.group {
                Some(g) => format!("shared with group {} through NERVE_SHM_GROUP", g.name),
                None => "this user's processes only".into(),
            }
        )));
    }
    if !liveness::has_life_file() {
        out.push(problem(
            format!(
                "liveness: no life file in {} (pid + start time instead)",
                scope.life_dir().display()
            ),
            "processes in other containers (pid namespaces) would look dead and their topics could be rebuilt under them: nerve's directory must be a tmpfs (or any file system with OFD locks) that this user can write",
        ));
        return out;
    }
    let lives = liveness::live_processes();
    let elsewhere = lives.iter().filter(|(_, i)| !i.same_pid_namespace).count();
    let hosts: std::collections::BTreeSet<&str> = lives
        .iter()
        .filter(|(_, i)| !i.same_pid_namespace)
        .map(|(_, i)| i.host.as_str())
        .collect();
    let what = format!(
        "liveness: {} live nerve processes share {} ({elsewhere} in other pid namespaces{})",
        lives.len(),
        scope.life_dir().display(),
        if hosts.is_empty() {
            String::new()
        } else {
            format!(
                ": hosts {}",
                hosts.into_iter().collect::<Vec<_>>().join(", ")
            )
        }
    );
    if runtime.is_some() && elsewhere == 0 {
        // Not an error on its own (the other containers may not run yet), but the likeliest
        // cause of "my topics are not seen" at 2 am.
        out.push(fine(format!(
            "{what}. If other containers run nerve, they do not share this directory: give them the same IPC namespace (--ipc=host, or --ipc=shareable and --ipc=container:<name>) or the same tmpfs volume with NERVE_SHM_DIR (docs/containers.md)"
        )));
    } else {
        out.push(fine(what));
    }
    out
}
