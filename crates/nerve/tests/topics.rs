//! Topic behaviour within one process (both the shm and the heap path).

use std::time::Duration;

use nerve::msgs::{CmdVel, Image, Imu};
use nerve::prelude::*;
use nerve::SubscriberStats;
use nerve::{OpenError, TransportPath};

fn cmd(i: u64) -> CmdVel {
    CmdVel {
        stamp_ns: i,
        linear: i as f32,
        angular: -(i as f32),
    }
}

#[test]
fn fixed_messages_reach_every_subscriber_in_order() {
    for in_process in [false, true] {
        let (d, _g) = nerve_testing::domain();
        let mut b = Topic::<CmdVel>::builder("t/fixed").domain(d).depth(64);
        if in_process {
            b = b.in_process();
        }
        let topic = b.open().unwrap();
        assert_eq!(matches!(topic.path(), TransportPath::Heap), in_process);
        let p = topic.publisher().unwrap();
        let mut subs: Vec<_> = (0..3).map(|_| topic.subscriber().unwrap()).collect();
        for i in 0..50 {
            p.send(&cmd(i)).unwrap();
        }
        for s in &mut subs {
            for i in 0..50 {
                assert_eq!(s.try_recv().unwrap(), Some(cmd(i)));
            }
            assert_eq!(s.try_recv().unwrap(), None);
            assert_eq!(
                s.stats(),
                SubscriberStats {
                    received: 50,
                    lost: 0,
                    dropped: 0,
                    corrupt: 0,
                }
            );
        }
    }
}

#[test]
fn lapped_subscriber_counts_every_loss() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/lap")
        .domain(d)
        .depth(8)
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    let mut s = topic.subscriber().unwrap();
    for i in 0..100 {
        p.send(&cmd(i)).unwrap();
    }
    let mut got = Vec::new();
    while let Some(m) = s.try_recv().unwrap() {
        got.push(m.stamp_ns);
    }
    let st = s.stats();
    assert_eq!(st.received + st.lost, 100, "{st:?}");
    assert!(st.lost >= 92, "{st:?}");
    assert_eq!(*got.last().unwrap(), 99);
    assert!(
        got.windows(2).all(|w| w[1] == w[0] + 1),
        "in order after the resync: {got:?}"
    );
}

#[test]
fn reliable_publisher_reports_full_and_gives_the_message_back() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/rel")
        .domain(d)
        .depth(4)
        .reliable()
        .open()
        .unwrap();
    let mut p = topic.publisher().unwrap();
    p.set_timeout(Duration::from_millis(20));
    let mut s = topic.subscriber().unwrap();
    for i in 0..4 {
        p.send(&cmd(i)).unwrap();
    }
    match p.send(&cmd(4)) {
        Err(SendError::Full { msg, topic, depth }) => {
            assert_eq!(msg, cmd(4));
            assert_eq!(topic, "t/rel");
            assert_eq!(depth, 4);
        }
        other => panic!("expected Full, got {other:?}"),
    }
    assert_eq!(s.try_recv().unwrap(), Some(cmd(0)));
    p.send(&cmd(4)).unwrap();
    for i in 1..5 {
        assert_eq!(s.try_recv().unwrap(), Some(cmd(i)));
    }
    assert_eq!(s.stats().lost, 0);
}

#[test]
fn latest_only_skips_to_the_newest() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/latest")
        .domain(d)
        .latest_only()
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    let mut s = topic.subscriber().unwrap();
    for i in 0..10 {
        p.send(&cmd(i)).unwrap();
    }
    assert_eq!(s.try_recv().unwrap(), Some(cmd(9)));
    assert_eq!(s.try_recv().unwrap(), None);
    assert_eq!(s.stats().received + s.stats().lost, 10);
}

#[test]
fn late_joiner_gets_history() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/hist")
        .domain(d)
        .depth(16)
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    for i in 0..10 {
        p.send(&cmd(i)).unwrap();
    }
    let mut s = topic.subscriber_with_history(3).unwrap();
    for i in 7..10 {
        assert_eq!(s.try_recv().unwrap(), Some(cmd(i)));
    }
    assert_eq!(s.try_recv().unwrap(), None);
}

#[test]
fn type_mismatch_names_both_types_and_the_topic() {
    let (d, _g) = nerve_testing::domain();
    let _t = Topic::<CmdVel>::builder("t/type").domain(d).open().unwrap();
    let _p = _t.publisher().unwrap();
    let err = match Topic::<Msgpack<u32>>::builder("t/type").domain(d).open() {
        Err(e) => e,
        Ok(_) => panic!("opened a CmdVel topic as Msgpack"),
    };
    assert!(matches!(err, OpenError::TypeMismatch { .. }));
    let text = err.to_string();
    assert!(
        text.contains("t/type") && text.contains("nerve/CmdVel") && text.contains("nerve/Msgpack"),
        "{text}"
    );
}

