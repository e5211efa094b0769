//! Standard messages as native Python classes.
//!
//! Every fixed message and every chunk header is a Python class deriving from
//! `_nerve.Struct`, built at import from the Rust layout ([`crate::layout`]). An instance holds
//! the exact bytes of the Rust `#[repr(C)]` struct, so sending is one memcpy and receiving one
//! allocation and one memcpy. The classes are C-level types (`PyType_FromSpecWithBases`) with
//! their own `tp_new` (keywords read in place) and one getset descriptor per field ([`field::Field`])
//! reading and writing those bytes:
//! - numbers read as `int`/`float` and are range- and type-checked when written;
//! - a nested struct (`imu.header`) is a *view* sharing its parent's bytes, so
//!   `imu.header.stamp_ns = t` changes `imu` (and keeps `imu` alive);
//! - fixed arrays (`imu.orientation_covariance`) read as numpy views of the same bytes and are
//!   written from any sequence of the right length;
//! - frame names (`frame_id`, `child_frame_id`) read and write as `str`.
//!
//! A struct can also view a chunk's header in shared memory (a loan being filled, frozen once
//! the loan is sent or discarded; a received sample, read-only); the view keeps the chunk
//! mapped (`Keep`).
//!
//! Measured on the project VM (Python 3.11): `CmdVel(stamp_ns=.., linear=.., angular=..)`
//! ~0.2 µs against ~1.2 µs for the ctypes structs this replaces; `Imu()` with three nested
//! fields set ~0.5 µs against ~4.7 µs.
//!
//! The files, each depending only on those listed before it (this one only re-exports):
//! - `prim`: the numbers a field holds;
//! - `storage`: `Struct` and its bytes (inline, on the heap, or viewed);
//! - `field`: a field's place and kind, read and written from Python;
//! - `spec`: a class's layout (`Spec`) and the table that finds it fast;
//! - `methods`: what every message offers Python, and the crate's helpers over classes;
//! - `class`: the classes built at import (`struct_classes`, `tp_new`, the getset slots).

mod class;
mod field;
mod methods;
mod prim;
mod spec;
mod storage;

pub(crate) use class::{build_class, standard_classes, struct_classes, Made};
pub(crate) use methods::{check_message_class, size_of, view_of};
pub(crate) use spec::{template_of, Spec};
pub(crate) use storage::{Keep, Struct};
