//! Runs every example the way a user does (`cargo run --bin <scenario>`), each in a domain of
//! its own, and checks that it succeeded and said what it showed (its last line starts with
//! `ok:`; each example also asserts its own results).
use std::process::Command;

fn run(scenario: &str, exe: &str) {
    let (domain, _guard) = nerve_testing::domain();
    let out = Command::new(exe)
        .env("NERVE_DOMAIN", domain.to_string())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {scenario}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{scenario} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("ok: "),
        "{scenario} ended with {last:?}:\n{stdout}"
    );
}

#[test]
fn publish_subscribe() {
    run("publish_subscribe", env!("CARGO_BIN_EXE_publish_subscribe"));
}

#[test]
fn image_pipeline() {
    run("image_pipeline", env!("CARGO_BIN_EXE_image_pipeline"));
}

#[test]
fn request_response() {
    run("request_response", env!("CARGO_BIN_EXE_request_response"));
}

#[test]
fn realtime_control() {
    run("realtime_control", env!("CARGO_BIN_EXE_realtime_control"));
}

#[test]
fn async_nodes() {
    run("async_nodes", env!("CARGO_BIN_EXE_async_nodes"));
}
