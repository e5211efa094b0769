//! What a recording holds (`nerve bag info`) and restoring one a killed recorder left
//! (`nerve bag recover`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom};
use std::path::Path;

use mcap::records::{MessageHeader, Metadata, MetadataIndex};
use mcap::sans_io::summary_reader::{SummaryReadEvent, SummaryReader, SummaryReaderOptions};
use mcap::{Compression, WriteOptions};

use crate::reader::{self, RECORD_LIMIT};
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
/// never the file, and every length the file declares is checked before it is followed
/// ([`crate::reader`]).
pub(crate) type Messages = crate::reader::Messages<BufReader<File>>;

/// Opens `path` for [`Messages`] (an error if it does not start as MCAP does); `to_damage`:
/// read an unfinished file (no summary, no end magic) up to where it stops.
pub(crate) fn messages(path: &Path, to_damage: bool) -> Result<Messages, BagError> {
    let (input, len) = reader::open(path)?;
    Ok(Messages::new(input, len, to_damage))
}

/// The summary section, read from the file's end (`None`: the file has none, or it is damaged,
/// as a killed recorder leaves it).
pub(crate) fn summary(path: &Path) -> Result<Option<mcap::Summary>, BagError> {
    let (mut input, len) = reader::open(path)?;
    summary_of(path, &mut input, len)
}

/// [`summary`] of `input` (a file of `len` bytes named `name`): every read is bounded by the
/// file's size and [`RECORD_LIMIT`].
fn summary_of<R: Read + Seek>(
    name: &Path,
    input: &mut R,
    len: u64,
) -> Result<Option<mcap::Summary>, BagError> {
    let mut reader = SummaryReader::new_with_options(
        SummaryReaderOptions::default()
            .with_file_size(len)
            .with_record_length_limit(RECORD_LIMIT as usize),
    );
    while let Some(event) = reader.next_event() {
        let step = match event {
            Ok(SummaryReadEvent::ReadRequest(need)) => input
                .read(reader.insert(need))
                .map(|n| reader.notify_read(n)),
            Ok(SummaryReadEvent::SeekRequest(to)) => {
                input.seek(to).map(|pos| reader.notify_seeked(pos))
            }
            Err(_) => return Ok(None),
        };
        step.map_err(|source| BagError::Io {
            path: name.to_owned(),
            source,
        })?;
    }
    Ok(reader.finish())
}

/// The metadata record `index` points at, in `input` (a file of `len` bytes named `name`).
fn metadata<R: Read + Seek>(
    name: &Path,
    input: &mut R,
    len: u64,
    index: &MetadataIndex,
) -> Result<Metadata, BagError> {
    if index.offset.saturating_add(index.length) > len || index.length > RECORD_LIMIT {
        return Err(mcap_err(
            name,
            format!(
                "at byte {}: a metadata index points at {} bytes, past the file's end or \
                 beyond the limit of {RECORD_LIMIT} bytes a record may have",
                index.offset, index.length
            ),
        ));
    }
    let mut record = vec![0u8; index.length as usize];
    input
        .seek(SeekFrom::Start(index.offset))
        .and_then(|_| input.read_exact(&mut record))
        .map_err(|source| BagError::Io {
            path: name.to_owned(),
            source,
        })?;
    let at_start = MetadataIndex {
        offset: 0,
        ..index.clone()
    };
    mcap::read::metadata(&record, &at_start)
        .map_err(|e| mcap_err(name, format!("at byte {}: {e}", index.offset)))
}

/// Reads every message of `path` (for sizes), the summary (chunks, compression) and the
/// recorder's loss record.
pub fn info(path: &Path) -> Result<BagInfo, BagError> {
    let (input, len) = reader::open(path)?;
    let (mut again, _) = reader::open(path)?;
    info_of(path, Messages::new(input, len, true), &mut again, len)
}

/// [`info`] of a recording held in memory, read by the same code as a file (errors name it
/// `(recording in memory)`; the fuzz test in `tests/fuzz.rs` drives it).
pub fn info_bytes(bytes: &[u8]) -> Result<BagInfo, BagError> {
    let (input, len) = reader::in_memory(bytes)?;
    let (mut again, _) = reader::in_memory(bytes)?;
    let name = Path::new(reader::IN_MEMORY);
    info_of(
        name,
        reader::Messages::new(input, len, true),
        &mut again,
        len,
    )
}

/// [`info`] from the messages of a file of `len` bytes named `name`, with `input` (the same
/// file) for its summary and metadata.
fn info_of<R: Read + Seek>(
    name: &Path,
    stream: reader::Messages<R>,
    input: &mut R,
    len: u64,
) -> Result<BagInfo, BagError> {
    // No summary, or an unreadable end: a file whose recorder did not finish (read what it has).
    let summary = summary_of(name, input, len)?;
    let mut info = BagInfo {
        file_bytes: len,
        complete: summary.is_some(),
        ..BagInfo::default()
    };
    let mut topics: BTreeMap<String, TopicSummary> = BTreeMap::new();
    for m in stream {
        let m = match m {
            Ok(m) => m,
            // An unfinished file ends in a half-written chunk; damage of any other kind (or
            // in a finished file) is an error.
            Err(e) if !info.complete && e.truncated => break,
            Err(e) => return Err(mcap_err(name, e)),
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
            let loss = metadata(name, input, len, index)?;
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

/// Copies every message of `input` readable up to where it stops (a recorder killed mid-chunk
/// leaves a half-written one) into a new, complete and indexed file `output`. Damage no stopped
/// recorder leaves ([`crate::reader::Damage::truncated`] false: a length beyond any limit,
/// sizes that contradict each other) is an error naming the byte, and leaves no `output`.
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
            Err(e) if e.truncated => {
                tracing::info!(file = %input.display(), error = %e, "recovery stops at damage");
                done.truncated = true;
                break;
            }
            // Not what a stopped recorder leaves: no copy, and say where.
            Err(e) => {
                drop(w);
                let _ = std::fs::remove_file(output);
                return Err(mcap_err(input, e));
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
