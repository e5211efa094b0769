//! The page is the operator's, not the web's: what every request to `nerve view` passes before
//! its route runs.
//!
//! - **Host**: the request must name this server by an IP address (any: a DNS-rebinding page
//!   needs a name it controls), `localhost`, this machine's host name, or a name given with
//!   `--allow-host`, on the port it serves. Otherwise `421 Misdirected Request`: a page of
//!   `evil.example` rebound to 127.0.0.1 reads nothing.
//! - **Origin**: a request that carries an `Origin` must come from a page of this same server;
//!   a foreign one gets `403`.
//! - **Token**: a request that changes something (anything but GET and HEAD: the e-stop, and
//!   any later one) must carry `X-Nerve-Token` with this run's token, which only the page this
//!   server sends contains. A custom header also makes a browser ask first (CORS preflight),
//!   which this server never allows. A "simple" cross-site POST (`text/plain`) has no token:
//!   `403`.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The header carrying the token.
pub const TOKEN_HEADER: &str = "x-nerve-token";

/// Who may talk to this view.
#[derive(Clone, Debug)]
pub struct Guard {
    /// The port served.
    pub port: u16,
    /// Host names accepted besides IP addresses and `localhost`.
    pub names: Vec<String>,
    /// This run's token (32 hex digits).
    pub token: String,
}

impl Guard {
    /// A guard for `port` with a fresh token; `names` adds to the machine's own host name.
    pub fn new(port: u16, names: &[String]) -> Guard {
        Guard {
            port,
            names: nerve_foxglove::front::host_names(names),
            token: token(),
        }
    }

    /// Whether a `Host` header names this server (`nerve_foxglove::front::host_ok`, the one
    /// answer both views give).
    pub fn host_ok(&self, host: &str) -> bool {
        nerve_foxglove::front::host_ok(host, self.port, &self.names)
    }

    /// Why `headers` of a request with `method` are refused, if they are.
    pub fn refusal(&self, method: &Method, headers: &HeaderMap) -> Option<(StatusCode, String)> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !self.host_ok(host) {
            return Some((
                StatusCode::MISDIRECTED_REQUEST,
                format!(
                    "nerve view answers requests for its own address, not {host:?} (a page on \
                     another name may not read the robot); behind a proxy, start it with \
                     --allow-host NAME"
                ),
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
                return Some((
                    StatusCode::FORBIDDEN,
                    format!("requests from pages of {origin:?} are refused"),
                ));
            }
        }
        let changes = !matches!(*method, Method::GET | Method::HEAD);
        let token = headers.get(TOKEN_HEADER).and_then(|t| t.to_str().ok());
        if changes && token != Some(self.token.as_str()) {
            return Some((
                StatusCode::FORBIDDEN,
                "this request changes the robot and needs the token of the page nerve view \
                 served (reload the page: a restarted view has a new one)"
                    .into(),
            ));
        }
        None
    }
}

/// The middleware: refuses what [`Guard::refusal`] refuses, with a JSON error.
pub async fn check(
    State(guard): State<std::sync::Arc<Guard>>,
    req: Request,
    next: Next,
) -> Response {
    match guard.refusal(req.method(), req.headers()) {
        Some((status, why)) => {
            tracing::warn!(%status, method = %req.method(), uri = %req.uri(), "nerve view refused a request: {why}");
            (status, axum::Json(serde_json::json!({ "error": why }))).into_response()
        }
        None => next.run(req).await,
    }
}

/// 128 random bits as hex.
fn token() -> String {
    let mut b = [0u8; 16];
    // SAFETY: getrandom writes at most `b.len()` bytes into `b`.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n != b.len() as isize {
        // No getrandom: the clock's nanoseconds and the pid, unguessable enough for a page
        // on this machine (and said in the log).
        tracing::warn!("getrandom failed: the view's token comes from the clock");
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        b.copy_from_slice(&(t ^ (u128::from(std::process::id()) << 64)).to_le_bytes());
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn hosts_origins_and_tokens() {
        let g = Guard {
            port: 8080,
            names: vec!["robot".into()],
            token: "t0k".into(),
        };
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "[::1]:8080",
            "10.0.0.7:8080",
            "ROBOT:8080",
        ] {
            assert!(g.host_ok(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1:8081",
            "",
            "localhost",
            "robot.evil:8080",
        ] {
            assert!(!g.host_ok(bad), "{bad}");
        }
        let get = Method::GET;
        let post = Method::POST;
        assert!(g
            .refusal(&get, &headers(&[("host", "127.0.0.1:8080")]))
            .is_none());
        let (s, _) = g
            .refusal(&get, &headers(&[("host", "evil.example:8080")]))
            .unwrap();
        assert_eq!(s, StatusCode::MISDIRECTED_REQUEST);
        let (s, _) = g
            .refusal(
                &post,
                &headers(&[
                    ("host", "127.0.0.1:8080"),
                    ("origin", "http://evil.example"),
                ]),
            )
            .unwrap();
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, why) = g
            .refusal(&post, &headers(&[("host", "127.0.0.1:8080")]))
            .unwrap();
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert!(why.contains("token"), "{why}");
        assert!(g
            .refusal(
                &post,
                &headers(&[
                    ("host", "127.0.0.1:8080"),
                    ("origin", "http://127.0.0.1:8080"),
                    ("x-nerve-token", "t0k")
                ])
            )
            .is_none());
        assert!(g
            .refusal(
                &post,
                &headers(&[("host", "127.0.0.1:8080"), ("x-nerve-token", "nope")])
            )
            .is_some());
        assert_eq!(token().len(), 32);
        assert_ne!(token(), token());
    }
}
