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

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nerve_transport::sys::lock;
use serde::{Deserialize, Serialize};

use crate::error::{CallError, ParamError, ServeError};
use crate::service::{Client, Server, Service};

/// A parameter value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamValue {
    /// `true` / `false`.
    Bool(bool),
    /// 64-bit integer.
    Int(i64),
    /// 64-bit float.
    Float(f64),
    /// UTF-8 text.
    String(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// Array of booleans.
    BoolArray(Vec<bool>),
    /// Array of integers.
    IntArray(Vec<i64>),
    /// Array of floats.
    FloatArray(Vec<f64>),
    /// Array of strings.
    StringArray(Vec<String>),
}

/// The type of a [`ParamValue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamType {
    /// [`ParamValue::Bool`]
    Bool,
    /// [`ParamValue::Int`]
    Int,
    /// [`ParamValue::Float`]
    Float,
    /// [`ParamValue::String`]
    String,
    /// [`ParamValue::Bytes`]
    Bytes,
    /// [`ParamValue::BoolArray`]
    BoolArray,
    /// [`ParamValue::IntArray`]
    IntArray,
    /// [`ParamValue::FloatArray`]
    FloatArray,
    /// [`ParamValue::StringArray`]
    StringArray,
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            ParamType::Bool => "bool",
            ParamType::Int => "int",
            ParamType::Float => "float",
            ParamType::String => "string",
            ParamType::Bytes => "bytes",
            ParamType::BoolArray => "bool array",
            ParamType::IntArray => "int array",
            ParamType::FloatArray => "float array",
            ParamType::StringArray => "string array",
        };
        f.write_str(s)
    }
}

