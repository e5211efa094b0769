//! # nerve: robotics middleware with messages at memory speed
//!
//! Nodes exchange messages through **topics**: named broadcast channels that live in shared
//! memory (`/dev/shm`, no broker, no daemon) or, for endpoints of one process, on the heap.
//!
//! ```
//! use nerve::msgs::CmdVel;
//! use nerve::prelude::*;
//! # std::env::set_var("NERVE_DOMAIN", "4242");
//! let topic = Topic::<CmdVel>::builder("doc/cmd_vel").depth(8).open()?;
//! let publisher = topic.publisher()?;
//! let mut subscriber = topic.subscriber()?;
//! publisher.send(&CmdVel { stamp_ns: nerve::time::now_ns(), linear: 0.5, angular: 0.1 })?;
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
//!   [`Sample`] in place:
//!
//! ```
//! use nerve::msgs::{Encoding, Header, Image, ImageHeader};
//! use nerve::prelude::*;
//! # std::env::set_var("NERVE_DOMAIN", "4243");
//! let topic = Topic::<Image>::builder("doc/camera").open()?;
//! let (camera, mut viewer) = (topic.publisher()?, topic.subscriber()?);
//! let mut frame = camera.loan(640 * 480 * 3)?;
//! *frame.header_mut() = ImageHeader::new(Header::new(0, 0, "camera")?, 640, 480, Encoding::Rgb8);
//! frame.data_mut().fill(128); // the driver writes straight into shared memory
//! frame.send()?;              // O(1) in the frame size
//! let sample = viewer.try_recv()?.expect("a frame");
//! assert_eq!((sample.header().width, sample.data()[0]), (640, 128));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! - any serde type as MessagePack through [`Msgpack`].
//!
//! QoS per topic: `depth`, best-effort (default; a lapped subscriber counts its loss),
//! reliable (publishers wait or get `Full`), latest-only. Subscribers count received, lost and
//! dropped messages ([`SubscriberStats`]).
//!
//! Tools see a domain's topics come and go through [`registry`]: [`registry::list`] for what
//! exists now, [`registry::watch`] for events (a topic or an endpoint appeared or went, a
//! process died), woken by every change with no polling:
//!
//! ```
//! use nerve::registry::{self, Event};
//! # let domain = 4244;
//! let mut watch = registry::watch(domain)?;
//! let topic = nerve::Topic::<nerve::msgs::CmdVel>::builder("doc/seen").domain(domain).open()?;
//! match watch.next(std::time::Duration::from_secs(1)) {
//!     Some(Event::TopicAppeared(info)) => assert_eq!(info.name, "doc/seen"),
//!     other => panic!("{other:?}"),
//! }
//! # drop(topic); let _ = std::fs::remove_dir_all(registry::domain_dir(domain));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Nodes and the scheduler are in [`exec`]: rates on an absolute timeline, deadlines measured
//! from the planned start, miss and failure policies, a watchdog, an e-stop any process can
//! trigger, deterministic simulated time, and async tasks. Services, actions and parameters are
//! in [`rpc`].
//!
//! ```
//! use nerve::prelude::*;
//! struct Blink(u32);
//! impl Node for Blink {
//!     fn name(&self) -> &str { "blink" }
//!     fn tick(&mut self, _ctx: &mut Context<'_>) { self.0 += 1; }
//! }
//! let mut sched = Scheduler::builder().print_stats(false).node(Blink(0)).rate(100.0).build()?;
//! sched.run_for(std::time::Duration::from_millis(50))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

// One public path per name: the topic API at the root, messages in `msgs`, nodes in `exec`,
// services in `rpc`; the prelude is the one second path, for the dozen names most programs use.
// The message traits are also in `msgs`, where `#[derive(Message)]`'s expansion names them.

/// Standard messages (`Header`, `Imu`, `Image`, …), the message traits, the derive, and the
/// modules that describe types at run time (`schema`, `described`, `dynamic`, `declare`,
/// `serde_doc`).
pub use nerve_transport::msgs;

pub use nerve_transport::{document, name, raw, registry, remote, time, values};

pub use nerve_transport::msgs::{ChunkedMessage, FixedMessage, Message};
pub use nerve_transport::{
    default_domain, solo_publishing_available, Codec, Loan, LoanError, Msgpack, OpenError,
    Publisher, Received, RecvError, Reliability, Sample, SendError, Subscriber, SubscriberStats,
    Topic, TopicBuilder, TransportPath, WatchError, DEFAULT_CHUNK_BYTES, DEFAULT_DEPTH,
    DEFAULT_MAX_ENDPOINTS, DEFAULT_SPIN, MAX_CHUNKS, MAX_DEPTH, MAX_ENDPOINTS, MAX_FIXED_BYTES,
    MAX_MESSAGE_BYTES,
};

/// Logs as a topic: records of every process on `nerve/log`, a `tracing` layer.
pub mod log;
pub mod plumbing;

// No echo loops for bridges (both, Zenoh's and ROS 2's, use it; the transport knows nothing
// of bridges): its docs are the module's own.
pub mod echo;

/// Nodes, the scheduler, e-stop, deterministic mode and async tasks.
pub mod exec {
    pub use nerve_exec::aio;
    pub use nerve_exec::announce;
    pub use nerve_exec::{
        format_table, trigger_remote_estop, BuildError, Context, EStop, EStopMsg, ExecClass,
        FailurePolicy, HangPolicy, Histogram, Inbox, MissPolicy, Node, NodeEntry, NodeError,
        NodeStats, Notify, RtAction, RtReport, RunError, Scheduler, SchedulerBuilder,
        SchedulerHandle, SimClock, StopReason, Summary, TopicSource, WakeSource, ESTOP_REASON_LEN,
        ESTOP_TOPIC,
    };
}

/// Services, actions and parameters.
pub mod rpc {
    pub use nerve_rpc::discovery;
    pub use nerve_rpc::{
        ActionBuilder, ActionClient, ActionError, ActionServer, CallError, Client, ClientSide,
        DeferredHandler, Failure, GoalContext, GoalHandle, GoalOutcome, GoalResult, GoalStatus,
        ParamClient, ParamDescriptor, ParamError, ParamInfo, ParamRange, ParamServer, ParamType,
        ParamValue, Parameters, Payload, RawClient, RawHandler, RawResult, Responder, ServeError,
        Server, ServerBuilder, ServerSide, ServerStats, Service, ServiceBuilder, ServiceConfig,
    };
}

/// Operating-system plumbing nerve's own front ends share (bindings, tools): the poisoned-lock
/// policy ([`sys::lock`]: recover, never unwrap) and process identities. Applications do not
/// need it.
#[doc(hidden)]
pub mod sys {
    pub use nerve_transport::sys::{liveness, lock, scope, ProcessId};
}

/// The names most programs use, `use nerve::prelude::*;`: topics, their errors, the message
/// traits and derive, nodes and the scheduler. Message types come from [`msgs`] by name.
pub mod prelude {
    pub use nerve_exec::{Context, Node, Scheduler};
    pub use nerve_transport::msgs::{FixedMessage, Message};
    pub use nerve_transport::{
        Msgpack, OpenError, Publisher, RecvError, Reliability, SendError, Subscriber, Topic,
    };
}
