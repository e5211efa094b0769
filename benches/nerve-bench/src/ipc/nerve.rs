//! `nerve`: this project's topics.
//!
//! TODO(bench): the topic API (`Topic::<T>::builder(name).depth(n).open()?`, `publisher.send`,
//! `subscriber.try_recv`/`recv`, `publisher.loan(n)` for chunks) has not landed on `main` yet.
//! Until it does, every nerve row carries `error` and the ratio rows are absent.

use super::{EchoSide, PingSide, Spec};
use anyhow::{bail, Result};

/// Chunked path from this size on; fixed-size Pod messages below it.
pub const CHUNK_FROM: usize = 64 << 10;

/// Not yet: the nerve topic API is not on this branch.
pub fn supports(_spec: &Spec) -> Result<(), String> {
    Err(
        "nerve topic API not available on this branch yet (TODO: merge main, write ipc/nerve.rs)"
            .into(),
    )
}

/// `bytes` for fixed-size messages, `bytes-chunk` for the loan path.
pub fn message_label(spec: &Spec) -> String {
    if spec.payload >= CHUNK_FROM {
        format!("{}-chunk", spec.message)
    } else {
        spec.message.clone()
    }
}

/// Which nerve path carried the bytes.
pub fn variant(spec: &Spec) -> Option<String> {
    Some(
        if spec.payload >= CHUNK_FROM {
            "loan (chunk pool)"
        } else {
            "send (fixed Pod)"
        }
        .into(),
    )
}

/// Not yet available.
pub fn echo_side(_spec: &Spec) -> Result<(Box<dyn EchoSide>, String)> {
    bail!("nerve topic API not available yet")
}

/// Not yet available.
pub fn ping_side(_spec: &Spec, _rendezvous: &str) -> Result<Box<dyn PingSide>> {
    bail!("nerve topic API not available yet")
}
