//! Discovery: the services and actions of a domain, with the types their servers announced,
//! found from the topics alone; a stopped server shows as down.

use nerve_rpc::discovery::{self, Interface};
use nerve_rpc::{ActionServer, GoalOutcome, ParamDescriptor, Parameters, Service};
use nerve_testing::domain;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Plan {
    goal: [f64; 2],
    speed: f32,
}

fn field_names(i: &Interface, role: &str) -> String {
    let doc = i.part(role).unwrap().description().unwrap();
    format!("{:?}", doc.registry)
}

#[test]
fn services_and_actions_are_found_with_their_types() {
    let (d, _g) = domain();
    let plan = Service::<Plan, Vec<[f64; 2]>>::builder("arm/plan")
        .domain(d)
        .build();
    let server = plan
        .server()
        .workers(2)
        .serve(|p: Plan| Ok(vec![p.goal]))
        .unwrap();
    let _action = ActionServer::<u32, u32, u64>::builder("fib")
        .domain(d)
        .serve(|_| Ok(()), |_, n| GoalOutcome::Succeeded(u64::from(n)))
        .unwrap();
    let params = Parameters::with_domain("camera", d);
    params.declare(ParamDescriptor::new("fps", 30)).unwrap();
    let _served = params.serve().unwrap();

    let services = discovery::services(d);
    let names: Vec<&str> = services.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "arm/plan",
            "camera/param/get",
            "camera/param/list",
            "camera/param/set",
            "fib/cancel",
            "fib/goal",
            "fib/status"
        ]
    );
    let me = std::process::id();
    let arm = &services[0];
    assert_eq!((arm.server.map(|p| p.pid), arm.workers), (Some(me), 2));
    assert_eq!(arm.action, None);
    let i = arm.interface.as_ref().expect("types announced");
    assert_eq!(i.kind, "service");
    assert_eq!(i.part("request").unwrap().type_name, "Plan");
    assert_eq!(i.part("response").unwrap().type_name, "Vec<[f64; 2]>");
    assert_eq!(
        discovery::short_type_name("core::result::Result<(), alloc::string::String>"),
        "Result<(), String>"
    );
    let fields = field_names(i, "request");
    assert!(
        fields.contains("goal") && fields.contains("speed"),
        "{fields}"
    );
    assert_eq!(services[5].action.as_deref(), Some("fib"));

    let actions = discovery::actions(d);
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].name, "fib");
    assert_eq!(actions[0].server.map(|p| p.pid), Some(me));
    let i = actions[0].interface.as_ref().unwrap();
    let roles: Vec<(&str, &str)> = i
        .parts
        .iter()
        .map(|p| (p.role.as_str(), p.type_name.as_str()))
        .collect();
    assert_eq!(
        roles,
        [("goal", "u32"), ("feedback", "u32"), ("result", "u64")]
    );

    drop(server);
    let after = discovery::services(d);
    let arm = after.iter().find(|s| s.name == "arm/plan");
    assert!(
        arm.is_none_or(|a| a.server.is_none()),
        "a stopped server is down: {arm:?}"
    );
}

#[test]
fn a_leading_slash_names_the_same_service_action_and_node() {
    let (d, _g) = domain();
    let add = Service::<(i64, i64), i64>::builder("/math/add")
        .domain(d)
        .build();
    let _server = add.server().serve(|(a, b)| Ok(a + b)).unwrap();
    let client = Service::<(i64, i64), i64>::builder("math/add")
        .domain(d)
        .build()
        .client()
        .unwrap();
    let t = std::time::Duration::from_secs(2);
    assert_eq!(client.call(&(2, 3), t).unwrap(), 5);
    let _fib = ActionServer::<u32, u32, u64>::builder("/fib")
        .domain(d)
        .serve(|_| Ok(()), |_, n| GoalOutcome::Succeeded(u64::from(n)))
        .unwrap();
    let names: Vec<String> = discovery::actions(d).into_iter().map(|a| a.name).collect();
    assert_eq!(names, ["fib"]);
    let params = Parameters::with_domain("/camera", d);
    params.declare(ParamDescriptor::new("fps", 30)).unwrap();
    let _served = params.serve().unwrap();
    let remote = nerve_rpc::ParamClient::with_domain("camera", d).unwrap();
    assert_eq!(remote.get("fps", t).unwrap().as_int(), Some(30));
}
