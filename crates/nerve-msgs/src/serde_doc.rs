//! The description of a serde type sent as MessagePack (`Msgpack<V>` topics): its fields and
//! their formats, traced from the type's `Deserialize` (the `serde-reflection` crate), so a
//! MessagePack topic says what its values hold (`nerve interface show`, a recorder's schema)
//! and two programs that disagree on a field get a `TypeMismatch` naming it, as fixed types do.
//!
//! MessagePack values are named maps decoded by name, so what is compared is what a reader
//! depends on: field names (not their order), the format of each field, the variants of enums.
//! The Rust names of the types are not compared (they do not travel). A type whose
//! `Deserialize` cannot be traced (`serde_json::Value`, untagged enums, custom impls) has no
//! description, and its topics are checked by nothing but the data, as before.

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_reflection::{
    ContainerFormat, Format, FormatHolder, Named, Registry, Tracer, TracerConfig, VariantFormat,
};

use crate::described::DocError;

/// The first bytes of a serde description in a topic's schema area (a layout description,
/// [`crate::described::TypeDoc`], never starts with them).
pub const MAGIC: &[u8; 4] = b"NSD1";

/// Largest encoded description a topic carries.
pub const MAX_BYTES: usize = 64 << 10;

/// Most traces of one type (its nested enums' variants, all told, plus one).
const MAX_TRACE_ROUNDS: usize = 64;

/// How deep the comparison follows nested types (recursive types stop there): as deep as a
/// description may nest.
use crate::described::MAX_NESTING;

/// A serde type's traced description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SerdeDoc {
    /// The Rust type's name (`my_robot::Status`), for messages; not compared.
    pub name: String,
    /// The format of a value.
    pub root: Format,
    /// Every named container (struct or enum) the format refers to.
    pub registry: Registry,
}

/// Descriptions already traced, by type (tracing runs each type's `Deserialize` many times).
static TRACED: Mutex<Option<HashMap<TypeId, Option<Vec<u8>>>>> = Mutex::new(None);

