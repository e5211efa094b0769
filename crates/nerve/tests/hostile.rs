//! Hostile input: shared memory written by something that is not nerve, a publisher stuck
//! inside a send, out-of-range options and timeouts, a full /dev/shm. Each case gets a clear
//! error or is skipped and counted — never a panic, a hang or a SIGBUS.

use std::time::{Duration, Instant};

use nerve::msgs::{CmdVel, Image};
use nerve::msgs::{Encoding, Header, ImageHeader};
use nerve::prelude::*;
use nerve::OpenError;
use nerve_testing::hostile::Segment;
use nerve_testing::process::{self, ChildGuard};
use nerve_testing::{domain, process::env_u64};

fn image(publisher: &Publisher<Image>, value: u8) {
    let mut loan = publisher.loan(16).unwrap();
    loan.data_mut().fill(value);
    *loan.header_mut() = ImageHeader::new(
        Header::new(0, value as u64, "cam").unwrap(),
        4,
        4,
        Encoding::Mono8,
    );
    loan.send().unwrap();
}

#[test]
fn a_chunk_index_out_of_range_in_a_live_slot_is_skipped_counted_and_survived_by_the_writer() {
    let (d, _g) = domain();
    let topic = Topic::<Image>::builder("hostile/image")
        .domain(d)
        .depth(4)
        .open()
        .unwrap();
    let publisher = topic.publisher().unwrap();
    let mut sub = topic.subscriber().unwrap();
    image(&publisher, 1);
    let seg = Segment::open(d, "hostile/image");
    seg.write_descriptor(0, u32::MAX - 3, 0, 16);
    assert!(sub.try_recv().unwrap().is_none());
    assert_eq!(sub.stats().corrupt, 1);
    // The writer wraps around twice over the lying slot: it must neither panic nor release a
    // chunk the descriptor invents.
    for v in 2..=9 {
        image(&publisher, v);
    }
    let mut got = Vec::new();
    while let Some(s) = sub.try_recv().unwrap() {
        assert!(s.data().iter().all(|&b| b == s.data()[0]), "a torn image");
        got.push(s.data()[0]);
    }
    // Lapped at message 1 with head at 9: the subscriber resumes at 6 (value 7), counting 1..5
    // as lost.
    assert_eq!(got, [7, 8, 9]);
    let stats = sub.stats();
    assert_eq!((stats.received, stats.lost, stats.corrupt), (3, 5, 1));
    // The chunk the damaged slot hid is lost to the pool until the topic is rebuilt; nothing
    // else leaks.
    let (in_use, _) = topic.chunks_in_use().unwrap();
    assert!(in_use <= 5, "{in_use} chunks in use");
}

#[test]
fn a_fixed_message_with_a_lying_length_is_skipped_and_counted() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("hostile/cmd")
        .domain(d)
        .open()
        .unwrap();
    let publisher = topic.publisher().unwrap();
    let mut sub = topic.subscriber().unwrap();
    publisher.send(&CmdVel::default()).unwrap();
    Segment::open(d, "hostile/cmd").write_slot_len(0, 3);
    assert_eq!(sub.try_recv().unwrap(), None);
    publisher
        .send(&CmdVel {
            stamp_ns: 2,
            ..CmdVel::default()
        })
        .unwrap();
    assert_eq!(sub.try_recv().unwrap().unwrap().stamp_ns, 2);
    let stats = sub.stats();
    assert_eq!((stats.received, stats.corrupt), (1, 1));
}

