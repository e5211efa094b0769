//! Watching a domain (`nerve::registry::watch`): topics and endpoints created and closed in
//! other processes, a process killed with `kill -9`, another process's in-process topic, and
//! garbage written into the registry while a watcher runs. Each event must arrive within
//! 100 ms of what caused it (measured against `time::now_ns`, one clock for every process),
//! and the watch must never scan the domain's directory.

use std::time::{Duration, Instant};

use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve::registry::{self, Event};
use nerve::time::now_ns;
use nerve::TransportPath;
use nerve_testing::process::{self, ChildGuard};

/// A watch can be moved to a thread of its own.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<registry::Watch>();
};

/// The longest an event may take to reach a watcher.
const LATENCY_NS: u64 = 100_000_000;
/// Time between two steps of a child, so each event is measured on its own.
const GAP: Duration = Duration::from_millis(150);

/// What the children do (a role each); the parent tests below run them.
#[test]
fn watch_child() {
    let Some(role) = process::role() else { return };
    let domain = process::env_u64("NERVE_DOMAIN") as u32;
    let stamp = |what: &str| println!("STAMP {what} {}", now_ns());
    match role.as_str() {
        // Opens a topic, adds and removes a publisher and a subscriber, closes the topic:
        // each step stamped just before it is taken.
        "lifecycle" => {
            std::thread::sleep(GAP);
            stamp("open");
            let t = Topic::<CmdVel>::builder("w/life")
                .domain(domain)
                .open()
                .unwrap();
            std::thread::sleep(GAP);
            stamp("pub");
            let p = t.publisher().unwrap();
            std::thread::sleep(GAP);
            stamp("sub");
            let s = t.subscriber().unwrap();
            std::thread::sleep(GAP);
            stamp("unpub");
            drop(p);
            std::thread::sleep(GAP);
            stamp("unsub");
            drop(s);
            std::thread::sleep(GAP);
            stamp("close");
            drop(t);
            println!("DONE");
        }
        // Holds a publisher and a subscriber (shared-memory or in-process) until killed.
        "holder" | "heap" => {
            let mut b = Topic::<CmdVel>::builder(if role == "heap" { "w/heap" } else { "w/kill" })
                .domain(domain);
            if role == "heap" {
                b = b.in_process();
            }
            let t = b.open().unwrap();
            let _p = t.publisher().unwrap();
            let _s = t.subscriber().unwrap();
            println!("READY");
            std::thread::sleep(Duration::from_secs(60));
        }
        other => panic!("unknown role {other}"),
    }
}

/// Events with the time each arrived, until `done` holds for one or `timeout` passes.
fn collect(
    w: &mut registry::Watch,
    timeout: Duration,
    mut done: impl FnMut(&Event) -> bool,
) -> Vec<(Event, u64)> {
    let start = Instant::now();
    let mut out = Vec::new();
    while start.elapsed() < timeout {
        if let Some(e) = w.next(Duration::from_millis(200)) {
            let stop = done(&e);
            out.push((e, now_ns()));
            if stop {
                break;
            }
        }
    }
    out
}

/// The arrival time of the first event for which `matches` holds.
fn arrival(events: &[(Event, u64)], what: &str, matches: impl Fn(&Event) -> bool) -> u64 {
    events
        .iter()
        .find(|(e, _)| matches(e))
        .unwrap_or_else(|| panic!("no event for {what} in {events:#?}"))
        .1
}

/// `kill -9`s the child after `delay`, from another thread, while the caller sleeps in the
/// watch (so the measure includes the watch's own wait); the channel gives the kill's time.
fn kill_while_watching(
    mut child: ChildGuard,
    delay: Duration,
) -> (
    std::thread::JoinHandle<ChildGuard>,
    std::sync::mpsc::Receiver<u64>,
) {
    let (tx, rx) = std::sync::mpsc::channel();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(delay);
        tx.send(now_ns()).unwrap();
        child.kill9();
        child
    });
    (killer, rx)
}

fn check_latency(what: &str, cause_ns: u64, seen_ns: u64) {
    let latency = seen_ns.saturating_sub(cause_ns);
    eprintln!("watch latency: {what}: {:.3} ms", latency as f64 / 1e6);
    assert!(
        latency < LATENCY_NS,
        "{what} reached the watcher after {:.1} ms",
        latency as f64 / 1e6
    );
}

