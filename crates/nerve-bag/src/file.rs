//! Reading and writing recordings without a running graph (what `nerve.bag.Reader` and
//! `Writer` in Python use): every message in nerve's layout, whatever encoding the file holds
//! it in.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use mcap::records::MessageHeader;
use mcap::{Compression, WriteOptions};
use nerve::msgs::described::TypeDoc;
use nerve::msgs::MessageKind;
use nerve::raw::chunk_data_offset;

use crate::{mcap_err, BagError, TopicMeta, MESSAGE_ENCODING, PROFILE, SCHEMA_ENCODING};
use nerve_ros2::{Ros2Type, CDR};

/// One message of a recording, in nerve's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct NerveMessage {
    /// Its topic.
    pub topic: String,
    /// The topic's stored type and QoS.
    pub meta: TopicMeta,
    /// The type's description (empty when the recording has none).
    pub description: Vec<u8>,
    /// When it was recorded (ns since the Unix epoch).
    pub log_time: u64,
    /// A fixed message's bytes, or a chunked message's header.
    pub fixed: Vec<u8>,
    /// A chunked message's payload (empty for a fixed message).
    pub payload: Vec<u8>,
}

struct ChannelView {
    meta: TopicMeta,
    description: Vec<u8>,
    ros2: Option<(Ros2Type, TypeDoc)>,
}

/// Every message of `path`, in the file's order.
pub fn read_all(path: &Path) -> Result<Vec<NerveMessage>, BagError> {
    read_from(path, crate::inspect::messages(path, false)?)
}

/// [`read_all`] of a recording held in memory, read by the same code as a file (errors name it
/// `(recording in memory)`; the fuzz test in `tests/fuzz.rs` drives it).
pub fn read_bytes(bytes: &[u8]) -> Result<Vec<NerveMessage>, BagError> {
    let (input, len) = crate::reader::in_memory(bytes)?;
    let messages = crate::reader::Messages::new(input, len, false);
    read_from(Path::new(crate::reader::IN_MEMORY), messages)
}

/// Every message `messages` (of the file `path`) yields, in nerve's layout.
fn read_from(
    path: &Path,
    messages: impl Iterator<Item = Result<mcap::Message<'static>, crate::reader::Damage>>,
) -> Result<Vec<NerveMessage>, BagError> {
    let mut channels: BTreeMap<u16, ChannelView> = BTreeMap::new();
    let mut out = Vec::new();
    for m in messages {
        let m = m.map_err(|e| mcap_err(path, e))?;
        let bad = |reason: String| BagError::Unreadable {
            path: path.to_owned(),
            reason: format!("topic '{}': {reason}", m.channel.topic),
        };
        if let std::collections::btree_map::Entry::Vacant(slot) = channels.entry(m.channel.id) {
            let meta = TopicMeta::from_metadata(&m.channel.metadata).map_err(bad)?;
            let t = &meta.stored_type;
            let (description, ros2) = match m.channel.message_encoding.as_str() {
                MESSAGE_ENCODING => (
                    m.channel
                        .schema
                        .as_ref()
                        .filter(|s| s.encoding == SCHEMA_ENCODING)
                        .map_or(Vec::new(), |s| s.data.to_vec()),
                    None,
                ),
                CDR => {
                    let standard = nerve::msgs::standard(&t.name, t.layout_hash)
                        .ok_or_else(|| bad(format!("{} is not a standard type", t.name)))?;
                    let r = Ros2Type::of(&t.name)
                        .ok_or_else(|| bad(format!("{} has no ROS 2 form here", t.name)))?;
                    let doc = TypeDoc::of(standard);
                    (doc.to_bytes(), Some((r, doc)))
                }
                other => return Err(bad(format!("messages in {other:?}"))),
            };
            slot.insert(ChannelView {
                meta,
                description,
                ros2,
            });
        }
        let ch = &channels[&m.channel.id];
        let (fixed, payload) = match &ch.ros2 {
            Some((r, doc)) => {
                let (fixed, payload) = r.to_nerve(doc, &m.data).map_err(bad)?;
                (fixed, payload.into_owned())
            }
            None => {
                let (fixed, payload) = ch.meta.split(&m.data).map_err(bad)?;
                (fixed.to_vec(), payload.to_vec())
            }
        };
        out.push(NerveMessage {
            topic: m.channel.topic.clone(),
            meta: ch.meta.clone(),
            description: ch.description.clone(),
            log_time: m.log_time,
            fixed,
            payload,
        });
    }
    Ok(out)
}