#[test]
fn a_send_stuck_on_the_solo_path_is_a_clear_error_and_a_clean_exit_frees_the_topic() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("hostile/solo")
        .domain(d)
        .open()
        .unwrap();
    let first = topic.publisher().unwrap();
    if !first.is_solo() {
        return nerve_testing::skip(
            "nerve/hostile/solo_stuck_send",
            "this kernel has no light barriers (membarrier), so no publisher is solo",
        );
    }
    let seg = Segment::open(d, "hostile/solo");
    let record = seg.our_publishers()[0];
    // As a send that panicked or was stopped in a debugger leaves it.
    seg.set_busy(record, 1);
    let start = Instant::now();
    match topic.publisher() {
        Err(OpenError::Busy { pid, topic, .. }) => {
            assert_eq!((pid, topic.as_str()), (std::process::id(), "hostile/solo"));
        }
        Ok(_) => panic!("a second publisher started beside a send in flight"),
        Err(e) => panic!("expected Busy, got {e}"),
    }
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(1), "waited {waited:?}");
    // The stuck holder exits cleanly (its record is freed, the flag stays as it was): the next
    // publisher must not wait for it at all.
    drop(first);
    let start = Instant::now();
    let next = topic.publisher().unwrap();
    assert!(start.elapsed() < Duration::from_secs(1));
    next.send(&CmdVel::default()).unwrap();
}

#[test]
fn out_of_range_options_are_errors_that_name_the_option() {
    let (d, _g) = domain();
    let config_error = |r: Result<Topic<Image>, OpenError>| match r {
        Err(OpenError::InvalidConfig { reason, .. }) => reason,
        Err(e) => panic!("expected InvalidConfig, got {e}"),
        Ok(_) => panic!("expected InvalidConfig, the topic opened"),
    };
    let b = || Topic::<Image>::builder("hostile/options").domain(d);
    assert!(config_error(b().depth(0).open()).contains("depth must be at least 1"));
    assert!(config_error(b().depth(1 << 21).open()).contains("above the limit"));
    assert!(config_error(b().max_message_bytes(1 << 40).open()).contains("1 GiB"));
    assert!(config_error(b().depth(4).chunks(4).open()).contains("must exceed the ring depth"));
    assert!(config_error(b().max_endpoints(0).open()).contains("max_endpoints"));
    assert!(config_error(b().chunks(1 << 20).open()).contains("chunks"));
    // None of them left a segment behind.
    assert!(nerve::registry::list(d).is_empty());
}

#[test]
fn timeouts_too_large_for_the_clock_mean_forever_not_a_panic() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("hostile/timeouts")
        .domain(d)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    sub.set_spin(Duration::MAX);
    let publisher = topic.publisher().unwrap();
    let sender = std::thread::spawn(move || {
        for i in 0..2 {
            std::thread::sleep(Duration::from_millis(30));
            publisher
                .send(&CmdVel {
                    stamp_ns: i,
                    ..CmdVel::default()
                })
                .unwrap();
        }
    });
    assert_eq!(
        sub.recv_timeout(Duration::MAX).unwrap().unwrap().stamp_ns,
        0
    );
    sub.set_spin(Duration::ZERO);
    assert_eq!(sub.recv_deadline(Duration::MAX).unwrap().stamp_ns, 1);
    sender.join().unwrap();
}

#[test]
fn a_spin_of_forever_still_ends_at_the_timeout() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("hostile/spin_forever")
        .domain(d)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    sub.set_spin(Duration::MAX);
    let start = std::time::Instant::now();
    // Nothing is ever sent: the receive must give up at its 20 ms timeout, not spin on.
    assert!(sub
        .recv_timeout(Duration::from_millis(20))
        .unwrap()
        .is_none());
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(20) && took < Duration::from_secs(2),
        "a 20 ms receive with a spin of forever took {took:?}"
    );
}

/// Child process roles (run inside a private mount namespace with a tiny tmpfs).
#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    let domain = env_u64("NERVE_DOMAIN") as u32;
    match role.as_str() {
        "full_tmpfs" => full_tmpfs(domain),
        "wait_forever" => {
            let topic = Topic::<CmdVel>::builder("hostile/truncated_far")
                .domain(domain)
                .open()
                .unwrap();
            let mut sub = topic.subscriber().unwrap();
            println!("READY");
            match sub.recv() {
                Err(e @ RecvError::Corrupt { .. }) => println!("RESULT Corrupt: {e}"),
                other => println!("RESULT unexpected {other:?}"),
            }
        }
        other => panic!("unknown role {other}"),
    }
}

