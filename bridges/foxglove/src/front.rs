//! The door in front of the Foxglove server. The `foxglove` crate's server accepts connections
//! itself and sets no deadline on a handshake, nor looks at the `Host` a client names. So the
//! view listens on the address the user asked for itself, reads each connection's WebSocket
//! upgrade request within [`HANDSHAKE_TIMEOUT`], refuses one that names another host
//! (`421`: a DNS-rebinding page cannot reach the robot's services and parameters), refuses one
//! opened by a web page that is not Foxglove's (`403`: any page in the operator's browser could
//! otherwise call the robot's services and set its parameters; see [`origin_ok`]), and hands
//! the connection, its request included, to the crate's server on a loopback port of its own.
//!
//! [`host_ok`] is nerve's one answer to "does this `Host` name this server", for both views
//! (`nerve view` uses it too).

use std::net::IpAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long a client has to send its whole upgrade request.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest upgrade request read (a browser's is under 2 KiB).
const MAX_REQUEST: usize = 16 << 10;

/// The names this machine answers to besides IP addresses and `localhost`: its host name and
/// `<host name>.local`, then `extra` (a reverse proxy's, from `--allow-host`), lower-cased.
pub fn host_names(extra: &[String]) -> Vec<String> {
    let mut names: Vec<String> = extra.iter().map(|n| n.to_ascii_lowercase()).collect();
    if let Ok(h) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        let h = h.trim().to_ascii_lowercase();
        if !h.is_empty() {
            names.push(format!("{h}.local"));
            names.push(h);
        }
    }
    names
}

/// Whether a `Host` header names a server on `port` of this machine: an IP address (any: a
/// rebinding page needs a name it controls), `localhost`, or one of `names`.
pub fn host_ok(host: &str, port: u16, names: &[String]) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let (name, given) = match host.rsplit_once(':') {
        // `[::1]:8080`, `127.0.0.1:8080`, `robot:8080`; a bare `[::1]` has no port.
        Some((n, p)) if !n.is_empty() && !p.contains(']') => (n.to_owned(), p.parse().ok()),
        _ => (host.clone(), Some(80)),
    };
    if given != Some(port) {
        return false;
    }
    let bare = name.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>().is_ok() || name == "localhost" || names.contains(&name)
}

/// The web pages that may open the Foxglove view: Foxglove's own app, the desktop app (which
/// sends no `Origin`, or `file://`), a page of this machine's loopback (`localhost`,
/// `127.0.0.1`, `[::1]`, any port), and the origins in `extra` (from `--allow-origin`).
/// Any other page's WebSocket, `null` (a sandboxed frame) included, is refused.
pub fn origin_ok(origin: Option<&str>, extra: &[String]) -> bool {
    let Some(o) = origin.map(|o| o.trim().to_ascii_lowercase()) else {
        return true;
    };
    const FOXGLOVE: [&str; 3] = [
        "https://app.foxglove.dev",
        "https://studio.foxglove.dev",
        "file://",
    ];
    let loopback = ["http://localhost", "http://127.0.0.1", "http://[::1]"]
        .iter()
        .any(|l| o == *l || o.strip_prefix(l).is_some_and(|rest| rest.starts_with(':')));
    FOXGLOVE.contains(&o.as_str())
        || loopback
        || extra.iter().any(|e| e.trim().eq_ignore_ascii_case(&o))
}

/// Serves the door: each connection of `listener` (the user's port) checked, then joined to
/// the crate's server on `127.0.0.1:inner`. Runs until the runtime stops.
pub(crate) async fn serve(
    listener: TcpListener,
    inner: u16,
    names: Vec<String>,
    origins: Vec<String>,
) {
    let port = listener.local_addr().map_or(0, |a| a.port());
    let allowed = std::sync::Arc::new((names, origins));
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!(error = %e, "the Foxglove view cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let allowed = allowed.clone();
        tokio::spawn(async move {
            if let Err(why) = door(stream, port, inner, &allowed.0, &allowed.1).await {
                tracing::debug!("a Foxglove connection was closed at the door: {why}");
            }
        });
    }
}

