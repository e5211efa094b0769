//! Reading a recording as hostile input: every length a file declares is checked against the
//! bytes that hold it before anything is allocated, so a damaged or malicious file is an error
//! naming the byte where it goes wrong, never an allocation the file cannot back, an abort or a
//! panic. Every reader of recordings stands on this one walk: `nerve bag info | recover`,
//! `nerve play`, re-simulation (`sim.rs`) and `nerve.bag.Reader` in Python (`file.rs`).
//!
//! The walk: the file's magic, then its records (an opcode byte, a `u64` length, the content),
//! each length checked against the bytes left in the file and against [`RECORD_LIMIT`]. A chunk
//! is checked before its data is read: its header against its record, its compressed size
//! against the bytes its record holds, its uncompressed size against [`RECORD_LIMIT`], an
//! uncompressed chunk's two sizes against each other. It is then decompressed into at most the
//! size it declares, checked against its CRC, and its records walked the same way, each against
//! the bytes left in the chunk. Schema, channel and message records are parsed by the `mcap`
//! crate from bytes so bounded, and linked by its `ChannelAccumulator` (the checks of `mcap`'s
//! own readers: a channel's schema defined before it, a redefinition equal to the first).

use std::borrow::Cow;
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use mcap::read::ChannelAccumulator;
use mcap::records::{op, Record};
use mcap::Message;

use crate::BagError;

/// The longest record a reader accepts, and the most bytes one chunk may decompress to: one of
/// nerve's largest messages ([`nerve::MAX_MESSAGE_BYTES`], 1 GiB, what the recorder
/// writes in a chunk of its own) with 64 MiB to spare for the chunk's other records, a ROS 2
/// encoding's framing and compression's worst case. Not the file's size: a compressed chunk may
/// hold more than its whole file (a zero image compresses a thousandfold), so a chunk that
/// decompresses to this much from a few bytes is read, into the size it declares and no more.
pub const RECORD_LIMIT: u64 = nerve::MAX_MESSAGE_BYTES as u64 + (64 << 20);

/// An opcode and a length open every record.
const RECORD_HEAD: u64 = 1 + 8;
/// A chunk's header up to its compression name: start and end time, uncompressed size, CRC,
/// the name's length.
const CHUNK_HEAD: usize = 8 + 8 + 8 + 4 + 4;
/// The compression name's length is followed by the name and the compressed size.
const CHUNK_HEADER_MIN: u64 = CHUNK_HEAD as u64 + 8;
/// Longer compression names are none nerve knows (`zstd`, `lz4`, or empty).
const LONGEST_COMPRESSION: u64 = 16;
/// Records skipped by reading through them, not seeking (seeking drops a reader's buffer).
const SKIP_BY_READING: u64 = 64 << 10;

/// Where a recording stops being readable, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {reason}")]
pub struct Damage {
    /// The offset in the file of the record at fault (of its chunk, for a record in one).
    pub offset: u64,
    /// What that record claims, against what is there.
    pub reason: String,
    /// The file merely stops early there, as a recorder stopped mid-write leaves it: a record
    /// (within [`RECORD_LIMIT`]) that runs past the file's end, no footer. Everything else
    /// (lengths beyond any limit, sizes that contradict each other, data that does not
    /// decompress or fails its CRC) is damage no writer leaves.
    pub truncated: bool,
}

fn damage(offset: u64, reason: String) -> Damage {
    Damage {
        offset,
        reason,
        truncated: false,
    }
}

/// What a record is, for a message: "a chunk record".
fn what(opcode: u8) -> String {
    let name = match opcode {
        op::HEADER => "a header",
        op::FOOTER => "a footer",
        op::SCHEMA => "a schema",
        op::CHANNEL => "a channel",
        op::MESSAGE => "a message",
        op::CHUNK => "a chunk",
        op::MESSAGE_INDEX => "a message index",
        op::CHUNK_INDEX => "a chunk index",
        op::ATTACHMENT => "an attachment",
        op::ATTACHMENT_INDEX => "an attachment index",
        op::STATISTICS => "a statistics",
        op::METADATA => "a metadata",
        op::METADATA_INDEX => "a metadata index",
        op::SUMMARY_OFFSET => "a summary offset",
        op::DATA_END => "a data end",
        other => return format!("a record of opcode {other:#04x}"),
    };
    format!("{name} record")
}

