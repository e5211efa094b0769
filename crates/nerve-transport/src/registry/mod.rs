//! Discovery: which topics exist in a domain, with their type, endpoints and owners
//! ([`list`]); topics and endpoints coming and going, and processes dying, as events
//! ([`watch`]); and clean-up of what dead processes left behind ([`clean`]).
//!
//! Each domain has a registry, the shared file `.registry` next to its segments
//! (`nerve_shm::board`): every process posts there the topics it creates (shared-memory and
//! in-process ones) and bumps its generation counter whenever a topic or an endpoint comes or
//! goes; a [`Watch`] sleeps on that counter and diffs what changed. See
//! `docs/design/transport.md`, "The domain registry".

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::*;

use nerve_shm::board::{self, Slot};
use nerve_shm::layout::{ENDPOINT_PUBLISHER, ENDPOINT_SUBSCRIBER};
use nerve_shm::peek::{peek, Peek};
use nerve_shm::{segment, snapshot};
use nerve_shm::{ProcessId, Reliability, Ring};

pub use nerve_shm::snapshot::CleanReport;

use nerve_msgs::described::{DocError, TypeDoc};

pub(crate) mod announce;
mod procs;
mod watch;

pub use watch::{watch, Event, Watch, WATCH_SLICE};

use crate::heap;
use crate::shared::TransportPath;

/// One endpoint of a topic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointInfo {
    /// True for publishers.
    pub publisher: bool,
    /// Owning process (its pid, and the life token that holds across pid namespaces:
    /// `ProcessId::describe_pid` says where a pid is not ours).
    pub process: ProcessId,
    /// Whether that process is alive.
    pub alive: bool,
    /// Messages sent / received.
    pub count: u64,
    /// Messages lost (subscribers) or refused as full (publishers).
    pub lost: u64,
}

/// A topic as the registry sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicInfo {
    /// Topic name.
    pub name: String,
    /// Message type name.
    pub type_name: String,
    /// Where it lives.
    pub path: TransportPath,
    /// For an in-process topic ([`TransportPath::Heap`]), the process it lives in (this one
    /// or another); None for shared-memory topics.
    pub owner: Option<u32>,
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
    /// The type description the topic carries (`None`: its creator gave none, it lives in
    /// another process's heap, or it is damaged: see `description_error`).
    pub description: Option<TypeDoc>,
    /// Why the stored description could not be read, if it could not.
    pub description_error: Option<String>,
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
            .map(|e| e.process.pid)
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
            let process = ProcessId {
                pid: e.pid.load(Relaxed),
                token: e.token.load(Relaxed),
            };
            Some(EndpointInfo {
                publisher: state == ENDPOINT_PUBLISHER,
                process,
                alive: process.is_alive(),
                count: e.count.load(Relaxed),
                lost: e.lost.load(Relaxed),
            })
        })
        .collect()
}

/// A shared-memory topic as read by [`peek`]; `alive` says whether an endpoint's process
/// lives.
pub(crate) fn shm_info(
    name: String,
    path: &Path,
    p: &Peek,
    mut alive: impl FnMut(ProcessId) -> bool,
) -> TopicInfo {
    let (description, description_error) =
        split(crate::description::decode(&p.schema, &p.params.stored_type));
    TopicInfo {
        name,
        type_name: p.params.stored_type.name.clone(),
        path: TransportPath::Shm(path.to_owned()),
        owner: None,
        reliability: p.params.reliability,
        depth: p.params.capacity,
        published: p.head,
        chunks: None,
        claims: claims_of(p.solo),
        endpoints: p
            .records
            .iter()
            .filter(|r| r.state == ENDPOINT_PUBLISHER || r.state == ENDPOINT_SUBSCRIBER)
            .map(|r| EndpointInfo {
                publisher: r.state == ENDPOINT_PUBLISHER,
                process: r.owner,
                alive: alive(r.owner),
                count: r.count,
                lost: r.lost,
            })
            .collect(),
        description,
        description_error,
        error: None,
    }
}

/// A topic whose segment does not validate: listed with the error, nothing else.
pub(crate) fn corrupt_info(name: String, path: &Path, error: String) -> TopicInfo {
    TopicInfo {
        name,
        type_name: String::new(),
        path: TransportPath::Shm(path.to_owned()),
        owner: None,
        reliability: Reliability::BestEffort,
        depth: 0,
        published: 0,
        chunks: None,
        claims: "",
        endpoints: Vec::new(),
        description: None,
        description_error: None,
        error: Some(error),
    }
}

