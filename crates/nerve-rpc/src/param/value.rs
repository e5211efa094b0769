//! Parameter values, their types and allowed ranges, and their YAML form. Depends on nothing
//! else in the crate (the errors name a [`ParamType`]).

use std::fmt;

use serde::{Deserialize, Serialize};

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
    pub(super) fn coerce(self, to: ParamType) -> ParamValue {
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

    /// From text as typed on a command line, read as YAML (`30`, `0.5`, `true`, `hello`,
    /// `[1, 2]`); `None` for what no parameter holds (a map, a mixed list).
    pub fn parse(text: &str) -> Option<ParamValue> {
        ParamValue::from_yaml(&serde_yaml::from_str(text).ok()?)
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
            // `{:?}` keeps a float a float: 3.0, not 3 (what a YAML reader takes for an int).
            ParamValue::Float(v) => write!(f, "{v:?}"),
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
    /// Whether `v` (each element of an array) is within the range.
    pub(super) fn admits(&self, v: &ParamValue) -> bool {
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