async fn door(
    mut client: TcpStream,
    port: u16,
    inner: u16,
    names: &[String],
    origins: &[String],
) -> Result<(), String> {
    let mut head = Vec::with_capacity(1024);
    tokio::time::timeout(HANDSHAKE_TIMEOUT, read_head(&mut client, &mut head))
        .await
        .map_err(|_| format!("no complete request within {HANDSHAKE_TIMEOUT:?}"))??;
    let text = String::from_utf8_lossy(&head);
    let header = |name: &str| {
        text.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    let host = header("host").unwrap_or_default();
    let origin = header("origin");
    let refusal = if !host_ok(&host, port, names) {
        Some((
            "421 Misdirected Request",
            format!(
                "nerve view answers requests for its own address, not {host:?}; behind a \
                 proxy, start it with --allow-host NAME"
            ),
        ))
    } else if !origin_ok(origin.as_deref(), origins) {
        Some((
            "403 Forbidden",
            format!(
                "pages of {origin:?} may not open the robot's Foxglove view; to allow one, \
                 start it with --allow-origin ORIGIN"
            ),
        ))
    } else {
        None
    };
    if let Some((status, body)) = refusal {
        tracing::warn!("the Foxglove view refused a connection: {body}");
        let reply = format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}\n",
            body.len() + 1
        );
        let _ = client.write_all(reply.as_bytes()).await;
        return Err(body);
    }
    let mut server = TcpStream::connect(("127.0.0.1", inner))
        .await
        .map_err(|e| format!("the Foxglove server: {e}"))?;
    let _ = server.set_nodelay(true);
    let _ = client.set_nodelay(true);
    server.write_all(&head).await.map_err(|e| e.to_string())?;
    tokio::io::copy_bidirectional(&mut client, &mut server)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Reads `stream` into `head` up to the end of the request's headers (`\r\n\r\n`), keeping
/// what came after it too (a client may send its first frame at once).
async fn read_head(stream: &mut TcpStream, head: &mut Vec<u8>) -> Result<(), String> {
    let mut buf = [0u8; 2048];
    loop {
        let n = stream.read(&mut buf).await.map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("closed before its request ended".into());
        }
        head.extend_from_slice(&buf[..n]);
        if head.windows(4).any(|w| w == b"\r\n\r\n") {
            return Ok(());
        }
        if head.len() > MAX_REQUEST {
            return Err(format!("a request over {MAX_REQUEST} bytes"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_that_name_this_server() {
        let names = vec!["robot".to_owned()];
        for ok in [
            "127.0.0.1:8765",
            "localhost:8765",
            "[::1]:8765",
            "10.0.0.7:8765",
            "ROBOT:8765",
        ] {
            assert!(host_ok(ok, 8765, &names), "{ok}");
        }
        for bad in [
            "evil.example:8765",
            "127.0.0.1:8080",
            "",
            "localhost",
            "robot.evil:8765",
        ] {
            assert!(!host_ok(bad, 8765, &names), "{bad}");
        }
    }

    #[test]
    fn origins_that_may_open_the_view() {
        let extra = vec!["https://dash.example".to_owned()];
        for ok in [
            None,
            Some("https://app.foxglove.dev"),
            Some("file://"),
            Some("http://localhost:3000"),
            Some("http://127.0.0.1"),
            Some("HTTPS://DASH.EXAMPLE"),
        ] {
            assert!(origin_ok(ok, &extra), "{ok:?}");
        }
        for bad in [
            "http://evil.example",
            "null",
            "http://localhost.evil.example",
            "https://app.foxglove.dev.evil",
        ] {
            assert!(!origin_ok(Some(bad), &extra), "{bad}");
        }
    }
}
