//! The robot the CLI tests run as a child process: node `controller`'s parameters (`gain`
//! 1.5 in 0..10, `mode` "auto"), a service `arm/plan` and an action `fib` (Fibonacci, at most
//! 90), as a user's program would serve them.

use nerve::rpc::{ActionServer, GoalOutcome, ParamDescriptor, Parameters, Service};
use serde::{Deserialize, Serialize};

/// `arm/plan`'s request.
#[derive(Serialize, Deserialize)]
pub struct Plan {
    pub goal: [f64; 2],
    pub speed: f32,
}

/// Serves the robot's parameters, service and action until the returned guards drop.
pub fn serve() -> Vec<Box<dyn std::any::Any>> {
    let params = Parameters::new("controller");
    params
        .declare(
            ParamDescriptor::new("gain", 1.5)
                .float_range(0.0, 10.0)
                .description("proportional gain"),
        )
        .unwrap();
    params
        .declare(ParamDescriptor::new("mode", "auto"))
        .unwrap();
    let plan = Service::<Plan, Vec<[f64; 2]>>::builder("arm/plan").build();
    let fib = ActionServer::<u32, u32, u64>::builder("fib")
        .serve(
            |n: &u32| {
                if *n > 90 {
                    Err(format!("n = {n}: at most 90"))
                } else {
                    Ok(())
                }
            },
            |ctx, n| {
                let (mut a, mut b) = (0u64, 1u64);
                for i in 0..n {
                    (a, b) = (b, a + b);
                    ctx.feedback(i);
                }
                GoalOutcome::Succeeded(a)
            },
        )
        .unwrap();
    vec![
        Box::new(params.serve().unwrap()),
        Box::new(
            plan.server()
                .serve(|p: Plan| Ok(vec![[0.0, 0.0], p.goal]))
                .unwrap(),
        ),
        Box::new(fib),
    ]
}