type WrittenChannel = (u16, Option<(Ros2Type, TypeDoc)>, TopicMeta);

/// Writes a recording message by message (standard types as their ROS 2 counterparts).
pub struct BagWriter {
    path: PathBuf,
    writer: mcap::Writer<BufWriter<File>>,
    /// By topic: the channel, the ROS 2 form of a standard type, the first message's type.
    channels: BTreeMap<String, WrittenChannel>,
    sequence: u32,
}

impl BagWriter {
    /// Creates `path`.
    pub fn create(path: &Path, compression: Option<Compression>) -> Result<Self, BagError> {
        let file = File::create(path).map_err(|source| BagError::Io {
            path: path.to_owned(),
            source,
        })?;
        let writer = WriteOptions::new()
            .profile(PROFILE)
            .compression(compression)
            .create(BufWriter::new(file))
            .map_err(|e| mcap_err(path, e))?;
        Ok(BagWriter {
            path: path.to_owned(),
            writer,
            channels: BTreeMap::new(),
            sequence: 0,
        })
    }

    /// Writes one message of `topic` (whose type and QoS `meta` gives, described by
    /// `description`) at `log_time`. A topic keeps the type of its first message.
    pub fn write(
        &mut self,
        topic: &str,
        meta: &TopicMeta,
        description: &[u8],
        log_time: u64,
        fixed: &[u8],
        payload: &[u8],
    ) -> Result<(), BagError> {
        let path = self.path.clone();
        let bad = |reason: String| BagError::Unreadable {
            path: path.clone(),
            reason: format!("topic '{topic}': {reason}"),
        };
        if !self.channels.contains_key(topic) {
            let t = &meta.stored_type;
            let ros2 = nerve::msgs::standard(&t.name, t.layout_hash)
                .and_then(|s| Some((Ros2Type::of(&t.name)?, TypeDoc::of(s))));
            let id = crate::add_channel(
                &mut self.writer,
                topic,
                meta,
                description,
                ros2.as_ref().map(|(r, _)| r),
            )
            .map_err(|e| mcap_err(&path, e))?;
            self.channels
                .insert(topic.to_owned(), (id, ros2, meta.clone()));
        }
        let (id, ros2, first) = &self.channels[topic];
        if first.stored_type != meta.stored_type {
            return Err(bad(format!(
                "it carries {}, not {}",
                first.stored_type.describe(),
                meta.stored_type.describe()
            )));
        }
        let bytes = match ros2 {
            Some((r, doc)) => {
                let v = nerve::msgs::dynamic::decode(doc, fixed, payload, usize::MAX)
                    .map_err(|e| bad(e.to_string()))?;
                r.encode(&v).map_err(bad)?
            }
            None if payload.is_empty()
                && MessageKind::from_raw(meta.stored_type.kind) == Some(MessageKind::Fixed) =>
            {
                fixed.to_vec()
            }
            None => {
                let offset = chunk_data_offset(fixed.len());
                let mut b = fixed.to_vec();
                b.resize(offset, 0);
                b.extend_from_slice(payload);
                b
            }
        };
        let header = MessageHeader {
            channel_id: *id,
            sequence: self.sequence,
            log_time,
            publish_time: log_time,
        };
        self.sequence = self.sequence.wrapping_add(1);
        self.writer
            .write_to_known_channel(&header, &bytes)
            .map_err(|e| mcap_err(&path, e))
    }

    /// Writes the summary: a complete, indexed file.
    pub fn finish(mut self) -> Result<(), BagError> {
        self.writer.finish().map_err(|e| mcap_err(&self.path, e))?;
        Ok(())
    }
}
