//! How a parameter is declared ([`ParamDescriptor`]) and listed ([`ParamInfo`]).

use serde::{Deserialize, Serialize};

use super::value::{ParamRange, ParamType, ParamValue};

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
