//! The C ABI as C programs use it: each program in `tests/c/` is compiled with the system's C
//! compiler against the static library and run, plain and under AddressSanitizer and
//! UndefinedBehaviorSanitizer, in a domain of its own.

mod support;

use std::process::Command;

use support::{build_c, run_c, run_c_in};

#[test]
fn fixed_messages_from_c() {
    run_c("fixed", false);
}

#[test]
fn fixed_messages_from_c_under_sanitizers() {
    run_c("fixed", true);
}

#[test]
fn misuse_from_c_is_an_error_not_undefined_behaviour() {
    run_c("misuse", true);
}

#[test]
fn chunked_messages_from_c_in_place() {
    run_c("chunked", false);
}

#[test]
fn chunked_messages_from_c_under_sanitizers() {
    run_c("chunked", true);
}

#[test]
fn the_cpp_wrapper() {
    run_c("wrapper.cpp", false);
}

#[test]
fn the_cpp_wrapper_under_sanitizers() {
    run_c("wrapper.cpp", true);
}

/// The C program's services, and a Rust server (`test_c/upper`) it calls.
fn services(sanitize: bool) {
    let (domain, _guard) = nerve_testing::domain();
    let config = nerve::rpc::Service::<(), ()>::builder("test_c/upper")
        .domain(domain)
        .build()
        .config()
        .clone();
    let _upper = nerve::rpc::Server::start(
        config,
        1,
        std::sync::Arc::new(|req: &[u8]| Ok(req.to_ascii_uppercase())),
    )
    .expect("the Rust server");
    run_c_in("service", sanitize, domain);
}

#[test]
fn services_from_c_and_across_languages() {
    services(false);
}

#[test]
fn services_from_c_under_sanitizers() {
    services(true);
}

/// A C node killed with `kill -9` while it holds samples: the publisher (Rust) goes on, its
/// chunks come back, nothing blocks.
#[test]
fn a_c_node_killed_holding_samples_blocks_nothing() {
    use nerve::raw::{RawTopic, StoredType};
    use std::io::BufRead;
    let (domain, _guard) = nerve_testing::domain();
    let topic = RawTopic::builder(
        "test_c/held",
        StoredType {
            name: "test_c/Blob".into(),
            kind: 2,
            size: 8,
            align: 8,
            elem_size: 1,
            layout_hash: 0xb10b_0000_0000_0008,
        },
    )
    .domain(domain)
    .depth(4)
    .max_message_bytes(1 << 20)
    .open()
    .expect("the topic, as the C node opens it");
    let publisher = topic.publisher().expect("a publisher");
    let (exe, _) = build_c("holder", false);
    let mut child = Command::new(&exe)
        .env("NERVE_DOMAIN", domain.to_string())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the C node");
    let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut expect = |word: &str| {
        let line = lines.next().and_then(Result::ok);
        assert_eq!(line.as_deref(), Some(word), "the C node said");
    };
    expect("subscribed");
    let send = |i: u64| {
        let mut loan = publisher.loan(8, 4096).expect("a chunk");
        loan.header_mut().copy_from_slice(&i.to_le_bytes());
        loan.send()
    };
    // The pool has 16 chunks (depth 4); the node takes 12 and keeps them.
    // One at a time (a burst would lap the node in a ring of 4 before it takes each one).
    for i in 0..12 {
        send(i).expect("sent");
        expect("got");
    }
    expect("holding");
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGKILL) }, 0);
    let _ = child.wait();
    let _ = std::fs::remove_file(&exe);
    // Far more messages than the pool has chunks: the dead node's twelve come back (alive, it
    // would leave the publisher four, which the ring's own four hold: PoolExhausted).
    let t = std::time::Instant::now();
    for i in 0..1000 {
        send(i).unwrap_or_else(|e| panic!("message {i} after the kill: {e}"));
    }
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "the publisher was held up"
    );
}

#[test]
fn parameters_watch_and_estop_from_c() {
    run_c("node", false);
}

#[test]
fn parameters_watch_and_estop_from_c_under_sanitizers() {
    run_c("node", true);
}

/// A C driver tuned live from another process (as `nerve param set` does) and stopped by an
/// e-stop another process triggers.
#[test]
fn a_c_driver_is_tuned_and_stopped_from_another_process() {
    use nerve::rpc::{ParamClient, ParamError, ParamValue};
    let (domain, _guard) = nerve_testing::domain();
    let mut driver = support::Peer::start("node", &["serve"], domain);
    driver.expect("ready");
    let params = ParamClient::with_domain("c_driver", domain).expect("a parameter client");
    let wait = std::time::Duration::from_secs(5);
    assert_eq!(
        params.get("max_speed", wait).expect("max_speed"),
        ParamValue::Float(1.5)
    );
    params
        .set("max_speed", ParamValue::Float(2.5), wait)
        .expect("set");
    driver.expect("max_speed 2.5");
    let refused = params.set("max_speed", ParamValue::Float(9.0), wait);
    assert!(
        matches!(&refused, Err(ParamError::Remote { message }) if message.contains("out of range")),
        "{refused:?}"
    );
    nerve::exec::trigger_remote_estop(Some(domain), "bumper hit").expect("the e-stop");
    driver.expect("estop bumper hit");
    driver.finish();
}
