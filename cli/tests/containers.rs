//! nerve across containers: publishers, subscribers, services, nodes, the registry watch and
//! the e-stop in pid and mount namespaces of their own (`nerve_testing::container`), sharing
//! `/dev/shm` as containers with `--ipc=host` or a shared tmpfs volume do, and the CLI
//! (`topic echo | info`, `clean`, `node list`) run from yet another one. Messages are counted
//! end to end: nothing lost, no topic rebuilt, and a `kill -9` in one container is seen from
//! the others. Then two users sharing a domain through `NERVE_SHM_GROUP`.

mod common;
#[path = "common/robot.rs"]
mod robot;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_fails, ok, NERVE};
use nerve::exec::{Context, Node, Scheduler};
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve::registry::Event;
use nerve_testing::{container, domain, process};

/// Messages each talker sends.
const COUNT: u64 = 2000;

/// Child processes. `talker`: once `SUBS` subscribers are on `ctr/cmd`, COUNT messages
/// numbered 1..=COUNT (in `stamp_ns`) at about 2 kHz, then stays until killed. `listener`:
/// counts them, checking the numbering, prints `RESULT`, stays until killed. `robot`: the
/// CLI tests' robot (parameters, service, action) and a node, until killed. `estopped`: a
/// scheduler obeying `nerve/estop`; prints `ESTOP <reason>` when one arrives. `trigger`:
/// sends an e-stop.
#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    match role.as_str() {
        "talker" => {
            let subs = process::env_u64("SUBS") as usize;
            let t = Topic::<CmdVel>::builder("ctr/cmd")
                .depth(4096)
                .open()
                .unwrap();
            let p = t.publisher().unwrap();
            println!("READY");
            let end = Instant::now() + Duration::from_secs(30);
            while subscribers(nerve::default_domain(), "ctr/cmd") < subs {
                assert!(Instant::now() < end, "the subscribers never came");
                std::thread::sleep(Duration::from_millis(5));
            }
            for i in 1..=COUNT {
                p.send(&CmdVel {
                    stamp_ns: i,
                    linear: 1.0,
                    angular: 0.0,
                })
                .unwrap();
                std::thread::sleep(Duration::from_micros(500));
            }
            println!("SENT {COUNT}");
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        "listener" => {
            let t = Topic::<CmdVel>::builder("ctr/cmd")
                .depth(4096)
                .open()
                .unwrap();
            let mut s = t.subscriber().unwrap();
            println!("READY pid={}", std::process::id());
            let (got, bad) = count(&mut s);
            println!("RESULT got={got} bad={bad}");
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        "robot" => {
            let _robot = robot::serve();
            let mut s = Scheduler::builder()
                .print_stats(false)
                .handle_signals(false)
                .node(Idle("ctr_node"))
                .rate(50.0)
                .done()
                .build()
                .unwrap();
            println!("READY");
            s.run().unwrap();
        }
        "estopped" => {
            let mut s = Scheduler::builder()
                .print_stats(false)
                .handle_signals(false)
                .estop_topic(None)
                .node(Idle("guard"))
                .rate(50.0)
                .done()
                .build()
                .unwrap();
            let (h, estop) = (s.handle(), s.estop());
            std::thread::spawn(move || {
                while !estop.is_triggered() {
                    std::thread::sleep(Duration::from_millis(5));
                }
                println!("ESTOP {}", estop.reason().unwrap_or_default());
                h.stop();
            });
            println!("READY pid={}", std::process::id());
            s.run().unwrap();
        }
        "trigger" => {
            nerve::exec::trigger_remote_estop(None, "from container b").unwrap();
            println!("RESULT sent=1");
        }
        other => panic!("unknown role {other}"),
    }
}

