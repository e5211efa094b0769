//! `nerve view`'s server as the page uses it, over plain HTTP: the page itself, a snapshot
//! with a topic's measured rate and delay, the log's tail (a record that is no log record
//! counted, not shown), the server-sent events, and the e-stop button's request reaching
//! `nerve/estop`. The page in a real browser is `bindings/python/tests/test_view_page.py`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nerve::exec::{EStopMsg, ESTOP_TOPIC};
use nerve::log::{Level, Logger};
use nerve::msgs::CmdVel;
use nerve::Topic;
use serde_json::Value;

const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

struct View {
    child: Child,
    port: u16,
}

impl View {
    fn start(domain: u32) -> View {
        let mut child = Command::new(NERVE)
            .args(["view", "--port", "0"])
            .env("NERVE_DOMAIN", domain.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nerve view");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        View { child, port }
    }

    /// One request as the page makes it (its own address as `Host`; the run's token on what
    /// changes something); the status line and the body.
    fn request(&self, method: &str, path: &str) -> (String, String) {
        let host = format!("127.0.0.1:{}", self.port);
        let mut headers = vec![("Host", host)];
        if method != "GET" {
            headers.push(("X-Nerve-Token", self.token()));
        }
        self.raw(method, path, &headers)
    }

    /// The token in the page this view serves.
    fn token(&self) -> String {
        let host = format!("127.0.0.1:{}", self.port);
        let (_, page) = self.raw("GET", "/", &[("Host", host)]);
        let tag = "name=\"nerve-token\" content=\"";
        let at = page.find(tag).expect("the token's meta tag") + tag.len();
        page[at..at + 32].to_owned()
    }

    /// One request with exactly these headers.
    fn raw(&self, method: &str, path: &str, headers: &[(&str, String)]) -> (String, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("Content-Length: 0\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
        (
            head.lines().next().unwrap_or("").to_owned(),
            body.to_owned(),
        )
    }

    fn state(&self) -> Value {
        let (status, body) = self.request("GET", "/api/state");
        assert!(status.contains("200"), "{status}");
        serde_json::from_str(&body).unwrap()
    }

    /// Snapshots until `f` holds on one (10 s).
    fn until(&self, what: &str, f: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let s = self.state();
            if f(&s) {
                return s;
            }
            assert!(Instant::now() < deadline, "no {what} in {s:#}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let _ = self.child.wait();
    }
}

#[test]
fn snapshots_measure_topics_tail_the_log_and_the_button_trips_the_estop() {
    let (domain, _guard) = nerve_testing::domain();
    let view = View::start(domain);
    let (status, page) = view.request("GET", "/");
    assert!(
        status.contains("200") && page.contains("id=\"estop-button\""),
        "{status}"
    );

    // A topic at 200 Hz, stamped: its rate and delay.
    let topic = Topic::<CmdVel>::builder("v/cmd")
        .domain(domain)
        .open()
        .unwrap();
    let publisher = topic.publisher().unwrap();
    let logger = Logger::with_domain("v_node", domain);
    logger.log(
        Level::Warn,
        "view.rs",
        3,
        "wheel slip",
        vec![("wheel".into(), "2".into())],
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    let sender = std::thread::spawn(move || {
        // Relaxed: a stop flag; the join orders the rest.
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            let cmd = CmdVel {
                stamp_ns: nerve::time::now_ns(),
                linear: 1.0,
                angular: 0.0,
            };
            publisher.send(&cmd).unwrap();
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    let s = view.until("a rate for v/cmd", |s| {
        s["topics"].as_array().is_some_and(|ts| {
            ts.iter()
                .any(|t| t["name"] == "v/cmd" && t["rate_hz"].as_f64().unwrap_or(0.0) > 100.0)
        })
    });
    let t = s["topics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "v/cmd")
        .unwrap();
    assert!(t["rate_hz"].as_f64().unwrap() < 260.0, "{t}");
    assert!(t["bandwidth_bps"].as_f64().unwrap() > 1000.0, "{t}");
    let delay = t["delay_p50_ms"].as_f64().expect("a delay");
    assert!(delay > 0.0 && delay < 50.0, "{t}");
    assert_eq!(t["publishers"].as_array().unwrap().len(), 1, "{t}");

    // The log's tail; something on the log topic that is no log record is counted.
    let raw = nerve::raw::RawTopic::join(nerve::log::LOG_TOPIC, domain).unwrap();
    raw.publisher().unwrap().send_serialized(&[0x07]).unwrap();
    let s = view.until("the log record and the bad one", |s| {
        s["bad_log_records"] == 1
            && s["log"].as_array().unwrap().iter().any(|r| {
                r["node"] == "v_node"
                    && r["message"] == "wheel slip wheel=2"
                    && r["level"] == "WARN"
            })
    });
    assert_eq!(s["log"][0]["where"], "view.rs:3", "{s:#}");

    // Server-sent events: a snapshot arrives as an event.
    let mut sse = TcpStream::connect(("127.0.0.1", view.port)).unwrap();
    sse.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        sse,
        "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        view.port
    )
    .unwrap();
    let mut events = BufReader::new(sse);
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !line.starts_with("data: {") {
        assert!(Instant::now() < deadline, "no event");
        line.clear();
        events.read_line(&mut line).unwrap();
    }
    let event: Value = serde_json::from_str(line.trim_start_matches("data: ")).unwrap();
    assert_eq!(event["domain"], domain);

    // The button's request: every scheduler obeying nerve/estop hears it.
    let estop = Topic::<EStopMsg>::builder(ESTOP_TOPIC)
        .depth(16)
        .domain(domain)
        .open()
        .unwrap();
    let mut listener = estop.subscriber().unwrap();
    let (status, body) = view.request("POST", "/api/estop");
    assert!(
        status.contains("200") && body.contains("\"tripped\":true"),
        "{status} {body}"
    );
    let m = listener
        .recv_timeout(Duration::from_secs(5))
        .unwrap()
        .expect("an e-stop message");
    assert_eq!(m.reason(), "e-stop button (nerve view)");
    let s = view.until("the trip", |s| !s["estop"].is_null());
    assert_eq!(s["estop"]["reason"], "e-stop button (nerve view)");

    // Relaxed: see the sender.
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    sender.join().unwrap();
}

/// A request (method, path, headers) and the status it must get.
type Case<'a> = (&'a str, &'a str, Vec<(&'a str, String)>, &'a str);

/// What a stranger's page could send, refused: a cross-site "simple" POST (`text/plain`, a
/// foreign `Origin`, no token), a POST with a wrong token, a DNS-rebinding page's requests
/// (`Host: evil.example`), a foreign `Origin` on a read; none trips the e-stop. And a
/// connection that trickles its headers is closed after `HEADER_TIMEOUT`.
#[test]
fn strangers_cannot_trip_the_estop_or_read_the_robot() {
    let (domain, _g) = nerve_testing::domain();
    let view = View::start(domain);
    let estop = Topic::<EStopMsg>::builder(ESTOP_TOPIC)
        .depth(16)
        .domain(domain)
        .open()
        .unwrap();
    let mut listener = estop.subscriber().unwrap();
    let me = format!("127.0.0.1:{}", view.port);
    let evil = format!("evil.example:{}", view.port);
    let cases: [Case; 6] = [
        (
            "POST",
            "/api/estop",
            vec![
                ("Host", me.clone()),
                ("Origin", "http://evil.example".into()),
                ("Content-Type", "text/plain".into()),
            ],
            "403",
        ),
        ("POST", "/api/estop", vec![("Host", me.clone())], "403"),
        (
            "POST",
            "/api/estop",
            vec![("Host", me.clone()), ("X-Nerve-Token", "0".repeat(32))],
            "403",
        ),
        (
            "POST",
            "/api/estop",
            vec![("Host", evil.clone()), ("X-Nerve-Token", view.token())],
            "421",
        ),
        ("GET", "/api/state", vec![("Host", evil.clone())], "421"),
        (
            "GET",
            "/api/state",
            vec![
                ("Host", me.clone()),
                ("Origin", "http://evil.example".into()),
            ],
            "403",
        ),
    ];
    for (method, path, headers, want) in &cases {
        let (status, body) = view.raw(method, path, headers);
        assert!(
            status.contains(want),
            "{method} {path} {headers:?}: {status} {body}"
        );
        assert!(body.contains("error"), "{body}");
    }
    assert!(
        listener
            .recv_timeout(Duration::from_millis(300))
            .unwrap()
            .is_none(),
        "no refused request may trip the e-stop"
    );
    // The page's own requests still work: same origin, its token.
    let (status, _) = view.raw(
        "GET",
        "/api/state",
        &[("Host", me.clone()), ("Origin", format!("http://{me}"))],
    );
    assert!(status.contains("200"), "{status}");

    // A client that never finishes its headers.
    let mut s = TcpStream::connect(("127.0.0.1", view.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    s.write_all(format!("GET /api/state HTTP/1.1\r\nHost: {me}\r\n").as_bytes())
        .unwrap();
    let t0 = Instant::now();
    let mut buf = [0u8; 256];
    let n = s.read(&mut buf).unwrap_or(0);
    let waited = t0.elapsed();
    assert!(
        waited >= Duration::from_secs(4) && waited < Duration::from_secs(10),
        "closed after {waited:?} ({n} bytes: {:?})",
        String::from_utf8_lossy(&buf[..n])
    );
}
