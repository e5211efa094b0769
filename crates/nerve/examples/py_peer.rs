//! A Rust peer for the Python tests: `py_peer echo IN OUT N` receives N CmdVel on IN and
//! re-publishes each (stamp + 1000) on OUT; `py_peer publish OUT N` publishes N CmdVel after
//! waiting for a subscriber; `py_peer serve SERVICE` serves `Plan -> Path` (serde structs,
//! MessagePack with named fields) until killed; `py_peer call SERVICE N` calls a `Plan -> Path`
//! service N times and prints each path's tag. Domain from `$NERVE_DOMAIN`.
use std::time::{Duration, Instant};

use nerve::prelude::*;

fn wait_for_subscriber(topic: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let list = nerve::registry::list(nerve::default_domain());
        if list.iter().any(|t| t.name == topic && t.subscribers() > 0) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no subscriber on {topic}");
}

#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Plan {
    goal: [f64; 2],
    tag: String,
}

#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Path {
    points: Vec<[f64; 2]>,
    tag: String,
}

fn plan_service(name: &str) -> nerve::rpc::Service<Plan, Path> {
    nerve::rpc::Service::builder(name).build()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("echo") => {
            let (input, output, n): (&str, &str, u64) = (&args[2], &args[3], args[4].parse()?);
            let t_in = Topic::<CmdVel>::open(input)?;
            let mut sub = t_in.subscriber()?;
            let t_out = Topic::<CmdVel>::open(output)?;
            let publisher = t_out.publisher()?;
            println!("ready");
            for _ in 0..n {
                let m = sub.recv_deadline(Duration::from_secs(10))?;
                publisher.send(&CmdVel {
                    stamp_ns: m.stamp_ns + 1000,
                    ..m
                })?;
            }
        }
        Some("publish") => {
            let (output, n): (&str, u64) = (&args[2], args[3].parse()?);
            let t = Topic::<CmdVel>::builder(output).depth(64).open()?;
            let publisher = t.publisher()?;
            wait_for_subscriber(output);
            for i in 0..n {
                publisher.send(&CmdVel {
                    stamp_ns: i,
                    linear: i as f32 * 0.5,
                    angular: -1.0,
                })?;
            }
        }
        Some("serve") => {
            let _server = plan_service(&args[2])
                .server()
                .workers(2)
                .serve(|p: Plan| {
                    if p.tag == "fail" {
                        return Err("refusing to plan".into());
                    }
                    Ok(Path {
                        points: vec![[0.0, 0.0], p.goal],
                        tag: format!("rust:{}", p.tag),
                    })
                })?;
            println!("ready");
            std::thread::sleep(Duration::from_secs(60));
        }
        Some("call") => {
            let (name, n): (&str, u64) = (&args[2], args[3].parse()?);
            let client = plan_service(name).client()?;
            if !client.raw().wait_for_server(Duration::from_secs(10)) {
                return Err(format!("no server for {name}").into());
            }
            for i in 0..n {
                let path = client.call(
                    &Plan {
                        goal: [i as f64, 1.0],
                        tag: format!("{i}"),
                    },
                    Duration::from_secs(2),
                )?;
                assert_eq!(path.points.last(), Some(&[i as f64, 1.0]), "{path:?}");
                println!("{}", path.tag);
            }
        }
        _ => {
            return Err(
                "usage: py_peer echo IN OUT N | publish OUT N | serve SERVICE | call SERVICE N"
                    .into(),
            )
        }
    }
    Ok(())
}
