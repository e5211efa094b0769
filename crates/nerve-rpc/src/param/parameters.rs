//! One node's parameters ([`Parameters`]): declaration, validation, change callbacks, YAML
//! load and dump, and serving them to other processes.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use nerve_transport::sys::lock;

use super::descriptor::{ParamDescriptor, ParamInfo};
use super::remote::{param_services, ParamServer};
use super::value::ParamValue;
use crate::error::{ParamError, ServeError};

type ChangeCallback = dyn Fn(&str, &ParamValue) -> Result<(), String> + Send + Sync;

#[derive(Default)]
struct Store {
    declared: BTreeMap<String, ParamInfo>,
    /// Values loaded for parameters not declared yet (applied at declaration).
    overrides: BTreeMap<String, ParamValue>,
    callbacks: Vec<Arc<ChangeCallback>>,
}

/// The parameters of one node. Clones share the same store.
#[derive(Clone)]
pub struct Parameters {
    node: String,
    domain: u32,
    store: Arc<Mutex<Store>>,
}

impl fmt::Debug for Parameters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Parameters")
            .field("node", &self.node)
            .field("declared", &lock(&self.store).declared.len())
            .finish()
    }
}

impl Parameters {
    /// Parameters of node `node` in the default domain.
    pub fn new(node: &str) -> Self {
        Self::with_domain(node, nerve_transport::default_domain())
    }

    /// Parameters of node `node` in `domain`. When `$NERVE_PARAMS` names YAML files
    /// (`:`-separated; `nerve launch` sets it), this node's values in them are loaded first
    /// and declarations take them up (a file that cannot be read or parsed is reported and
    /// skipped).
    pub fn with_domain(node: &str, domain: u32) -> Self {
        let p = Parameters {
            node: nerve_transport::name::resolve(node),
            domain,
            store: Arc::default(),
        };
        if let Ok(files) = std::env::var("NERVE_PARAMS") {
            for file in files.split(':').filter(|f| !f.is_empty()) {
                if let Err(e) = p.load_yaml_file(file) {
                    tracing::warn!(node = %p.node, file, "NERVE_PARAMS: {e}");
                }
            }
        }
        p
    }

    /// The node name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Declares a parameter. Its value is the one loaded for it (YAML) if any, else the
    /// default; either must pass validation.
    pub fn declare(&self, descriptor: ParamDescriptor) -> Result<ParamValue, ParamError> {
        let mut store = lock(&self.store);
        if store.declared.contains_key(&descriptor.name) {
            return Err(ParamError::AlreadyDeclared {
                node: self.node.clone(),
                name: descriptor.name.clone(),
            });
        }
        if descriptor.default.ty() != descriptor.ty {
            return Err(self.wrong_type(&descriptor, &descriptor.default));
        }
        self.validate(&descriptor, &descriptor.default)?;
        let value = match store.overrides.get(&descriptor.name).cloned() {
            Some(v) => {
                let v = v.coerce(descriptor.ty);
                // The loaded value leaves `overrides` once the callbacks have decided (accepted
                // or refused), so a panicking callback leaves the store as it was.
                let checked = self.check(&store, &descriptor, &v);
                store.overrides.remove(&descriptor.name);
                checked?;
                v
            }
            None => descriptor.default.clone(),
        };
        store.declared.insert(
            descriptor.name.clone(),
            ParamInfo {
                descriptor,
                value: value.clone(),
            },
        );
        Ok(value)
    }

    /// The value of a declared parameter.
    pub fn get(&self, name: &str) -> Option<ParamValue> {
        lock(&self.store)
            .declared
            .get(name)
            .map(|p| p.value.clone())
    }

    /// Every declared parameter with its descriptor and value, by name.
    pub fn list(&self) -> Vec<ParamInfo> {
        lock(&self.store).declared.values().cloned().collect()
    }

