//! Internal crate of nerve: shared-memory segments, lock-free broadcast rings, chunk pools and
//! futex wait/wake. Users reach all of this through the `nerve` facade.
//!
//! Every layout here is generic over a [`Region`]: a heap buffer in unit tests (run under miri)
//! and a `/dev/shm` mapping in production. Every byte read from a region is untrusted: headers
//! are validated before any offset in them is followed.
#![warn(missing_docs)]

pub mod barrier;
pub mod board;
pub mod region;

pub use region::{HeapRegion, Region, REGION_ALIGN};
pub mod futex;
pub mod layout;
pub mod liveness;
pub mod peek;
pub mod pool;
pub mod ring;
pub mod scope;
pub mod segment;
pub mod sigbus;
pub mod snapshot;
mod words;

pub use layout::{Reliability, StoredType, TopicConfig, TopicParams};
pub use liveness::ProcessId;
pub use pool::{ChunkId, Pool};
pub use ring::{Claim, Claimed, Read, Ring, SOLO_SHARED, WAITER};
