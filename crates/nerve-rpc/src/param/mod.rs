//! Node parameters: typed, declared with a default, a range and a description; validated on
//! every change; readable and settable from other processes through the services
//! `<node>/param/get`, `<node>/param/set` and `<node>/param/list`; loaded from and dumped to
//! YAML (`node: {ros__parameters: {name: value}}` or `node: {name: value}`).
//!
//! ```no_run
//! use nerve_rpc::param::{ParamClient, ParamDescriptor, Parameters};
//! use std::time::Duration;
//! let params = Parameters::new("camera");
//! params.declare(ParamDescriptor::new("fps", 30).int_range(1, 120).description("frame rate"))?;
//! params.on_change(|name, value| match (name, value.as_int()) {
//!     ("fps", Some(v)) if v % 5 != 0 => Err("fps must be a multiple of 5".into()),
//!     _ => Ok(()),
//! });
//! let _served = params.serve()?;
//! let remote = ParamClient::new("camera")?;
//! remote.set("fps", 60.into(), Duration::from_secs(1))?;
//! assert_eq!(params.get("fps").unwrap().as_int(), Some(60));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod descriptor;
mod parameters;
mod remote;
pub(crate) mod value;

pub use self::descriptor::{ParamDescriptor, ParamInfo};
pub use self::parameters::Parameters;
pub use self::remote::{ParamClient, ParamServer};
pub use self::value::{ParamRange, ParamType, ParamValue};
