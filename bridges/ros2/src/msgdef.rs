//! ROS 2 message definitions (`ros2msg` schema text) parsed into types: what the CDR encoder
//! walks.

use std::collections::HashMap;

/// A ROS 2 primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    /// `bool`.
    Bool,
    /// `byte`, `uint8`, `char`.
    U8,
    /// `int8`.
    I8,
    /// `uint16`.
    U16,
    /// `int16`.
    I16,
    /// `uint32`.
    U32,
    /// `int32`.
    I32,
    /// `uint64`.
    U64,
    /// `int64`.
    I64,
    /// `float32`.
    F32,
    /// `float64`.
    F64,
}

impl Prim {
    /// Bytes in CDR (and its alignment).
    pub fn size(self) -> usize {
        match self {
            Prim::Bool | Prim::U8 | Prim::I8 => 1,
            Prim::U16 | Prim::I16 => 2,
            Prim::U32 | Prim::I32 | Prim::F32 => 4,
            Prim::U64 | Prim::I64 | Prim::F64 => 8,
        }
    }
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RosType {
    /// A primitive.
    Prim(Prim),
    /// `string` (UTF-8).
    Str,
    /// A message, by its full name (`geometry_msgs/msg/Vector3`).
    Msg(String),
    /// `T[N]`.
    Array(Box<RosType>, usize),
    /// `T[]` or `T[<=N]`.
    Seq(Box<RosType>),
}

/// A message's fields, in order.
pub type Fields = Vec<(String, RosType)>;

/// Every message type a set of definitions names, by full name.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    types: HashMap<String, Fields>,
}

/// `pkg/Name` or `pkg/msg/Name` as `pkg/msg/Name`; a bare `Name` in package `pkg`.
fn full_name(name: &str, pkg: &str) -> String {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        [p, n] => format!("{p}/msg/{n}"),
        [p, "msg", n] => format!("{p}/msg/{n}"),
        [n] => format!("{pkg}/msg/{n}"),
        _ => name.to_owned(),
    }
}

fn base_type(word: &str, pkg: &str) -> RosType {
    let p = match word {
        "bool" => Prim::Bool,
        "byte" | "uint8" | "char" => Prim::U8,
        "int8" => Prim::I8,
        "uint16" => Prim::U16,
        "int16" => Prim::I16,
        "uint32" => Prim::U32,
        "int32" => Prim::I32,
        "uint64" => Prim::U64,
        "int64" => Prim::I64,
        "float32" => Prim::F32,
        "float64" => Prim::F64,
        "string" | "wstring" => return RosType::Str,
        w if w.starts_with("string<=") => return RosType::Str,
        other => return RosType::Msg(full_name(other, pkg)),
    };
    RosType::Prim(p)
}

fn field_type(word: &str, pkg: &str) -> Result<RosType, String> {
    let Some(open) = word.find('[') else {
        return Ok(base_type(word, pkg));
    };
    let inner = base_type(&word[..open], pkg);
    let bound = word[open + 1..]
        .strip_suffix(']')
        .ok_or_else(|| format!("unclosed array in {word:?}"))?;
    if bound.is_empty() || bound.starts_with("<=") {
        return Ok(RosType::Seq(Box::new(inner)));
    }
    let n = bound
        .parse()
        .map_err(|_| format!("bad array length in {word:?}"))?;
    Ok(RosType::Array(Box::new(inner), n))
}

impl Registry {
    /// Parses the schema text of `root` (its definition, then `MSG: pkg/Name` sections).
    pub fn parse(root: &str, text: &str) -> Result<Registry, String> {
        let mut reg = Registry::default();
        let mut current = full_name(root, "");
        let mut fields = Fields::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if line.starts_with("====") {
                reg.types
                    .insert(std::mem::take(&mut current), std::mem::take(&mut fields));
                continue;
            }
            if let Some(name) = line.strip_prefix("MSG:") {
                current = full_name(name.trim(), "");
                continue;
            }
            let mut words = line.split_whitespace();
            let (Some(ty), Some(name)) = (words.next(), words.next()) else {
                return Err(format!("{current}: cannot read {line:?}"));
            };
            // Constants (`byte OK=0`, `uint8 A = 1`) are not fields.
            if name.contains('=') || words.next().is_some_and(|w| w.starts_with('=')) {
                continue;
            }
            let pkg = current.split('/').next().unwrap_or("");
            fields.push((name.to_owned(), field_type(ty, pkg)?));
        }
        reg.types.insert(current, fields);
        Ok(reg)
    }

    /// The fields of `name`.
    pub fn fields(&self, name: &str) -> Option<&Fields> {
        self.types.get(name)
    }
}