impl ParamValue {
    /// Its type.
    pub fn ty(&self) -> ParamType {
        match self {
            ParamValue::Bool(_) => ParamType::Bool,
            ParamValue::Int(_) => ParamType::Int,
            ParamValue::Float(_) => ParamType::Float,
            ParamValue::String(_) => ParamType::String,
            ParamValue::Bytes(_) => ParamType::Bytes,
            ParamValue::BoolArray(_) => ParamType::BoolArray,
            ParamValue::IntArray(_) => ParamType::IntArray,
            ParamValue::FloatArray(_) => ParamType::FloatArray,
            ParamValue::StringArray(_) => ParamType::StringArray,
        }
    }
    /// The boolean, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ParamValue::Bool(v) => Some(*v),
            _ => None,
        }
    }
    /// The integer, if it is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            ParamValue::Int(v) => Some(*v),
            _ => None,
        }
    }
    /// The float (integers convert), if it is one.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            ParamValue::Float(v) => Some(*v),
            ParamValue::Int(v) => Some(*v as f64),
            _ => None,
        }
    }
    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParamValue::String(v) => Some(v),
            _ => None,
        }
    }

    /// Converts to the declared type where that loses nothing: int → float, int array →
    /// float array or bytes (0..=255), empty arrays to any array type.
    fn coerce(self, to: ParamType) -> ParamValue {
        match (self, to) {
            (ParamValue::Int(v), ParamType::Float) => ParamValue::Float(v as f64),
            (ParamValue::IntArray(v), ParamType::FloatArray) => {
                ParamValue::FloatArray(v.into_iter().map(|x| x as f64).collect())
            }
            (ParamValue::IntArray(v), ParamType::Bytes)
                if v.iter().all(|x| (0..=255).contains(x)) =>
            {
                ParamValue::Bytes(v.into_iter().map(|x| x as u8).collect())
            }
            (v, t) if v.is_empty_array() => match t {
                ParamType::Bytes => ParamValue::Bytes(vec![]),
                ParamType::BoolArray => ParamValue::BoolArray(vec![]),
                ParamType::IntArray => ParamValue::IntArray(vec![]),
                ParamType::FloatArray => ParamValue::FloatArray(vec![]),
                ParamType::StringArray => ParamValue::StringArray(vec![]),
                _ => v,
            },
            (v, _) => v,
        }
    }

    fn is_empty_array(&self) -> bool {
        match self {
            ParamValue::Bytes(v) => v.is_empty(),
            ParamValue::BoolArray(v) => v.is_empty(),
            ParamValue::IntArray(v) => v.is_empty(),
            ParamValue::FloatArray(v) => v.is_empty(),
            ParamValue::StringArray(v) => v.is_empty(),
            _ => false,
        }
    }

    /// From a YAML value (no maps).
    pub fn from_yaml(v: &serde_yaml::Value) -> Option<ParamValue> {
        use serde_yaml::Value as Y;
        Some(match v {
            Y::Bool(b) => ParamValue::Bool(*b),
            Y::Number(n) => match n.as_i64() {
                Some(i) => ParamValue::Int(i),
                None => ParamValue::Float(n.as_f64()?),
            },
            Y::String(s) => ParamValue::String(s.clone()),
            Y::Sequence(items) => {
                let vals: Option<Vec<ParamValue>> = items.iter().map(Self::from_yaml).collect();
                let vals = vals?;
                if vals.is_empty() {
                    return Some(ParamValue::IntArray(vec![]));
                }
                if let Some(v) = vals.iter().map(|v| v.as_bool()).collect::<Option<Vec<_>>>() {
                    ParamValue::BoolArray(v)
                } else if let Some(v) = vals.iter().map(|v| v.as_int()).collect::<Option<_>>() {
                    ParamValue::IntArray(v)
                } else if let Some(v) = vals.iter().map(|v| v.as_float()).collect::<Option<_>>() {
                    ParamValue::FloatArray(v)
                } else if let Some(v) = vals
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<_>>()
                {
                    ParamValue::StringArray(v)
                } else {
                    return None;
                }
            }
            Y::Tagged(t) => return Self::from_yaml(&t.value),
            Y::Null | Y::Mapping(_) => return None,
        })
    }

    /// To a YAML value (bytes as a list of integers, as ROS 2 writes byte arrays).
    pub fn to_yaml(&self) -> serde_yaml::Value {
        use serde_yaml::Value as Y;
        match self {
            ParamValue::Bool(b) => Y::Bool(*b),
            ParamValue::Int(i) => Y::Number((*i).into()),
            ParamValue::Float(f) => Y::Number((*f).into()),
            ParamValue::String(s) => Y::String(s.clone()),
            ParamValue::Bytes(b) => Y::Sequence(b.iter().map(|x| Y::Number((*x).into())).collect()),
            ParamValue::BoolArray(v) => Y::Sequence(v.iter().map(|x| Y::Bool(*x)).collect()),
            ParamValue::IntArray(v) => {
                Y::Sequence(v.iter().map(|x| Y::Number((*x).into())).collect())
            }
            ParamValue::FloatArray(v) => {
                Y::Sequence(v.iter().map(|x| Y::Number((*x).into())).collect())
            }
            ParamValue::StringArray(v) => {
                Y::Sequence(v.iter().map(|x| Y::String(x.clone())).collect())
            }
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(v) => write!(f, "{v}"),
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Float(v) => write!(f, "{v}"),
            ParamValue::String(v) => write!(f, "{v:?}"),
            ParamValue::Bytes(v) => write!(f, "{} bytes", v.len()),
            ParamValue::BoolArray(v) => write!(f, "{v:?}"),
            ParamValue::IntArray(v) => write!(f, "{v:?}"),
            ParamValue::FloatArray(v) => write!(f, "{v:?}"),
            ParamValue::StringArray(v) => write!(f, "{v:?}"),
        }
    }
}

macro_rules! from_impls {
    ($($t:ty => $v:ident $(as $c:ty)?),* $(,)?) => {
        $(impl From<$t> for ParamValue {
            fn from(v: $t) -> Self {
                ParamValue::$v(v $(as $c)?)
            }
        })*
    };
}
from_impls!(bool => Bool, i64 => Int, i32 => Int as i64, u32 => Int as i64, f64 => Float,
    f32 => Float as f64, String => String, Vec<u8> => Bytes, Vec<bool> => BoolArray,
    Vec<i64> => IntArray, Vec<f64> => FloatArray, Vec<String> => StringArray);

