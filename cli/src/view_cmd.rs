//! `nerve view`: watch the domain live, in a browser (the page of `web`) or, with
//! `--foxglove`, in the Foxglove app (the Foxglove WebSocket protocol, `nerve-foxglove`).

use std::time::{Duration, Instant};

use clap::Args;
use nerve_foxglove::{FoxgloveView, ViewConfig};

use crate::signals;

#[derive(Args)]
pub struct ViewArgs {
    /// Serve the Foxglove WebSocket protocol: in Foxglove, Open connection → Foxglove
    /// WebSocket → ws://HOST:PORT.
    #[arg(long)]
    foxglove: bool,
    /// The address to listen on (0.0.0.0: every interface, for a laptop looking at a robot).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port (default 8080 for the page, 8765 for Foxglove; 0: any free port, printed).
    #[arg(long)]
    port: Option<u16>,
    /// With --foxglove: every standard type as its ROS 2 counterpart (the bytes `nerve record`
    /// writes, so one layout serves live and recorded data), none as Foxglove's own schemas.
    #[arg(long, requires = "foxglove")]
    ros2_schemas: bool,
    /// A host name (besides IP addresses, `localhost` and this machine's name) under which
    /// the page may be reached, e.g. a reverse proxy's; others are refused (DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_host: Vec<String>,
    /// With --foxglove: a web origin (besides Foxglove's app and this machine's loopback
    /// pages) whose pages may open the view, e.g. `https://dashboard.example`.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "foxglove")]
    allow_origin: Vec<String>,
    /// Stop after this many seconds (default: at Ctrl-C).
    #[arg(long, value_parser = crate::args::run_seconds)]
    duration: Option<Duration>,
}

pub fn run(domain: u32, a: ViewArgs) -> anyhow::Result<()> {
    if !a.foxglove {
        let ip: std::net::IpAddr = a.host.parse().map_err(|_| {
            anyhow::anyhow!(
                "--host {:?} is not an IP address (127.0.0.1, 0.0.0.0, ::1)",
                a.host
            )
        })?;
        let addr = std::net::SocketAddr::new(ip, a.port.unwrap_or(8080));
        return crate::web::serve(domain, addr, a.duration, a.allow_host);
    }
    let view = FoxgloveView::start(ViewConfig {
        domain,
        host: a.host.clone(),
        port: a.port.unwrap_or(8765),
        ros2_schemas: a.ros2_schemas,
        allow_hosts: a.allow_host.clone(),
        allow_origins: a.allow_origin.clone(),
    })?;
    signals::install();
    outln!(
        "Foxglove view of domain {domain} on ws://{}:{} (Foxglove: Open connection → Foxglove \
         WebSocket). Ctrl-C stops it",
        a.host,
        view.port()
    )?;
    let start = Instant::now();
    while !signals::stopped() && a.duration.is_none_or(|d| start.elapsed() < d) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let topics = view.topics();
    view.stop();
    outln!("{:<40} {:<36} {:>9} {:>9}", "topic", "as", "sent", "bad")?;
    for t in topics {
        outln!("{:<40} {:<36} {:>9} {:>9}", t.name, t.schema, t.sent, t.bad)?;
    }
    Ok(())
}