/// The child's `STAMP what ns` lines.
fn stamps(child: &mut ChildGuard) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    while let Some(line) = child.read_line() {
        if let Some(rest) = line.split("STAMP ").nth(1) {
            let mut parts = rest.split_whitespace();
            let what = parts.next().unwrap().to_owned();
            out.push((what, parts.next().unwrap().parse().unwrap()));
        }
        if line.contains("DONE") {
            break;
        }
    }
    out
}

#[test]
fn a_topic_and_its_endpoints_from_another_process_are_seen_within_100_ms() {
    let (d, _g) = nerve_testing::domain();
    let mut w = registry::watch(d).unwrap();
    assert_eq!(w.try_next(), None, "a fresh domain has nothing to report");
    let scans = registry::__directory_scans(d);
    let mut child = process::spawn_self("watch_child", "lifecycle", d, &[]);
    let pid = child.id();
    let events = collect(
        &mut w,
        Duration::from_secs(10),
        |e| matches!(e, Event::TopicGone { name, .. } if name == "w/life"),
    );
    let stamps = stamps(&mut child);
    assert_eq!(child.wait().code(), Some(0));
    let at = |what: &str| stamps.iter().find(|s| s.0 == what).unwrap().1;
    let endpoint = |appeared: bool, publisher: bool| {
        move |e: &Event| match e {
            Event::EndpointAppeared {
                topic,
                pid: p,
                publisher: is_pub,
            } if appeared => topic == "w/life" && *p == pid && *is_pub == publisher,
            Event::EndpointGone {
                topic,
                pid: p,
                publisher: is_pub,
            } if !appeared => topic == "w/life" && *p == pid && *is_pub == publisher,
            _ => false,
        }
    };
    let appeared = arrival(&events, "the topic", |e| {
        matches!(e, Event::TopicAppeared(info)
            if info.name == "w/life" && info.type_name == "nerve/CmdVel"
                && matches!(info.path, TransportPath::Shm(_)) && info.owner.is_none())
    });
    check_latency("topic appeared", at("open"), appeared);
    let publisher = arrival(&events, "the publisher", endpoint(true, true));
    check_latency("publisher appeared", at("pub"), publisher);
    let subscriber = arrival(&events, "the subscriber", endpoint(true, false));
    check_latency("subscriber appeared", at("sub"), subscriber);
    let unpub = arrival(&events, "the publisher gone", endpoint(false, true));
    check_latency("publisher gone", at("unpub"), unpub);
    let unsub = arrival(&events, "the subscriber gone", endpoint(false, false));
    check_latency("subscriber gone", at("unsub"), unsub);
    let gone = arrival(&events, "the topic gone", |e| {
        *e == Event::TopicGone {
            name: "w/life".into(),
            owner: None,
        }
    });
    check_latency("topic gone (last user closed it)", at("close"), gone);
    assert_eq!(
        events.len(),
        6,
        "one event per step, nothing else: {events:#?}"
    );
    assert!(
        !events
            .iter()
            .any(|(e, _)| matches!(e, Event::ProcessDied { .. })),
        "a process that closed everything did not die holding anything"
    );
    assert_eq!(
        registry::__directory_scans(d),
        scans,
        "the watch scanned the domain's directory"
    );
}

#[test]
fn a_killed_process_is_reported_dead_and_its_endpoints_gone_within_100_ms() {
    let (d, _g) = nerve_testing::domain();
    let mut w = registry::watch(d).unwrap();
    let scans = registry::__directory_scans(d);
    // Three kills at different moments of the watch's sleep (it wakes every WATCH_SLICE).
    for delay_ms in [53, 61, 74] {
        let mut child = process::spawn_self("watch_child", "holder", d, &[]);
        let pid = child.id();
        child.wait_line("READY");
        let mut endpoints = 0;
        collect(&mut w, Duration::from_secs(5), |e| {
            endpoints += matches!(e, Event::EndpointAppeared { pid: p, .. } if *p == pid) as u32;
            endpoints == 2
        });
        assert_eq!(endpoints, 2, "the child's publisher and subscriber");
        let (killer, killed) = kill_while_watching(child, Duration::from_millis(delay_ms));
        let mut gone = 0;
        let events = collect(&mut w, Duration::from_secs(2), |e| {
            gone += matches!(e, Event::EndpointGone { pid: p, .. } if *p == pid) as u32;
            gone == 2
        });
        let killed = killed.recv().unwrap();
        drop(killer.join());
        let died = arrival(&events, "the death", |e| *e == Event::ProcessDied { pid });
        check_latency("process died (kill -9)", killed, died);
        for publisher in [true, false] {
            let at = arrival(&events, "an endpoint of the dead", |e| {
                *e == Event::EndpointGone {
                    topic: "w/kill".into(),
                    pid,
                    publisher,
                }
            });
            check_latency("endpoint of a killed process gone", killed, at);
        }
        assert!(
            matches!(events[0].0, Event::ProcessDied { .. }),
            "the death comes before its consequences: {events:#?}"
        );
    }
    assert_eq!(registry::__directory_scans(d), scans);
    // The segment outlives its killed users (as `list` shows it): no TopicGone.
    assert!(w.next(Duration::from_millis(100)).is_none());
    let topics = w.topics();
    assert_eq!(topics.len(), 1);
    assert!(topics[0].endpoints.is_empty());
}

