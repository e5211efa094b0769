//! A light look at a topic segment for tools and watchers: its validated header, its
//! counters and its endpoint records, read with `pread` into private memory (never through a
//! mapping: a truncated or sparse segment cannot fault the reader, and nothing is written).
//!
//! Unlike [`crate::snapshot::inspect`], which copies the whole control part (the ring's slots
//! included, megabytes for a deep ring), this reads the first page and the endpoint table
//! only: what a watcher re-reads each time a topic's endpoints change.

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::layout::{
    HeaderFields, LayoutError, TopicParams, ENDPOINTS_OFFSET, ENDPOINT_SIZE, HEAD_OFFSET,
    SOLO_OFFSET,
};
use crate::liveness::ProcessId;
use crate::segment::SegmentError;
use crate::snapshot::pread_exact;

/// One endpoint record as read (untrusted: `state` may hold any value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordCopy {
    /// Index of the record in the table.
    pub index: u32,
    /// `ENDPOINT_*` state word.
    pub state: u32,
    /// Owner (pid and life token).
    pub owner: ProcessId,
    /// Messages sent or received.
    pub count: u64,
    /// Messages lost or refused.
    pub lost: u64,
}

/// What [`peek`] read.
#[derive(Clone, Debug)]
pub struct Peek {
    /// The validated header.
    pub params: TopicParams,
    /// (device, inode) of the file read: a replaced segment is another file.
    pub id: (u64, u64),
    /// The `head` counter (messages claimed so far).
    pub head: u64,
    /// The `solo` tag (see `ring.rs`).
    pub solo: u64,
    /// Every endpoint record, free ones included.
    pub records: Vec<RecordCopy>,
    /// The type description bytes (untrusted; empty: none).
    pub schema: Vec<u8>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads and validates the segment at `path`: header, counters and endpoint table. No lock
/// is taken; the copy is a snapshot that may be a moment old.
pub fn peek(path: &Path) -> Result<Peek, SegmentError> {
    let io_err = |source: io::Error| SegmentError::Io {
        path: path.to_owned(),
        source,
    };
    let corrupt = |source| SegmentError::Corrupt {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    let file_len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    let mut first = vec![0u8; ENDPOINTS_OFFSET];
    if !pread_exact(&file, &mut first, 0).map_err(io_err)? {
        return Err(corrupt(LayoutError::TooShort {
            needed: ENDPOINTS_OFFSET,
            actual: file_len,
        }));
    }
    // SAFETY: HeaderFields is plain integers and byte arrays, valid for any bit pattern, and
    // the buffer holds a page, more than its size.
    let header = unsafe { std::ptr::read_unaligned(first.as_ptr() as *const HeaderFields) };
    let params = header.validate(file_len).map_err(corrupt)?;
    // The endpoint table was validated to lie inside the file with the header.
    let mut table = vec![0u8; params.max_endpoints as usize * ENDPOINT_SIZE];
    if !pread_exact(&file, &mut table, ENDPOINTS_OFFSET as u64).map_err(io_err)? {
        return Err(corrupt(LayoutError::TooShort {
            needed: ENDPOINTS_OFFSET + table.len(),
            actual: file_len,
        }));
    }
    // The description area was validated to lie between the endpoints and the slots.
    let mut schema = vec![0u8; params.schema_len];
    if !pread_exact(&file, &mut schema, params.schema_offset as u64).map_err(io_err)? {
        return Err(corrupt(LayoutError::TooShort {
            needed: params.schema_offset + params.schema_len,
            actual: file_len,
        }));
    }
    // The prefix every layout version keeps (see `EndpointRecord`): state u32, pid u32,
    // token u64, cursor u64, count u64, lost u64.
    let records = table
        .chunks_exact(ENDPOINT_SIZE)
        .enumerate()
        .map(|(i, r)| RecordCopy {
            index: i as u32,
            state: u32_at(r, 0),
            owner: ProcessId {
                pid: u32_at(r, 4),
                token: u64_at(r, 8),
            },
            count: u64_at(r, 24),
            lost: u64_at(r, 32),
        })
        .collect();
    Ok(Peek {
        head: u64_at(&first, HEAD_OFFSET),
        solo: u64_at(&first, SOLO_OFFSET),
        id: (meta.dev(), meta.ino()),
        params,
        records,
        schema,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Reliability, StoredType, TopicConfig, ENDPOINT_PUBLISHER};
    use crate::segment::open_or_create;

    #[test]
    #[cfg_attr(miri, ignore = "files")]
    fn peek_reads_the_records_a_segment_holds_and_refuses_garbage() {
        let dir = std::env::temp_dir().join(format!("nerve-peek-{}", std::process::id()));
        let config = TopicConfig {
            stored_type: StoredType {
                name: "t".into(),
                kind: 1,
                size: 8,
                align: 8,
                elem_size: 0,
                layout_hash: 1,
            },
            reliability: Reliability::BestEffort,
            depth: 4,
            slot_payload: 8,
            max_endpoints: 8,
            pool_len: 0,
            schema: b"desc".to_vec(),
        };
        let seg = open_or_create(&dir, "a.topic", &config, None).unwrap();
        // SAFETY: params were validated against this mapping, which outlives the ring.
        let ring = unsafe { crate::Ring::new(crate::Region::base(&seg.region), &seg.params) };
        let i = ring.claim_endpoint(ENDPOINT_PUBLISHER).unwrap();
        let p = peek(&dir.join("a.topic")).unwrap();
        assert_eq!(p.params, seg.params);
        assert_eq!(p.records.len(), 8);
        assert_eq!(p.schema, b"desc");
        assert_eq!(p.records[i as usize].state, ENDPOINT_PUBLISHER);
        assert_eq!(p.records[i as usize].owner, ProcessId::current());
        std::fs::write(dir.join("b.topic"), vec![7u8; 9000]).unwrap();
        assert!(matches!(
            peek(&dir.join("b.topic")),
            Err(SegmentError::Corrupt { .. })
        ));
        std::fs::write(dir.join("c.topic"), [1u8; 10]).unwrap();
        assert!(peek(&dir.join("c.topic")).is_err());
        drop(seg);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
