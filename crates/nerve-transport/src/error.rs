//! One small error enum per operation. Every message names the topic, says what happened and
//! what to do about it.

use std::path::PathBuf;

/// Opening a topic, publisher or subscriber failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The topic name is not valid.
    #[error("invalid topic name {name:?}: {reason}. Use 1-200 characters from [A-Za-z0-9_./-], not starting with '/' or '.', e.g. \"robot/cmd_vel\"")]
    InvalidName {
        /// The rejected name.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// The topic does not exist (opening an existing topic as it is).
    #[error("topic '{topic}' does not exist in domain {domain}. `nerve topic list --domain {domain}` shows the topics there; check the name and NERVE_DOMAIN")]
    NotFound {
        /// The topic.
        topic: String,
        /// The domain looked in.
        domain: u32,
    },
    /// The topic exists with another message type.
    #[error("topic '{topic}' carries {found}, but this endpoint uses {expected}{difference}. Use the same message type (and the same nerve version) in every process on this topic, or pick another topic name")]
    TypeMismatch {
        /// The topic.
        topic: String,
        /// The type this endpoint asked for.
        expected: String,
        /// The type the topic was created with.
        found: String,
        /// The first field that differs, as " (first difference: …)", when both types
        /// describe themselves; else "".
        difference: String,
    },
    /// The topic exists with another QoS than the one explicitly requested.
    #[error("topic '{topic}' was created with {found}, but this endpoint asked for {requested}. Request the same QoS everywhere, or leave it unset to adopt the topic's")]
    QosMismatch {
        /// The topic.
        topic: String,
        /// What was asked.
        requested: String,
        /// What the topic has.
        found: String,
    },
    /// The shared-memory segment failed validation (garbage, another program's file, or a
    /// newer layout).
    #[error("topic '{topic}': the shared-memory segment {path} is invalid ({reason}). If no nerve process is using it, run `nerve clean --domain {domain}` or delete the file")]
    Corrupt {
        /// The topic.
        topic: String,
        /// The file.
        path: PathBuf,
        /// What validation rejected.
        reason: String,
        /// The domain.
        domain: u32,
    },
    /// Every endpoint record of the topic is in use by a live process.
    #[error("topic '{topic}' has no free endpoint record ({max} in use). Create the topic with a larger .max_endpoints(n)")]
    TooManyEndpoints {
        /// The topic.
        topic: String,
        /// Records in the segment.
        max: u32,
    },
    /// A configuration value is out of range.
    #[error("topic '{topic}': {reason}")]
    InvalidConfig {
        /// The topic.
        topic: String,
        /// What is wrong.
        reason: String,
    },
    /// The shared-memory file system has no room for the topic's segment.
    #[error("topic '{topic}': /dev/shm has {free} bytes free, the segment needs {needed}. Free space (`nerve clean` removes what dead processes left, `df -h /dev/shm` shows who uses it), or create the topic smaller (.depth(n), .max_message_bytes(n), .chunks(n))")]
    NoSpace {
        /// The topic.
        topic: String,
        /// Bytes the segment needs.
        needed: u64,
        /// Bytes free on the file system.
        free: u64,
    },
    /// A live process holds something the open has to wait for, and did not let go in time.
    #[error("topic '{topic}': {what} held by pid {pid} was not released within {waited:?}. If that process is stuck, stop it; `nerve topic info {topic}` shows the topic's processes")]
    Busy {
        /// The topic.
        topic: String,
        /// What is held.
        what: &'static str,
        /// The holder's pid.
        pid: u32,
        /// How long the open waited.
        waited: std::time::Duration,
    },
    /// The operating system refused.
    #[error("topic '{topic}': {source}. Check that /dev/shm is mounted and writable (or set NERVE_SHM_DIR)")]
    Io {
        /// The topic.
        topic: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Sending failed; the message is given back where there is one.
#[derive(Debug, thiserror::Error)]
pub enum SendError<T> {
    /// Reliable topic: the slowest live subscriber stayed a full ring behind for the whole
    /// timeout.
    #[error("topic '{topic}' is full: the slowest subscriber is {depth} messages behind. Raise .depth(n), speed the subscriber up, or use best-effort")]
    Full {
        /// The message, given back.
        msg: T,
        /// The topic.
        topic: String,
        /// The ring depth.
        depth: u64,
    },
    /// The message does not fit.
    #[error("topic '{topic}': message of {size} bytes exceeds the limit of {limit} bytes. Raise it with Topic::builder(..).max_message_bytes({size}) when the topic is first created")]
    TooLarge {
        /// The topic.
        topic: String,
        /// Bytes needed.
        size: usize,
        /// Bytes allowed.
        limit: usize,
    },
    /// Every chunk of the topic's pool is in use.
    #[error("topic '{topic}': all {chunks} shared chunks are in use (subscribers hold samples, or loans are not sent). Drop samples sooner, or raise .chunks(n) when the topic is first created")]
    PoolExhausted {
        /// The topic.
        topic: String,
        /// Chunks in the pool.
        chunks: u32,
    },
    /// The shared-memory file system is full: the chunk could not be given memory (writing it
    /// would have raised SIGBUS). Nothing was sent.
    #[error("topic '{topic}': /dev/shm is full ({free} bytes free) and a chunk of {needed} bytes could not be allocated. Free space (`nerve clean` removes what dead processes left, `df -h /dev/shm` shows who uses it)")]
    NoSpace {
        /// The topic.
        topic: String,
        /// Bytes the loan needed.
        needed: usize,
        /// Bytes free on the file system.
        free: u64,
    },
    /// The value could not be serialized.
    #[error("topic '{topic}': cannot serialize the message: {reason}")]
    Encode {
        /// The topic.
        topic: String,
        /// The encoder's message.
        reason: String,
    },
    /// The topic's shared memory can no longer be trusted (truncated, or written by something
    /// that is not nerve): nothing was sent.
    #[error("topic '{topic}': its shared memory is damaged ({reason}). Stop the topic's processes, run `nerve clean`, and restart them")]
    Corrupt {
        /// The topic.
        topic: String,
        /// What was found.
        reason: String,
    },
}

impl<T> SendError<T> {
    /// The message, if this error carries one.
    pub fn into_inner(self) -> Option<T> {
        match self {
            SendError::Full { msg, .. } => Some(msg),
            _ => None,
        }
    }

    /// Drops the message, keeping the error (for `?` across message types).
    pub fn discard(self) -> SendError<()> {
        match self {
            SendError::Full { topic, depth, .. } => SendError::Full {
                msg: (),
                topic,
                depth,
            },
            SendError::TooLarge { topic, size, limit } => {
                SendError::TooLarge { topic, size, limit }
            }
            SendError::PoolExhausted { topic, chunks } => {
                SendError::PoolExhausted { topic, chunks }
            }
            SendError::Encode { topic, reason } => SendError::Encode { topic, reason },
            SendError::Corrupt { topic, reason } => SendError::Corrupt { topic, reason },
            SendError::NoSpace {
                topic,
                needed,
                free,
            } => SendError::NoSpace {
                topic,
                needed,
                free,
            },
        }
    }
}

/// Loaning a chunk failed.
pub type LoanError = SendError<()>;

/// Receiving failed.
#[derive(Debug, thiserror::Error)]
pub enum RecvError {
    /// `recv` with a deadline reached it.
    #[error("topic '{topic}': no message within {timeout:?}")]
    Timeout {
        /// The topic.
        topic: String,
        /// The timeout.
        timeout: std::time::Duration,
    },
    /// A serialized message could not be decoded into the requested type.
    #[error("topic '{topic}': cannot decode message: {reason}. Publisher and subscriber must agree on the message's fields")]
    Decode {
        /// The topic.
        topic: String,
        /// The decoder's message.
        reason: String,
    },
    /// The topic's shared memory can no longer be trusted (truncated under this process, or
    /// written by something that is not nerve). Single bad messages are not errors: they are
    /// skipped and counted in `SubscriberStats::corrupt`.
    #[error("topic '{topic}': its shared memory is damaged ({reason}). Stop the topic's processes, run `nerve clean`, and restart them")]
    Corrupt {
        /// The topic.
        topic: String,
        /// What was found.
        reason: String,
    },
}

/// Watching a domain failed to start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The domain's registry could not be created or opened.
    #[error("cannot watch domain {domain}: {reason}. Check that /dev/shm (or $NERVE_SHM_DIR) is writable by this user and has room")]
    Registry {
        /// The domain.
        domain: u32,
        /// What failed, naming the file.
        reason: String,
    },
}
