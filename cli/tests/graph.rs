//! `nerve node | service | action | param`, run the way a user runs them, against a live
//! robot process (a scheduler's node, its parameters, a service and an action), then against
//! the same process killed with `kill -9`.

mod common;
#[path = "common/robot.rs"]
mod robot;

use std::time::{Duration, Instant};

use common::{assert_fails, ok};
use nerve::exec::{Context, Node, Scheduler};
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve_testing::{domain, process};

struct Controller(Publisher<CmdVel>);

impl Node for Controller {
    fn name(&self) -> &str {
        "controller"
    }
    fn tick(&mut self, _: &mut Context<'_>) {
        let _ = self.0.send(&CmdVel::default());
    }
}

/// Child: the robot, until killed.
#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    assert_eq!(role, "robot");
    let _robot = robot::serve();
    let cmd = Topic::<CmdVel>::open("cli/cmd")
        .unwrap()
        .publisher()
        .unwrap();
    let mut s = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .node(Controller(cmd))
        .rate(100.0)
        .done()
        .build()
        .unwrap();
    println!("READY");
    s.run().unwrap();
}

fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(5);
    while !ok() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn nodes_services_actions_and_parameters_of_a_live_robot() {
    let (d, _g) = domain();
    let mut robot = process::spawn_self("child_entry", "robot", d, &[]);
    robot.wait_line("READY");
    let pid = robot.id().to_string();
    until("the controller node announced", || {
        let out = ok(d, &["node", "list"]);
        out.contains("controller") && out.contains("running")
    });

    // Nodes.
    let out = ok(d, &["node", "list"]);
    let line = out.lines().find(|l| l.starts_with("controller")).unwrap();
    assert!(line.contains(&pid) && line.contains("100.0"), "{out}");
    let out = ok(d, &["node", "info", "/controller"]);
    for want in [
        "state         running",
        "publishes   cli/cmd  [nerve/CmdVel]",
        "  arm/plan",
        "gain = 1.5",
        "mode = \"auto\"",
        "actions it serves:\n  fib\n",
    ] {
        assert!(out.contains(want), "{want:?} in {out}");
    }

    // Services.
    let out = ok(d, &["service", "list"]);
    assert!(
        out.contains("arm/plan") && out.contains(&format!("pid {pid}")),
        "{out}"
    );
    assert!(out.contains("controller/param/set"), "{out}");
    assert!(
        !out.contains("fib/goal"),
        "an action's services only with -a: {out}"
    );
    assert!(ok(d, &["service", "list", "-a"]).contains("fib/goal"));
    let out = ok(d, &["service", "list", "-t"]);
    assert!(out.contains("[Plan → Vec<[f64; 2]>]"), "{out}");
    let out = ok(d, &["service", "type", "arm/plan"]);
    assert!(
        out.contains("goal: [f64; 2]") && out.contains("speed: f32"),
        "{out}"
    );
    let out = ok(
        d,
        &[
            "service",
            "call",
            "/arm/plan",
            "{goal: [1.0, 2.0], speed: 0.5}",
            "--json",
        ],
    );
    assert_eq!(out.trim(), "[[0.0,0.0],[1.0,2.0]]");
    let out = ok(
        d,
        &[
            "service",
            "call",
            "arm/plan",
            r#"{"goal": [3, 4], "speed": 1}"#,
        ],
    );
    assert!(out.contains("- - 3.0"), "{out}");
    assert_fails(
        d,
        &["service", "call", "arm/plan", "{goal: fast}"],
        "cannot decode the request",
    );
    assert_fails(
        d,
        &["service", "call", "arm/plan", "{goal: [1"],
        "as YAML or JSON",
    );
    assert_fails(
        d,
        &["service", "call", "arm/nosuch", "{}"],
        "no service 'arm/nosuch'",
    );

    // Actions.
    let out = ok(d, &["action", "list", "-t"]);
    assert!(
        out.contains("fib") && out.contains("[u32 → u32 → u64]"),
        "{out}"
    );
    let out = ok(d, &["action", "info", "fib"]);
    assert!(
        out.contains("goal      u32") && out.contains("result    u64"),
        "{out}"
    );
    let out = ok(d, &["action", "send_goal", "fib", "10", "--feedback"]);
    assert!(
        out.contains("feedback: 0") && out.contains("feedback: 9"),
        "{out}"
    );
    assert!(
        out.contains("status: Succeeded") && out.contains("result:\n  55"),
        "{out}"
    );
    assert_fails(
        d,
        &["action", "send_goal", "fib", "100"],
        "n = 100: at most 90",
    );
    assert_fails(d, &["action", "info", "nosuch"], "no action 'nosuch'");

    // Parameters.
    let out = ok(d, &["param", "list", "controller"]);
    assert!(
        out.contains("gain = 1.5  (float)") && out.contains("mode = \"auto\""),
        "{out}"
    );
    assert_eq!(ok(d, &["param", "get", "controller", "gain"]).trim(), "1.5");
    ok(d, &["param", "set", "controller", "gain", "2.5"]);
    assert_eq!(ok(d, &["param", "get", "controller", "gain"]).trim(), "2.5");
    assert_fails(d, &["param", "set", "controller", "gain", "50"], "gain");
    assert_fails(d, &["param", "set", "controller", "gain", "fast"], "gain");
    assert_fails(d, &["param", "get", "controller", "gian"], "gian");
    let out = ok(d, &["param", "describe", "controller", "gain"]);
    assert!(
        out.contains("proportional gain") && out.contains("default      1.5"),
        "{out}"
    );
    let dump = ok(d, &["param", "dump", "controller"]);
    assert!(dump.contains("controller:\n  ros__parameters:\n"), "{dump}");
    assert!(dump.contains("gain: 2.5"), "{dump}");
    let file = std::env::temp_dir().join(format!("nerve-cli-params-{}.yaml", std::process::id()));
    std::fs::write(&file, dump.replace("gain: 2.5", "gain: 3.0")).unwrap();
    let out = ok(d, &["param", "load", "controller", file.to_str().unwrap()]);
    assert!(out.contains("set 2 parameters"), "{out}");
    assert_eq!(ok(d, &["param", "get", "controller", "gain"]).trim(), "3.0");
    std::fs::write(&file, "controller: {gain: [oops}").unwrap();
    assert_fails(
        d,
        &["param", "load", "controller", file.to_str().unwrap()],
        "controller",
    );
    let _ = std::fs::remove_file(&file);
    assert_fails(
        d,
        &["param", "list", "nosuch"],
        "node 'nosuch' serves no parameters",
    );
    assert_fails(d, &["node", "info", "nosuch"], "no node 'nosuch'");

    // The robot dies: everything says so, nothing hangs.
    robot.kill9();
    until("the node seen dead", || {
        let out = ok(d, &["node", "list"]);
        out.lines()
            .any(|l| l.starts_with("controller") && l.ends_with("DEAD"))
    });
    let out = ok(d, &["service", "list"]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("arm/plan") && l.contains("down")),
        "{out}"
    );
    assert_fails(
        d,
        &["service", "call", "arm/plan", "{goal: [1, 2], speed: 0}"],
        "arm/plan",
    );
    assert_fails(d, &["param", "get", "controller", "gain"], "is down");
    assert_fails(d, &["action", "send_goal", "fib", "3"], "fib");
}
