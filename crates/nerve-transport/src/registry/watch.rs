//! Watching a domain: topics and endpoints appearing and going, processes dying, as events.
//!
//! A [`Watch`] sleeps on the generation word of the domain's registry (a futex, woken by
//! every change any process posts), at most [`WATCH_SLICE`] at a time. Each time it wakes it
//! asks the life files of the processes it has seen whether they still live (one `fcntl`
//! each, in any pid namespace: a process that died is noticed within a slice), and when the
//! generation moved it reads the registry's entries and, for the topics whose entry changed,
//! their endpoint tables (with `pread`), and diffs all that against what it knew. It never scans the domain's directory.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nerve_shm::board::{Board, Opened, Slot};
use nerve_shm::layout::{ENDPOINT_PUBLISHER, ENDPOINT_SUBSCRIBER};
use nerve_shm::peek::peek;
use nerve_shm::segment::{self, SegmentError};
use nerve_shm::ProcessId;

use super::announce::{self, KIND_HEAP, KIND_SHM};
use super::procs::Procs;
use super::{corrupt_info, posted_heap_info, shm_info, TopicInfo};
use crate::error::WatchError;

/// Longest sleep of a watch between two looks at the processes it has seen: a process that
/// dies is reported at most this long after (plus the time to read what changed).
pub const WATCH_SLICE: Duration = Duration::from_millis(25);

/// What changed in a domain.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A topic appeared (or was there when the watch began). Its endpoints follow as
    /// [`Event::EndpointAppeared`] (the info's own `endpoints` is empty). `owner` is set for
    /// an in-process topic: the process it lives in.
    TopicAppeared(TopicInfo),
    /// A topic went: its segment was removed (its last user closed it, `nerve clean`), it was
    /// replaced by a new one (which appears next), or, for an in-process topic, it was
    /// dropped or its process died. Its endpoints were reported gone before.
    TopicGone {
        /// The topic.
        name: String,
        /// The process of an in-process topic; None for shared-memory topics.
        owner: Option<u32>,
    },
    /// A publisher or subscriber appeared on `topic`, in process `pid`.
    EndpointAppeared {
        /// The topic.
        topic: String,
        /// The endpoint's process (for an in-process topic, its owner).
        pid: u32,
        /// Publisher (true) or subscriber.
        publisher: bool,
    },
    /// A publisher or subscriber went: closed, or its process died (then
    /// [`Event::ProcessDied`] came first).
    EndpointGone {
        /// The topic.
        topic: String,
        /// The endpoint's process.
        pid: u32,
        /// Publisher (true) or subscriber.
        publisher: bool,
    },
    /// A process that held endpoints or in-process topics died without closing them.
    ProcessDied {
        /// Its pid.
        pid: u32,
    },
    /// The registry was corrupt (another program wrote into it) and was replaced by a fresh
    /// one: shared-memory topics are all there again; other processes' in-process topics are
    /// missing until those processes next open or close a topic or an endpoint.
    RegistryRebuilt {
        /// The registry file.
        path: PathBuf,
        /// What was wrong with it.
        reason: String,
    },
}

/// A topic as the watch knows it, by (name, owner of an in-process topic).
type Key = (String, Option<u32>);

struct Known {
    info: TopicInfo,
    /// The process of an in-process topic.
    owner: Option<ProcessId>,
    /// The entry's instance: another one under the same key is another topic.
    instance: u64,
    /// (entry index, entry version) when last read: unchanged means nothing to re-read.
    stamp: Option<(u32, u32)>,
    /// Live endpoints: owner and publisher.
    endpoints: Vec<(ProcessId, bool)>,
}

/// A watch on a domain: see [`watch`].
pub struct Watch {
    domain: u32,
    board: Option<Board>,
    /// Generation last read (None: read everything on the next look).
    seen: Option<u32>,
    topics: BTreeMap<Key, Known>,
    procs: Procs,
    queue: VecDeque<Event>,
    /// Why the last attempt to reach the registry failed (logged once per reason).
    failing: Option<String>,
    /// The domain's directory is gone (removed): so is every topic.
    removed: bool,
}

/// Watches `domain`: topics and endpoints appearing and going, and processes dying, as
/// [`Event`]s from [`Watch::next`]. The first events describe what already exists (each
/// topic, then its endpoints), so nothing is missed between a [`super::list`] and a watch.
///
/// Creates the domain's directory and registry if they do not exist yet. Costs the processes
/// it watches a futex wake-up per change (none when nobody watches); the watch itself wakes at
/// least every [`WATCH_SLICE`] to check the processes it has seen.
pub fn watch(domain: u32) -> Result<Watch, WatchError> {
    let (board, _) = announce::attach(domain, true).map_err(|e| WatchError::Registry {
        domain,
        reason: e.to_string(),
    })?;
    Ok(Watch {
        domain,
        board: Some(board),
        seen: None,
        topics: BTreeMap::new(),
        procs: Procs::default(),
        queue: VecDeque::new(),
        failing: None,
        removed: false,
    })
}