#[test]
fn another_process_in_process_topic_is_listed_and_watched_with_its_owner() {
    let (d, _g) = nerve_testing::domain();
    let mut w = registry::watch(d).unwrap();
    let mut child = process::spawn_self("watch_child", "heap", d, &[]);
    let pid = child.id();
    child.wait_line("READY");
    let listed = registry::list(d);
    let t = listed
        .iter()
        .find(|t| t.name == "w/heap")
        .unwrap_or_else(|| panic!("another process's in-process topic listed: {listed:#?}"));
    assert_eq!(t.path, TransportPath::Heap);
    assert_eq!(t.owner, Some(pid));
    assert_eq!(t.type_name, "nerve/CmdVel");
    assert_eq!((t.publishers(), t.subscribers()), (1, 1));
    assert_eq!(t.pids(), vec![pid]);

    let scans = registry::__directory_scans(d);
    let mut endpoints = 0;
    let events = collect(&mut w, Duration::from_secs(5), |e| {
        endpoints += matches!(e, Event::EndpointAppeared { pid: p, .. } if *p == pid) as u32;
        endpoints == 2
    });
    assert!(
        matches!(&events[0].0, Event::TopicAppeared(info)
            if info.name == "w/heap" && info.path == TransportPath::Heap
                && info.owner == Some(pid)),
        "{events:#?}"
    );
    let (killer, killed) = kill_while_watching(child, Duration::from_millis(70));
    let events = collect(&mut w, Duration::from_secs(2), |e| {
        matches!(e, Event::TopicGone { .. })
    });
    let killed = killed.recv().unwrap();
    drop(killer.join());
    let kinds: Vec<_> = events.iter().map(|(e, _)| e.clone()).collect();
    assert_eq!(kinds[0], Event::ProcessDied { pid });
    assert_eq!(
        kinds.last(),
        Some(&Event::TopicGone {
            name: "w/heap".into(),
            owner: Some(pid)
        })
    );
    assert_eq!(
        kinds.len(),
        4,
        "died, two endpoints gone, topic gone: {kinds:#?}"
    );
    check_latency(
        "in-process topic of a killed process gone",
        killed,
        events[3].1,
    );
    assert_eq!(registry::__directory_scans(d), scans);
    assert!(registry::list(d).iter().all(|t| t.name != "w/heap"));
}

#[test]
fn a_new_watch_first_reports_what_exists_in_this_process_too() {
    let (d, _g) = nerve_testing::domain();
    let shm = Topic::<CmdVel>::builder("w/here/shm")
        .domain(d)
        .open()
        .unwrap();
    let heap = Topic::<CmdVel>::builder("w/here/heap")
        .domain(d)
        .in_process()
        .open()
        .unwrap();
    let (_p, _s) = (shm.publisher().unwrap(), heap.subscriber().unwrap());
    let mut w = registry::watch(d).unwrap();
    let me = std::process::id();
    let mut events = Vec::new();
    while let Some(e) = w.next(Duration::from_millis(50)) {
        events.push(e);
    }
    assert_eq!(events.len(), 4, "{events:#?}");
    assert!(events.contains(&Event::EndpointAppeared {
        topic: "w/here/shm".into(),
        pid: me,
        publisher: true
    }));
    assert!(events.contains(&Event::EndpointAppeared {
        topic: "w/here/heap".into(),
        pid: me,
        publisher: false
    }));
    assert!(events.iter().any(|e| matches!(e, Event::TopicAppeared(i)
        if i.name == "w/here/heap" && i.owner == Some(me) && i.depth == 16)));
    drop(heap);
    drop(_s);
    let events = collect(&mut w, Duration::from_secs(1), |e| {
        matches!(e, Event::TopicGone { .. })
    });
    let kinds: Vec<_> = events.into_iter().map(|(e, _)| e).collect();
    assert_eq!(
        kinds,
        vec![
            Event::EndpointGone {
                topic: "w/here/heap".into(),
                pid: me,
                publisher: false
            },
            Event::TopicGone {
                name: "w/here/heap".into(),
                owner: Some(me)
            }
        ]
    );
}

