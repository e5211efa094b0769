//! `nerve topic echo` and `nerve interface list | show`: any topic's messages, and any
//! standard type, read from the descriptions topics carry (no compiled type needed).

use std::time::{Duration, Instant};

use anyhow::Context as _;
use nerve::msgs::described::{KindDoc, TypeDoc, TypeRef};
use nerve::msgs::dynamic::Value;
use nerve::raw::RawTopic;
use nerve::values::ValueCodec;

/// Options of `nerve topic echo`.
#[derive(clap::Args)]
pub struct EchoArgs {
    /// The topic (`imu`, `robot/odom`).
    name: String,
    /// Print one message and exit.
    #[arg(long)]
    once: bool,
    /// Print this many messages and exit.
    #[arg(short = 'n', long = "count", value_name = "N")]
    count: Option<u64>,
    /// Print only this field (`header.stamp_ns`, `twist.linear.x`, `data.0`).
    #[arg(long, value_name = "PATH")]
    field: Option<String>,
    /// YAML blocks separated by `---` (the default).
    #[arg(long, conflicts_with_all = ["json", "csv"])]
    yaml: bool,
    /// One JSON object per line.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// One CSV row per message, after a header row naming each field (`twist.linear.x`).
    #[arg(long)]
    csv: bool,
    /// Print whole arrays (default: the first 16 elements of a chunked message's data).
    #[arg(long, conflicts_with = "no_arr")]
    full: bool,
    /// Print arrays as their length only (`<9 elements>`); decodes no element.
    #[arg(long = "no-arr")]
    no_arr: bool,
    /// Start with the last N messages the topic still holds (default: only new ones).
    #[arg(long, value_name = "N", default_value_t = 0)]
    history: u64,
    /// Give up after this many seconds without a message (default: wait for ever).
    #[arg(long, value_name = "SECONDS", value_parser = crate::args::window_seconds)]
    timeout: Option<Duration>,
}

/// Elements of a chunked message's data shown unless `--full`.
const SHOWN: usize = 16;

pub fn echo(domain: u32, args: EchoArgs) -> anyhow::Result<()> {
    let name = &args.name;
    let topic = RawTopic::join(name, domain).map_err(anyhow::Error::new)?;
    let codec = ValueCodec::of(&topic).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut sub = topic
        .subscriber(args.history)
        .with_context(|| format!("cannot subscribe to topic '{name}'"))?;
    let wanted = if args.once { Some(1) } else { args.count };
    let max = match (args.full, args.no_arr) {
        (true, _) => usize::MAX,
        (_, true) => 0,
        _ => SHOWN,
    };
    let mut header_done = false;
    let mut shown = 0u64;
    let mut last = Instant::now();
    while wanted.is_none_or(|w| shown < w) {
        let Some(msg) = sub
            .recv_timeout(Duration::from_millis(100))
            .with_context(|| format!("receiving from topic '{name}'"))?
        else {
            if args.timeout.is_some_and(|t| last.elapsed() >= t) {
                anyhow::bail!(
                    "no message on topic '{name}' in domain {domain} for {:?}",
                    args.timeout.unwrap_or_default()
                );
            }
            continue;
        };
        last = Instant::now();
        let value = codec
            .decode(&msg, max)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let value = match &args.field {
            None => value,
            Some(path) => value.path(path).cloned().ok_or_else(|| {
                anyhow::anyhow!(
                    "topic '{name}' has no field `{path}` (see `nerve topic echo {name} --once`)"
                )
            })?,
        };
        let value = if args.no_arr {
            lengths_only(value)
        } else {
            value
        };
        if args.json {
            outln!("{}", serde_json::to_string(&value)?)?;
        } else if args.csv {
            let mut row = Vec::new();
            flatten("", &value, &mut row);
            if !header_done {
                let names: Vec<String> = row.iter().map(|(k, _)| csv_cell(k)).collect();
                outln!("{}", names.join(","))?;
                header_done = true;
            }
            let cells: Vec<String> = row.iter().map(|(_, v)| csv_cell(v)).collect();
            outln!("{}", cells.join(","))?;
        } else {
            let mut text = String::new();
            yaml(&value, 0, &mut text);
            outln!("{}---", text)?;
        }
        shown += 1;
    }
    Ok(())
}

/// `v` with every array replaced by its length (`--no-arr`); a chunked message's elements,
/// not decoded, by the `data_len` the decoder reports.
fn lengths_only(v: Value) -> Value {
    match v {
        Value::Struct(fields) => {
            let len = fields.iter().find_map(|(k, x)| match (k.as_str(), x) {
                (nerve::msgs::dynamic::DATA_LEN, Value::UInt(n)) => Some(*n),
                _ => None,
            });
            Value::Struct(
                fields
                    .into_iter()
                    .filter(|(k, _)| k != nerve::msgs::dynamic::DATA_LEN)
                    .map(|(k, x)| match (k.as_str(), len) {
                        (nerve::msgs::dynamic::DATA, Some(n)) => {
                            (k, Value::Text(format!("<{n} elements>")))
                        }
                        _ => (k, lengths_only(x)),
                    })
                    .collect(),
            )
        }
        Value::List(items) => Value::Text(format!("<{} elements>", items.len())),
        Value::Bytes(b) => Value::Text(format!("<{} bytes>", b.len())),
        other => other,
    }
}

