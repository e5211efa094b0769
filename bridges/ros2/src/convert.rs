//! A standard message's value as its ROS 2 counterpart's, and back, by the rules of
//! `docs/messages.md`: the same field path carries the same value (numbers converted, a `u8`
//! flag as `bool`, a code's name as the string), `x_ns` is the `builtin_interfaces` time or
//! duration `x`, a bounded list `x` with its count `x_len` is the sequence `x`, a chunk's
//! elements are the ROS 2 field named in [`ELEMENTS`], the renames of [`RENAMES`] apply, and
//! a ROS 2 field with no nerve counterpart is zero (nerve's `header.seq` is dropped).

use std::collections::HashMap;

use nerve::msgs::described::{KindDoc, StructDoc, TypeDoc, TypeRef};
use nerve::msgs::dynamic::{Value, DATA};

use super::msgdef::{Registry, RosType};

/// (nerve type, ROS 2 path, nerve path): fields that sit elsewhere in ROS 2.
const RENAMES: &[(&str, &str, &str)] = &[
    ("nerve/CmdVel", "linear.x", "linear"),
    ("nerve/CmdVel", "angular.z", "angular"),
    ("nerve/Clock", "clock", "sim_ns"),
    ("nerve/Odometry", "pose.pose", "pose"),
    ("nerve/Odometry", "pose.covariance", "pose_covariance"),
    ("nerve/Odometry", "twist.twist", "twist"),
    ("nerve/Odometry", "twist.covariance", "twist_covariance"),
    ("nerve/Marker", "type", "marker_type"),
];

/// (nerve type, ROS 2 path): where a chunked message's elements go when ROS 2 does not call
/// them `data`.
pub const ELEMENTS: &[(&str, &str)] = &[
    ("nerve/LaserScan", "ranges"),
    ("nerve/Polygon", "points"),
    ("nerve/PolygonStamped", "polygon.points"),
    ("nerve/Path", "poses"),
    ("nerve/TFMessage", "transforms"),
    ("nerve/DiagnosticStatus", "values"),
];

fn join(path: &str, f: &str) -> String {
    if path.is_empty() {
        f.to_owned()
    } else {
        format!("{path}.{f}")
    }
}

/// Field `{f}{suffix}` of struct `v` (`stamp_ns`, `ranges_len`), found without building its name.
fn suffixed<'v>(v: &'v Value, f: &str, suffix: &str) -> Option<&'v Value> {
    match v {
        Value::Struct(fields) => fields
            .iter()
            .find(|(k, _)| k.strip_suffix(suffix) == Some(f))
            .map(|(_, x)| x),
        _ => None,
    }
}

fn is_time(ty: &RosType) -> bool {
    matches!(ty, RosType::Msg(m) if m == "builtin_interfaces/msg/Time" || m == "builtin_interfaces/msg/Duration")
}

/// Nanoseconds as a `Time`/`Duration` value.
fn time(ns: u64) -> Value {
    Value::Struct(vec![
        ("sec".into(), Value::Int((ns / 1_000_000_000) as i64)),
        ("nanosec".into(), Value::UInt(ns % 1_000_000_000)),
    ])
}

fn ns_of(v: &Value) -> Option<u64> {
    match v {
        Value::UInt(u) => Some(*u),
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Struct(_) => ns_of(v.get("ns")?),
        _ => None,
    }
}

/// The named codes of a nerve type's code fields, by field path (array indices left out): a
/// code ROS 2 carries as a number is decoded to its name and written back as its value.
pub type Codes = HashMap<String, Vec<(String, i64)>>;