/// `path` opened, past its magic, with its length, if it starts as an MCAP file does.
pub(crate) fn open(path: &Path) -> Result<(BufReader<File>, u64), BagError> {
    let io = |source| BagError::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    past_magic(path, BufReader::with_capacity(1 << 20, file), len)
}

/// A recording held in memory, as [`open`] opens a file (errors name [`IN_MEMORY`]).
pub(crate) fn in_memory(bytes: &[u8]) -> Result<(Cursor<&[u8]>, u64), BagError> {
    past_magic(Path::new(IN_MEMORY), Cursor::new(bytes), bytes.len() as u64)
}

/// What errors call a recording held in memory.
pub(crate) const IN_MEMORY: &str = "(recording in memory)";

fn past_magic<R: Read>(path: &Path, mut input: R, len: u64) -> Result<(R, u64), BagError> {
    let mut magic = [0u8; 8];
    if input.read_exact(&mut magic).is_err() || magic.as_slice() != mcap::MAGIC {
        return Err(BagError::Unreadable {
            path: path.to_owned(),
            reason: "not an MCAP file (it does not start with MCAP's magic bytes)".into(),
        });
    }
    Ok((input, len))
}

/// The messages of a recording in file order, read as they come: memory holds one chunk (its
/// compressed and its decompressed bytes) at a time, never the file. Yields nothing after its
/// first error.
pub(crate) struct Messages<R> {
    input: R,
    /// The file's length.
    len: u64,
    /// Where the next record starts (the input's position between records).
    pos: u64,
    /// Stop at the data end (no summary, footer or end magic needed), and call a file that
    /// stops early [`Damage::truncated`] rather than missing its end.
    to_damage: bool,
    past_data_end: bool,
    done: bool,
    channels: ChannelAccumulator<'static>,
    chunk: Option<Chunk>,
}

/// A chunk's records, decompressed and checked, being walked.
struct Chunk {
    /// Its record's offset in the file.
    offset: u64,
    records: Vec<u8>,
    at: usize,
}

enum Step {
    Message(Message<'static>),
    Next,
    End,
}

impl<R: Read + Seek> Messages<R> {
    /// Reads `input`, positioned just past the magic of a file of `len` bytes (as [`open`]
    /// leaves it). `to_damage`: read an unfinished file (no summary, no end magic) up to where
    /// it stops.
    pub(crate) fn new(input: R, len: u64, to_damage: bool) -> Self {
        Messages {
            input,
            len,
            pos: mcap::MAGIC.len() as u64,
            to_damage,
            past_data_end: false,
            done: false,
            channels: ChannelAccumulator::default(),
            chunk: None,
        }
    }

    fn read_exact(&mut self, buf: &mut [u8], offset: u64) -> Result<(), Damage> {
        self.input
            .read_exact(buf)
            .map_err(|e| damage(offset, format!("it could not be read: {e}")))
    }

    /// The next `n` bytes (`n` already checked against the file and [`RECORD_LIMIT`]).
    fn read_vec(&mut self, n: u64, offset: u64) -> Result<Vec<u8>, Damage> {
        let mut v = Vec::new();
        v.try_reserve_exact(n as usize)
            .map_err(|_| damage(offset, format!("{n} bytes for it could not be allocated")))?;
        let got = (&mut self.input)
            .take(n)
            .read_to_end(&mut v)
            .map_err(|e| damage(offset, format!("it could not be read: {e}")))?;
        if got as u64 != n {
            return Err(damage(
                offset,
                format!("the file shrank while it was read ({got} of {n} bytes)"),
            ));
        }
        Ok(v)
    }

