//! `nerve view`: a page on this host showing the domain live — the graph of processes and
//! topics, each topic's rate, bandwidth, delay and losses, each node's lateness and misses,
//! the e-stop with a button that trips it, and the log's tail. The page (`page.html`, plain
//! HTML, CSS and JavaScript, no build step) is inside the binary; it follows a stream of
//! snapshots (server-sent events, `/api/events`) and reconnects by itself when the view
//! restarts.
//!
//! Routes: `/` the page, `/api/state` the latest snapshot (JSON), `/api/events` snapshots as
//! they come, `POST /api/estop` trips the domain's e-stop (`nerve/estop`, what every
//! scheduler with an e-stop topic obeys). Every request passes [`guard`] first (its own
//! address as `Host`, no foreign `Origin`, the run's token for what changes the robot), and a
//! connection that has not sent its request's headers within [`HEADER_TIMEOUT`] is closed.

pub mod guard;
mod monitor;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use tokio::sync::watch;

use crate::signals;

/// The page, with its style and script.
const PAGE: &str = include_str!("page.html");
/// How often the page's data is measured and sent.
const EVERY: Duration = Duration::from_millis(500);
/// How long a connection may take to send a request's headers (a client that trickles them
/// keeps no connection open for longer).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone)]
struct App {
    domain: u32,
    snapshots: watch::Receiver<Arc<str>>,
    /// The page with this run's token in it.
    page: Arc<str>,
}

/// Serves the page on `addr` until Ctrl-C (or `duration`); `allow_hosts`: names besides IP
/// addresses, `localhost` and this machine's name that may reach it (a reverse proxy's).
pub fn serve(
    domain: u32,
    addr: SocketAddr,
    duration: Option<Duration>,
    allow_hosts: Vec<String>,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("nerve-view")
        .enable_all()
        .build()?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(addr))
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot serve the page on {addr}: {e} (another `nerve view` on that port? choose another with --port)"
            )
        })?;
    let bound = listener.local_addr()?;
    let (tx, rx) = watch::channel(Arc::<str>::from("{}"));
    let monitor = std::thread::Builder::new()
        .name("nerve-view-monitor".into())
        .spawn(move || follow(domain, &tx))?;
    signals::install();
    outln!("nerve view of domain {domain} on http://{bound}/ (Ctrl-C stops it)")?;
    let allowed = Arc::new(guard::Guard::new(bound.port(), &allow_hosts));
    let app = Router::new()
        .route("/", get(page))
        .route("/api/state", get(state))
        .route("/api/events", get(events))
        .route("/api/estop", post(estop))
        .with_state(App {
            domain,
            snapshots: rx,
            page: Arc::from(PAGE.replace("{{NERVE_TOKEN}}", &allowed.token)),
        })
        .layer(axum::middleware::from_fn_with_state(
            allowed.clone(),
            guard::check,
        ));
    let start = Instant::now();
    let stop = async move {
        while !signals::stopped() && duration.is_none_or(|d| start.elapsed() < d) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    runtime.block_on(accept(listener, app, stop));
    // Open event streams end with the runtime.
    runtime.shutdown_timeout(Duration::from_secs(1));
    let _ = monitor.join();
    Ok(())
}

/// The monitor's thread: reads the domain, sends a snapshot at once and then every
/// [`EVERY`], until the server is gone.
fn follow(domain: u32, tx: &watch::Sender<Arc<str>>) {
    let mut m = monitor::Monitor::new(domain);
    loop {
        m.refresh();
        let json = match serde_json::to_string(&m.snapshot()) {
            Ok(j) => j,
            Err(e) => {
                tracing::warn!(error = %e, "a snapshot could not be written");
                continue;
            }
        };
        if tx.send(Arc::from(json)).is_err() || signals::stopped() {
            return;
        }
        std::thread::sleep(EVERY);
    }
}

/// Serves connections until `stop`, each closed if its request headers take longer than
/// [`HEADER_TIMEOUT`] (axum's own `serve` sets no such timeout).
async fn accept(
    listener: tokio::net::TcpListener,
    app: Router,
    stop: impl std::future::Future<Output = ()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    tokio::pin!(stop);
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of descriptors, say: wait a little rather than spin.
                    tracing::warn!(error = %e, "nerve view cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => return,
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
}

async fn page(State(app): State<App>) -> Html<String> {
    Html(app.page.to_string())
}

async fn state(State(app): State<App>) -> Response {
    let json = app.snapshots.borrow().clone();
    (
        [(header::CONTENT_TYPE, "application/json")],
        json.to_string(),
    )
        .into_response()
}

async fn events(
    State(app): State<App>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let mut rx = app.snapshots;
    // The current snapshot at once, then each new one.
    rx.mark_changed();
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.changed().await.ok()?;
        let json = rx.borrow_and_update().clone();
        Some((Ok(Event::default().event("state").data(&*json)), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// Trips the e-stop of every scheduler of the domain obeying `nerve/estop`.
async fn estop(State(app): State<App>) -> Response {
    match nerve::exec::trigger_remote_estop(Some(app.domain), "e-stop button (nerve view)") {
        Ok(()) => {
            tracing::warn!(domain = app.domain, "e-stop tripped from the page");
            Json(serde_json::json!({ "tripped": true })).into_response()
        }
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(serde_json::json!({
                "tripped": false,
                "error": format!("cannot publish on nerve/estop of domain {}: {e}", app.domain),
            })),
        )
            .into_response(),
    }
}