impl From<&str> for ParamValue {
    fn from(v: &str) -> Self {
        ParamValue::String(v.to_owned())
    }
}

/// Allowed values of a numeric parameter (applies to each element of an array).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamRange {
    /// Integers in `min..=max`, and `min + k * step` when `step > 0`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Granularity (0: any).
        step: i64,
    },
    /// Floats in `min..=max`.
    Float {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
}

impl fmt::Display for ParamRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamRange::Int { min, max, step } if *step > 1 => {
                write!(f, "[{min}, {max}] in steps of {step}")
            }
            ParamRange::Int { min, max, .. } => write!(f, "[{min}, {max}]"),
            ParamRange::Float { min, max } => write!(f, "[{min}, {max}]"),
        }
    }
}

impl ParamRange {
    fn admits(&self, v: &ParamValue) -> bool {
        let int_ok = |x: i64| match self {
            ParamRange::Int { min, max, step } => {
                x >= *min && x <= *max && (*step <= 0 || (x - min) % step == 0)
            }
            ParamRange::Float { min, max } => (x as f64) >= *min && (x as f64) <= *max,
        };
        let float_ok = |x: f64| match self {
            ParamRange::Int { min, max, .. } => x >= *min as f64 && x <= *max as f64,
            ParamRange::Float { min, max } => x >= *min && x <= *max,
        };
        match v {
            ParamValue::Int(x) => int_ok(*x),
            ParamValue::Float(x) => float_ok(*x),
            ParamValue::IntArray(xs) => xs.iter().all(|x| int_ok(*x)),
            ParamValue::FloatArray(xs) => xs.iter().all(|x| float_ok(*x)),
            _ => true,
        }
    }
}

/// How a parameter is declared: name, type (from the default), range, description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamDescriptor {
    /// Name, e.g. `fps` or `camera.exposure` (dots group, as in ROS 2).
    pub name: String,
    /// Type; fixed at declaration.
    pub ty: ParamType,
    /// Default value.
    pub default: ParamValue,
    /// What it does, for humans.
    pub description: String,
    /// Allowed range of numeric values.
    pub range: Option<ParamRange>,
    /// Whether it can only be set by loading (YAML) before it is declared.
    pub read_only: bool,
}

impl ParamDescriptor {
    /// A parameter `name` whose type is the default's.
    pub fn new(name: &str, default: impl Into<ParamValue>) -> Self {
        let default = default.into();
        ParamDescriptor {
            name: name.to_owned(),
            ty: default.ty(),
            default,
            description: String::new(),
            range: None,
            read_only: false,
        }
    }
    /// Integers (or integer elements) in `min..=max`.
    pub fn int_range(mut self, min: i64, max: i64) -> Self {
        self.range = Some(ParamRange::Int { min, max, step: 0 });
        self
    }
    /// Integers in `min..=max` at `min + k * step`.
    pub fn int_step_range(mut self, min: i64, max: i64, step: i64) -> Self {
        self.range = Some(ParamRange::Int { min, max, step });
        self
    }
    /// Floats (or float elements) in `min..=max`.
    pub fn float_range(mut self, min: f64, max: f64) -> Self {
        self.range = Some(ParamRange::Float { min, max });
        self
    }
    /// The description.
    pub fn description(mut self, text: &str) -> Self {
        self.description = text.to_owned();
        self
    }
    /// Only settable before declaration (from a YAML file).
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }
}

