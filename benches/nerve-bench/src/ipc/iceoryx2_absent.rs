//! The iceoryx2 rows when nerve-bench is built without its peers (the test build): every row
//! says so instead of measuring. `make bench-build` builds the real module (`--features peers`).

use super::{EchoSide, PingSide, Spec};
use anyhow::{bail, Result};

/// Never supported in this build: the reason names the feature.
pub fn supports(_spec: &Spec) -> Result<(), String> {
    Err(crate::NO_PEERS.to_string())
}

/// No variant: nothing runs.
pub fn variant(_spec: &Spec) -> &'static str {
    "not built"
}

/// Refused: see [`supports`].
pub fn echo_side(_spec: &Spec) -> Result<(Box<dyn EchoSide>, String)> {
    bail!("{}", crate::NO_PEERS)
}

/// Refused: see [`supports`].
pub fn ping_side(_spec: &Spec, _rendezvous: &str) -> Result<Box<dyn PingSide>> {
    bail!("{}", crate::NO_PEERS)
}
