//! Discovery: which topics exist in a domain, with their type, endpoints and owners; and
//! clean-up of what dead processes left behind.

use std::path::PathBuf;
use std::sync::atomic::Ordering::*;

use nerve_shm::layout::{ENDPOINT_PUBLISHER, ENDPOINT_SUBSCRIBER};
use nerve_shm::segment;
use nerve_shm::{ProcessId, Reliability, Ring};

pub use nerve_shm::segment::CleanReport;

use crate::heap;
use crate::shared::TransportPath;

/// One endpoint of a topic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointInfo {
    /// True for publishers.
    pub publisher: bool,
    /// Owning process.
    pub pid: u32,
    /// Whether that process is alive.
    pub alive: bool,
    /// Messages sent / received.
    pub count: u64,
    /// Messages lost (subscribers) or refused as full (publishers).
    pub lost: u64,
}

/// A topic as the registry sees it.
#[derive(Clone, Debug)]
pub struct TopicInfo {
    /// Topic name.
    pub name: String,
    /// Message type name.
    pub type_name: String,
    /// Where it lives.
    pub path: TransportPath,
    /// QoS.
    pub reliability: Reliability,
    /// Ring capacity.
    pub depth: u32,
    /// Messages published so far.
    pub published: u64,
    /// Chunks in use / in the pool (chunked topics).
    pub chunks: Option<(u32, u32)>,
    /// How publishers claim messages: `"solo"` (one publisher, plain stores), `"locked"` (a
    /// second publisher or thread appeared: locked claims for the life of the segment) or
    /// `"none yet"`.
    pub claims: &'static str,
    /// Live endpoints.
    pub endpoints: Vec<EndpointInfo>,
    /// Validation error, if the segment is corrupt (then the other fields are empty).
    pub error: Option<String>,
}

impl TopicInfo {
    /// Live publishers.
    pub fn publishers(&self) -> usize {
        self.endpoints
            .iter()
            .filter(|e| e.publisher && e.alive)
            .count()
    }
    /// Live subscribers.
    pub fn subscribers(&self) -> usize {
        self.endpoints
            .iter()
            .filter(|e| !e.publisher && e.alive)
            .count()
    }
    /// Distinct live owner pids.
    pub fn pids(&self) -> Vec<u32> {
        let mut p: Vec<u32> = self
            .endpoints
            .iter()
            .filter(|e| e.alive)
            .map(|e| e.pid)
            .collect();
        p.sort_unstable();
        p.dedup();
        p
    }
}

fn endpoints(ring: &Ring) -> Vec<EndpointInfo> {
    (0..ring.endpoint_count())
        .filter_map(|i| {
            let e = ring.endpoint(i);
            // Acquire pairs with the Release store of `state` in `Ring::claim_endpoint`.
            let state = e.state.load(Acquire);
            if state != ENDPOINT_PUBLISHER && state != ENDPOINT_SUBSCRIBER {
                return None;
            }
            let pid = e.pid.load(Relaxed);
            Some(EndpointInfo {
                publisher: state == ENDPOINT_PUBLISHER,
                pid,
                alive: ProcessId {
                    pid,
                    start_time: e.start_time.load(Relaxed),
                }
                .is_alive(),
                count: e.count.load(Relaxed),
                lost: e.lost.load(Relaxed),
            })
        })
        .collect()
}

fn name_from_file(path: &std::path::Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().replace('%', "/"))
        .unwrap_or_default()
}

/// Lists the topics of `domain`: shared-memory ones (any process) and this process's
/// in-process ones. Corrupt segments are listed with their error, never followed.
pub fn list(domain: u32) -> Vec<TopicInfo> {
    let mut out = Vec::new();
    let dir = segment::domain_dir(domain);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("topic") {
                continue;
            }
            let name = name_from_file(&path);
            match segment::inspect(&path) {
                Ok(snapshot) => {
                    let (ring, params) = (snapshot.ring(), snapshot.params());
                    out.push(TopicInfo {
                        name,
                        type_name: params.stored_type.name.clone(),
                        path: TransportPath::Shm(path.clone()),
                        reliability: params.reliability,
                        depth: params.capacity,
                        published: ring.head().load(Relaxed),
                        chunks: None,
                        claims: claims(&ring),
                        endpoints: endpoints(&ring),
                        error: None,
                    });
                }
                Err(e) => out.push(TopicInfo {
                    name,
                    type_name: String::new(),
                    path: TransportPath::Shm(path.clone()),
                    reliability: Reliability::BestEffort,
                    depth: 0,
                    published: 0,
                    chunks: None,
                    claims: "",
                    endpoints: Vec::new(),
                    error: Some(e.to_string()),
                }),
            }
        }
    }
    for shared in heap::list() {
        if shared.domain != domain {
            continue;
        }
        out.push(TopicInfo {
            name: shared.name.clone(),
            type_name: shared.params.stored_type.name.clone(),
            path: TransportPath::Heap,
            reliability: shared.params.reliability,
            depth: shared.params.capacity,
            published: shared.ring.head().load(Relaxed),
            chunks: shared.pool.as_ref().map(|p| (p.in_use(), p.chunk_count())),
            claims: claims(&shared.ring),
            endpoints: endpoints(&shared.ring),
            error: None,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn claims(ring: &Ring) -> &'static str {
    match ring.solo().load(Relaxed) {
        0 => "none yet",
        nerve_shm::SOLO_SHARED => "locked",
        _ => "solo",
    }
}

/// Removes every segment of `domain` that no live process uses, and every corrupt one.
pub fn clean(domain: u32) -> std::io::Result<CleanReport> {
    segment::clean(&segment::domain_dir(domain)).map_err(|e| std::io::Error::other(e.to_string()))
}

/// The directory holding `domain`'s segments.
pub fn domain_dir(domain: u32) -> PathBuf {
    segment::domain_dir(domain)
}

/// Removes topic `name`'s segment file from `domain` (its memory is freed once the last process
/// that maps it closes it). For topics that belong to one process alone, such as a service
/// client's response topic, so that short-lived owners leave nothing behind. A missing file is
/// not an error.
pub fn remove_topic(domain: u32, name: &str) -> std::io::Result<()> {
    match std::fs::remove_file(segment::domain_dir(domain).join(segment::topic_file(name))) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
