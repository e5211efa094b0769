//! Actions: success with feedback, reject, cancel, several goals, a dead server.

use std::time::Duration;

use nerve_rpc::{ActionClient, ActionError, ActionServer, GoalOutcome, GoalStatus};
use nerve_testing::domain;

type Counter = ActionServer<u32, u32, u64>;

/// Counts to `n`, one step every 5 ms, with feedback; rejects n > 1000; honours cancel.
fn counter(domain: u32, name: &str) -> Counter {
    Counter::builder(name)
        .domain(domain)
        .serve(
            |n: &u32| {
                if *n > 1000 {
                    Err(format!("{n} is more than 1000 steps"))
                } else {
                    Ok(())
                }
            },
            |ctx, n| {
                for i in 0..n {
                    if ctx.cancel_requested() {
                        return GoalOutcome::Canceled(Some(i as u64));
                    }
                    if n == 13 && i == 3 {
                        return GoalOutcome::Aborted("unlucky number".into());
                    }
                    ctx.feedback(i);
                    std::thread::sleep(Duration::from_millis(5));
                }
                GoalOutcome::Succeeded(n as u64 * 10)
            },
        )
        .unwrap()
}

fn client(domain: u32, name: &str) -> ActionClient<u32, u32, u64> {
    ActionClient::builder(name).domain(domain).open().unwrap()
}

#[test]
fn goal_succeeds_with_feedback_and_result() {
    let (d, _g) = domain();
    let _server = counter(d, "act/ok");
    let c = client(d, "act/ok");
    assert!(c.wait_for_server(Duration::from_secs(1)));
    let goal = c.send_goal(10, Duration::from_secs(1)).unwrap();
    let r = goal.wait(Duration::from_secs(5)).unwrap();
    assert_eq!(r.status, GoalStatus::Succeeded);
    assert_eq!(r.result, Some(100));
    assert_eq!(goal.status(), GoalStatus::Succeeded);
    // The result event comes after the feedback on the same topic.
    assert_eq!(goal.feedback(), (0..10).collect::<Vec<u32>>());
}

#[test]
fn server_rejects_a_goal_with_its_reason() {
    let (d, _g) = domain();
    let _server = counter(d, "act/reject");
    let c = client(d, "act/reject");
    let err = c.send_goal(5000, Duration::from_secs(1)).unwrap_err();
    match &err {
        ActionError::Rejected { action, reason } => {
            assert_eq!(action, "act/reject");
            assert!(reason.contains("5000 is more than 1000"), "{reason}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn cancel_stops_a_running_goal() {
    let (d, _g) = domain();
    let server = counter(d, "act/cancel");
    let c = client(d, "act/cancel");
    let goal = c.send_goal(1000, Duration::from_secs(1)).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(goal.status(), GoalStatus::Executing);
    let st = goal.cancel(Duration::from_secs(1)).unwrap();
    assert!(
        matches!(st, GoalStatus::Canceling | GoalStatus::Canceled),
        "{st:?}"
    );
    let r = goal.wait(Duration::from_secs(2)).unwrap();
    assert_eq!(r.status, GoalStatus::Canceled);
    let partial = r.result.unwrap();
    assert!(partial > 0 && partial < 1000, "{partial}");
    assert_eq!(server.status(goal.id()), Some(GoalStatus::Canceled));
    // Cancelling a finished goal reports its final status.
    assert_eq!(
        goal.cancel(Duration::from_secs(1)).unwrap(),
        GoalStatus::Canceled
    );
}

#[test]
fn client_waits_for_several_goals_including_an_aborted_one() {
    let (d, _g) = domain();
    let _server = counter(d, "act/many");
    let c = client(d, "act/many");
    let goals: Vec<_> = [3u32, 8, 13, 1]
        .into_iter()
        .map(|n| c.send_goal(n, Duration::from_secs(1)).unwrap())
        .collect();
    let results = c.wait_all(&goals, Duration::from_secs(5)).unwrap();
    let statuses: Vec<_> = results.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            GoalStatus::Succeeded,
            GoalStatus::Succeeded,
            GoalStatus::Aborted,
            GoalStatus::Succeeded
        ]
    );
    assert_eq!(results[0].result, Some(30));
    assert_eq!(results[2].message, "unlucky number");
    assert_eq!(results[3].result, Some(10));
}

#[test]
fn absent_action_server_is_a_clear_error() {
    let (d, _g) = domain();
    let c = client(d, "act/none");
    let err = c.send_goal(1, Duration::from_millis(300)).unwrap_err();
    assert!(
        matches!(
            err,
            ActionError::Call(nerve_rpc::CallError::NoServer { .. })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("act/none/goal"), "{err}");
}
