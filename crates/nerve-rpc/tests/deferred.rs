//! Deferred servers: the handler returns at once and answers later, from another thread,
//! through a `Responder` (what a bridge forwarding calls to another host does).

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve_rpc::{CallError, RawClient, Responder, Server, Service, ServiceConfig};
use nerve_testing::domain;

fn config(domain: u32) -> ServiceConfig {
    Service::<(), ()>::builder("test/deferred")
        .domain(domain)
        .build()
        .config()
        .clone()
}

type Job = (Vec<u8>, Responder);

/// Answers each request (its bytes reversed) from one of `threads` answering threads, after
/// `delay`.
fn answering_pool(
    threads: usize,
    delay: Duration,
) -> (mpsc::Sender<Job>, Vec<std::thread::JoinHandle<()>>) {
    let (tx, rx) = mpsc::channel::<Job>();
    let rx = Arc::new(Mutex::new(rx));
    let handles = (0..threads)
        .map(|_| {
            let rx = rx.clone();
            std::thread::spawn(move || loop {
                let job = rx.lock().unwrap().recv();
                let Ok((mut req, responder)) = job else {
                    return;
                };
                std::thread::sleep(delay);
                req.reverse();
                responder.respond(Ok(req));
            })
        })
        .collect();
    (tx, handles)
}

#[test]
fn answers_from_other_threads_reach_their_own_callers_with_many_calls_in_flight() {
    let (d, _g) = domain();
    let (tx, pool) = answering_pool(8, Duration::from_millis(2));
    // Calls waiting for their answer now, and the most at once.
    let (waiting, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let server = {
        let (tx, most, waiting) = (Mutex::new(tx), most.clone(), waiting.clone());
        Server::start_deferred(
            config(d),
            Arc::new(move |req: &[u8], responder: Responder| {
                let now = waiting.fetch_add(1, SeqCst) + 1;
                most.fetch_max(now, SeqCst);
                tx.lock().unwrap().send((req.to_vec(), responder)).unwrap();
            }),
        )
        .unwrap()
    };
    let callers: Vec<_> = (0..8u8)
        .map(|who| {
            let (d, waiting) = (d, waiting.clone());
            std::thread::spawn(move || {
                let client = RawClient::open(config(d)).unwrap();
                for seq in 0..50u8 {
                    let req: Vec<u8> = (0..(16 + seq as usize))
                        .map(|i| who ^ seq ^ i as u8)
                        .collect();
                    let resp = client.call_bytes(&req, Duration::from_secs(5)).unwrap();
                    waiting.fetch_sub(1, SeqCst);
                    let mut want = req.clone();
                    want.reverse();
                    assert_eq!(resp, want, "caller {who} call {seq}: another call's answer");
                }
            })
        })
        .collect();
    for c in callers {
        c.join().unwrap();
    }
    assert_eq!(server.stats().handled, 8 * 50);
    assert!(
        most.load(SeqCst) >= 4,
        "calls waited one behind another ({} in flight at most): the receiving thread was held",
        most.load(SeqCst)
    );
    drop(server); // and with it the handler's sender: the answering threads end
    for t in pool {
        t.join().unwrap();
    }
}

#[test]
fn a_request_dropped_unanswered_or_a_panic_fails_its_call_at_once_not_at_its_timeout() {
    let (d, _g) = domain();
    let _server = Server::start_deferred(
        config(d),
        Arc::new(|req: &[u8], responder: Responder| match req {
            b"drop" => drop(responder),
            b"panic" => panic!("boom"),
            _ => responder.respond(Ok(b"fine".to_vec())),
        }),
    )
    .unwrap();
    let client = RawClient::open(config(d)).unwrap();
    for (req, says) in [
        (&b"drop"[..], "dropped the request unanswered"),
        (b"panic", "panicked"),
    ] {
        let t = Instant::now();
        let err = client.call_bytes(req, Duration::from_secs(5)).unwrap_err();
        assert!(
            matches!(&err, CallError::Handler { message, .. } if message.contains(says)
                && message.contains("test/deferred")),
            "{err}"
        );
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "waited for the timeout"
        );
    }
    // The server keeps serving.
    assert_eq!(
        client.call_bytes(b"ok", Duration::from_secs(5)).unwrap(),
        b"fine"
    );
}
