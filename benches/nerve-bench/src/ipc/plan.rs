//! The scenarios of the `ipc` suite, in the order they run: the payload sweep, the seeds'
//! message types, topologies, services, throughput and topic scaling, each in both wait modes.

use super::payload::Check;
use super::{Mode, Spec, SystemKind, Transport};
use std::sync::atomic::{AtomicU64, Ordering};

/// One scenario, without the system.
#[derive(Clone, Debug)]
pub(super) struct Scenario {
    pub(super) transport: Transport,
    pub(super) mode: Mode,
    pub(super) publishers: u32,
    pub(super) subscribers: u32,
    pub(super) payload: usize,
    pub(super) message: &'static str,
    pub(super) check: Check,
    pub(super) topics: usize,
    /// `Some(W)`: throughput with windows of W messages; `None`: latency.
    pub(super) throughput: Option<u32>,
    /// Part of the topic-scaling series (rows carry `topics`).
    pub(super) scaling: bool,
}

impl Scenario {
    pub(super) fn describe(&self) -> String {
        let what = match self.throughput {
            Some(w) => format!("throughput window={w}"),
            None => "latency".into(),
        };
        format!(
            "{} {} {}:{} {} {} B topics={}{} {what}",
            self.transport.name(),
            self.mode.name(),
            self.publishers,
            self.subscribers,
            self.message,
            self.payload,
            self.topics,
            if self.scaling { " (scaling)" } else { "" }
        )
    }

    pub(super) fn spec(&self, system: SystemKind) -> Spec {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        Spec {
            system,
            transport: self.transport,
            mode: self.mode,
            publishers: self.publishers,
            subscribers: self.subscribers,
            payload: self.payload,
            message: self.message.to_string(),
            check: self.check,
            topics: self.topics,
            window: self.throughput.unwrap_or(1),
            name: format!("nb-{}-{n}-{}", std::process::id(), system.cli_name()),
        }
    }
}

/// Payload sweep sizes (docs/benchmarking.md).
pub(super) const SIZES: [usize; 8] = [16, 64, 256, 1024, 4096, 64 << 10, 1 << 20, 6 << 20];
/// The seeds' message types at their sizes in nerve (peers send that many bytes).
pub(super) const TYPES: [(&str, usize); 8] = [
    ("CmdVel", size_of::<nerve::msgs::CmdVel>()),
    ("BatteryState", size_of::<nerve::msgs::BatteryState>()),
    ("Imu", size_of::<nerve::msgs::Imu>()),
    ("Odometry", size_of::<nerve::msgs::Odometry>()),
    ("LaserScan", super::nerve::laser_bytes()),
    ("PointCloud-100", super::nerve::cloud_bytes(100)),
    ("PointCloud-1000", super::nerve::cloud_bytes(1000)),
    ("PointCloud-10000", super::nerve::cloud_bytes(10_000)),
];
/// HORUS's "latency by topology and message size" sizes beyond 16 B (its 8 B is below the
/// 16-byte check header every benchmark message carries; 16 B stands in for it).
pub(super) const TOPOLOGY_SIZES: [usize; 2] = [256, 1024];
/// The `rpc` suite's request sizes: the topic round trip a service round trip is compared with.
pub(super) const SERVICE_SIZES: [usize; 3] = [512, 2048, 8192];
/// Throughput sizes: the sweep up to the seed's 16 KB (larger windows of larger messages
/// would need a chunk pool of gigabytes).
pub(super) const THROUGHPUT_SIZES: [usize; 6] = [16, 64, 256, 1024, 4096, 16 << 10];
pub(super) const TRANSPORTS: [Transport; 3] = [
    Transport::SameThread,
    Transport::CrossThread,
    Transport::CrossProcess,
];
pub(super) const MODES: [Mode; 2] = [Mode::Poll, Mode::Blocking];
/// Messages in flight per acknowledgement in the throughput scenario.
pub(super) const THROUGHPUT_WINDOW: u32 = 1024;

