//! What a recording holds (`nerve bag info`) and restoring one a killed recorder left
//! (`nerve bag recover`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use mcap::read::{MessageStream, Options};
use mcap::records::MessageHeader;
use mcap::{Compression, WriteOptions};

use crate::{mcap_err, BagError, LOSS_METADATA, PROFILE};

/// One topic of a recording.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopicSummary {
    /// The topic.
    pub topic: String,
    /// Its type (the schema's name).
    pub type_name: String,
    /// Its message encoding (`nerve`, or another tool's).
    pub encoding: String,
    /// Messages.
    pub messages: u64,
    /// Bytes of those messages.
    pub bytes: u64,
    /// Messages the recorder lost on it (from the file's loss record; 0 when none).
    pub lost: u64,
}

/// What `nerve bag info` prints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BagInfo {
    /// File size in bytes.
    pub file_bytes: u64,
    /// Log time of the first and the last message (ns since the Unix epoch).
    pub start_ns: u64,
    /// See `start_ns`.
    pub end_ns: u64,
    /// Messages in all.
    pub messages: u64,
    /// Chunk compressions used (`zstd`, `lz4`, `none`), with their chunk counts.
    pub compression: BTreeMap<String, u64>,
    /// Per topic, by name.
    pub topics: Vec<TopicSummary>,
    /// Whether the file has its summary (false: a recorder was killed; `recover` it).
    pub complete: bool,
}

/// The file's bytes, if it starts as an MCAP file does.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, BagError> {
    let buf = std::fs::read(path).map_err(|source| BagError::Io {
        path: path.to_owned(),
        source,
    })?;
    if !buf.starts_with(mcap::MAGIC) {
        return Err(BagError::Unreadable {
            path: path.to_owned(),
            reason: "not an MCAP file (it does not start with MCAP's magic bytes)".into(),
        });
    }
    Ok(buf)
}

/// Reads `path` whole: every message (for sizes), the summary (chunks, compression) and the
/// recorder's loss record.
pub fn info(path: &Path) -> Result<BagInfo, BagError> {
    let buf = read_file(path)?;
    // No summary, or an unreadable end: a file whose recorder did not finish (read what it has).
    let summary = mcap::Summary::read(&buf).ok().flatten();
    let mut info = BagInfo {
        file_bytes: buf.len() as u64,
        complete: summary.is_some(),
        ..BagInfo::default()
    };
    let mut topics: BTreeMap<String, TopicSummary> = BTreeMap::new();
    let stream = MessageStream::new_with_options(&buf, Options::IgnoreEndMagic.into())
        .map_err(|e| mcap_err(path, e))?;
    for m in stream {
        let m = match m {
            Ok(m) => m,
            // An unfinished file ends in a half-written chunk.
            Err(_) if !info.complete => break,
            Err(e) => return Err(mcap_err(path, e)),
        };
        let t = topics
            .entry(m.channel.topic.clone())
            .or_insert_with(|| TopicSummary {
                topic: m.channel.topic.clone(),
                type_name: m
                    .channel
                    .schema
                    .as_ref()
                    .map_or(String::new(), |s| s.name.clone()),
                encoding: m.channel.message_encoding.clone(),
                ..TopicSummary::default()
            });
        t.messages += 1;
        t.bytes += m.data.len() as u64;
        info.messages += 1;
        if info.start_ns == 0 || m.log_time < info.start_ns {
            info.start_ns = m.log_time;
        }
        info.end_ns = info.end_ns.max(m.log_time);
    }
    if let Some(s) = &summary {
        for c in &s.chunk_indexes {
            let name = if c.compression.is_empty() {
                "none".to_owned()
            } else {
                c.compression.clone()
            };
            *info.compression.entry(name).or_default() += 1;
        }
        for index in s
            .metadata_indexes
            .iter()
            .filter(|i| i.name == LOSS_METADATA)
        {
            let loss = mcap::read::metadata(&buf, index).map_err(|e| mcap_err(path, e))?;
            for (topic, n) in loss.metadata {
                if let Some(t) = topics.get_mut(&topic) {
                    t.lost += n.parse::<u64>().unwrap_or(0);
                }
            }
        }
    }
    info.topics = topics.into_values().collect();
    Ok(info)
}

/// What `recover` restored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Messages copied into the new file.
    pub messages: u64,
    /// Whether reading stopped at damage (a half-written chunk) rather than at the end.
    pub truncated: bool,
}

/// Copies every message of `input` readable up to its first damage (a recorder killed
/// mid-chunk leaves one) into a new, complete and indexed file `output`.
pub fn recover(
    input: &Path,
    output: &Path,
    compression: Option<Compression>,
) -> Result<Recovered, BagError> {
    let buf = read_file(input)?;
    let stream = MessageStream::new_with_options(&buf, Options::IgnoreEndMagic.into())
        .map_err(|e| mcap_err(input, e))?;
    let file = File::create(output).map_err(|source| BagError::Io {
        path: output.to_owned(),
        source,
    })?;
    let mut w = WriteOptions::new()
        .profile(PROFILE)
        .compression(compression)
        .create(BufWriter::new(file))
        .map_err(|e| mcap_err(output, e))?;
    let mut channels: BTreeMap<u16, u16> = BTreeMap::new();
    let mut done = Recovered::default();
    for m in stream {
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                tracing::info!(file = %input.display(), error = %e, "recovery stops at damage");
                done.truncated = true;
                break;
            }
        };
        let id = match channels.get(&m.channel.id) {
            Some(id) => *id,
            None => {
                let schema = match &m.channel.schema {
                    Some(s) => w
                        .add_schema(&s.name, &s.encoding, &s.data)
                        .map_err(|e| mcap_err(output, e))?,
                    None => 0,
                };
                let c = &m.channel;
                let id = w
                    .add_channel(schema, &c.topic, &c.message_encoding, &c.metadata)
                    .map_err(|e| mcap_err(output, e))?;
                channels.insert(c.id, id);
                id
            }
        };
        let header = MessageHeader {
            channel_id: id,
            sequence: m.sequence,
            log_time: m.log_time,
            publish_time: m.publish_time,
        };
        w.write_to_known_channel(&header, &m.data)
            .map_err(|e| mcap_err(output, e))?;
        done.messages += 1;
    }
    w.finish().map_err(|e| mcap_err(output, e))?;
    Ok(done)
}