    /// Sets a declared parameter after checking type, range and every change callback.
    pub fn set(&self, name: &str, value: impl Into<ParamValue>) -> Result<(), ParamError> {
        let value = value.into();
        let mut store = lock(&self.store);
        let Some(info) = store.declared.get(name) else {
            return Err(ParamError::Undeclared {
                node: self.node.clone(),
                name: name.to_owned(),
            });
        };
        let d = info.descriptor.clone();
        if d.read_only {
            return Err(ParamError::ReadOnly {
                node: self.node.clone(),
                name: name.to_owned(),
            });
        }
        let value = value.coerce(d.ty);
        // The change callbacks run before anything changes: one that panics leaves the store
        // as it was.
        self.check(&store, &d, &value)?;
        store.declared.get_mut(name).expect("checked above").value = value;
        Ok(())
    }

    /// Adds a callback run before every change (declaration with a loaded value, set, load);
    /// `Err(reason)` rejects the value.
    pub fn on_change(
        &self,
        callback: impl Fn(&str, &ParamValue) -> Result<(), String> + Send + Sync + 'static,
    ) {
        lock(&self.store).callbacks.push(Arc::new(callback));
    }

    fn wrong_type(&self, d: &ParamDescriptor, v: &ParamValue) -> ParamError {
        ParamError::WrongType {
            node: self.node.clone(),
            name: d.name.clone(),
            expected: d.ty,
            found: v.ty(),
            value: v.to_string(),
        }
    }

    fn validate(&self, d: &ParamDescriptor, v: &ParamValue) -> Result<(), ParamError> {
        if v.ty() != d.ty {
            return Err(self.wrong_type(d, v));
        }
        if let Some(range) = &d.range {
            if !range.admits(v) {
                return Err(ParamError::OutOfRange {
                    node: self.node.clone(),
                    name: d.name.clone(),
                    value: v.to_string(),
                    range: range.to_string(),
                });
            }
        }
        Ok(())
    }

    fn check(&self, store: &Store, d: &ParamDescriptor, v: &ParamValue) -> Result<(), ParamError> {
        self.validate(d, v)?;
        for cb in &store.callbacks {
            cb(&d.name, v).map_err(|reason| ParamError::Rejected {
                node: self.node.clone(),
                name: d.name.clone(),
                value: v.to_string(),
                reason,
            })?;
        }
        Ok(())
    }

    /// Applies the parameters for this node found in a YAML document (see the module docs;
    /// the keys `/node`, `node` and `/**` match). Declared parameters are validated and set;
    /// others are kept for their declaration. Stops at the first invalid value.
    pub fn load_yaml_str(&self, yaml: &str) -> Result<usize, ParamError> {
        let flat = super::yaml::parse(&self.node, yaml)?;
        let n = flat.len();
        for (name, value) in flat {
            let declared = lock(&self.store).declared.contains_key(&name);
            if declared {
                self.set(&name, value)?;
            } else {
                lock(&self.store).overrides.insert(name, value);
            }
        }
        Ok(n)
    }

    /// [`load_yaml_str`](Self::load_yaml_str) from a file.
    pub fn load_yaml_file(&self, path: impl AsRef<std::path::Path>) -> Result<usize, ParamError> {
        let path = path.as_ref();
        let text = nerve_transport::document::read(path).map_err(|e| ParamError::Yaml {
            node: self.node.clone(),
            reason: e.to_string(),
        })?;
        self.load_yaml_str(&text)
    }

    /// The declared parameters as YAML: `node: {ros__parameters: {name: value}}` (dotted names
    /// nest, as ROS 2 writes them).
    pub fn dump_yaml(&self) -> String {
        super::yaml::dump(&self.node, &self.list())
    }

    /// Serves `<node>/param/get`, `<node>/param/set` and `<node>/param/list` until the returned
    /// handle drops.
    pub fn serve(&self) -> Result<ParamServer, ServeError> {
        let (get, set, list) = param_services(&self.node, self.domain);
        let p = self.clone();
        let get = get.server().serve(move |name: String| Ok(p.get(&name)))?;
        let p = self.clone();
        let set = set
            .server()
            .serve(move |(name, value): (String, ParamValue)| {
                Ok(p.set(&name, value).map_err(|e| e.to_string()))
            })?;
        let p = self.clone();
        let list = list.server().serve(move |_: ()| Ok(p.list()))?;
        Ok(ParamServer::new([get, set, list]))
    }
}