#[test]
fn explicit_qos_mismatch_is_an_error() {
    let (d, _g) = nerve_testing::domain();
    let t = Topic::<CmdVel>::builder("t/qos")
        .domain(d)
        .depth(8)
        .open()
        .unwrap();
    let _p = t.publisher().unwrap();
    let err = Topic::<CmdVel>::builder("t/qos")
        .domain(d)
        .reliable()
        .open()
        .err()
        .unwrap();
    assert!(matches!(err, OpenError::QosMismatch { .. }), "{err}");
    // Leaving QoS unset adopts the topic's.
    let t2 = Topic::<CmdVel>::builder("t/qos").domain(d).open().unwrap();
    assert_eq!(t2.depth(), 8);
}

#[test]
fn invalid_names_are_rejected_with_advice() {
    // "/x" is the topic "x", as ROS 2 users write it; "//x" is not a name.
    for bad in ["", "//x", "a b", "a//b"] {
        let err = Topic::<CmdVel>::builder(bad).open().err().unwrap();
        assert!(err.to_string().contains("robot/cmd_vel"), "{err}");
    }
}

#[test]
fn blocking_recv_wakes_on_publish_and_times_out() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/block")
        .domain(d)
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    let mut s = topic.subscriber().unwrap();
    s.set_spin(Duration::ZERO);
    let t0 = std::time::Instant::now();
    assert_eq!(s.recv_timeout(Duration::from_millis(50)).unwrap(), None);
    assert!(t0.elapsed() >= Duration::from_millis(50));
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        p.send(&cmd(7)).unwrap();
    });
    assert_eq!(s.recv().unwrap(), cmd(7));
    h.join().unwrap();
    assert!(s
        .recv_deadline(Duration::from_millis(5))
        .unwrap_err()
        .to_string()
        .contains("t/block"));
}

#[test]
fn a_subscriber_of_a_slow_topic_stops_spinning_before_each_message() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/slow").domain(d).open().unwrap();
    let p = topic.publisher().unwrap();
    let mut s = topic.subscriber().unwrap();
    // A spin far longer than any futex wake-up: spinning it before each of the 60 messages
    // would cost 120 ms of CPU.
    let spin = Duration::from_millis(2);
    s.set_spin(spin);
    let n = 60;
    let h = std::thread::spawn(move || {
        for i in 0..n {
            std::thread::sleep(Duration::from_millis(10));
            p.send(&cmd(i)).unwrap();
        }
    });
    let cpu = thread_cpu();
    for i in 0..n {
        assert_eq!(
            s.recv_timeout(Duration::from_secs(5)).unwrap(),
            Some(cmd(i))
        );
    }
    let used = thread_cpu() - cpu;
    h.join().unwrap();
    // Halving from 2 ms: about 4 ms of spinning in all, plus the futex wake-ups.
    assert!(
        used < spin * n as u32 / 4,
        "the subscriber used {used:?} of CPU for {n} messages 10 ms apart"
    );
}

#[test]
fn msgpack_values_round_trip_without_size_caps() {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Status {
        name: String,
        values: Vec<f64>,
    }
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<Msgpack<Status>>::builder("t/msgpack")
        .domain(d)
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    let mut s = topic.subscriber().unwrap();
    let big = Status {
        name: "x".repeat(10),
        values: (0..200_000).map(|i| i as f64).collect(),
    };
    p.send(&big).unwrap();
    assert_eq!(s.try_recv().unwrap().unwrap(), big);
    // Above the topic's limit: an error that says the limit and how to raise it.
    let small = Topic::<Msgpack<Status>>::builder("t/msgpack-small")
        .domain(d)
        .max_message_bytes(1024)
        .open()
        .unwrap();
    let err = small
        .publisher()
        .unwrap()
        .send(&big)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("max_message_bytes") && err.contains("t/msgpack-small"),
        "{err}"
    );
}