    fn skip(&mut self, n: u64, offset: u64) -> Result<(), Damage> {
        let skipped = if n <= SKIP_BY_READING {
            std::io::copy(&mut (&mut self.input).take(n), &mut std::io::sink()).map(|got| got == n)
        } else {
            self.input.seek(SeekFrom::Current(n as i64)).map(|_| true)
        };
        match skipped {
            Ok(true) => Ok(()),
            Ok(false) => Err(damage(offset, "the file shrank while it was read".into())),
            Err(e) => Err(damage(offset, format!("it could not be read: {e}"))),
        }
    }

    /// Reads the record at `self.pos`.
    fn step(&mut self) -> Result<Step, Damage> {
        let offset = self.pos;
        let left = self.len.saturating_sub(offset);
        if left == 0 {
            if self.to_damage {
                return Ok(Step::End);
            }
            return Err(Damage {
                offset,
                reason: "the file ends here, without its footer and end magic: its recorder \
                         stopped before finishing (`nerve bag recover` makes a complete copy)"
                    .into(),
                truncated: true,
            });
        }
        if left < RECORD_HEAD {
            return Err(Damage {
                offset,
                reason: format!(
                    "the file ends inside a record's opcode and length ({left} of 9 bytes)"
                ),
                truncated: true,
            });
        }
        let mut head = [0u8; RECORD_HEAD as usize];
        self.read_exact(&mut head, offset)?;
        let opcode = head[0];
        let len = u64::from_le_bytes(head[1..].try_into().expect("8 bytes"));
        let room = left - RECORD_HEAD;
        if len > room {
            return Err(Damage {
                offset,
                reason: format!(
                    "{} claims {len} bytes, but only {room} remain in the file",
                    what(opcode)
                ),
                truncated: len <= RECORD_LIMIT,
            });
        }
        if len > RECORD_LIMIT {
            return Err(damage(
                offset,
                format!(
                    "{} of {len} bytes is beyond the limit of {RECORD_LIMIT} bytes a record \
                     may have",
                    what(opcode)
                ),
            ));
        }
        self.pos = offset + RECORD_HEAD + len;
        match opcode {
            op::CHUNK if !self.past_data_end => {
                self.chunk = Some(self.read_chunk(offset, len)?);
                Ok(Step::Next)
            }
            op::SCHEMA | op::CHANNEL | op::MESSAGE if !self.past_data_end => {
                let body = self.read_vec(len, offset)?;
                Ok(match link(&mut self.channels, offset, opcode, &body)? {
                    Some(m) => Step::Message(m),
                    None => Step::Next,
                })
            }
            op::DATA_END if self.to_damage => Ok(Step::End),
            op::FOOTER => {
                self.skip(len, offset)?;
                if !self.to_damage {
                    self.end_magic()?;
                }
                Ok(Step::End)
            }
            _ => {
                self.past_data_end |= opcode == op::DATA_END;
                self.skip(len, offset)?;
                Ok(Step::Next)
            }
        }
    }

    fn end_magic(&mut self) -> Result<(), Damage> {
        let offset = self.pos;
        let mut magic = [0u8; 8];
        if self.len.saturating_sub(offset) < magic.len() as u64 {
            return Err(Damage {
                offset,
                reason: "the file ends before the end magic that follows its footer".into(),
                truncated: true,
            });
        }
        self.read_exact(&mut magic, offset)?;
        if magic.as_slice() != mcap::MAGIC {
            return Err(damage(
                offset,
                "the footer is not followed by MCAP's end magic".into(),
            ));
        }
        Ok(())
    }