impl Watch {
    /// The domain watched.
    pub fn domain(&self) -> u32 {
        self.domain
    }

    /// The next event, waiting at most `timeout` for one (None: nothing happened).
    pub fn next(&mut self, timeout: Duration) -> Option<Event> {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            if let Some(e) = self.queue.pop_front() {
                return Some(e);
            }
            self.look();
            if !self.queue.is_empty() {
                continue;
            }
            let left = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()),
                None => WATCH_SLICE,
            };
            if left.is_zero() {
                return None;
            }
            self.sleep(left.min(WATCH_SLICE));
        }
    }

    /// The next event, waiting as long as it takes.
    pub fn recv(&mut self) -> Event {
        loop {
            if let Some(e) = self.next(Duration::from_secs(3600)) {
                return e;
            }
        }
    }

    /// The next event if one is ready now (a look at the registry and the processes, no
    /// waiting).
    pub fn try_next(&mut self) -> Option<Event> {
        self.next(Duration::ZERO)
    }

    /// The topics the watch knows now (as of the events returned so far and those queued),
    /// with their live endpoints.
    pub fn topics(&self) -> Vec<TopicInfo> {
        self.topics
            .values()
            .map(|k| {
                let mut info = k.info.clone();
                info.endpoints = k
                    .endpoints
                    .iter()
                    .map(|&(id, publisher)| super::EndpointInfo {
                        publisher,
                        process: id,
                        alive: true,
                        count: 0,
                        lost: 0,
                    })
                    .collect();
                info
            })
            .collect()
    }

    fn sleep(&self, d: Duration) {
        match (&self.board, self.seen) {
            (Some(b), Some(seen)) if b.generation() == seen => b.wait(seen, d),
            (Some(_), Some(_)) => {}
            _ => std::thread::sleep(d),
        }
    }

    /// One look: the registry still ours, processes dead, and what changed.
    fn look(&mut self) {
        self.check_board();
        for id in self.procs.reap() {
            self.died(id);
        }
        let generation = self.board.as_ref().map(Board::generation);
        // Without a registry, nothing is known to have changed, unless the directory went.
        if (generation.is_some() || self.removed)
            && (generation != self.seen || generation.is_none())
        {
            self.refresh();
            self.seen = generation;
        }
    }

    /// Follows the registry when it was replaced (rebuilt by someone), rebuilds it when it is
    /// corrupt, and lets go of it when the domain's directory is gone.
    fn check_board(&mut self) {
        let why = match &self.board {
            Some(b) => match b.check() {
                Ok(()) => return,
                Err(why) => why,
            },
            None => "none yet".into(),
        };
        if let Some(b) = self.board.take() {
            announce::detach_watcher(self.domain, &b);
        }
        self.seen = None;
        for k in self.topics.values_mut() {
            k.stamp = None;
        }
        self.removed = !segment::domain_dir(self.domain).is_dir();
        if self.removed {
            return; // every topic is gone with it (the next refresh says so)
        }
        match announce::attach(self.domain, true) {
            Ok((board, opened)) => {
                if let Opened::Replaced(reason) = opened {
                    self.queue.push_back(Event::RegistryRebuilt {
                        path: board.path().to_owned(),
                        reason,
                    });
                    // This process's own in-process topics go back on it at once.
                    announce::refresh(self.domain);
                }
                self.board = Some(board);
                self.failing = None;
            }
            Err(e) => {
                let e = e.to_string();
                if self.failing.as_ref() != Some(&e) {
                    tracing::warn!(domain = self.domain, error = %e, reason = %why, "cannot reach the domain registry; retrying");
                    self.failing = Some(e);
                }
            }
        }
    }

    /// Process `id` died: its endpoints and in-process topics go.
    fn died(&mut self, id: ProcessId) {
        let mut events = Vec::new();
        let mut gone = Vec::new();
        for (key, k) in self.topics.iter_mut() {
            if k.owner == Some(id) {
                gone.push(key.clone());
                continue;
            }
            k.endpoints.retain(|&(owner, publisher)| {
                if owner == id {
                    events.push(Event::EndpointGone {
                        topic: key.0.clone(),
                        pid: id.pid,
                        publisher,
                    });
                }
                owner != id
            });
        }
        for key in gone {
            self.drop_topic(&key, &mut events);
        }
        if !events.is_empty() {
            self.queue.push_back(Event::ProcessDied { pid: id.pid });
            self.queue.extend(events);
        }
    }

    /// Forgets topic `key`, reporting its endpoints and then itself gone.
    fn drop_topic(&mut self, key: &Key, events: &mut Vec<Event>) {
        if let Some(k) = self.topics.remove(key) {
            for (id, publisher) in k.endpoints {
                events.push(Event::EndpointGone {
                    topic: key.0.clone(),
                    pid: id.pid,
                    publisher,
                });
            }
            events.push(Event::TopicGone {
                name: key.0.clone(),
                owner: key.1,
            });
        }
    }

    /// Reads the registry and diffs it against what the watch knows.
    fn refresh(&mut self) {
        let mut present: BTreeMap<Key, (u32, nerve_shm::board::Entry, u32)> = BTreeMap::new();
        let mut torn = HashSet::new();
        for (i, slot) in self.board.as_ref().map(Board::entries).unwrap_or_default() {
            match slot {
                Slot::Used(e, version) if crate::name::validate(&e.key).is_ok() => {
                    let key = match e.kind {
                        KIND_SHM => (e.key.clone(), None),
                        KIND_HEAP if self.procs.track(e.owner) => {
                            (e.key.clone(), Some(e.owner.pid))
                        }
                        _ => continue,
                    };
                    present.entry(key).or_insert((i, e, version));
                }
                Slot::Torn => {
                    torn.insert(i);
                }
                _ => {}
            }
        }
        let mut events = Vec::new();
        let vanished: Vec<Key> = self
            .topics
            .iter()
            .filter(|(key, k)| {
                !present.contains_key(*key) && !k.stamp.is_some_and(|(i, _)| torn.contains(&i))
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in vanished {
            self.drop_topic(&key, &mut events);
        }
        let dir = segment::domain_dir(self.domain);
        for (key, (index, entry, version)) in present {
            let stamp = Some((index, version));
            match self.topics.get(&key) {
                Some(k) if k.instance == entry.instance && k.stamp == stamp => continue,
                Some(k) if k.instance != entry.instance => self.drop_topic(&key, &mut events),
                _ => {}
            }
            let owner = (entry.kind == KIND_HEAP).then_some(entry.owner);
            let (info, endpoints) = if entry.kind == KIND_SHM {
                let path = dir.join(segment::topic_file(&key.0));
                match peek(&path) {
                    Ok(p) => {
                        let live: Vec<(ProcessId, bool)> = p
                            .records
                            .iter()
                            .filter(|r| {
                                r.state == ENDPOINT_PUBLISHER || r.state == ENDPOINT_SUBSCRIBER
                            })
                            .filter(|r| self.procs.track(r.owner))
                            .map(|r| (r.owner, r.state == ENDPOINT_PUBLISHER))
                            .collect();
                        let mut info = shm_info(key.0.clone(), &path, &p, |_| true);
                        info.endpoints.clear();
                        (info, live)
                    }
                    // Removed, its entry not yet: gone (the entry follows).
                    Err(SegmentError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::NotFound =>
                    {
                        self.drop_topic(&key, &mut events);
                        continue;
                    }
                    Err(e) => (
                        corrupt_info(key.0.clone(), &path, e.to_string()),
                        Vec::new(),
                    ),
                }
            } else {
                let mut info = posted_heap_info(&entry);
                let live = info
                    .endpoints
                    .drain(..)
                    .map(|e| (entry.owner, e.publisher))
                    .collect();
                (info, live)
            };
            let before = match self.topics.remove(&key) {
                Some(k) => k.endpoints,
                None => {
                    events.push(Event::TopicAppeared(info.clone()));
                    Vec::new()
                }
            };
            diff_endpoints(&key.0, &before, &endpoints, &mut events);
            self.topics.insert(
                key,
                Known {
                    info,
                    owner,
                    instance: entry.instance,
                    stamp,
                    endpoints,
                },
            );
        }
        self.queue.extend(events);
        let topics = &self.topics;
        self.procs.retain(|id| {
            topics
                .values()
                .any(|k| k.owner == Some(*id) || k.endpoints.iter().any(|e| e.0 == *id))
        });
    }
}

/// Events for the endpoints in `after` and not in `before` (appeared) and the other way
/// round (gone), counting duplicates (a process may hold several of one kind).
fn diff_endpoints(
    topic: &str,
    before: &[(ProcessId, bool)],
    after: &[(ProcessId, bool)],
    events: &mut Vec<Event>,
) {
    let mut left: Vec<(ProcessId, bool)> = before.to_vec();
    let mut added = Vec::new();
    for e in after {
        match left.iter().position(|b| b == e) {
            Some(i) => {
                left.swap_remove(i);
            }
            None => added.push(*e),
        }
    }
    events.extend(left.into_iter().map(|(id, publisher)| Event::EndpointGone {
        topic: topic.to_owned(),
        pid: id.pid,
        publisher,
    }));
    events.extend(
        added
            .into_iter()
            .map(|(id, publisher)| Event::EndpointAppeared {
                topic: topic.to_owned(),
                pid: id.pid,
                publisher,
            }),
    );
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(b) = &self.board {
            announce::detach_watcher(self.domain, b);
        }
    }
}
