//! Internal crate of nerve: topics (fixed, chunked and MessagePack messages), QoS, blocking
//! receive, the registry and the raw API for other languages. Users import the `nerve` facade,
//! which re-exports all of this.
#![warn(missing_docs)]

// The cores every front end stands on (dependency order: each file uses only those above it).
mod description;
mod endpoint;
mod heap;
mod loan;
mod msgpack;
mod open;
mod publish;
pub mod remote;
mod sample;
mod shared;
mod solo;
mod subscribe;
// The front ends: typed topics, untyped topics, discovery.
pub mod document;
pub mod error;
pub mod name;
pub mod raw;
pub mod registry;
pub mod sys;
pub mod time;
mod topic;
pub mod values;

pub use crate::loan::Loan;
pub use crate::open::{MAX_CHUNKS, MAX_DEPTH, MAX_ENDPOINTS, MAX_FIXED_BYTES, MAX_MESSAGE_BYTES};
pub use crate::sample::Sample;
pub use crate::shared::{TransportPath, DEFAULT_CHUNK_BYTES, DEFAULT_DEPTH, DEFAULT_MAX_ENDPOINTS};
pub use crate::subscribe::{Codec, Received, SubscriberStats, DEFAULT_SPIN};
pub use error::{LoanError, OpenError, RecvError, SendError, WatchError};
pub use msgpack::Msgpack;
pub use nerve_msgs as msgs;
pub use nerve_msgs::{ChunkedMessage, FixedMessage, Message};
pub use nerve_shm::Reliability;
pub use topic::{default_domain, Publisher, Subscriber, Topic, TopicBuilder};

/// Whether this process can use the single-publisher fast path (a lone publisher claims
/// messages with plain stores). It needs `membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)` (Linux
/// 4.16+, not forbidden by a sandbox) and is off with `NERVE_NO_SOLO=1`; without it every
/// publisher uses locked claims, which is correct, only slower.
pub fn solo_publishing_available() -> bool {
    nerve_shm::barrier::register()
}

/// Everything a node usually needs.
pub mod prelude {
    pub use crate::error::{OpenError, RecvError, SendError};
    pub use crate::msgs::*;
    pub use crate::{
        Loan, Msgpack, Publisher, Reliability, Sample, Subscriber, SubscriberStats, Topic,
    };
}