/// Messages in flight per acknowledgement for `payload`-byte messages: [`THROUGHPUT_WINDOW`],
/// or fewer so that a window stays within 16 MiB (the rings hold two windows).
pub(super) fn throughput_window(payload: usize) -> u32 {
    let fit = (16 << 20) / payload.max(1);
    u32::try_from(fit)
        .unwrap_or(u32::MAX)
        .clamp(8, THROUGHPUT_WINDOW)
}

/// The scenarios of the suite, in the order they run.
pub(super) fn plan() -> Vec<Scenario> {
    let base = Scenario {
        transport: Transport::CrossProcess,
        mode: Mode::Poll,
        publishers: 1,
        subscribers: 1,
        payload: 16,
        message: "bytes",
        check: Check::Edges,
        topics: 1,
        throughput: None,
        scaling: false,
    };
    let mut out = Vec::new();
    // Payload sweep and message types: 1:1, every transport and mode, edges checked.
    for transport in TRANSPORTS {
        for mode in MODES {
            for payload in SIZES {
                out.push(Scenario {
                    transport,
                    mode,
                    payload,
                    ..base.clone()
                });
            }
            for (message, payload) in TYPES {
                out.push(Scenario {
                    transport,
                    mode,
                    payload,
                    message,
                    ..base.clone()
                });
            }
        }
    }
    // Topic round trips at the service suite's sizes, 1:1, in-host transports.
    for transport in [Transport::CrossThread, Transport::CrossProcess] {
        for mode in MODES {
            for payload in SERVICE_SIZES {
                out.push(Scenario {
                    transport,
                    mode,
                    payload,
                    ..base.clone()
                });
            }
        }
    }
    // Every byte read: cross-process, busy-poll.
    for payload in SIZES {
        out.push(Scenario {
            payload,
            message: "bytes-readall",
            check: Check::ReadAll,
            ..base.clone()
        });
    }
    // N:M topologies, 16 B.
    const NM: [(u32, u32); 3] = [(3, 1), (1, 3), (3, 3)];
    for transport in TRANSPORTS {
        for mode in MODES {
            for (publishers, subscribers) in NM {
                out.push(Scenario {
                    transport,
                    mode,
                    publishers,
                    subscribers,
                    ..base.clone()
                });
            }
        }
    }
    // N:M topologies at the larger sizes, and every message type N:N: cross-process, where
    // nerve's users put their nodes.
    for mode in MODES {
        for payload in TOPOLOGY_SIZES {
            for (publishers, subscribers) in NM {
                out.push(Scenario {
                    mode,
                    publishers,
                    subscribers,
                    payload,
                    ..base.clone()
                });
            }
        }
        for (message, payload) in TYPES {
            out.push(Scenario {
                mode,
                publishers: 3,
                subscribers: 3,
                message,
                payload,
                ..base.clone()
            });
        }
    }
    // Throughput, 1:1: both in-host transports at 16 B; cross-process by size and type.
    for transport in [Transport::CrossThread, Transport::CrossProcess] {
        for mode in MODES {
            out.push(Scenario {
                transport,
                mode,
                throughput: Some(THROUGHPUT_WINDOW),
                ..base.clone()
            });
        }
    }
    let sized = THROUGHPUT_SIZES.into_iter().skip(1).map(|p| ("bytes", p));
    for (message, payload) in sized.chain(TYPES) {
        out.push(Scenario {
            message,
            payload,
            throughput: Some(throughput_window(payload)),
            ..base.clone()
        });
    }
    // Topic scaling: 16 B 1:1 latency on one topic while others are alive.
    for topics in [1, 10, 100, 500, 1000] {
        out.push(Scenario {
            topics,
            scaling: true,
            ..base.clone()
        });
    }
    out
}

/// Blocks per round for `one_way_batch_mean_ns` (poll mode only) and round trips per block:
/// the round's per-sample count split into 10 blocks, so one preemption spoils one block, not
/// the round.
pub(super) fn batch_blocks(mode: Mode, steps: u64) -> (u64, u64) {
    match mode {
        Mode::Poll => {
            let blocks = steps.clamp(1, 10);
            (blocks, (steps / blocks).max(1))
        }
        Mode::Blocking => (0, 0),
    }
}
