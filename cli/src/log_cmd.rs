//! `nerve log`: the domain's log topic (`nerve/log`), every process's records in one place.

use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use nerve::log::{format, Level, LogRecord, LOG_DEPTH, LOG_TOPIC};

use crate::signals;

/// Options of `nerve log`.
#[derive(clap::Args, Debug)]
pub struct LogArgs {
    /// Keep printing records as they come (Ctrl-C to stop); without it, print the records the
    /// topic holds (up to 1024) and exit.
    #[arg(short, long)]
    pub follow: bool,
    /// Only this node's records (its name, or a namespace prefix ending in `/`).
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// Only records at this level or above (trace, debug, info, warn, error).
    #[arg(long, value_name = "LEVEL")]
    pub level: Option<String>,
    /// Only records whose message or fields match this regular expression.
    #[arg(long, value_name = "RE")]
    pub grep: Option<String>,
    /// Change the level of running loggers instead: `NODE=LEVEL` (a node, a namespace
    /// `ns/`, or `*`); each applies it at its next log call.
    #[arg(long, value_name = "NODE=LEVEL", conflicts_with_all = ["follow", "node", "level", "grep"])]
    pub set_level: Option<String>,
}

/// `nerve log`.
pub fn run(domain: u32, a: LogArgs) -> Result<()> {
    if let Some(kv) = &a.set_level {
        let Some((node, level)) = kv.split_once('=') else {
            bail!("--set-level takes NODE=LEVEL (e.g. planner=debug), got {kv:?}");
        };
        let Some(l) = Level::parse(level) else {
            bail!("--set-level {kv:?}: the level is trace, debug, info, warn or error");
        };
        nerve::log::set_level(domain, node, l).map_err(anyhow::Error::msg)?;
        return outln!(
            "{node}: log level {} (from its next log call)",
            l.as_str().to_lowercase()
        );
    }
    let min = match &a.level {
        None => Level::Trace,
        Some(l) => match Level::parse(l) {
            Some(l) => l,
            None => bail!("--level {l:?}: use trace, debug, info, warn or error"),
        },
    };
    let grep = a
        .grep
        .as_deref()
        .map(regex::Regex::new)
        .transpose()
        .with_context(|| {
            format!(
                "--grep {:?} is not a regular expression",
                a.grep.as_deref().unwrap_or("")
            )
        })?;
    let node = a
        .node
        .as_deref()
        .map(|n| n.trim_start_matches('/').to_owned());
    let wanted = |r: &LogRecord| {
        r.level >= min
            && node
                .as_deref()
                .is_none_or(|n| r.node == n || (n.ends_with('/') && r.node.starts_with(n)))
            && grep.as_ref().is_none_or(|g| {
                g.is_match(&r.message)
                    || r.fields.iter().any(|(k, v)| g.is_match(k) || g.is_match(v))
            })
    };
    let topic = nerve::log::log_topic(domain)
        .with_context(|| format!("cannot open the log topic of domain {domain}"))?;
    let mut sub = topic.subscriber_with_history(u64::from(LOG_DEPTH))?;
    if a.follow {
        signals::install();
    }
    let mut undecodable = 0u64;
    loop {
        let got = if a.follow {
            sub.recv_timeout(Duration::from_millis(100))
        } else {
            sub.try_recv()
        };
        match got {
            Ok(Some(r)) if wanted(&r) => outln!("{}", format(&r))?,
            Ok(Some(_)) => {}
            Ok(None) if !a.follow || signals::stopped() => break,
            Ok(None) => {}
            // Another program's bytes on the log topic: skipped, counted, said at the end.
            Err(nerve::RecvError::Decode { .. }) => undecodable += 1,
            Err(e) => return Err(e.into()),
        }
    }
    if undecodable > 0 {
        eprintln!("nerve log: {undecodable} messages on {LOG_TOPIC} were not log records and were skipped");
    }
    let lost = sub.stats().lost;
    if lost > 0 {
        eprintln!("nerve log: {lost} records were overwritten before they could be read");
    }
    Ok(())
}
