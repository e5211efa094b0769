//! Recording nerve topics to MCAP files and replaying them (`nerve record`, `nerve play`,
//! `nerve bag info | recover`).
//!
//! A recording is an MCAP file (chunked, indexed, zstd, lz4 or no compression): one channel per
//! topic, whose schema is the description the topic carries (encoding [`SCHEMA_ENCODING`]:
//! a layout description, a MessagePack type's fields, or empty) and whose metadata holds the
//! stored type and QoS ([`TopicMeta`]), so a topic is replayed exactly as it was, type checks
//! and all, by a process that was never compiled against it. Messages are written in
//! [`MESSAGE_ENCODING`]: a fixed message's bytes; a chunked message as it lies in its chunk,
//! header, zero padding to the next multiple of 64, payload (written straight from shared
//! memory). Standard types are written as their ROS 2 counterparts instead (`ros2msg` schema,
//! CDR payload: the `nerve-ros2` crate), unless asked for nerve's own encoding, so other tools decode them;
//! the channel metadata still says which nerve type they are.
//!
//! Files: `record.rs` ([`record::Recorder`]), `play.rs` ([`play::Player`]), `inspect.rs`
//! ([`inspect::info`], [`inspect::recover`]), `file.rs` ([`file::read_all`], what Python's
//! reader uses), and `reader.rs`, the one walk every reader stands on: a recording is hostile
//! input, and each length it declares is checked against the bytes that hold it and against
//! [`reader::RECORD_LIMIT`] before anything is allocated ([`reader::Damage`] says where not).

mod direct;
pub mod file;
pub mod inspect;
pub mod play;
pub mod reader;
pub mod record;
pub mod sim;

/// Chunk compression of a recording (zstd, lz4; `None`: none).
pub use mcap::Compression;

use std::path::{Path, PathBuf};

/// The schema encoding of a nerve channel: the description bytes a topic carries.
pub const SCHEMA_ENCODING: &str = "nerve.description";
/// The message encoding of a nerve channel (see the crate docs).
pub const MESSAGE_ENCODING: &str = "nerve";
/// The MCAP profile nerve writes.
pub const PROFILE: &str = "nerve";
/// The metadata record that holds, per topic, the messages the recorder lost.
pub const LOSS_METADATA: &str = "nerve.loss";

/// Why a recording could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum BagError {
    /// A file could not be opened, written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The MCAP layer refused (a damaged file, a write that failed).
    #[error("{path}: {reason}")]
    Mcap {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A topic could not be opened.
    #[error(transparent)]
    Topic(#[from] nerve::OpenError),
    /// A recording holds something this nerve cannot replay.
    #[error("{path}: {reason}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What and where.
        reason: String,
    },
}

pub(crate) fn mcap_err(path: &Path, e: impl std::fmt::Display) -> BagError {
    BagError::Mcap {
        path: path.to_owned(),
        reason: e.to_string(),
    }
}

/// What a channel's metadata says of its topic (kept as the channel's metadata).
pub use nerve::raw::TopicMeta;

/// Adds `topic`'s channel to `w`: a standard type's ROS 2 form (`ros2msg` schema, CDR) when
/// `ros2` is given, else nerve's own (the description `description`, nerve's encoding); the
/// metadata is `meta`'s either way.
pub(crate) fn add_channel<W: std::io::Write + std::io::Seek>(
    w: &mut mcap::Writer<W>,
    topic: &str,
    meta: &TopicMeta,
    description: &[u8],
    ros2: Option<&nerve_ros2::Ros2Type>,
) -> mcap::McapResult<u16> {
    let (name, encoding, data, message_encoding) = match ros2 {
        Some(r) => (
            r.name,
            nerve_ros2::ROS2_SCHEMA_ENCODING,
            r.schema.as_bytes(),
            nerve_ros2::CDR,
        ),
        None => (
            meta.stored_type.name.as_str(),
            SCHEMA_ENCODING,
            description,
            MESSAGE_ENCODING,
        ),
    };
    let schema = w.add_schema(name, encoding, data)?;
    w.add_channel(schema, topic, message_encoding, &meta.to_metadata())
}