    /// Reads, checks and decompresses the chunk record at `offset` (of `len` bytes, all in the
    /// file).
    fn read_chunk(&mut self, offset: u64, len: u64) -> Result<Chunk, Damage> {
        let bad = |reason: String| damage(offset, format!("in the chunk record there, {reason}"));
        if len < CHUNK_HEADER_MIN {
            return Err(bad(format!(
                "its {len} bytes are fewer than a chunk header's {CHUNK_HEADER_MIN}"
            )));
        }
        let mut head = [0u8; CHUNK_HEAD];
        self.read_exact(&mut head, offset)?;
        let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
        let uncompressed = u64_at(16);
        let crc = u32::from_le_bytes(head[24..28].try_into().expect("4 bytes"));
        let name_len = u64::from(u32::from_le_bytes(
            head[28..32].try_into().expect("4 bytes"),
        ));
        if name_len > len - CHUNK_HEADER_MIN {
            return Err(bad(format!(
                "its compression name claims {name_len} bytes, but its record holds {}",
                len - CHUNK_HEADER_MIN
            )));
        }
        if name_len > LONGEST_COMPRESSION {
            return Err(bad(format!(
                "its compression name of {name_len} bytes is none nerve reads (zstd, lz4 or none)"
            )));
        }
        let mut name = vec![0u8; name_len as usize];
        self.read_exact(&mut name, offset)?;
        let mut size = [0u8; 8];
        self.read_exact(&mut size, offset)?;
        let compressed = u64::from_le_bytes(size);
        let room = len - CHUNK_HEADER_MIN - name_len;
        if compressed > room {
            return Err(bad(format!(
                "its compressed data claims {compressed} bytes, but its record holds only {room}"
            )));
        }
        if uncompressed > RECORD_LIMIT {
            return Err(bad(format!(
                "it claims to decompress to {uncompressed} bytes, beyond the limit of \
                 {RECORD_LIMIT} bytes a chunk may hold"
            )));
        }
        let codec = match name.as_slice() {
            b"" if compressed != uncompressed => {
                return Err(bad(format!(
                    "it is uncompressed, yet holds {compressed} bytes and declares {uncompressed}"
                )))
            }
            b"" => Codec::None,
            b"zstd" => Codec::Zstd,
            b"lz4" => Codec::Lz4,
            other => {
                return Err(bad(format!(
                    "it is compressed with {:?}, which nerve does not read (zstd, lz4 or none)",
                    String::from_utf8_lossy(other)
                )))
            }
        };
        let data = self.read_vec(compressed, offset)?;
        self.skip(room - compressed, offset)?;
        let records = decompress(codec, data, uncompressed).map_err(bad)?;
        if crc != 0 {
            let computed = crc32fast::hash(&records);
            if computed != crc {
                return Err(bad(format!(
                    "its records fail their CRC (stored {crc:08x}, computed {computed:08x})"
                )));
            }
        }
        Ok(Chunk {
            offset,
            records,
            at: 0,
        })
    }
}

impl Chunk {
    /// The next record of the chunk: its opcode and content.
    fn next_record(&mut self) -> Option<Result<(u8, &[u8]), Damage>> {
        let rest = self.records.len() - self.at;
        if rest == 0 {
            return None;
        }
        let at = self.at;
        let bad = |reason: String| {
            Some(Err(damage(
                self.offset,
                format!("in the chunk record there, {reason}"),
            )))
        };
        if rest < RECORD_HEAD as usize {
            return bad(format!(
                "its records end inside a record's opcode and length ({rest} of 9 bytes, at \
                 byte {at} of {})",
                self.records.len()
            ));
        }
        let opcode = self.records[at];
        let len = u64::from_le_bytes(self.records[at + 1..at + 9].try_into().expect("8 bytes"));
        let room = (rest - RECORD_HEAD as usize) as u64;
        if len > room {
            return bad(format!(
                "{} at byte {at} of its records claims {len} bytes, but only {room} remain in \
                 the chunk",
                what(opcode)
            ));
        }
        let start = at + RECORD_HEAD as usize;
        self.at = start + len as usize;
        Some(Ok((opcode, &self.records[start..self.at])))
    }
}

#[derive(Clone, Copy)]
enum Codec {
    None,
    Zstd,
    Lz4,
}

thread_local! {
    /// One zstd context per thread, kept: creating one costs more than a small chunk.
    static ZSTD: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// A chunk's records from its `data`: exactly `size` bytes, or why not. Nothing beyond `size`
/// is ever written (the buffer is reserved, not filled, so a size that lies costs no memory
/// the data does not fill).
fn decompress(codec: Codec, data: Vec<u8>, size: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let reserve = |out: &mut Vec<u8>| {
        out.try_reserve_exact(size as usize)
            .map_err(|_| format!("the {size} bytes it decompresses to could not be allocated"))
    };
    match codec {
        Codec::None => return Ok(data),
        Codec::Zstd => {
            reserve(&mut out)?;
            ZSTD.with(|cell| {
                let mut cell = cell.borrow_mut();
                if cell.is_none() {
                    *cell = Some(zstd::bulk::Decompressor::new()?);
                }
                let z = cell.as_mut().expect("created above");
                z.decompress_to_buffer(&data, &mut out)
            })
            .map_err(|e| format!("its zstd data does not decompress to {size} bytes: {e}"))?;
        }
        Codec::Lz4 => {
            reserve(&mut out)?;
            let lz4_err = |e: std::io::Error| format!("its lz4 data does not decompress: {e}");
            let mut decoder = lz4::Decoder::new(data.as_slice()).map_err(lz4_err)?;
            (&mut decoder)
                .take(size)
                .read_to_end(&mut out)
                .map_err(lz4_err)?;
            let mut more = [0u8; 1];
            if decoder.read(&mut more).map_err(lz4_err)? != 0 {
                return Err(format!(
                    "its lz4 data decompresses to more than the {size} bytes it declares"
                ));
            }
        }
    }
    if out.len() as u64 != size {
        return Err(format!(
            "it decompresses to {} bytes, not the {size} it declares",
            out.len()
        ));
    }
    Ok(out)
}

/// Links a schema or channel record, or returns the message a message record holds; other
/// records are skipped.
fn link(
    channels: &mut ChannelAccumulator<'static>,
    offset: u64,
    opcode: u8,
    body: &[u8],
) -> Result<Option<Message<'static>>, Damage> {
    if !matches!(opcode, op::SCHEMA | op::CHANNEL | op::MESSAGE) {
        return Ok(None);
    }
    let bad = |e: mcap::McapError| damage(offset, format!("{}: {e}", what(opcode)));
    match mcap::parse_record(opcode, body).map_err(bad)? {
        Record::Schema { header, data } => channels
            .add_schema_from_slice(header, data.as_ref())
            .map_err(bad)?,
        Record::Channel(c) => channels.add_channel(c).map_err(bad)?,
        Record::Message { header, data } => {
            let channel = channels.get(header.channel_id).ok_or_else(|| {
                damage(
                    offset,
                    format!(
                        "message {} is on channel {}, which no channel record before it defines",
                        header.sequence, header.channel_id
                    ),
                )
            })?;
            return Ok(Some(Message {
                channel,
                sequence: header.sequence,
                log_time: header.log_time,
                publish_time: header.publish_time,
                data: Cow::Owned(data.into_owned()),
            }));
        }
        _ => {}
    }
    Ok(None)
}

impl<R: Read + Seek> Iterator for Messages<R> {
    type Item = Result<Message<'static>, Damage>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let step = match &mut self.chunk {
                Some(chunk) => {
                    let offset = chunk.offset;
                    match chunk.next_record() {
                        Some(Ok((opcode, body))) => link(&mut self.channels, offset, opcode, body)
                            .map(|m| match m {
                                Some(m) => Step::Message(m),
                                None => Step::Next,
                            }),
                        Some(Err(e)) => Err(e),
                        None => {
                            self.chunk = None;
                            Ok(Step::Next)
                        }
                    }
                }
                None => self.step(),
            };
            match step {
                Ok(Step::Message(m)) => return Some(Ok(m)),
                Ok(Step::Next) => {}
                Ok(Step::End) => self.done = true,
                Err(e) => {
                    self.done = true;
                    self.chunk = None;
                    return Some(Err(e));
                }
            }
        }
    }
}
