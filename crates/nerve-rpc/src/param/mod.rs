//! Node parameters (described, with an example, in the crate docs).
//!
//! Files: `value.rs` ([`ParamValue`], [`ParamType`], [`ParamRange`]; depends on nothing else in
//! the crate), `descriptor.rs` ([`ParamDescriptor`], [`ParamInfo`]), `parameters.rs`
//! ([`Parameters`]), `remote.rs` ([`ParamServer`], [`ParamClient`], the get/set/list services), `yaml.rs` (the YAML
//! files parameters are loaded from and dumped to).

mod descriptor;
mod parameters;
mod remote;
pub(crate) mod value;
mod yaml;

pub use self::descriptor::{ParamDescriptor, ParamInfo};
pub use self::parameters::Parameters;
pub use self::remote::{ParamClient, ParamServer};
pub use self::value::{ParamRange, ParamType, ParamValue};
