//! `nerve._nerve`: the Rust half of nerve's Python package, a thin layer over [`nerve::raw`].
//!
//! The pure-Python package `nerve` builds the user-facing classes (numpy views, asyncio
//! helpers) on top of what this module exposes:
//! - `Topic`, `Publisher`, `Subscriber`, `Loan`, `Sample`: untyped endpoints;
//! - `Struct` and `struct_classes()`: every standard message as a native class with the exact
//!   bytes of its Rust struct, generated from the Rust types so they can never drift apart;
//! - `message_types()`: every message type's stored identity (name, kind, layout hash);
//! - `declare()` and `classes_from_doc()`: a type declared in Python gets Rust's layout and
//!   fingerprint, and any description (a topic's) a class;
//! - one exception class per Rust error variant, named like it, with the same message (the
//!   three `Corrupt` variants are `OpenCorrupt`, `SendCorrupt`, `RecvCorrupt`, all
//!   `nerve.Corrupt`); a Rust panic in any entry point is `InternalError` (`errors::guard`);
//! - services, parameters and actions (`RawServiceServer`, `ActionServer`, ...).
//!
//! The files, each depending only on those listed before it:
//! - `errors`: the exception classes and the conversions from Rust's errors, and `guard`,
//!   which every entry point runs its body through;
//! - `args`: arguments checked where they enter (durations, counts);
//! - `buffer`: the buffer protocol, both ways (the unsafe code and why it is sound);
//! - `layout`: every standard message's layout, from the Rust types;
//! - `arrays`: numpy arrays viewing shared memory;
//! - `lent`: a loan's memory as its views see it (closed by `send`/`discard`, freed last);
//! - `structs`: the message classes (`Struct`, their fields, specs and class machinery);
//! - `declared`: classes of types declared in Python or described by a topic;
//! - `chunk`: `Loan` and `Sample` and the views made of chunks;
//! - `publisher`, `subscriber`, then `topic` (which makes both);
//! - `rpc`, then `action`: services, parameters and actions.

mod action;
mod args;
mod arrays;
mod attach;
mod bag;
mod bridge;
mod buffer;
mod chunk;
mod declared;
mod errors;
mod layout;
mod lent;
mod log;
mod publisher;
mod ros2;
mod ros2_pump;
mod rpc;
mod sched;
mod structs;
mod subscriber;
mod topic;

use pyo3::prelude::*;

#[pymodule]
fn _nerve(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Rust `tracing`/`log` records go to Python's `logging` (logger names = Rust targets).
    let _ = pyo3_log::try_init();
    // Publishers send to other hosts themselves once one wants their topic (nothing happens
    // before; `NERVE_DIRECT=0` keeps them to the bridge).
    nerve_zenoh::direct::install_auto();
    m.add_class::<topic::Topic>()?;
    bag::register(m)?;
    bridge::register(m)?;
    m.add_class::<publisher::Publisher>()?;
    m.add_class::<subscriber::Subscriber>()?;
    m.add_class::<chunk::Loan>()?;
    m.add_class::<chunk::Sample>()?;
    m.add_function(wrap_pyfunction!(topic::topics, m)?)?;
    m.add_function(wrap_pyfunction!(topic::default_domain, m)?)?;
    m.add_function(wrap_pyfunction!(layout::message_types, m)?)?;
    m.add_function(wrap_pyfunction!(layout::struct_docs, m)?)?;
    m.add_class::<structs::Struct>()?;
    m.add_class::<structs::Spec>()?;
    m.add_function(wrap_pyfunction!(structs::struct_classes, m)?)?;
    m.add_function(wrap_pyfunction!(declared::declare, m)?)?;
    m.add_function(wrap_pyfunction!(declared::classes_from_doc, m)?)?;
    m.add_function(wrap_pyfunction!(declared::stored_type_of, m)?)?;
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(args::_seconds, m)?)?;
    m.add("DEFAULT_DEPTH", nerve::DEFAULT_DEPTH)?;
    m.add("MAX_DEPTH", nerve::MAX_DEPTH)?;
    m.add("ROS2_VIEW_TOPIC", nerve::plumbing::ROS2_VIEW_TOPIC)?;
    rpc::register(m)?;
    action::register(m)?;
    sched::register(m)?;
    m.add_class::<log::Logger>()?;
    m.add_function(wrap_pyfunction!(ros2::ros2_types, m)?)?;
    m.add_class::<ros2::EchoFilter>()?;
    m.add_class::<ros2::Ros2Reader>()?;
    m.add_class::<ros2_pump::Ros2Pump>()?;
    m.add_class::<ros2_pump::Ros2Intake>()?;
    m.add_class::<ros2::Ros2Writer>()?;
    Ok(())
}
