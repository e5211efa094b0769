//! A view followed by a Foxglove WebSocket client (tokio-tungstenite, subprotocol
//! `foxglove.sdk.v1`): a topic that appears is advertised, its messages arrive once
//! subscribed (CDR that decodes back to what was sent), and a topic that goes is
//! unadvertised. The full client (images, point clouds, services, parameters, the graph) is
//! `bindings/python/tests/test_foxglove.py`.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use nerve::msgs::CmdVel;
use nerve::Topic;
use nerve_foxglove::{FoxgloveView, ViewConfig};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(port: u16) -> Ws {
    let mut req = format!("ws://127.0.0.1:{port}")
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Sec-WebSocket-Protocol", "foxglove.sdk.v1".parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .expect("connects");
    ws
}

/// A view of `domain` on a free loopback port.
fn start(domain: u32) -> FoxgloveView {
    FoxgloveView::start(ViewConfig {
        domain,
        host: "127.0.0.1".into(),
        port: 0,
        ros2_schemas: false,
        allow_hosts: Vec::new(),
        allow_origins: Vec::new(),
    })
    .unwrap()
}

/// Reads until `f` returns something, or fails after 10 s naming `what`.
async fn until<T>(ws: &mut Ws, what: &str, mut f: impl FnMut(&Message) -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, ws.next()).await {
            Ok(Some(Ok(m))) => {
                if let Some(t) = f(&m) {
                    return t;
                }
            }
            Ok(other) => panic!("connection ended waiting for {what}: {other:?}"),
            Err(_) => break,
        }
    }
    panic!("no {what} within 10 s");
}

fn op(m: &Message, name: &str) -> Option<Value> {
    let Message::Text(t) = m else { return None };
    let v: Value = serde_json::from_str(t).ok()?;
    (v["op"] == name).then_some(v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topics_are_advertised_sent_and_unadvertised_as_they_come_and_go() {
    let (domain, _guard) = nerve_testing::domain();
    let view = start(domain);
    let mut ws = connect(view.port()).await;
    until(&mut ws, "serverInfo", |m| op(m, "serverInfo")).await;

    // A topic that appears after the client connected.
    let topic = Topic::<CmdVel>::builder("fv/cmd")
        .domain(domain)
        .open()
        .unwrap();
    let publisher = topic.publisher().unwrap();
    let channel = until(&mut ws, "advertise of fv/cmd", |m| {
        op(m, "advertise")?["channels"]
            .as_array()?
            .iter()
            .find(|c| c["topic"] == "fv/cmd")
            .cloned()
    })
    .await;
    assert_eq!(channel["encoding"], "cdr");
    assert_eq!(channel["schemaName"], "geometry_msgs/msg/Twist");
    let id = channel["id"].as_u64().unwrap();
    let subscribe = json!({"op": "subscribe", "subscriptions": [{"id": 5, "channelId": id}]});
    ws.send(Message::text(subscribe.to_string())).await.unwrap();

    // Sent until one arrives (the reader starts at the subscription).
    let cmd = CmdVel {
        stamp_ns: 7,
        linear: 0.5,
        angular: -0.25,
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let payload = loop {
        assert!(Instant::now() < deadline, "no message data within 10 s");
        publisher.send(&cmd).unwrap();
        let got = tokio::time::timeout(Duration::from_millis(100), ws.next()).await;
        if let Ok(Some(Ok(Message::Binary(b)))) = got {
            if b[0] == 1 {
                assert_eq!(u32::from_le_bytes(b[1..5].try_into().unwrap()), 5);
                break b[13..].to_vec();
            }
        }
    };
    let ros2 = nerve_ros2::Ros2Type::of("nerve/CmdVel").unwrap();
    let v = ros2.decode(&payload).unwrap();
    assert_eq!(v.path("linear.x").and_then(|v| v.as_f64()), Some(0.5));
    assert_eq!(v.path("angular.z").and_then(|v| v.as_f64()), Some(-0.25));
    // The view counts a message once it has handed it on, which may be just after the
    // client got it.
    let counted = Instant::now() + Duration::from_secs(2);
    while !view
        .topics()
        .iter()
        .any(|t| t.name == "fv/cmd" && t.sent > 0)
    {
        assert!(Instant::now() < counted, "{:?}", view.topics());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // The topic goes (the view keeps no topic alive): its channel is unadvertised.
    drop(publisher);
    drop(topic);
    let gone = until(&mut ws, "unadvertise", |m| op(m, "unadvertise")).await;
    assert_eq!(gone["channelIds"], json!([id]));
    assert!(view.topics().is_empty());
    view.stop();
}

/// The door in front of the Foxglove server: a client naming another host (a DNS-rebinding
/// page) gets `421` and a page of another origin `403`, neither reaching the server; one that never finishes its upgrade request
/// is closed after the handshake timeout; a proper client still connects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_refuses_other_hosts_and_slow_handshakes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (domain, _guard) = nerve_testing::domain();
    let view = start(domain);
    let port = view.port();
    let mut evil = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    evil.write_all(
        format!(
            "GET / HTTP/1.1\r\nHost: evil.example:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foxglove.sdk.v1\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut reply = String::new();
    evil.read_to_string(&mut reply).await.unwrap();
    assert!(reply.starts_with("HTTP/1.1 421"), "{reply}");

    // A page of another origin in the operator's browser: it could call services and set
    // parameters, so it is refused.
    let mut page = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    page.write_all(
        format!(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foxglove.sdk.v1\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut reply = String::new();
    page.read_to_string(&mut reply).await.unwrap();
    assert!(
        reply.starts_with("HTTP/1.1 403") && reply.contains("--allow-origin"),
        "{reply}"
    );

    let mut slow = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let t0 = Instant::now();
    let mut buf = [0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(15), slow.read(&mut buf))
        .await
        .expect("closed by the view")
        .unwrap_or(0);
    let waited = t0.elapsed();
    assert!(
        n == 0 && waited >= Duration::from_secs(4) && waited < Duration::from_secs(10),
        "{n} bytes after {waited:?}"
    );

    let mut ws = connect(port).await;
    until(&mut ws, "serverInfo", |m| op(m, "serverInfo")).await;
    view.stop();
}
