//! Services: pairing under load (threads and processes), dead and absent servers, dead clients,
//! late responses, handler errors, async calls.

use std::time::{Duration, Instant};

use nerve_rpc::{CallError, ServeError, Service};
use nerve_testing::domain;
use nerve_testing::process::{self, spawn_self};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Req {
    who: u64,
    seq: u64,
    sleep_ms: u64,
    payload: Vec<u8>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Resp {
    who: u64,
    seq: u64,
    sum: u64,
    len: usize,
}

fn answer(r: Req) -> Result<Resp, String> {
    if r.sleep_ms > 0 {
        std::thread::sleep(Duration::from_millis(r.sleep_ms));
    }
    if r.seq == u64::MAX {
        return Err(format!("refusing request {} of {}", r.seq, r.who));
    }
    Ok(Resp {
        who: r.who,
        seq: r.seq,
        sum: r.payload.iter().map(|&b| b as u64).sum(),
        len: r.payload.len(),
    })
}

fn request(who: u64, seq: u64, sleep_ms: u64) -> Req {
    let len = 16 + (who.wrapping_mul(31).wrapping_add(seq.wrapping_mul(7)) % 700) as usize;
    Req {
        who,
        seq,
        sleep_ms,
        payload: (0..len).map(|i| (i as u64 ^ who ^ seq) as u8).collect(),
    }
}

fn check(req: &Req, resp: &Resp) {
    assert_eq!((resp.who, resp.seq), (req.who, req.seq), "cross-talk");
    assert_eq!(resp.len, req.payload.len());
    assert_eq!(resp.sum, req.payload.iter().map(|&b| b as u64).sum::<u64>());
}

fn echo(domain: u32) -> Service<Req, Resp> {
    Service::<Req, Resp>::builder("test/echo")
        .domain(domain)
        .build()
}

/// Child process entry: `server` serves echo until killed; `client:<who>:<n>` makes n checked
/// calls; `slow-client` makes one call that takes long (it is killed meanwhile).
#[test]
fn child_process() {
    let Some(role) = process::role() else {
        return;
    };
    let domain = nerve_transport::default_domain();
    let svc = echo(domain);
    let parts: Vec<&str> = role.split(':').collect();
    match parts[0] {
        "server" => {
            let _server = svc.server().workers(2).serve(answer).unwrap();
            println!("ready");
            // Exit with the test process that started us, even if it could not kill us.
            // SAFETY: getppid has no preconditions.
            while unsafe { libc::getppid() } != 1 {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        "client" => {
            let who: u64 = parts[1].parse().unwrap();
            let n: u64 = parts[2].parse().unwrap();
            let client = svc.client().unwrap();
            assert!(client.raw().wait_for_server(Duration::from_secs(5)));
            for seq in 0..n {
                let req = request(who, seq, 0);
                let resp = client.call(&req, Duration::from_secs(5)).unwrap();
                check(&req, &resp);
            }
            println!("done {n}");
        }
        "slow-client" => {
            let client = svc.client().unwrap();
            assert!(client.raw().wait_for_server(Duration::from_secs(5)));
            println!("calling");
            let _ = client.call(&request(99, 0, 500), Duration::from_secs(10));
            unreachable!("killed before the response");
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn eight_threads_with_own_clients_get_their_own_responses() {
    let (d, _g) = domain();
    let svc = echo(d);
    let server = svc.server().workers(4).serve(answer).unwrap();
    let threads: Vec<_> = (0..8)
        .map(|who| {
            let svc = svc.clone();
            std::thread::spawn(move || {
                let client = svc.client().unwrap();
                for seq in 0..300 {
                    let req = request(who, seq, 0);
                    let resp = client.call(&req, Duration::from_secs(5)).unwrap();
                    check(&req, &resp);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(server.stats().handled, 8 * 300);
}

#[test]
fn eight_threads_sharing_one_client_get_their_own_responses() {
    let (d, _g) = domain();
    let svc = echo(d);
    let _server = svc.server().workers(4).serve(answer).unwrap();
    let client = svc.client().unwrap();
    std::thread::scope(|s| {
        for who in 0..8 {
            let client = &client;
            s.spawn(move || {
                for seq in 0..200 {
                    let req = request(who, seq, (seq % 50 == 0) as u64);
                    let resp = client.call(&req, Duration::from_secs(5)).unwrap();
                    check(&req, &resp);
                }
            });
        }
    });
}

#[test]
fn two_client_processes_and_local_threads_under_load() {
    let (d, _g) = domain();
    let svc = echo(d);
    let server = svc.server().workers(4).serve(answer).unwrap();
    let children: Vec<_> = (0..2)
        .map(|i| spawn_self("child_process", &format!("client:{}:400", 100 + i), d, &[]))
        .collect();
    std::thread::scope(|s| {
        for who in 0..4 {
            let svc = svc.clone();
            s.spawn(move || {
                let client = svc.client().unwrap();
                for seq in 0..300 {
                    let req = request(who, seq, 0);
                    check(&req, &client.call(&req, Duration::from_secs(5)).unwrap());
                }
            });
        }
    });
    for c in children {
        let (status, out) = c.wait_with_output();
        assert!(status.success(), "client process failed: {status}: {out}");
        assert!(out.contains("done 400"));
    }
    assert_eq!(server.stats().handled, 2 * 400 + 4 * 300);
}

#[test]
fn absent_server_is_an_error_at_once() {
    let (d, _g) = domain();
    let client = echo(d).client().unwrap();
    let t = Instant::now();
    let err = client
        .call(&request(1, 1, 0), Duration::from_secs(5))
        .unwrap_err();
    assert!(matches!(err, CallError::NoServer { .. }), "{err}");
    assert!(t.elapsed() < Duration::from_millis(500));
    assert!(err.to_string().contains("test/echo"), "{err}");
}

#[test]
fn stopped_server_is_no_server_and_second_server_is_refused() {
    let (d, _g) = domain();
    let svc = echo(d);
    let server = svc.server().serve(answer).unwrap();
    let err = svc.server().serve(answer).unwrap_err();
    assert!(matches!(err, ServeError::AlreadyServed { .. }), "{err}");
    let client = svc.client().unwrap();
    let req = request(1, 1, 0);
    check(&req, &client.call(&req, Duration::from_secs(1)).unwrap());
    drop(server);
    let err = client.call(&req, Duration::from_secs(1)).unwrap_err();
    assert!(matches!(err, CallError::NoServer { .. }), "{err}");
    // A new server takes over.
    let _server = svc.server().serve(answer).unwrap();
    check(&req, &client.call(&req, Duration::from_secs(1)).unwrap());
}

#[test]
fn server_killed_mid_call_fails_the_call_within_its_timeout() {
    let (d, _g) = domain();
    let svc = echo(d);
    let mut child = spawn_self("child_process", "server", d, &[]);
    let client = svc.client().unwrap();
    assert!(client.raw().wait_for_server(Duration::from_secs(10)));
    let req = request(1, 1, 0);
    check(&req, &client.call(&req, Duration::from_secs(5)).unwrap());
    let pid = child.id() as i32;
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: plain kill(2) of our own child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        Instant::now()
    });
    let t = Instant::now();
    let err = client
        .call(&request(1, 2, 30_000), Duration::from_secs(10))
        .unwrap_err();
    let killed_at = killer.join().unwrap();
    assert!(matches!(err, CallError::ServerDied { .. }), "{err}");
    assert!(t.elapsed() < Duration::from_secs(10));
    // Within ~20 ms on an idle machine; generous for a loaded one.
    assert!(
        killed_at.elapsed() < Duration::from_secs(2),
        "noticed {:?} after the kill",
        killed_at.elapsed()
    );
    child.wait();
    // Afterwards: no server, at once.
    let err = client.call(&req, Duration::from_secs(2)).unwrap_err();
    assert!(matches!(err, CallError::NoServer { .. }), "{err}");
}

#[test]
fn client_killed_mid_call_does_not_disturb_the_server() {
    let (d, _g) = domain();
    let svc = echo(d);
    let server = svc.server().workers(2).serve(answer).unwrap();
    let mut child = spawn_self("child_process", "slow-client", d, &[]);
    // Wait until the child is about to call, give the request time to reach the server's
    // (500 ms) handler, then kill the caller mid-call.
    // (`wait_line` fails the test if the child exits before calling.)
    child.wait_line("calling");
    std::thread::sleep(Duration::from_millis(100));
    child.kill9();
    // Other clients are served meanwhile and afterwards.
    std::thread::scope(|s| {
        for who in 0..4 {
            let svc = svc.clone();
            s.spawn(move || {
                let client = svc.client().unwrap();
                for seq in 0..200 {
                    let req = request(who, seq, 0);
                    check(&req, &client.call(&req, Duration::from_secs(5)).unwrap());
                }
            });
        }
    });
    // The slow request finishes; its response has nowhere to go and is dropped, not blocked on.
    let t = Instant::now();
    while server.stats().undelivered == 0 && t.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let st = server.stats();
    assert_eq!(st.handled, 801, "{st:?}");
    assert_eq!(st.undelivered, 1, "{st:?}");
}

#[test]
fn timed_out_calls_never_receive_a_later_response() {
    let (d, _g) = domain();
    let svc = echo(d);
    let _server = svc.server().workers(2).serve(answer).unwrap();
    let client = svc.client().unwrap();
    let mut timeouts = 0;
    for seq in 0..40 {
        // Handler time straddles the timeout, so some responses arrive late.
        let req = request(7, seq, 5 + (seq % 4) * 5);
        match client.call(&req, Duration::from_millis(12)) {
            Ok(resp) => check(&req, &resp),
            Err(CallError::Timeout { .. }) => timeouts += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(timeouts > 0);
    // Afterwards, fast calls all get their own responses.
    for seq in 100..200 {
        let req = request(7, seq, 0);
        check(&req, &client.call(&req, Duration::from_secs(2)).unwrap());
    }
}

#[test]
fn handler_errors_and_panics_reach_the_caller() {
    let (d, _g) = domain();
    let svc = echo(d);
    let _server = svc
        .server()
        .serve(|r: Req| {
            if r.who == 666 {
                panic!("boom");
            }
            answer(r)
        })
        .unwrap();
    let client = svc.client().unwrap();
    let err = client
        .call(&request(1, u64::MAX, 0), Duration::from_secs(1))
        .unwrap_err();
    assert!(
        matches!(&err, CallError::Handler { message, .. } if message.contains("refusing")),
        "{err}"
    );
    let err = client
        .call(&request(666, 1, 0), Duration::from_secs(1))
        .unwrap_err();
    assert!(err.to_string().contains("panicked"), "{err}");
    // A mismatched request type is a clear error too.
    let other = Service::<String, Resp>::builder("test/echo")
        .domain(d)
        .build()
        .client()
        .unwrap();
    let err = other
        .call(&"hi".into(), Duration::from_secs(1))
        .unwrap_err();
    assert!(matches!(err, CallError::BadRequest { .. }), "{err}");
    // The server still works.
    let req = request(1, 1, 0);
    check(&req, &client.call(&req, Duration::from_secs(1)).unwrap());
}

#[test]
fn async_calls_run_concurrently() {
    let (d, _g) = domain();
    let svc = echo(d);
    // More workers than the response topic has endpoint records: a new client's first calls
    // are answered by workers racing to open its response publisher.
    let server = svc.server().workers(12).serve(answer).unwrap();
    let client = svc.client().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut tasks = Vec::new();
        for seq in 0..32 {
            let client = client.clone();
            tasks.push(tokio::spawn(async move {
                let req = request(3, seq, 20);
                let resp = client
                    .call_async(&req, Duration::from_secs(5))
                    .await
                    .unwrap();
                check(&req, &resp);
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
    let stats = server.stats();
    assert_eq!((stats.handled, stats.undelivered), (32, 0), "{stats:?}");
}

#[test]
fn a_dropped_client_removes_its_response_topic() {
    let (d, _g) = domain();
    let svc = echo(d);
    let _server = svc.server().serve(answer).unwrap();
    let client = svc.client().unwrap();
    let req = request(1, 1, 0);
    check(&req, &client.call(&req, Duration::from_secs(1)).unwrap());
    let count = || {
        std::fs::read_dir(nerve_transport::registry::domain_dir(d))
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().contains("%response%")
            })
            .count()
    };
    assert_eq!(count(), 1);
    drop(client);
    assert_eq!(count(), 0);
}

/// Panics raised outside this test file (in nerve's own code, e.g. an unwrap of a lock that a
/// handler's panic poisoned) since the hook was installed. The handlers' deliberate panics are
/// in this file and not counted.
fn foreign_panics() -> &'static std::sync::atomic::AtomicUsize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_none_or(|l| l.file() != file!()) {
                // Relaxed: a counter read after the calls it counts have returned.
                COUNT.fetch_add(1, Ordering::Relaxed);
            }
            previous(info);
        }));
    });
    &COUNT
}

#[test]
fn a_panicking_handler_fails_only_its_own_call_and_the_server_keeps_serving() {
    let foreign = foreign_panics();
    let before = foreign.load(std::sync::atomic::Ordering::Relaxed);
    let (d, _g) = domain();
    let svc = echo(d);
    let server = svc
        .server()
        .workers(2)
        .serve(|r: Req| {
            if r.who == 13 {
                panic!("request {} of {} makes the handler panic", r.seq, r.who);
            }
            answer(r)
        })
        .unwrap();
    let client = svc.client().unwrap();
    let other = svc.client().unwrap();
    let panicked = |err: &CallError| {
        matches!(err, CallError::Handler { service, message }
            if service == "test/echo" && message.contains("the handler panicked"))
    };
    let err = client
        .call(&request(13, 1, 0), Duration::from_secs(2))
        .unwrap_err();
    assert!(panicked(&err), "{err}");
    // Later calls: the same client shared by threads, another client, and a second panicking
    // request among them, which fails alone.
    std::thread::scope(|s| {
        for who in 0..4 {
            let c = if who % 2 == 0 { &client } else { &other };
            s.spawn(move || {
                for seq in 0..100 {
                    let req = request(who, seq, 0);
                    check(&req, &c.call(&req, Duration::from_secs(5)).unwrap());
                }
            });
        }
        let err = other
            .call(&request(13, 2, 0), Duration::from_secs(5))
            .unwrap_err();
        assert!(panicked(&err), "{err}");
    });
    let req = request(1, 1000, 0);
    check(&req, &client.call(&req, Duration::from_secs(2)).unwrap());
    let st = server.stats();
    assert_eq!((st.handled, st.failed), (403, 2), "{st:?}");
    assert_eq!(
        foreign.load(std::sync::atomic::Ordering::Relaxed),
        before,
        "something other than the handler panicked"
    );
}