/// The codes of `doc`'s fields (see [`Codes`]).
pub fn codes_of(doc: &TypeDoc) -> Codes {
    fn walk(doc: &TypeDoc, s: &StructDoc, prefix: &str, out: &mut Codes, depth: u32) {
        for f in s.fields.iter().filter(|f| !f.padding) {
            let p = join(prefix, &f.name);
            let mut ty = &f.ty;
            while let TypeRef::Array { elem, .. } = ty {
                ty = elem;
            }
            match ty {
                TypeRef::Enum { values, .. } => {
                    out.insert(p, values.clone());
                }
                TypeRef::Struct(i) if depth < 16 => {
                    if let Some(inner) = doc.structs.get(*i as usize) {
                        walk(doc, inner, &p, out, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Codes::new();
    walk(doc, doc.root(), "", &mut out, 0);
    out
}

/// [`codes_of`], also under the ROS 2 path of each renamed field of `nerve_type`.
pub fn codes_of_renamed(doc: &TypeDoc, nerve_type: &str) -> Codes {
    let mut codes = codes_of(doc);
    for (t, ros, ours) in RENAMES {
        if *t == nerve_type {
            if let Some(c) = codes.get(*ours).cloned() {
                codes.insert((*ros).to_owned(), c);
            }
        }
    }
    codes
}

/// `a.0.b` → `a.b`.
fn without_indices(path: &str) -> String {
    path.split('.')
        .filter(|p| p.parse::<usize>().is_err())
        .collect::<Vec<_>>()
        .join(".")
}

/// The ROS 2 value of a nerve message of type `nerve_type` decoded to `v`.
pub fn to_ros(
    reg: &Registry,
    ros: &str,
    nerve_type: &str,
    codes: &Codes,
    v: &Value,
) -> Result<Value, String> {
    if is_time(&RosType::Msg(ros.to_owned())) {
        // nerve/Time itself.
        return Ok(time(ns_of(v).unwrap_or(0)));
    }
    let c = Conv {
        reg,
        nerve_type,
        codes,
        root: v,
        // Field paths are only needed to find renames, elements and codes: a type with none
        // of them skips building them (a string per field per message).
        paths: !codes.is_empty()
            || RENAMES.iter().any(|(t, _, _)| *t == nerve_type)
            || ELEMENTS.iter().any(|(t, _)| *t == nerve_type),
    };
    c.message(ros, Some(v), "")
}

struct Conv<'a> {
    reg: &'a Registry,
    nerve_type: &'a str,
    codes: &'a Codes,
    root: &'a Value,
    paths: bool,
}

impl Conv<'_> {
    fn message(&self, ros: &str, v: Option<&Value>, path: &str) -> Result<Value, String> {
        let fields = self
            .reg
            .fields(ros)
            .ok_or_else(|| format!("no definition of {ros}"))?;
        let mut out = Vec::with_capacity(fields.len());
        for (f, ty) in fields {
            let p = if self.paths {
                join(path, f)
            } else {
                String::new()
            };
            out.push((f.clone(), self.field(ty, v, f, &p)?));
        }
        Ok(Value::Struct(out))
    }

    /// The value of ROS 2 field `f` (at `path`, type `ty`) from the nerve struct `v`.
    fn field(&self, ty: &RosType, v: Option<&Value>, f: &str, path: &str) -> Result<Value, String> {
        let renamed = RENAMES
            .iter()
            .find(|(t, r, _)| *t == self.nerve_type && *r == path)
            .map(|(_, _, n)| self.root.path(n));
        let elements = ELEMENTS
            .iter()
            .any(|(t, r)| *t == self.nerve_type && *r == path)
            .then(|| self.root.get(DATA));
        let own = v.and_then(|v| v.get(f));
        let source = match (renamed, elements, own) {
            (Some(x), _, _) | (_, Some(x), _) => x,
            (_, _, Some(x)) => Some(x),
            _ if is_time(ty) => v.and_then(|v| suffixed(v, f, "_ns")),
            _ => None,
        };
        if is_time(ty) {
            return Ok(source.and_then(ns_of).map_or_else(|| time(0), time));
        }
        // A bounded list with its count: the first `count` entries.
        let count = v
            .and_then(|v| suffixed(v, f, "_len"))
            .and_then(|c| match c {
                Value::UInt(n) => Some(*n as usize),
                Value::Int(n) => usize::try_from(*n).ok(),
                _ => None,
            });
        let source = match (source, count) {
            (Some(Value::List(items)), Some(n)) => {
                Some(Value::List(items.iter().take(n).cloned().collect()))
            }
            (s, _) => s.cloned(),
        };
        self.convert(ty, source.as_ref(), path)
    }

    fn convert(&self, ty: &RosType, v: Option<&Value>, path: &str) -> Result<Value, String> {
        Ok(match (ty, v) {
            (RosType::Msg(m), v) => self.message(m, v, path)?,
            (RosType::Str, Some(Value::Bytes(b))) => {
                Value::Text(String::from_utf8_lossy(b).into_owned())
            }
            (RosType::Prim(_), Some(Value::Text(name))) => {
                let value = self
                    .codes
                    .get(&without_indices(path))
                    .and_then(|c| c.iter().find(|(n, _)| n == name))
                    .map(|(_, v)| *v)
                    .ok_or_else(|| format!("{path}: no code named {name:?}"))?;
                Value::Int(value)
            }
            (RosType::Array(elem, _) | RosType::Seq(elem), Some(Value::List(items)))
                if matches!(**elem, RosType::Msg(_)) =>
            {
                Value::List(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| {
                            let p = if self.paths {
                                format!("{path}.{i}")
                            } else {
                                String::new()
                            };
                            self.convert(elem, Some(x), &p)
                        })
                        .collect::<Result<_, _>>()?,
                )
            }
            (_, Some(x)) => x.clone(),
            (_, None) => Value::Null,
        })
    }
}

/// The nerve value of type `doc` (`nerve_type`) for a decoded ROS 2 message `ros`: the rules of
/// [`to_ros`] the other way (what nerve has and ROS 2 does not, such as `header.seq`, is zero).
pub fn from_ros(doc: &TypeDoc, nerve_type: &str, ros: &Value) -> Value {
    let b = Back {
        doc,
        nerve_type,
        root: ros,
        paths: RENAMES.iter().any(|(t, _, _)| *t == nerve_type),
    };
    if ros.get("sec").is_some() && ros.get("nanosec").is_some() && doc.root().fields.len() == 1 {
        // builtin_interfaces Time as nerve/Time: its nanoseconds.
        let field = doc.root().fields[0].name.clone();
        return Value::Struct(vec![(field, b.convert(&TypeRef::U64, Some(ros), ""))]);
    }
    let mut v = b.fill(doc.root(), Some(ros), "");
    if let (KindDoc::Chunked(elem), Value::Struct(fields)) = (&doc.root().kind, &mut v) {
        let at = ELEMENTS
            .iter()
            .find(|(t, _)| *t == nerve_type)
            .map_or(DATA, |(_, r)| *r);
        let src = ros.path(at);
        let data = match (elem, src) {
            (TypeRef::U8, Some(Value::Bytes(bytes))) => Value::Bytes(bytes.clone()),
            (TypeRef::U8, Some(Value::Text(t))) => Value::Bytes(t.as_bytes().to_vec()),
            (TypeRef::U8, _) => Value::Bytes(Vec::new()),
            (_, Some(Value::List(items))) => Value::List(
                items
                    .iter()
                    .map(|x| b.convert(elem, Some(x), DATA))
                    .collect(),
            ),
            _ => Value::List(Vec::new()),
        };
        fields.push((DATA.to_owned(), data));
    }
    v
}

struct Back<'a> {
    doc: &'a TypeDoc,
    nerve_type: &'a str,
    root: &'a Value,
    /// Field paths are needed (the type has renamed fields); else none is built.
    paths: bool,
}

impl Back<'_> {
    fn fill(&self, s: &StructDoc, ros: Option<&Value>, path: &str) -> Value {
        let mut out = Vec::with_capacity(s.fields.len());
        for f in s.fields.iter().filter(|f| !f.padding) {
            let p = if self.paths {
                join(path, &f.name)
            } else {
                String::new()
            };
            let renamed = RENAMES
                .iter()
                .find(|(t, _, n)| *t == self.nerve_type && *n == p)
                .map(|(_, r, _)| self.root.path(r));
            let parent = ros;
            let src = match renamed {
                Some(x) => x,
                None => match (f.name.strip_suffix("_ns"), f.name.strip_suffix("_len")) {
                    (Some(stem), _) if parent.and_then(|r| r.get(stem)).is_some() => {
                        parent.and_then(|r| r.get(stem))
                    }
                    (_, Some(stem)) => {
                        let n = match parent.and_then(|r| r.get(stem)) {
                            Some(Value::List(l)) => Some(l.len()),
                            Some(Value::Bytes(b)) => Some(b.len()),
                            _ => None,
                        };
                        if let Some(n) = n {
                            out.push((f.name.clone(), Value::UInt(n as u64)));
                            continue;
                        }
                        parent.and_then(|r| r.get(&f.name))
                    }
                    _ => parent.and_then(|r| r.get(&f.name)),
                },
            };
            out.push((f.name.clone(), self.convert(&f.ty, src, &p)));
        }
        Value::Struct(out)
    }

    fn convert(&self, ty: &TypeRef, src: Option<&Value>, path: &str) -> Value {
        match ty {
            TypeRef::Struct(i) => match self.doc.structs.get(*i as usize) {
                Some(s) => self.fill(s, src, path),
                None => Value::Null,
            },
            TypeRef::Array { elem, len } => {
                let items: Vec<Value> = match src {
                    Some(Value::List(l)) => l.clone(),
                    Some(Value::Bytes(b)) => b.iter().map(|x| Value::UInt(u64::from(*x))).collect(),
                    _ => Vec::new(),
                };
                Value::List(
                    (0..*len as usize)
                        .map(|i| self.convert(elem, items.get(i), path))
                        .collect(),
                )
            }
            TypeRef::Text { .. } => match src {
                Some(Value::Text(t)) => Value::Text(t.clone()),
                _ => Value::Text(String::new()),
            },
            TypeRef::Enum { .. } => src.cloned().unwrap_or(Value::UInt(0)),
            TypeRef::F32 | TypeRef::F64 => match src {
                Some(v @ (Value::Float(_) | Value::Int(_) | Value::UInt(_))) => v.clone(),
                _ => Value::Float(0.0),
            },
            _ => match src {
                // A time becomes its nanoseconds; a bool its 0/1.
                Some(v @ Value::Struct(_)) => {
                    let sec = v.get("sec").and_then(Value::as_f64).unwrap_or(0.0);
                    let nsec = v.get("nanosec").and_then(Value::as_f64).unwrap_or(0.0);
                    Value::UInt((sec.max(0.0) as u64) * 1_000_000_000 + nsec as u64)
                }
                Some(Value::Bool(b)) => Value::UInt(u64::from(*b)),
                Some(v @ (Value::Int(_) | Value::UInt(_))) => v.clone(),
                Some(Value::Float(x)) => Value::Int(*x as i64),
                _ => Value::UInt(0),
            },
        }
    }
}
