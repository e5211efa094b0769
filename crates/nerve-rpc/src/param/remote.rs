//! A node's parameters across processes: the services `<node>/param/{get,set,list}`, the
//! handle that keeps them served ([`ParamServer`]) and the client of another node's
//! ([`ParamClient`]).

use std::fmt;
use std::time::Duration;

use super::descriptor::ParamInfo;
use super::value::ParamValue;
use crate::error::ParamError;
use crate::service::{Client, Server, Service};

pub(super) type ParamServices = (
    Service<String, Option<ParamValue>>,
    Service<(String, ParamValue), Result<(), String>>,
    Service<(), Vec<ParamInfo>>,
);

/// The get, set and list services of node `node`.
pub(super) fn param_services(node: &str, domain: u32) -> ParamServices {
    let name = |verb: &str| format!("{node}/param/{verb}");
    (
        Service::builder(&name("get")).domain(domain).build(),
        Service::builder(&name("set")).domain(domain).build(),
        Service::builder(&name("list")).domain(domain).build(),
    )
}

/// Keeps a node's parameter services running; dropping it stops them.
#[must_use = "dropping the ParamServer stops serving the node's parameters at once"]
pub struct ParamServer {
    _servers: [Server; 3],
}

impl ParamServer {
    pub(super) fn new(servers: [Server; 3]) -> Self {
        ParamServer { _servers: servers }
    }
}

impl fmt::Debug for ParamServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParamServer").finish_non_exhaustive()
    }
}

/// Reads and sets another node's parameters.
pub struct ParamClient {
    node: String,
    get: Client<String, Option<ParamValue>>,
    set: Client<(String, ParamValue), Result<(), String>>,
    list: Client<(), Vec<ParamInfo>>,
}

impl ParamClient {
    /// A client of node `node`'s parameters in the default domain.
    pub fn new(node: &str) -> Result<Self, ParamError> {
        Self::with_domain(node, nerve_transport::default_domain())
    }

    /// A client of node `node`'s parameters in `domain`.
    pub fn with_domain(node: &str, domain: u32) -> Result<Self, ParamError> {
        let node = nerve_transport::name::resolve(node);
        let (get, set, list) = param_services(&node, domain);
        Ok(ParamClient {
            get: get.client()?,
            set: set.client()?,
            list: list.client()?,
            node,
        })
    }

    /// The value of a parameter; `ParamError::Undeclared` if the node has none of that name.
    pub fn get(&self, name: &str, timeout: Duration) -> Result<ParamValue, ParamError> {
        self.get
            .call(&name.to_owned(), timeout)?
            .ok_or_else(|| ParamError::Undeclared {
                node: self.node.clone(),
                name: name.to_owned(),
            })
    }

    /// Sets a parameter; the node's validation error comes back as `ParamError::Remote`.
    pub fn set(&self, name: &str, value: ParamValue, timeout: Duration) -> Result<(), ParamError> {
        self.set
            .call(&(name.to_owned(), value), timeout)?
            .map_err(|message| ParamError::Remote { message })
    }

    /// Every parameter of the node.
    pub fn list(&self, timeout: Duration) -> Result<Vec<ParamInfo>, ParamError> {
        Ok(self.list.call(&(), timeout)?)
    }

    /// The node's parameters as YAML (`node: {ros__parameters: {...}}`), what
    /// [`load_yaml_str`](Self::load_yaml_str) and `Parameters::load_yaml_file` read back.
    pub fn dump_yaml(&self, timeout: Duration) -> Result<String, ParamError> {
        Ok(super::yaml::dump(&self.node, &self.list(timeout)?))
    }

    /// Sets the parameters for this node found in a YAML document (the shape
    /// [`dump_yaml`](Self::dump_yaml) writes, `ros__parameters` optional), in order; stops at
    /// the first the node refuses. Returns how many were set.
    pub fn load_yaml_str(&self, yaml: &str, timeout: Duration) -> Result<usize, ParamError> {
        let params = super::yaml::parse(&self.node, yaml)?;
        for (name, value) in &params {
            self.set(name, value.clone(), timeout)
                .map_err(|e| match e {
                    ParamError::Remote { message } => ParamError::Remote {
                        message: format!("parameter '{name}': {message}"),
                    },
                    other => other,
                })?;
        }
        Ok(params.len())
    }
}