/// A parameter as listed: its descriptor and current value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamInfo {
    /// How it was declared.
    pub descriptor: ParamDescriptor,
    /// Its value now.
    pub value: ParamValue,
}

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

    /// Parameters of node `node` in `domain`.
    pub fn with_domain(node: &str, domain: u32) -> Self {
        Parameters {
            node: node.trim_start_matches('/').to_owned(),
            domain,
            store: Arc::default(),
        }
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
        let doc: serde_yaml::Value = serde_yaml::from_str(yaml).map_err(|e| ParamError::Yaml {
            node: self.node.clone(),
            reason: e.to_string(),
        })?;
        let Some(nodes) = doc.as_mapping() else {
            return Err(ParamError::Yaml {
                node: self.node.clone(),
                reason: "the top level must map node names to parameters".into(),
            });
        };
        let mut flat = Vec::new();
        for (key, body) in nodes {
            let key = key.as_str().unwrap_or("").trim_start_matches('/');
            if key != self.node && key != "**" {
                continue;
            }
            let body = body.get("ros__parameters").unwrap_or(body);
            flatten("", body, &mut flat).map_err(|reason| ParamError::Yaml {
                node: self.node.clone(),
                reason,
            })?;
        }
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
        let text = std::fs::read_to_string(path).map_err(|e| ParamError::Yaml {
            node: self.node.clone(),
            reason: format!("cannot read {}: {e}", path.display()),
        })?;
        self.load_yaml_str(&text)
    }

    /// The declared parameters as YAML: `node: {ros__parameters: {name: value}}` (dotted names
    /// nest, as ROS 2 writes them).
    pub fn dump_yaml(&self) -> String {
        use serde_yaml::{Mapping, Value as Y};
        let mut params = Mapping::new();
        for info in self.list() {
            let mut map = &mut params;
            let parts: Vec<&str> = info.descriptor.name.split('.').collect();
            for part in &parts[..parts.len() - 1] {
                let key = Y::String((*part).to_owned());
                if !matches!(map.get(&key), Some(Y::Mapping(_))) {
                    map.insert(key.clone(), Y::Mapping(Mapping::new()));
                }
                map = match map.get_mut(&key) {
                    Some(Y::Mapping(m)) => m,
                    _ => unreachable!("inserted above"),
                };
            }
            map.insert(
                Y::String(parts[parts.len() - 1].to_owned()),
                info.value.to_yaml(),
            );
        }
        let mut body = Mapping::new();
        body.insert(Y::String("ros__parameters".into()), Y::Mapping(params));
        let mut doc = Mapping::new();
        doc.insert(Y::String(self.node.clone()), Y::Mapping(body));
        serde_yaml::to_string(&Y::Mapping(doc)).expect("YAML of plain values")
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
        Ok(ParamServer {
            _servers: [get, set, list],
        })
    }
}

fn flatten(
    prefix: &str,
    v: &serde_yaml::Value,
    out: &mut Vec<(String, ParamValue)>,
) -> Result<(), String> {
    match v {
        serde_yaml::Value::Mapping(m) => {
            for (k, v) in m {
                let k = k
                    .as_str()
                    .ok_or_else(|| format!("parameter names must be strings, found {k:?}"))?;
                let name = if prefix.is_empty() {
                    k.to_owned()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&name, v, out)?;
            }
            Ok(())
        }
        other => {
            let value = ParamValue::from_yaml(other).ok_or_else(|| {
                format!("parameter '{prefix}': unsupported value {other:?} (use a bool, number, string or a list of one of them)")
            })?;
            out.push((prefix.to_owned(), value));
            Ok(())
        }
    }
}

type ParamServices = (
    Service<String, Option<ParamValue>>,
    Service<(String, ParamValue), Result<(), String>>,
    Service<(), Vec<ParamInfo>>,
);

fn param_services(node: &str, domain: u32) -> ParamServices {
    let name = |verb: &str| format!("{node}/param/{verb}");
    (
        Service::builder(&name("get")).domain(domain).build(),
        Service::builder(&name("set")).domain(domain).build(),
        Service::builder(&name("list")).domain(domain).build(),
    )
}

/// Keeps a node's parameter services running.
pub struct ParamServer {
    _servers: [Server; 3],
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
        let node = node.trim_start_matches('/').to_owned();
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
}

impl From<CallError> for ParamError {
    fn from(e: CallError) -> Self {
        ParamError::Call(e)
    }
}