/// `v`'s leaves as (dotted path, text) pairs, in order (`--csv`).
fn flatten(path: &str, v: &Value, out: &mut Vec<(String, String)>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_owned()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Struct(fields) => {
            for (k, x) in fields {
                flatten(&join(k), x, out);
            }
        }
        Value::List(items) => {
            for (i, x) in items.iter().enumerate() {
                flatten(&join(&i.to_string()), x, out);
            }
        }
        Value::Text(t) => out.push((path.to_owned(), t.clone())),
        other => out.push((path.to_owned(), scalar(other))),
    }
}

/// A CSV cell: quoted when it holds a comma, a quote or a line break.
fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// `v` as indented YAML-like lines.
fn yaml(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Struct(fields) => {
            for (k, x) in fields {
                match x {
                    Value::Struct(_) => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        yaml(x, indent + 1, out);
                    }
                    Value::List(items) if items.iter().any(|i| matches!(i, Value::Struct(_))) => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        for item in items {
                            out.push_str(&format!("{pad}-\n"));
                            yaml(item, indent + 1, out);
                        }
                    }
                    _ => out.push_str(&format!("{pad}{k}: {}\n", scalar(x))),
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other))),
    }
}

/// A value on one line (JSON for lists and bytes).
fn scalar(v: &Value) -> String {
    match v {
        Value::Text(t) => format!("{t:?}"),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// `nerve interface list`: every standard type, with its ROS 2 counterpart.
pub fn list() -> anyhow::Result<()> {
    for s in nerve::msgs::STANDARD {
        let kind = if matches!(s.kind, nerve::msgs::schema::SchemaKind::Chunked { .. }) {
            "chunked"
        } else {
            "fixed"
        };
        outln!("{:<36} {:<8} {}", s.name, kind, s.ros2)?;
    }
    Ok(())
}

/// `nerve interface show TYPE`: a standard type's fields (by nerve name, short name or ROS 2
/// name), or the type a live topic carries (`--topic`).
pub fn show(domain: u32, ty: &str, topic: bool) -> anyhow::Result<()> {
    let doc = if topic {
        let t = RawTopic::join(ty, domain).map_err(anyhow::Error::new)?;
        t.description()
            .map_err(|e| anyhow::anyhow!("topic '{ty}': its type {e}"))?
            .ok_or_else(|| anyhow::anyhow!("topic '{ty}' carries no type description"))?
    } else {
        TypeDoc::of(crate::publish::standard(ty)?)
    };
    let root = doc.root();
    let ros2 = if root.ros2.is_empty() {
        String::new()
    } else {
        format!("  (ROS 2: {})", root.ros2)
    };
    outln!("{}{ros2}", root.name)?;
    if !root.doc.is_empty() {
        outln!("# {}", root.doc.lines().next().unwrap_or_default())?;
    }
    let mut lines = Vec::new();
    fields(&doc, doc.root, 0, &mut lines);
    for l in lines {
        outln!("{l}")?;
    }
    if let KindDoc::Chunked(elem) = &root.kind {
        outln!("data: {}[]  # the chunk's elements", type_name(&doc, elem))?;
    }
    Ok(())
}

fn type_name(doc: &TypeDoc, t: &TypeRef) -> String {
    match t {
        TypeRef::Array { elem, len } => format!("{}[{len}]", type_name(doc, elem)),
        TypeRef::Text { len } => format!("text[{len}]"),
        TypeRef::Enum { repr, values } => {
            let names: Vec<&str> = values.iter().map(|(n, _)| n.as_str()).collect();
            format!("{} ({})", type_name(doc, repr), names.join("|"))
        }
        TypeRef::Struct(i) => doc.structs[*i as usize].name.clone(),
        other => format!("{other:?}").to_lowercase(),
    }
}

fn fields(doc: &TypeDoc, i: u32, indent: usize, out: &mut Vec<String>) {
    if indent > 8 {
        return;
    }
    for f in &doc.structs[i as usize].fields {
        if f.padding {
            continue;
        }
        let unit = if f.unit.is_empty() {
            String::new()
        } else {
            format!(" [{}]", f.unit)
        };
        let about = f.doc.lines().next().unwrap_or_default();
        out.push(format!(
            "{}{} {}{unit}{}",
            "  ".repeat(indent),
            type_name(doc, &f.ty),
            f.name,
            if about.is_empty() {
                String::new()
            } else {
                format!("  # {about}")
            }
        ));
        if let TypeRef::Struct(j) = &f.ty {
            fields(doc, *j, indent + 1, out);
        }
    }
}