/// Another process's in-process topic, as its registry entry describes it: type, QoS, and
/// how many publishers and subscribers it has (its counters are not shared).
pub(crate) fn posted_heap_info(e: &board::Entry) -> TopicInfo {
    let reliability = match e.word >> 24 {
        2 => Reliability::Reliable,
        3 => Reliability::LatestOnly,
        _ => Reliability::BestEffort,
    };
    let cap = nerve_shm::layout::MAX_ENDPOINTS;
    let endpoint = |publisher| EndpointInfo {
        publisher,
        process: e.owner,
        alive: true,
        count: 0,
        lost: 0,
    };
    let endpoints = std::iter::repeat_n(endpoint(true), e.counts[0].min(cap) as usize)
        .chain(std::iter::repeat_n(
            endpoint(false),
            e.counts[1].min(cap) as usize,
        ))
        .collect();
    TopicInfo {
        name: e.key.clone(),
        type_name: e.label.clone(),
        path: TransportPath::Heap,
        owner: Some(e.owner.pid),
        reliability,
        depth: e.word & 0x00ff_ffff,
        published: 0,
        chunks: None,
        claims: "",
        endpoints,
        description: None,
        description_error: None,
        error: None,
    }
}

fn split(r: Result<Option<TypeDoc>, DocError>) -> (Option<TypeDoc>, Option<String>) {
    match r {
        Ok(d) => (d, None),
        Err(e) => (None, Some(e.to_string())),
    }
}

/// Lists the topics of `domain`: shared-memory ones (any process, found in the domain's
/// directory), this process's in-process ones, and other processes' in-process ones (from the
/// domain's registry, marked [`TransportPath::Heap`] with their `owner`; their message counts
/// are not shared). Corrupt segments are listed with their error, never followed.
pub fn list(domain: u32) -> Vec<TopicInfo> {
    let mut out = Vec::new();
    let dir = segment::domain_dir(domain);
    announce::count_dir_scan(domain);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("topic") {
                continue;
            }
            let name = announce::name_from_file(&path);
            out.push(match peek(&path) {
                Ok(p) => shm_info(name, &path, &p, |id| id.is_alive()),
                Err(e) => corrupt_info(name, &path, e.to_string()),
            });
        }
    }
    let me = ProcessId::current();
    for shared in heap::list() {
        if shared.domain != domain {
            continue;
        }
        let (description, description_error) = split(shared.description());
        out.push(TopicInfo {
            name: shared.name.clone(),
            type_name: shared.params.stored_type.name.clone(),
            path: TransportPath::Heap,
            owner: Some(me.pid),
            reliability: shared.params.reliability,
            depth: shared.params.capacity,
            published: shared.ring.head().load(Relaxed),
            chunks: shared.pool.as_ref().map(|p| (p.in_use(), p.chunk_count())),
            claims: claims(&shared.ring),
            endpoints: endpoints(&shared.ring),
            description,
            description_error,
            error: None,
        });
    }
    match board::copy(&dir) {
        Ok(Some(copy)) => out.extend(copy.entries().into_iter().filter_map(|(_, s)| match s {
            Slot::Used(e, _)
                if e.kind == announce::KIND_HEAP
                    && e.owner != me
                    && crate::name::validate(&e.key).is_ok()
                    && e.owner.is_alive() =>
            {
                Some(posted_heap_info(&e))
            }
            _ => None,
        })),
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "other processes' in-process topics are not listed"),
    }
    out.sort_by(|a, b| a.name.cmp(&b.name).then(a.owner.cmp(&b.owner)));
    out
}

fn claims(ring: &Ring) -> &'static str {
    claims_of(ring.solo().load(Relaxed))
}

fn claims_of(solo: u64) -> &'static str {
    match solo {
        0 => "none yet",
        nerve_shm::SOLO_SHARED => "locked",
        _ => "solo",
    }
}

/// Removes every segment of `domain` that no live process uses, and every corrupt one; frees
/// the registry entries of dead processes (and rebuilds the registry if it is corrupt).
pub fn clean(domain: u32) -> std::io::Result<CleanReport> {
    let report = snapshot::clean(&segment::domain_dir(domain))
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    for path in report.stale.iter().chain(&report.corrupt) {
        announce::segment_removed(domain, &announce::name_from_file(path));
    }
    announce::prune(domain);
    Ok(report)
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
        Err(_) => Ok(()),
        Ok(()) => {
            announce::segment_removed(domain, name);
            Ok(())
        }
    }
}

/// The domain's registry file (`.registry` in [`domain_dir`]).
pub fn registry_path(domain: u32) -> PathBuf {
    announce::board_path(domain)
}

/// Test hook: how many times this process has scanned `domain`'s directory (`list`, or filling
/// a new or rebuilt registry). A watch never does. Hidden; always compiled, so the tests and the
/// product share one build of every crate.
#[doc(hidden)]
pub fn __directory_scans(domain: u32) -> u64 {
    announce::dir_scans(domain)
}
