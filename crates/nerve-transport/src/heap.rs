//! The in-process topics of this process: a topic opened with `in_process()` lives on the heap
//! and is found again by (domain, name) while any endpoint of it is alive. Each is posted on
//! its domain's registry, so other processes can list and watch it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::shared::Shared;
use crate::sys::lock;

type HeapKey = (u32, String);

fn heap_topics() -> &'static Mutex<HashMap<HeapKey, Weak<Shared>>> {
    static HEAP: OnceLock<Mutex<HashMap<HeapKey, Weak<Shared>>>> = OnceLock::new();
    HEAP.get_or_init(Default::default)
}

/// In-process topics alive in this process (for the registry).
pub(crate) fn list() -> Vec<Arc<Shared>> {
    lock(heap_topics())
        .values()
        .filter_map(Weak::upgrade)
        .collect()
}

/// The live in-process topic `name` of `domain`, if there is one.
pub(crate) fn get(domain: u32, name: &str) -> Option<Arc<Shared>> {
    lock(heap_topics())
        .get(&(domain, name.to_owned()))
        .and_then(Weak::upgrade)
}

/// The live in-process topic `name` of `domain`, or the one `create` makes (registered under
/// that key). The registry's lock is held throughout, so two threads opening the same name
/// get the same topic.
pub(crate) fn get_or_create<E>(
    domain: u32,
    name: &str,
    create: impl FnOnce() -> Result<Arc<Shared>, E>,
) -> Result<Arc<Shared>, E> {
    let mut map = lock(heap_topics());
    let key = (domain, name.to_owned());
    if let Some(existing) = map.get(&key).and_then(Weak::upgrade) {
        return Ok(existing);
    }
    let shared = create()?;
    map.insert(key, Arc::downgrade(&shared));
    // Posted for other processes to see (under the lock: a topic of this name dropped
    // meanwhile withdraws only its own posting, told apart by the address of its memory).
    crate::registry::announce::heap_created(
        domain,
        name,
        &shared.params,
        shared.memory.region().base().as_ptr() as usize,
    );
    Ok(shared)
}