#[test]
fn chunked_messages_are_zero_copy_and_released() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<Image>::builder("t/image")
        .domain(d)
        .depth(4)
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    let mut s = topic.subscriber().unwrap();
    let len = 1920 * 1080 * 3;
    let mut loan = p.loan(len).unwrap();
    loan.header_mut().width = 1920;
    loan.header_mut().height = 1080;
    let data = loan.data_mut();
    data[0] = 1;
    data[len - 1] = 2;
    let ptr = data.as_ptr();
    loan.send().unwrap();
    let sample = s.try_recv().unwrap().unwrap();
    assert_eq!(sample.header().width, 1920);
    assert_eq!(sample.len(), len);
    assert_eq!((sample.data()[0], sample.data()[len - 1]), (1, 2));
    assert_eq!(
        sample.data().as_ptr(),
        ptr,
        "same-process subscriber reads the publisher's chunk"
    );
    drop(sample);
    // Unsent loans return their chunk; the pool never runs dry in a steady loop.
    for i in 0..1000u32 {
        let mut l = p.loan(64).unwrap();
        l.data_mut()[0] = i as u8;
        if i % 3 == 0 {
            drop(l);
        } else {
            l.send().unwrap();
        }
        while let Some(sample) = s.try_recv().unwrap() {
            assert_eq!(sample.len(), 64);
        }
    }
    let err = p.loan(usize::MAX / 2).err().unwrap().to_string();
    assert!(err.contains("exceeds the limit"), "{err}");
}

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[test]
fn a_subscriber_blocked_in_recv_uses_under_one_percent_cpu() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/idle").domain(d).open().unwrap();
    let _p = topic.publisher().unwrap();
    let mut s = topic.subscriber().unwrap();
    let (wall0, cpu0) = (std::time::Instant::now(), thread_cpu());
    assert_eq!(s.recv_timeout(Duration::from_secs(1)).unwrap(), None);
    let (wall, cpu) = (wall0.elapsed(), thread_cpu() - cpu0);
    let share = cpu.as_secs_f64() / wall.as_secs_f64();
    eprintln!(
        "blocked recv: {cpu:?} CPU over {wall:?} ({:.3} %)",
        share * 100.0
    );
    assert!(
        share < 0.01,
        "blocked subscriber used {:.2} % CPU",
        share * 100.0
    );
}

#[test]
fn segments_are_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("t/perm").domain(d).open().unwrap();
    let TransportPath::Shm(path) = topic.path().clone() else {
        panic!("expected a shm topic")
    };
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let dir = nerve::registry::domain_dir(d);
    assert_eq!(
        std::fs::metadata(dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
}

#[test]
fn registry_lists_type_counts_path_and_owners() {
    let (d, _g) = nerve_testing::domain();
    let shm = Topic::<CmdVel>::builder("t/reg/shm")
        .domain(d)
        .open()
        .unwrap();
    let heap = Topic::<Imu>::builder("t/reg/heap")
        .domain(d)
        .in_process()
        .open()
        .unwrap();
    let (_p, _s1, _s2, _hp) = (
        shm.publisher().unwrap(),
        shm.subscriber().unwrap(),
        shm.subscriber().unwrap(),
        heap.publisher().unwrap(),
    );
    let list = nerve::registry::list(d);
    let t = list
        .iter()
        .find(|t| t.name == "t/reg/shm")
        .expect("shm topic listed");
    assert_eq!(
        (t.type_name.as_str(), t.publishers(), t.subscribers()),
        ("nerve/CmdVel", 1, 2)
    );
    assert!(matches!(t.path, TransportPath::Shm(_)));
    assert_eq!(t.pids(), vec![std::process::id()]);
    let want = if nerve::solo_publishing_available() {
        "solo"
    } else {
        "locked"
    };
    assert_eq!(t.claims, want, "one publisher: how it claims is visible");
    let h = list
        .iter()
        .find(|t| t.name == "t/reg/heap")
        .expect("heap topic listed");
    assert_eq!(
        (h.type_name.as_str(), h.publishers(), h.path.clone()),
        ("nerve/Imu", 1, TransportPath::Heap)
    );
}

#[test]
fn the_last_user_closing_a_topic_removes_its_segment() {
    let (d, _g) = nerve_testing::domain();
    let a = Topic::<CmdVel>::builder("t/close")
        .domain(d)
        .open()
        .unwrap();
    let TransportPath::Shm(path) = a.path().clone() else {
        panic!("expected a shm topic")
    };
    let b = Topic::<CmdVel>::builder("t/close")
        .domain(d)
        .open()
        .unwrap();
    let (p, s) = (a.publisher().unwrap(), b.subscriber().unwrap());
    drop((a, p));
    assert!(
        path.exists(),
        "still used by the second handle and its subscriber"
    );
    drop(s);
    assert!(path.exists(), "the second handle still has the topic open");
    drop(b);
    assert!(
        !path.exists(),
        "closed by everyone: the file (and its memory) is gone"
    );
}
