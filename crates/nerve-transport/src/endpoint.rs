//! The endpoint table of a topic: claiming a record for a publisher or subscriber of this
//! process, finding and reclaiming the records of processes that died.

use std::ptr::NonNull;
use std::sync::atomic::Ordering::*;
use std::sync::Arc;

use nerve_shm::layout::{EndpointRecord, ENDPOINT_PUBLISHER, ENDPOINT_SUBSCRIBER};
use nerve_shm::Region;

use crate::error::OpenError;
use crate::registry::announce;
use crate::shared::{Memory, Shared};

impl Shared {
    /// Whether endpoint record `i` names a process that is gone.
    pub(crate) fn record_dead(&self, i: u32) -> bool {
        self.ring.endpoint_dead(i)
    }

    /// Whether the endpoint table holds a publisher whose process died.
    pub(crate) fn dead_publisher(&self) -> bool {
        (0..self.ring.endpoint_count()).any(|i| {
            // Acquire pairs with the Release store of `state` in `Ring::claim_endpoint`: the
            // record's pid and start time are its owner's.
            self.ring.endpoint(i).state.load(Acquire) == ENDPOINT_PUBLISHER && self.record_dead(i)
        })
    }

    /// Frees the records (and chunk references) of endpoints whose process died. Returns how
    /// many were reclaimed.
    pub(crate) fn reclaim_dead(&self) -> usize {
        let n = self.ring.reclaim_dead(
            self.pool.as_ref(),
            |i| self.record_dead(i),
            |i, pid, chunks| {
                tracing::info!(topic = %self.name, endpoint = i, pid, chunks, "reclaimed the endpoint of a dead process");
            },
        );
        if n > 0 {
            self.announce_endpoints();
        }
        n
    }

    /// Tells the domain's registry that the endpoint table changed (watchers read it again).
    fn announce_endpoints(&self) {
        match &self.memory {
            Memory::Shm(_) => announce::segment_endpoints(self.domain, &self.name),
            Memory::Heap(region) => {
                let mut counts = [0u32; 2];
                for i in 0..self.ring.endpoint_count() {
                    // Acquire pairs with the Release store of `state` in
                    // `Ring::claim_endpoint` (a count, nothing more is read).
                    match self.ring.endpoint(i).state.load(Acquire) {
                        ENDPOINT_PUBLISHER => counts[0] += 1,
                        ENDPOINT_SUBSCRIBER => counts[1] += 1,
                        _ => {}
                    }
                }
                let base = region.base().as_ptr() as usize;
                announce::heap_endpoints(self.domain, &self.name, base, counts);
            }
        }
    }

    /// Whether the writer a slot names by `tag` is gone (its record freed, reused, or its
    /// process dead).
    pub(crate) fn writer_gone(&self, tag: u32) -> bool {
        self.ring.writer_gone(tag, |i| self.record_dead(i))
    }

    pub(crate) fn claim_endpoint(self: &Arc<Self>, kind: u32) -> Result<Arc<Endpoint>, OpenError> {
        let index = match self.ring.claim_endpoint(kind) {
            Some(i) => Some(i),
            None if self.reclaim_dead() > 0 => self.ring.claim_endpoint(kind),
            None => None,
        };
        match index {
            Some(index) => {
                self.announce_endpoints();
                Ok(Arc::new(Endpoint {
                    record: NonNull::from(self.ring.endpoint(index)),
                    tag: self.ring.writer_tag(index),
                    shared: self.clone(),
                    index,
                }))
            }
            None => Err(OpenError::TooManyEndpoints {
                topic: self.name.clone(),
                max: self.ring.endpoint_count(),
            }),
        }
    }
}

/// An endpoint record owned by this process; freed when the last user (the endpoint or one of
/// its samples) drops.
pub struct Endpoint {
    pub shared: Arc<Shared>,
    pub index: u32,
    /// What our writes leave in a slot's writer word: index and record generation.
    pub tag: u32,
    /// Our record in the segment, located once (it is touched on every message).
    record: NonNull<EndpointRecord>,
}

// SAFETY: `record` points into the mapping `shared` keeps alive, and the record is only
// accessed through its atomics.
unsafe impl Send for Endpoint {}
// SAFETY: as above.
unsafe impl Sync for Endpoint {}

impl Endpoint {
    #[inline]
    pub(crate) fn record(&self) -> &EndpointRecord {
        // SAFETY: the record lies in the segment `self.shared` keeps mapped for as long as we
        // live (see the field).
        unsafe { self.record.as_ref() }
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.shared.ring.release_endpoint(self.index);
        self.shared.announce_endpoints();
    }
}
