//! # nerve: robotics middleware with messages at memory speed
//!
//! Nodes exchange messages through **topics**: named broadcast channels that live in shared
//! memory (`/dev/shm`, no broker, no daemon) or, for endpoints of one process, on the heap.
//!
//! ```
//! use nerve::prelude::*;
//! # std::env::set_var("NERVE_DOMAIN", "4242");
//! let topic = Topic::<CmdVel>::builder("doc/cmd_vel").depth(8).open()?;
//! let publisher = topic.publisher()?;
//! let mut subscriber = topic.subscriber()?;
//! publisher.send(&CmdVel { stamp_ns: 1, linear: 0.5, angular: 0.1 })?;
//! let cmd = subscriber.recv_timeout(std::time::Duration::from_secs(1))?.expect("a message");
//! assert_eq!(cmd.linear, 0.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Three kinds of message:
//! - fixed-size `#[repr(C)]` Pod types (every type in [`msgs`] without a payload): one memcpy;
//! - chunked types ([`msgs::Image`], [`msgs::LaserScan`], [`msgs::PointCloud`], …): the
//!   publisher **loans** a chunk of shared memory, fills it in place and sends a 16-byte
//!   descriptor, so publishing costs the same for 16 bytes and 6 MB; subscribers read a
//!   [`Sample`] in place;
//! - any serde type as MessagePack through [`Msgpack`].
//!
//! QoS per topic: `depth`, best-effort (default; a lapped subscriber counts its loss),
//! reliable (publishers wait or get `Full`), latest-only. Subscribers count received, lost and
//! dropped messages ([`SubscriberStats`]).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod core;
pub mod error;
mod msgpack;
pub mod name;
pub mod raw;
pub mod registry;
pub mod time;
mod topic;

pub use crate::core::{
    SubscriberStats, TransportPath, DEFAULT_CHUNK_BYTES, DEFAULT_DEPTH, DEFAULT_MAX_ENDPOINTS,
    DEFAULT_SPIN,
};
pub use error::{LoanError, OpenError, RecvError, SendError};
pub use msgpack::Msgpack;
pub use nerve_msgs as msgs;
pub use nerve_msgs::{fixed_message, ChunkedMessage, FixedMessage, Message};
pub use nerve_shm::Reliability;
pub use topic::{default_domain, Codec, Loan, Publisher, Sample, Subscriber, Topic, TopicBuilder};

/// Everything a node usually needs.
pub mod prelude {
    pub use crate::error::{OpenError, RecvError, SendError};
    pub use crate::msgs::*;
    pub use crate::{
        Loan, Msgpack, Publisher, Reliability, Sample, Subscriber, SubscriberStats, Topic,
    };
}