impl SerdeDoc {
    /// The description of `T`, or `None` when its `Deserialize` cannot be traced.
    pub fn of<T: DeserializeOwned + 'static>() -> Option<SerdeDoc> {
        // A trace of `T` explores one more variant of each enum in it whose "incomplete" mark
        // was cleared: trace it until no enum we know of is incomplete. The enums are learnt
        // from the tracer's complaint (`MissingVariants`), then traced again from scratch.
        let trace = || -> Option<SerdeDoc> {
            let mut enums: Vec<String> = Vec::new();
            for _ in 0..MAX_TRACE_ROUNDS {
                let mut tracer = Tracer::new(TracerConfig::default());
                let mut root = Format::Unit;
                for _ in 0..MAX_TRACE_ROUNDS {
                    root = tracer.trace_simple_type::<T>().ok()?.0;
                    let mut pending = false;
                    for name in &enums {
                        pending |= tracer.check_incomplete_enum(name).is_some();
                    }
                    if !pending {
                        break;
                    }
                }
                match tracer.registry() {
                    Ok(registry) => {
                        root.normalize().ok()?;
                        return Some(SerdeDoc {
                            name: std::any::type_name::<T>().to_owned(),
                            root,
                            registry,
                        });
                    }
                    Err(serde_reflection::Error::MissingVariants(more))
                        if more.iter().any(|m| !enums.contains(m)) =>
                    {
                        enums.extend(more);
                    }
                    Err(_) => return None,
                }
            }
            None
        };
        // A type's own `Deserialize` may panic on what tracing feeds it: then it has none.
        std::panic::catch_unwind(trace).ok().flatten()
    }

    /// [`SerdeDoc::of`] encoded for a topic (empty when there is none), traced once per type.
    pub fn bytes_of<T: DeserializeOwned + 'static>() -> Vec<u8> {
        let mut cache = TRACED.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .get_or_insert_with(HashMap::new)
            .entry(TypeId::of::<T>())
            // A description larger than a topic carries is left out (the topic is then
            // checked by its data only, as before descriptions).
            .or_insert_with(|| {
                SerdeDoc::of::<T>()
                    .map(|d| d.to_bytes())
                    .filter(|b| b.len() <= MAX_BYTES)
            })
            .clone()
            .unwrap_or_default()
    }

    /// Encoded: [`MAGIC`] then MessagePack.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(rmp_serde::to_vec(self).unwrap_or_default());
        out
    }

    /// Whether `bytes` hold a serde description (and not a layout one).
    pub fn is_serde(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
    }

    /// Decodes a description read from shared memory (hostile input).
    pub fn from_bytes(bytes: &[u8]) -> Result<SerdeDoc, DocError> {
        if bytes.len() > MAX_BYTES {
            return Err(DocError(format!(
                "{} bytes, at most {MAX_BYTES}",
                bytes.len()
            )));
        }
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or_else(|| DocError("not a serde description".into()))?;
        rmp_serde::from_slice(body).map_err(|e| DocError(e.to_string()))
    }

    /// The type for a reader, as `ros2 interface show` prints one: its root format, then
    /// each named type it uses with its fields (or variants), one per line, indented.
    pub fn outline(&self) -> String {
        let mut out = show(&self.root);
        for (name, c) in &self.registry {
            out.push_str(&format!("\n  {name}"));
            match c {
                ContainerFormat::UnitStruct => out.push_str(" (unit)"),
                ContainerFormat::NewTypeStruct(f) => out.push_str(&format!(" = {}", show(f))),
                ContainerFormat::TupleStruct(fs) => {
                    let fs: Vec<String> = fs.iter().map(show).collect();
                    out.push_str(&format!(" = ({})", fs.join(", ")));
                }
                ContainerFormat::Struct(fields) => {
                    for f in fields {
                        out.push_str(&format!("\n    {}: {}", f.name, show(&f.value)));
                    }
                }
                ContainerFormat::Enum(variants) => {
                    for v in variants.values() {
                        let shape = match &v.value {
                            VariantFormat::Unit => String::new(),
                            VariantFormat::NewType(f) => format!("({})", show(f)),
                            VariantFormat::Tuple(fs) => {
                                format!("({})", fs.iter().map(show).collect::<Vec<_>>().join(", "))
                            }
                            VariantFormat::Struct(fs) => format!(
                                " {{ {} }}",
                                fs.iter()
                                    .map(|f| format!("{}: {}", f.name, show(&f.value)))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            VariantFormat::Variable(_) => "(?)".into(),
                        };
                        out.push_str(&format!("\n    | {}{shape}", v.name));
                    }
                }
            }
        }
        out
    }

    /// The first difference from `other` that a MessagePack reader would notice, naming the
    /// field; `sides` name the two (`("in this endpoint's type", "in the topic's")`).
    pub fn first_difference_as(&self, other: &SerdeDoc, sides: (&str, &str)) -> Option<String> {
        let cmp = Compare {
            a: &self.registry,
            b: &other.registry,
            sides,
        };
        cmp.format(&self.root, &other.root, "", 0)
    }
}

struct Compare<'a> {
    a: &'a Registry,
    b: &'a Registry,
    sides: (&'a str, &'a str),
}

/// `path.name`, or `name` at the top.
fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// A format as a reader would name it.
fn show(f: &Format) -> String {
    match f {
        Format::TypeName(n) => n.clone(),
        Format::Option(x) => format!("Option<{}>", show(x)),
        Format::Seq(x) => format!("list of {}", show(x)),
        Format::Map { key, value } => format!("map {} → {}", show(key), show(value)),
        Format::Tuple(xs) => format!("({})", xs.iter().map(show).collect::<Vec<_>>().join(", ")),
        Format::TupleArray { content, size } => format!("[{}; {size}]", show(content)),
        other => format!("{other:?}").to_lowercase(),
    }
}