fn full_tmpfs(domain: u32) {
    // A ring of 65536 slots needs 2 MiB of shared memory: more than the 1 MiB file system.
    match Topic::<CmdVel>::builder("full/ring")
        .domain(domain)
        .depth(1 << 16)
        .open()
    {
        Err(OpenError::NoSpace { needed, free, .. }) => {
            assert!(needed > free, "needed {needed} free {free}");
            println!("RESULT open=NoSpace needed={needed} free={free}");
        }
        Err(e) => panic!("expected NoSpace, got {e}"),
        Ok(_) => panic!("a 2 MiB ring opened on a 1 MiB file system"),
    }
    assert!(
        nerve::registry::list(domain).is_empty(),
        "a failed open left a file"
    );
    // A chunked topic whose pool is far larger than the file system: its bookkeeping fits,
    // its chunks are allocated on first use.
    let topic = Topic::<Image>::builder("full/image")
        .domain(domain)
        .max_message_bytes(4 << 20)
        .open()
        .unwrap();
    let camera = topic.publisher().unwrap();
    let mut viewer = topic.subscriber().unwrap();
    // A small loan fits and arrives whole.
    let mut loan = camera.loan(1024).unwrap();
    loan.data_mut().fill(7);
    loan.send().unwrap();
    assert!(viewer
        .try_recv()
        .unwrap()
        .unwrap()
        .data()
        .iter()
        .all(|&b| b == 7));
    // Opened while there is room (it is made sparse below).
    let sparse = Topic::<CmdVel>::builder("full/sparse")
        .domain(domain)
        .open()
        .unwrap();
    // A loan larger than what is left is refused before its chunk is written (the pages it
    // could get stay with the chunk for later loans).
    match camera.loan(2 << 20) {
        Err(SendError::NoSpace { needed, .. }) => println!("RESULT loan=NoSpace needed={needed}"),
        Err(e) => panic!("expected NoSpace, got {e}"),
        Ok(_) => panic!("a 2 MiB loan on a 1 MiB file system"),
    }
    // A segment whose pages are holes (left by an older nerve, or punched), on a file system
    // with not a byte left: touching its mapping would raise SIGBUS; tools only read it.
    let path = nerve_testing::hostile::segment_path(domain, "full/sparse");
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let len = f.metadata().unwrap().len() as libc::off_t;
    // SAFETY: fallocate on an open descriptor of our own file.
    let punched = unsafe {
        libc::fallocate(
            std::os::fd::AsRawFd::as_raw_fd(&f),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            4096,
            len - 4096,
        )
    };
    assert_eq!(
        punched,
        0,
        "punch a hole: {}",
        std::io::Error::last_os_error()
    );
    let filler = path.with_file_name("filler");
    let mut fill = std::fs::File::create(&filler).unwrap();
    while std::io::Write::write_all(&mut fill, &[0u8; 4096]).is_ok() {}
    let listed = nerve::registry::list(domain);
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(listed.iter().all(|t| t.error.is_none()), "{listed:?}");
    let report = nerve::registry::clean(domain).unwrap();
    println!(
        "RESULT listed={} kept={} stale={}",
        listed.len(),
        report.kept,
        report.stale.len()
    );
    // The segment whose endpoint records were punched away reads as unused: cleaned.
    std::mem::forget(sparse);
}

