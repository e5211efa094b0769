//! Looking at segments without mapping them: [`inspect`] copies a segment's control part with
//! `pread` for the tools (list, info, clean), and [`clean`] removes what no live process uses.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::layout::{HeaderFields, LayoutError, TopicParams};
use crate::region::{HeapRegion, Region};
use crate::ring::Ring;
use crate::segment::{io_err, live_endpoints, schema_bytes, DomainLock, SegmentError};

/// A copy of a segment's header, endpoint records and ring, read with `pread` for tools that
/// only look (list, info, clean): reading a file never allocates its holes nor faults on a
/// truncated or sparse segment on a full file system, where touching a mapping would raise
/// SIGBUS. The copy is a snapshot: its counters do not move.
pub struct Snapshot {
    region: HeapRegion,
    /// The parameters of the copy (no pool: only the control part was read).
    control: TopicParams,
    /// The segment's own parameters.
    params: TopicParams,
}

impl Snapshot {
    /// The segment's parameters, as validated.
    pub fn params(&self) -> &TopicParams {
        &self.params
    }

    /// A view of the copied ring and endpoint records (atomics over the copy).
    pub fn ring(&self) -> Ring {
        // SAFETY: `control` was validated for this copy (the header, endpoint records and
        // slots, `control.total_size` bytes, with no pool), which lives as long as `self`;
        // the ring view is used while `self` is borrowed by the caller.
        unsafe { Ring::new(self.region.base(), &self.control) }
    }

    /// The segment's type description, as stored (empty: none).
    pub fn schema(&self) -> Vec<u8> {
        schema_bytes(&self.region, &self.control)
    }
}

/// Reads `buf.len()` bytes at `offset` of `file`; false on a short read (a truncated file).
pub(crate) fn pread_exact(file: &File, buf: &mut [u8], offset: u64) -> io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => return Ok(false),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Reads and validates a segment for inspection, without mapping it. No lock taken.
pub fn inspect(path: &Path) -> Result<Snapshot, SegmentError> {
    let corrupt = |source| SegmentError::Corrupt {
        path: path.to_owned(),
        source,
    };
    let f = File::open(path).map_err(io_err(path))?;
    let file_len = f.metadata().map_err(io_err(path))?.len();
    let mut raw = [0u8; std::mem::size_of::<HeaderFields>()];
    if !pread_exact(&f, &mut raw, 0).map_err(io_err(path))? {
        return Err(corrupt(LayoutError::TooShort {
            needed: raw.len(),
            actual: file_len as usize,
        }));
    }
    // SAFETY: HeaderFields is plain integers and byte arrays, valid for any bit pattern; the
    // buffer is exactly its size.
    let header = unsafe { std::ptr::read_unaligned(raw.as_ptr() as *const HeaderFields) };
    let params = header
        .validate(usize::try_from(file_len).unwrap_or(usize::MAX))
        .map_err(corrupt)?;
    let control_len = if params.pool_offset != 0 {
        params.pool_offset
    } else {
        params.total_size
    };
    let region = HeapRegion::new(control_len);
    // SAFETY: the heap region is ours alone, `control_len` bytes long and writable.
    let buf = unsafe { std::slice::from_raw_parts_mut(region.base().as_ptr(), control_len) };
    if !pread_exact(&f, buf, 0).map_err(io_err(path))? {
        return Err(corrupt(LayoutError::TooShort {
            needed: control_len,
            actual: file_len as usize,
        }));
    }
    let control = TopicParams {
        total_size: control_len,
        pool_offset: 0,
        pool_len: 0,
        ..params.clone()
    };
    Ok(Snapshot {
        region,
        control,
        params,
    })
}

/// What `clean` removed.
#[derive(Debug, Default, Clone)]
pub struct CleanReport {
    /// Segments removed because no live process used them.
    pub stale: Vec<PathBuf>,
    /// Segments removed because their header was invalid.
    pub corrupt: Vec<PathBuf>,
    /// Segments kept because live processes use them.
    pub kept: usize,
}

/// Removes every segment of `dir` that no live process uses, or whose header is invalid.
pub fn clean(dir: &Path) -> Result<CleanReport, SegmentError> {
    let mut report = CleanReport::default();
    if !dir.exists() {
        return Ok(report);
    }
    let _lock = DomainLock::acquire(dir)?;
    for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let path = entry.map_err(io_err(dir))?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("topic") {
            continue;
        }
        match inspect(&path) {
            Ok(snapshot) => {
                if live_endpoints(&snapshot.ring()) > 0 {
                    report.kept += 1;
                    continue;
                }
                let _ = std::fs::remove_file(&path);
                report.stale.push(path);
            }
            Err(_) => {
                let _ = std::fs::remove_file(&path);
                report.corrupt.push(path);
            }
        }
    }
    Ok(report)
}