struct Idle(&'static str);

impl Node for Idle {
    fn name(&self) -> &str {
        self.0
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
}

fn subscribers(domain: u32, topic: &str) -> usize {
    nerve::registry::list(domain)
        .iter()
        .find(|t| t.name == topic)
        .map_or(0, |t| t.subscribers())
}

/// Receives COUNT numbered messages (or gives up after 30 s): (received, out of order).
fn count(s: &mut Subscriber<CmdVel>) -> (u64, u64) {
    let (mut got, mut bad) = (0, 0);
    let end = Instant::now() + Duration::from_secs(30);
    while got < COUNT && Instant::now() < end {
        if let Some(m) = s.recv_timeout(Duration::from_millis(100)).unwrap() {
            got += 1;
            if m.stamp_ns != got {
                bad += 1;
            }
        }
    }
    (got, bad)
}

/// Makes the containers, or says why not (under CI, that fails the test).
fn containers(id: &str) -> bool {
    match container::check() {
        Ok(()) => true,
        Err(why) => {
            nerve_testing::skip(id, &why);
            false
        }
    }
}

/// `nerve args` in a container of its own named `host`: (status, stdout, stderr).
fn nerve_in(host: &str, domain: u32, args: &[&str]) -> (i32, String, String) {
    let mut cmd = container::command(host, NERVE, args);
    cmd.env("NERVE_DOMAIN", domain.to_string());
    common::run(cmd)
}

fn until(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) -> Duration {
    let t0 = Instant::now();
    while !ok() {
        assert!(
            t0.elapsed() < limit,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    t0.elapsed()
}

/// The issue as a user met it: a publisher on the host, a subscriber in container A, and from
/// container B `topic echo --once`, `topic info`, `clean` while messages flow. Nothing is
/// lost on either side, the segment is never replaced, and then a `kill -9` in container A is
/// seen on the host (the watch and `topic info`).
#[test]
fn a_topic_shared_with_containers_is_never_destroyed_and_loses_nothing() {
    if !containers(
        "cli/containers/a_topic_shared_with_containers_is_never_destroyed_and_loses_nothing",
    ) {
        return;
    }
    let (d, _g) = domain();
    let mut talker = process::spawn_self("child_entry", "talker", d, &[("SUBS", "2".into())]);
    talker.wait_line("READY");
    let file = nerve::registry::domain_dir(d).join("ctr%cmd.topic");
    let inode = std::fs::metadata(&file).unwrap().ino();
    let mut watch = nerve::registry::watch(d).unwrap();

    let mut listener = process::spawn_self_in(Some("ctr-a"), "child_entry", "listener", d, &[]);
    assert_eq!(
        listener.wait_line("READY"),
        "READY pid=1",
        "pid 1 of its own namespace"
    );
    let t = Topic::<CmdVel>::builder("ctr/cmd")
        .domain(d)
        .depth(4096)
        .open()
        .unwrap();
    let mut mine = t.subscriber().unwrap();

    // From container B, while the talker sends.
    let (code, out, err) = nerve_in("ctr-b", d, &["topic", "info", "ctr/cmd"]);
    assert_eq!(code, 0, "{err}");
    let publisher = out.lines().find(|l| l.starts_with("  publisher")).unwrap();
    assert!(
        publisher.contains("alive") && publisher.contains("in another pid namespace"),
        "{out}"
    );
    assert!(!out.contains("DEAD"), "nobody is dead: {out}");
    let (code, out, err) = nerve_in("ctr-b", d, &["topic", "list"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ctr/cmd"), "{out}");
    let (code, out, err) = nerve_in("ctr-b", d, &["topic", "echo", "--once", "ctr/cmd"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("stamp_ns"), "{out}");
    let (_, out, _) = nerve_in("ctr-b", d, &["doctor"]);
    let line = out
        .lines()
        .find(|l| l.contains("liveness:"))
        .unwrap_or_default();
    assert!(
        line.contains("in other pid namespaces: hosts") && line.contains("ctr-a"),
        "doctor in container B sees the host's and container A's processes: {out}"
    );
    let (code, out, err) = nerve_in("ctr-b", d, &["clean"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("ctr%cmd"),
        "a live topic is never cleaned: {out}"
    );

    let (got, bad) = count(&mut mine);
    assert_eq!((got, bad), (COUNT, 0), "the host's subscriber");
    let r = listener.wait_line("RESULT");
    assert_eq!(
        (process::field(&r, "got"), process::field(&r, "bad")),
        (COUNT, 0),
        "container A's subscriber: {r}"
    );
    talker.wait_line("SENT");
    assert_eq!(
        std::fs::metadata(&file).unwrap().ino(),
        inode,
        "the segment was never replaced"
    );
    let info = ok(d, &["topic", "info", "ctr/cmd"]);
    assert_eq!(info.matches("alive").count(), 3, "{info}");
    assert!(
        info.contains("in another pid namespace, host ctr-a"),
        "{info}"
    );

    // kill -9 of container A's process, seen from the host.
    while watch.try_next().is_some() {}
    listener.kill9();
    let seen = until(
        "the watch to see container A's listener die",
        Duration::from_secs(3),
        || {
            matches!(
                watch.next(Duration::from_millis(50)),
                Some(Event::ProcessDied { pid: 1 })
            )
        },
    );
    let info = ok(d, &["topic", "info", "ctr/cmd"]);
    assert_eq!(info.matches("DEAD").count(), 1, "{info}");
    assert_eq!(info.matches("alive").count(), 2, "{info}");
    eprintln!("kill -9 across the namespace boundary seen by the watch in {seen:?}");

    // And the talker's death too, from container B this time.
    talker.kill9();
    let (_, out, _) = nerve_in("ctr-b", d, &["topic", "info", "ctr/cmd"]);
    assert_eq!(out.matches("DEAD").count(), 2, "{out}");
}

/// A robot in a container (a node, parameters, a service, an action) used from the host and
/// from a second container; its `kill -9` is seen as a dead node and a dead server.
#[test]
fn a_robot_in_a_container_is_driven_from_the_host_and_another_container() {
    if !containers(
        "cli/containers/a_robot_in_a_container_is_driven_from_the_host_and_another_container",
    ) {
        return;
    }
    let (d, _g) = domain();
    let mut robot = process::spawn_self_in(Some("ctr-robot"), "child_entry", "robot", d, &[]);
    robot.wait_line("READY");
    until("the node announced", Duration::from_secs(5), || {
        ok(d, &["node", "list"]).contains("ctr_node")
    });
    let list = ok(d, &["node", "list"]);
    let line = list.lines().find(|l| l.starts_with("ctr_node")).unwrap();
    assert!(
        line.contains("running") && line.contains("in another pid namespace, host ctr-robot"),
        "{list}"
    );
    let info = ok(d, &["node", "info", "ctr_node"]);
    assert!(info.contains("services it serves:\n  arm/plan"), "{info}");
    assert!(ok(d, &["param", "get", "controller", "gain"]).contains("1.5"));
    let out = ok(
        d,
        &[
            "service",
            "call",
            "arm/plan",
            r#"{"goal": [3.0, 4.0], "speed": 1.0}"#,
        ],
    );
    assert!(out.contains("3.0") && out.contains("4.0"), "{out}");
    let (code, out, err) = nerve_in(
        "ctr-b",
        d,
        &[
            "service",
            "call",
            "arm/plan",
            r#"{"goal": [5.0, 6.0], "speed": 1.0}"#,
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("5.0") && out.contains("6.0"), "{out}");
    let (code, out, err) = nerve_in("ctr-b", d, &["action", "send_goal", "fib", "10"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("55"), "{out}");

    robot.kill9();
    // At once, not after the call's timeout: the server's death is seen through its life file.
    let t0 = Instant::now();
    assert_fails(
        d,
        &[
            "service",
            "call",
            "arm/plan",
            r#"{"goal": [1.0, 1.0], "speed": 1.0}"#,
            "--timeout",
            "5",
        ],
        "has no live server",
    );
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    let list = ok(d, &["node", "list"]);
    let line = list.lines().find(|l| l.starts_with("ctr_node")).unwrap();
    assert!(line.contains("DEAD"), "{list}");
}

/// Two containers, each of whose processes is pid 1: an e-stop from one reaches the
/// scheduler in the other (a pid told nothing apart: the old check ignored it as its own).
#[test]
fn an_estop_from_one_container_stops_a_scheduler_in_another() {
    if !containers("cli/containers/an_estop_from_one_container_stops_a_scheduler_in_another") {
        return;
    }
    let (d, _g) = domain();
    let mut guard = process::spawn_self_in(Some("ctr-a"), "child_entry", "estopped", d, &[]);
    assert_eq!(guard.wait_line("READY"), "READY pid=1");
    until("the e-stop subscriber", Duration::from_secs(5), || {
        subscribers(d, "nerve/estop") >= 1
    });
    let trigger = process::spawn_self_in(Some("ctr-b"), "child_entry", "trigger", d, &[]);
    trigger.finish();
    let line = guard.wait_line("ESTOP");
    assert!(
        line.contains("from container b") && line.contains("in another pid namespace"),
        "{line}"
    );
    assert!(guard.wait().success());
}

/// Root and uid 1000 share a domain through `NERVE_SHM_GROUP` (a gid both have); uid 1001,
/// outside the group, gets an error naming the group.
#[test]
fn two_users_share_a_domain_through_a_group() {
    let id = "cli/containers/two_users_share_a_domain_through_a_group";
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return nerve_testing::skip(id, "switching users needs root");
    }
    let (d, _g) = domain();
    let gid = 24_680 + (std::process::id() % 1000);
    let root = tempdir_1777(&format!("nerve-group-{}", std::process::id()));
    // The test binary, where the other users may run it.
    let exe = root.join("containers-test");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let as_user = |uid: u32, groups: &str, role: &str| {
        let mut c = Command::new("setpriv");
        c.args([
            &format!("--reuid={uid}"),
            &format!("--regid={uid}"),
            &format!("--groups={groups}"),
        ])
        .arg(&exe)
        .args(["child_entry", "--exact", "--nocapture", "--test-threads=1"])
        .env(process::ROLE_VAR, role)
        .env("NERVE_DOMAIN", d.to_string())
        .env("NERVE_SHM_DIR", &root)
        .env("NERVE_SHM_GROUP", gid.to_string())
        .env("SUBS", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
        c
    };
    let mut talker =
        process::ChildGuard::new(as_user(0, &gid.to_string(), "talker").spawn().unwrap());
    talker.wait_line("READY");
    let mut listener =
        process::ChildGuard::new(as_user(1000, &gid.to_string(), "listener").spawn().unwrap());
    listener.wait_line("READY");
    let r = listener.wait_line("RESULT");
    assert_eq!(
        (process::field(&r, "got"), process::field(&r, "bad")),
        (COUNT, 0),
        "uid 1000 received everything root sent: {r}"
    );
    let dir = root.join(format!("nerve-g{gid}-{d}"));
    let meta = std::fs::metadata(&dir).unwrap();
    assert_eq!((meta.gid(), meta.mode() & 0o7777), (gid, 0o2770));
    let seg = std::fs::metadata(dir.join("ctr%cmd.topic")).unwrap();
    assert_eq!((seg.gid(), seg.mode() & 0o777), (gid, 0o660));

    // Outside the group: a clear error naming it.
    let out = as_user(1001, "1001", "listener")
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.contains("Permission denied")
            && text.contains("NERVE_SHM_GROUP")
            && text.contains(&gid.to_string()),
        "{text}"
    );
    talker.kill9();
    listener.kill9();
    let _ = std::fs::remove_dir_all(&root);
}

/// A directory in /dev/shm anyone may write (as /dev/shm itself), removed first if left over.
fn tempdir_1777(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new("/dev/shm").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    dir
}