#[test]
fn a_full_shm_file_system_gives_no_space_errors_never_sigbus() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-full-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // First the namespace and the mount alone: only their absence may skip the test (and
    // under CI, as root, it fails). Once they work, the child must print its RESULT lines:
    // a child that dies (SIGBUS, a panic, an abort) fails the test.
    let probe = std::process::Command::new("unshare")
        .args(["--mount", "sh", "-c"])
        .arg(format!(
            "mount -t tmpfs -o size=1m nerve-probe {dir} && umount {dir}",
            dir = dir.display()
        ))
        .output();
    match probe {
        Ok(p) if p.status.success() => {}
        Ok(p) => {
            let _ = std::fs::remove_dir(&dir);
            let why = String::from_utf8_lossy(&p.stderr).trim().to_string();
            return nerve_testing::skip(
                "nerve/hostile/full_tmpfs",
                &format!(
                    "no private tmpfs could be mounted here ({}): {why}",
                    p.status
                ),
            );
        }
        Err(e) => {
            let _ = std::fs::remove_dir(&dir);
            return nerve_testing::skip(
                "nerve/hostile/full_tmpfs",
                &format!("`unshare` (util-linux) cannot run: {e}"),
            );
        }
    }
    let exe = std::env::current_exe().unwrap();
    let script = format!(
        "mount -t tmpfs -o size=1m nerve-test {dir} || exit 77; exec {exe} child_entry --exact --nocapture --test-threads=1",
        dir = dir.display(),
        exe = exe.display()
    );
    let child = std::process::Command::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .env(process::ROLE_VAR, "full_tmpfs")
        .env("NERVE_DOMAIN", d.to_string())
        .env("NERVE_SHM_DIR", &dir)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("unshare ran a moment ago");
    let (status, out) = ChildGuard::new(child).wait_with_output();
    let _ = std::fs::remove_dir(&dir);
    assert!(status.success(), "{status}: {out}");
    assert!(out.contains("RESULT open=NoSpace"), "{out}");
    assert!(out.contains("RESULT loan=NoSpace"), "{out}");
    assert!(out.contains("RESULT listed=2 kept=1 stale=1"), "{out}");
}

#[test]
fn a_segment_truncated_under_live_endpoints_is_corrupt_not_sigbus() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("hostile/truncated")
        .domain(d)
        .open()
        .unwrap();
    let publisher = topic.publisher().unwrap();
    let mut sub = topic.subscriber().unwrap();
    publisher.send(&CmdVel::default()).unwrap();
    nerve_testing::hostile::truncate(d, "hostile/truncated", 0);
    match sub.try_recv() {
        Err(RecvError::Corrupt { topic, reason }) => {
            assert_eq!(topic, "hostile/truncated");
            assert!(reason.contains("truncated"), "{reason}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert!(matches!(
        publisher.send(&CmdVel::default()),
        Err(SendError::Corrupt { .. })
    ));
    assert!(matches!(
        sub.recv_timeout(Duration::from_secs(5)),
        Err(RecvError::Corrupt { .. })
    ));
    // Chunked topics too: a loan is refused, a waiting receive ends.
    let images = Topic::<Image>::builder("hostile/truncated_images")
        .domain(d)
        .open()
        .unwrap();
    let camera = images.publisher().unwrap();
    let mut viewer = images.subscriber().unwrap();
    image(&camera, 3);
    nerve_testing::hostile::truncate(d, "hostile/truncated_images", 4096);
    assert!(matches!(
        viewer.try_recv(),
        Err(RecvError::Corrupt { .. }) | Ok(None)
    ));
    assert!(matches!(camera.loan(16), Err(SendError::Corrupt { .. })));
}

#[test]
fn a_subscriber_waiting_in_another_process_sees_its_segment_truncated_as_corrupt() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("hostile/truncated_far")
        .domain(d)
        .open()
        .unwrap();
    let mut child = process::spawn_self("child_entry", "wait_forever", d, &[]);
    child.wait_line("READY");
    std::thread::sleep(Duration::from_millis(50));
    nerve_testing::hostile::truncate(d, "hostile/truncated_far", 0);
    let start = Instant::now();
    assert!(child.wait_line("RESULT").contains("Corrupt"));
    assert!(start.elapsed() < Duration::from_secs(2));
    let status = child.wait();
    assert!(status.success(), "the waiting process ended with {status}");
    drop(topic);
}
