//! request_response: a path planner served over shared memory, with a client that gets a clear
//! error instead of hanging when the server is missing or slow.
//!
//! ```sh
//! cargo run -p nerve-examples --bin request_response
//! ```
use std::time::Duration;

use nerve::rpc::{CallError, Service};
use serde::{Deserialize, Serialize};

/// The request: where to go.
#[derive(Serialize, Deserialize)]
struct PlanRequest {
    start: [f64; 2],
    goal: [f64; 2],
    steps: usize,
}

/// The response: waypoints from start to goal.
#[derive(Serialize, Deserialize, Debug)]
struct Path {
    waypoints: Vec<[f64; 2]>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let planner = Service::<PlanRequest, Path>::builder("planner/plan").build();
    let client = planner.client()?;
    let request = PlanRequest {
        start: [0.0, 0.0],
        goal: [2.0, 1.0],
        steps: 4,
    };

    // No server yet: the call fails at once with NoServer, it does not wait out its timeout.
    match client.call(&request, Duration::from_millis(200)) {
        Err(CallError::NoServer { .. }) => println!("no server yet: NoServer, as expected"),
        other => panic!("expected NoServer, got {other:?}"),
    }

    // The server: a handler on worker threads; an Err answers the caller with that message.
    let _server = planner.server().workers(2).serve(|req: PlanRequest| {
        if req.steps == 0 {
            return Err("steps must be at least 1".into());
        }
        let waypoints = (0..=req.steps)
            .map(|i| {
                let t = i as f64 / req.steps as f64;
                [
                    req.start[0] + t * (req.goal[0] - req.start[0]),
                    req.start[1] + t * (req.goal[1] - req.start[1]),
                ]
            })
            .collect();
        Ok(Path { waypoints })
    })?;

    let path = client.call(&request, Duration::from_secs(1))?;
    println!("path: {:?}", path.waypoints);
    assert_eq!(path.waypoints.len(), 5);
    assert_eq!(path.waypoints[4], [2.0, 1.0]);

    let bad = PlanRequest {
        steps: 0,
        ..request
    };
    match client.call(&bad, Duration::from_secs(1)) {
        Err(e @ CallError::Handler { .. }) => println!("rejected: {e}"),
        other => panic!("expected the handler's error, got {other:?}"),
    }
    println!("ok: NoServer, a planned path and a handler error, each as expected");
    Ok(())
}