impl Compare<'_> {
    fn differ(&self, path: &str, a: &str, b: &str) -> Option<String> {
        let (here, there) = self.sides;
        let at = if path.is_empty() {
            "the value".to_owned()
        } else {
            format!("field `{path}`")
        };
        Some(format!("{at}: {a} {here}, {b} {there}"))
    }

    fn format(&self, a: &Format, b: &Format, path: &str, depth: u32) -> Option<String> {
        if depth > MAX_NESTING {
            return None;
        }
        let d = depth + 1;
        match (a, b) {
            (Format::TypeName(x), Format::TypeName(y)) => match (self.a.get(x), self.b.get(y)) {
                (Some(cx), Some(cy)) => self.container(cx, cy, path, d),
                _ => None,
            },
            (Format::Option(x), Format::Option(y)) | (Format::Seq(x), Format::Seq(y)) => {
                self.format(x, y, path, d)
            }
            (Format::Map { key: ka, value: va }, Format::Map { key: kb, value: vb }) => self
                .format(ka, kb, &join(path, "<key>"), d)
                .or_else(|| self.format(va, vb, path, d)),
            (Format::Tuple(xs), Format::Tuple(ys)) if xs.len() == ys.len() => xs
                .iter()
                .zip(ys)
                .enumerate()
                .find_map(|(i, (x, y))| self.format(x, y, &join(path, &i.to_string()), d)),
            (
                Format::TupleArray {
                    content: x,
                    size: n,
                },
                Format::TupleArray {
                    content: y,
                    size: m,
                },
            ) if n == m => self.format(x, y, path, d),
            (x, y) if std::mem::discriminant(x) == std::mem::discriminant(y) && x == y => None,
            (x, y) => self.differ(path, &show(x), &show(y)),
        }
    }

    fn fields(
        &self,
        a: &[Named<Format>],
        b: &[Named<Format>],
        path: &str,
        depth: u32,
    ) -> Option<String> {
        let theirs: BTreeMap<&str, &Format> =
            b.iter().map(|n| (n.name.as_str(), &n.value)).collect();
        let ours: BTreeMap<&str, &Format> = a.iter().map(|n| (n.name.as_str(), &n.value)).collect();
        // A field one side lacks is a difference unless it is optional: a reader decodes a
        // missing `Option` as `None` (other `#[serde(default)]` fields cannot be seen here).
        let optional = |f: &Format| matches!(f, Format::Option(_));
        for n in a {
            match theirs.get(n.name.as_str()) {
                None if optional(&n.value) => {}
                None => return self.differ(&join(path, &n.name), "present", "absent"),
                Some(t) => {
                    if let Some(d) = self.format(&n.value, t, &join(path, &n.name), depth) {
                        return Some(d);
                    }
                }
            }
        }
        b.iter()
            .find(|n| !ours.contains_key(n.name.as_str()) && !optional(&n.value))
            .and_then(|n| self.differ(&join(path, &n.name), "absent", "present"))
    }

    fn container(
        &self,
        a: &ContainerFormat,
        b: &ContainerFormat,
        path: &str,
        depth: u32,
    ) -> Option<String> {
        use ContainerFormat as C;
        match (a, b) {
            (C::UnitStruct, C::UnitStruct) => None,
            (C::NewTypeStruct(x), C::NewTypeStruct(y)) => self.format(x, y, path, depth),
            (C::TupleStruct(xs), C::TupleStruct(ys)) => self.format(
                &Format::Tuple(xs.clone()),
                &Format::Tuple(ys.clone()),
                path,
                depth,
            ),
            (C::Struct(xs), C::Struct(ys)) => self.fields(xs, ys, path, depth),
            (C::Enum(xs), C::Enum(ys)) => {
                let theirs: BTreeMap<&str, &VariantFormat> =
                    ys.values().map(|n| (n.name.as_str(), &n.value)).collect();
                for v in xs.values() {
                    let at = join(path, &v.name);
                    let Some(t) = theirs.get(v.name.as_str()) else {
                        return self.differ(&at, "a variant", "unknown");
                    };
                    let found = match (&v.value, t) {
                        (VariantFormat::Unit, VariantFormat::Unit) => None,
                        (VariantFormat::NewType(x), VariantFormat::NewType(y)) => {
                            self.format(x, y, &at, depth)
                        }
                        (VariantFormat::Tuple(x), VariantFormat::Tuple(y)) => self.format(
                            &Format::Tuple(x.clone()),
                            &Format::Tuple(y.clone()),
                            &at,
                            depth,
                        ),
                        (VariantFormat::Struct(x), VariantFormat::Struct(y)) => {
                            self.fields(x, y, &at, depth)
                        }
                        _ => self.differ(&at, "one kind of variant", "another"),
                    };
                    if found.is_some() {
                        return found;
                    }
                }
                let ours: Vec<&str> = xs.values().map(|n| n.name.as_str()).collect();
                ys.values()
                    .find(|n| !ours.contains(&n.name.as_str()))
                    .and_then(|n| self.differ(&join(path, &n.name), "unknown", "a variant"))
            }
            _ => self.differ(path, "one kind of container", "another"),
        }
    }
}
