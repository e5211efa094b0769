//! One classifier of nerve's own topics: every topic nerve opens by itself (a service's,
//! an action's, a parameter server's, a node's record, the log, a log level change, the
//! e-stop, a bridge's view) has a kind of its own, and only the topics a user opened are
//! `User`. A new plumbing topic that nobody classified shows here as a user's.

use std::collections::BTreeMap;
use std::time::Duration;

use nerve::exec::{Context, Node, Scheduler};
use nerve::msgs::CmdVel;
use nerve::plumbing::{TopicKind, ZENOH_VIEW_TOPIC};
use nerve::rpc::{ActionServer, GoalOutcome, ParamDescriptor, Parameters, Service};
use nerve::{Msgpack, Topic};

struct Idle;

impl Node for Idle {
    fn name(&self) -> &str {
        "idle"
    }
    fn tick(&mut self, _: &mut Context<'_>) {}
}

/// A subscriber of nerve's topic `name` (opened as nerve opens it: depth 16).
fn listener<T: nerve::FixedMessage<Kind = nerve::msgs::Fixed>>(
    name: &str,
    d: u32,
) -> nerve::Subscriber<T> {
    Topic::<T>::builder(name)
        .domain(d)
        .depth(16)
        .open()
        .unwrap()
        .subscriber()
        .unwrap()
}

#[test]
fn every_topic_nerve_opens_itself_has_a_kind_of_its_own() {
    let (d, _g) = nerve_testing::domain();
    // What a user opens.
    let user = Topic::<CmdVel>::builder("robot/cmd")
        .domain(d)
        .open()
        .unwrap();
    let _p = user.publisher().unwrap();
    // What nerve opens by itself.
    let svc = Service::<u32, u32>::builder("arm/plan").domain(d).build();
    let _server = svc.server().serve(|x: u32| Ok(x + 1)).unwrap();
    let client = svc.client().unwrap();
    assert!(client.raw().wait_for_server(Duration::from_secs(5)));
    assert_eq!(client.call(&1, Duration::from_secs(5)).unwrap(), 2);
    let _action = ActionServer::<u32, u32, u64>::builder("fib")
        .domain(d)
        .serve(|_| Ok(()), |_, n| GoalOutcome::Succeeded(u64::from(n)))
        .unwrap();
    let params = Parameters::with_domain("camera", d);
    params.declare(ParamDescriptor::new("fps", 30)).unwrap();
    let _served = params.serve().unwrap();
    let _log = nerve::log::log_topic(d).unwrap().publisher().unwrap();
    nerve::log::set_level(d, "camera", nerve::log::Level::Debug).unwrap();
    // `set_level` and `trigger_remote_estop` let go of their topics once they have sent; a
    // listener keeps each listed.
    let _levels = listener::<nerve::log::LogLevelMsg>(nerve::log::LOG_LEVEL_TOPIC, d);
    nerve::exec::trigger_remote_estop(Some(d), "test").unwrap();
    let _estops = listener::<nerve::exec::EStopMsg>(nerve::exec::ESTOP_TOPIC, d);
    let _view = Topic::<Msgpack<u32>>::builder(ZENOH_VIEW_TOPIC)
        .domain(d)
        .latest_only()
        .open()
        .unwrap();
    // A running scheduler's node record (it goes when the scheduler stops).
    let sched = std::thread::spawn(move || {
        let mut s = Scheduler::builder()
            .domain(d)
            .print_stats(false)
            .handle_signals(false)
            .node(Idle)
            .rate(100.0)
            .done()
            .build()
            .unwrap();
        s.run_for(Duration::from_secs(2)).unwrap();
    });
    let end = std::time::Instant::now() + Duration::from_secs(10);
    let kinds: BTreeMap<String, TopicKind> = loop {
        let kinds: BTreeMap<String, TopicKind> = nerve::registry::list(d)
            .iter()
            .map(|t| (t.name.clone(), TopicKind::of_info(t)))
            .collect();
        if kinds.contains_key("nerve/node/idle") || std::time::Instant::now() > end {
            break kinds;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    sched.join().unwrap();
    let users: Vec<&str> = kinds
        .iter()
        .filter(|(_, k)| **k == TopicKind::User)
        .map(|(n, _)| n.as_str())
        .collect();
    // The action's events are its users' to watch (goal, feedback and result as they happen).
    assert_eq!(users, ["fib/events", "robot/cmd"], "{kinds:#?}");
    let kind = |name: &str| kinds.get(name).copied();
    assert_eq!(kind("arm/plan/request"), Some(TopicKind::ServiceFrame));
    assert_eq!(kind("arm/plan/server"), Some(TopicKind::ServerRecord));
    assert_eq!(kind("arm/plan/type"), Some(TopicKind::Interface));
    assert_eq!(kind("fib/type"), Some(TopicKind::Interface));
    assert_eq!(kind("nerve/log"), Some(TopicKind::Log));
    assert_eq!(kind("nerve/log_level"), Some(TopicKind::LogLevel));
    assert_eq!(kind("nerve/estop"), Some(TopicKind::EStop));
    assert_eq!(kind("nerve/node/idle"), Some(TopicKind::NodeRecord));
    assert_eq!(kind(ZENOH_VIEW_TOPIC), Some(TopicKind::BridgeView));
    assert!(kinds
        .iter()
        .any(|(n, k)| n.starts_with("arm/plan/response/") && *k == TopicKind::ServiceFrame));
    // What tools show of nerve's own: the robot's story, not the machinery.
    let shown: Vec<&str> = kinds
        .iter()
        .filter(|(_, k)| k.is_nerve() && !k.is_plumbing())
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(shown, ["nerve/estop", "nerve/log", "nerve/log_level"]);
}

#[test]
fn a_users_topic_under_a_plumbing_like_name_stays_a_users() {
    // Only the type decides where the type can: a user's `x/server` or `x/request` of a
    // user's type is the user's (the old name rules hid them from recordings).
    for name in [
        "arm/server",
        "arm/request",
        "arm/response/7",
        "nodes/nerve/x",
    ] {
        assert_eq!(
            TopicKind::of(name, "nerve/CmdVel"),
            TopicKind::User,
            "{name}"
        );
    }
    assert_eq!(
        TopicKind::of("arm/type", "nerve/Msgpack"),
        TopicKind::Interface
    );
    assert_eq!(
        TopicKind::of("nerve/anything", "nerve/CmdVel"),
        TopicKind::Reserved
    );
}