/// Another program writes garbage into `.registry` (random words anywhere, the header
/// included, and a truncation) while a watcher runs and topics come and go: the watcher
/// never panics, never waits past its timeout, rebuilds the registry and then works again.
#[test]
fn garbage_in_the_registry_never_panics_or_hangs_a_watcher() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let (d, _g) = nerve_testing::domain();
    let mut w = registry::watch(d).unwrap();
    let path = registry::registry_path(d);
    let inode = || std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
    let first = inode();
    let stop = AtomicBool::new(false);
    let writes = AtomicU64::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let mut round = 0u64;
            while !stop.load(Relaxed) {
                round += 1;
                let Ok(file) = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&path)
                else {
                    continue;
                };
                let len = file.metadata().map_or(0, |m| m.len()) as usize;
                if round == 40 {
                    // Truncated under every mapping of it.
                    file.set_len(len as u64 / 2).unwrap();
                    continue;
                }
                if len < 4096 {
                    continue;
                }
                let map = nerve_testing::mapping::SharedMapping::new(&file, len).unwrap();
                for i in 0..200 {
                    // The header now and then, entries otherwise.
                    let at = if i == 0 && round.is_multiple_of(25) {
                        0
                    } else {
                        (next() as usize % (len / 8)) * 8
                    };
                    // SAFETY: `at` is 8-aligned inside the mapping; another process could
                    // store the same way.
                    unsafe {
                        (*(map.ptr().as_ptr().add(at) as *const AtomicU64)).store(next(), Relaxed)
                    };
                }
                writes.fetch_add(1, Relaxed);
                std::thread::sleep(Duration::from_micros(500));
            }
        });
        let start = Instant::now();
        let mut rebuilt = 0;
        let mut i = 0;
        while start.elapsed() < Duration::from_secs(1) {
            i += 1;
            let t = Topic::<CmdVel>::builder(&format!("w/noise/{}", i % 4))
                .domain(d)
                .open()
                .unwrap();
            let p = t.publisher().unwrap();
            let call = Instant::now();
            while let Some(e) = w.next(Duration::from_millis(5)) {
                rebuilt += matches!(e, Event::RegistryRebuilt { .. }) as u32;
                if call.elapsed() > Duration::from_secs(1) {
                    break;
                }
            }
            assert!(
                call.elapsed() < Duration::from_secs(1),
                "a watcher kept busy by garbage for {:?}",
                call.elapsed()
            );
            drop((p, t));
        }
        stop.store(true, Relaxed);
        eprintln!(
            "garbage: {} rounds of 200 words, {i} topics opened and closed, {rebuilt} rebuilds \
             seen by the watcher",
            writes.load(Relaxed)
        );
        assert!(writes.load(Relaxed) > 10, "the garbage writer ran");
    });
    // Whoever looked first (the watcher or an opening topic) replaced the corrupt registry.
    assert_ne!(
        inode(),
        first,
        "a registry with a garbage header is rebuilt"
    );
    // Quiet again: the watch works as before.
    while w.next(Duration::from_millis(100)).is_some() {}
    let t = Topic::<CmdVel>::builder("w/after")
        .domain(d)
        .open()
        .unwrap();
    let events = collect(
        &mut w,
        Duration::from_secs(2),
        |e| matches!(e, Event::TopicAppeared(i) if i.name == "w/after"),
    );
    assert!(
        events
            .iter()
            .any(|(e, _)| matches!(e, Event::TopicAppeared(i) if i.name == "w/after")),
        "{events:#?}"
    );
    drop(t);
}
