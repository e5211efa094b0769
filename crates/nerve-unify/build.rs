//! Empty: present so the crates under `[build-dependencies]` are resolved for the host, as the
//! build scripts and macros of the workspace use them.
fn main() {}
