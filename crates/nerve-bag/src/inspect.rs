//! What a recording holds (`nerve bag info`) and restoring one a killed recorder left
//! (`nerve bag recover`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom};
use std::path::Path;

use mcap::records::{MessageHeader, Metadata, MetadataIndex};
use mcap::sans_io::summary_reader::{SummaryReadEvent, SummaryReader, SummaryReaderOptions};
use mcap::sans_io::LinearReaderOptions;
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

/// A recording's messages in file order, read as they come: memory holds one chunk at a time,
/// never the file. Checks the file starts as MCAP does; a record claiming more than
/// [`RECORD_LIMIT`] (hostile or damaged) is an error, not an allocation.
pub(crate) type Messages = mcap::io::MessageReader<BufReader<File>>;

/// The largest record a reader accepts. Not the file's size: a compressed chunk may hold a
/// message larger than the whole file (a zero image compresses a thousandfold); nerve's
/// messages are bounded by a shared-memory chunk, far below this.
pub const RECORD_LIMIT: usize = 4 << 30;

/// Opens `path` for [`Messages`]; `to_damage`: read an unfinished file (no summary, no end
/// magic) up to where it stops.
pub(crate) fn messages(path: &Path, to_damage: bool) -> Result<Messages, BagError> {
    let (file, _) = open(path)?;
    let options = LinearReaderOptions::default()
        .with_skip_end_magic(to_damage)
        .with_record_length_limit(RECORD_LIMIT);
    Ok(mcap::io::MessageReader::new_with_options(
        BufReader::with_capacity(1 << 20, file),
        options,
    ))
}

/// `path` opened and its length, if it starts as an MCAP file does.
fn open(path: &Path) -> Result<(File, u64), BagError> {
    let io = |source| BagError::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut magic = [0u8; 8];
    let starts = file.read_exact(&mut magic).is_ok() && magic.as_slice() == mcap::MAGIC;
    if !starts {
        return Err(BagError::Unreadable {
            path: path.to_owned(),
            reason: "not an MCAP file (it does not start with MCAP's magic bytes)".into(),
        });
    }
    file.rewind().map_err(io)?;
    Ok((file, len))
}

/// The summary section, read from the file's end (`None`: the file has none, or it is damaged,
/// as a killed recorder leaves it).
pub(crate) fn summary(path: &Path) -> Result<Option<mcap::Summary>, BagError> {
    let (mut file, len) = open(path)?;
    let mut reader = SummaryReader::new_with_options(
        SummaryReaderOptions::default()
            .with_file_size(len)
            .with_record_length_limit(RECORD_LIMIT),
    );
    while let Some(event) = reader.next_event() {
        let step = match event {
            Ok(SummaryReadEvent::ReadRequest(need)) => file
                .read(reader.insert(need))
                .map(|n| reader.notify_read(n)),
            Ok(SummaryReadEvent::SeekRequest(to)) => {
                file.seek(to).map(|pos| reader.notify_seeked(pos))
            }
            Err(_) => return Ok(None),
        };
        step.map_err(|source| BagError::Io {
            path: path.to_owned(),
            source,
        })?;
    }
    Ok(reader.finish())
}

/// The metadata record `index` points at.
fn metadata(path: &Path, index: &MetadataIndex) -> Result<Metadata, BagError> {
    let (mut file, len) = open(path)?;
    if index.offset.saturating_add(index.length) > len {
        return Err(mcap_err(
            path,
            "a metadata index points past the file's end",
        ));
    }
    let mut record = vec![0u8; usize::try_from(index.length).unwrap_or(usize::MAX)];
    file.seek(SeekFrom::Start(index.offset))
        .and_then(|_| file.read_exact(&mut record))
        .map_err(|source| BagError::Io {
            path: path.to_owned(),
            source,
        })?;
    let at_start = MetadataIndex {
        offset: 0,
        ..index.clone()
    };
    mcap::read::metadata(&record, &at_start).map_err(|e| mcap_err(path, e))
}

/// Reads every message of `path` (for sizes), the summary (chunks, compression) and the
/// recorder's loss record.
pub fn info(path: &Path) -> Result<BagInfo, BagError> {
    let stream = messages(path, true)?;
    // No summary, or an unreadable end: a file whose recorder did not finish (read what it has).
    let summary = summary(path)?;
    let mut info = BagInfo {
        file_bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
        complete: summary.is_some(),
        ..BagInfo::default()
    };
    let mut topics: BTreeMap<String, TopicSummary> = BTreeMap::new();
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
            let loss = metadata(path, index)?;
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
    let stream = messages(input, true)?;
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
