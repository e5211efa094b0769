//! [`Value`] → bytes.

use super::{Value, ValueError, DATA, DATA_LEN};
use crate::described::{KindDoc, StructDoc, TypeDoc, TypeRef};

/// Encodes `value` as a message of `doc`'s type: the fixed part (the message, or a chunked
/// message's header) and the payload (a chunked message's [`DATA`] elements; empty
/// otherwise). Fields left out are zero (a NaN-free, all-zero default, as a zeroed struct);
/// unknown fields, wrong types, out-of-range numbers, too-long text and wrong array lengths
/// are errors naming the field.
pub fn encode(doc: &TypeDoc, value: &Value) -> Result<(Vec<u8>, Vec<u8>), ValueError> {
    let root = doc.root();
    let mut fixed = vec![0u8; root.size as usize];
    let chunked = match &root.kind {
        KindDoc::Chunked(elem) => Some(elem),
        _ => None,
    };
    let skip: &[&str] = if chunked.is_some() {
        &[DATA, DATA_LEN]
    } else {
        &[]
    };
    encode_struct(doc, root, value, &mut fixed, "", skip)?;
    let mut payload = Vec::new();
    if let Some(elem) = chunked {
        let size = size_of(doc, elem)?;
        match value.get(DATA) {
            None | Some(Value::Null) => {}
            Some(Value::Bytes(b)) if matches!(elem, TypeRef::U8) => payload = b.clone(),
            Some(Value::List(items)) => {
                payload = vec![0u8; items.len() * size];
                for (i, (item, out)) in items.iter().zip(payload.chunks_exact_mut(size)).enumerate()
                {
                    encode_type(doc, elem, item, out, &format!("{DATA}.{i}"))?;
                }
            }
            Some(other) => {
                return Err(ValueError(format!(
                    "field `{DATA}`: a list of elements expected, got {}",
                    kind(other)
                )))
            }
        }
    }
    Ok((fixed, payload))
}

fn size_of(doc: &TypeDoc, t: &TypeRef) -> Result<usize, ValueError> {
    doc.size_of(t, 0)
        .map(|s| s as usize)
        .map_err(|e| ValueError(e.to_string()))
}

fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Int(i) => format!("{i}"),
        Value::UInt(u) => format!("{u}"),
        Value::Float(f) => format!("{f}"),
        Value::Text(t) => format!("text {t:?}"),
        Value::Bytes(b) => format!("{} bytes", b.len()),
        Value::List(l) => format!("a list of {}", l.len()),
        Value::Struct(_) => "a struct".into(),
    }
}

fn encode_struct(
    doc: &TypeDoc,
    s: &StructDoc,
    value: &Value,
    out: &mut [u8],
    prefix: &str,
    skip: &[&str],
) -> Result<(), ValueError> {
    let fields = match value {
        Value::Struct(fields) => fields,
        Value::Null => return Ok(()),
        other => {
            return Err(ValueError(format!(
                "{}: a struct of fields expected, got {}",
                if prefix.is_empty() {
                    s.name.clone()
                } else {
                    format!("field `{}`", prefix.trim_end_matches('.'))
                },
                kind(other)
            )))
        }
    };
    for (name, v) in fields {
        if skip.contains(&name.as_str()) {
            continue;
        }
        let Some(f) = s.fields.iter().find(|f| &f.name == name && !f.padding) else {
            let known: Vec<&str> = s
                .fields
                .iter()
                .filter(|f| !f.padding)
                .map(|f| f.name.as_str())
                .collect();
            return Err(ValueError(format!(
                "{} has no field `{prefix}{name}` (its fields: {})",
                s.name,
                known.join(", ")
            )));
        };
        let at = f.offset as usize;
        let size = size_of(doc, &f.ty)?;
        let slot = out
            .get_mut(at..at + size)
            .ok_or_else(|| ValueError(format!("field `{prefix}{name}` lies outside {}", s.name)))?;
        encode_type(doc, &f.ty, v, slot, &format!("{prefix}{name}"))?;
    }
    Ok(())
}

/// An integer from a value, checked against `lo..=hi`.
fn integer(v: &Value, lo: i128, hi: i128, path: &str, ty: &str) -> Result<i128, ValueError> {
    let n = match *v {
        Value::Null => 0,
        Value::Bool(b) => b as i128,
        Value::Int(i) => i.into(),
        Value::UInt(u) => u.into(),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e38 => f as i128,
        _ => {
            return Err(ValueError(format!(
                "field `{path}`: {ty} expected, got {}",
                kind(v)
            )))
        }
    };
    if n < lo || n > hi {
        return Err(ValueError(format!(
            "field `{path}`: {n} is out of range for {ty} ({lo} to {hi})"
        )));
    }
    Ok(n)
}

fn float(v: &Value, path: &str) -> Result<f64, ValueError> {
    match *v {
        Value::Null => Ok(f64::NAN),
        Value::Int(i) => Ok(i as f64),
        Value::UInt(u) => Ok(u as f64),
        Value::Float(f) => Ok(f),
        Value::Text(ref t) if matches!(t.as_str(), "nan" | "NaN" | ".nan") => Ok(f64::NAN),
        _ => Err(ValueError(format!(
            "field `{path}`: a number expected, got {}",
            kind(v)
        ))),
    }
}

fn encode_type(
    doc: &TypeDoc,
    t: &TypeRef,
    v: &Value,
    out: &mut [u8],
    path: &str,
) -> Result<(), ValueError> {
    macro_rules! int {
        ($ty:ty, $name:literal) => {{
            let n = integer(v, <$ty>::MIN.into(), <$ty>::MAX.into(), path, $name)? as $ty;
            out.copy_from_slice(&n.to_le_bytes());
        }};
    }
    match t {
        TypeRef::Bool => out[0] = integer(v, 0, 1, path, "a bool")? as u8,
        TypeRef::U8 => int!(u8, "u8"),
        TypeRef::I8 => int!(i8, "i8"),
        TypeRef::U16 => int!(u16, "u16"),
        TypeRef::I16 => int!(i16, "i16"),
        TypeRef::U32 => int!(u32, "u32"),
        TypeRef::I32 => int!(i32, "i32"),
        TypeRef::U64 => int!(u64, "u64"),
        TypeRef::I64 => int!(i64, "i64"),
        TypeRef::F32 => out.copy_from_slice(&(float(v, path)? as f32).to_le_bytes()),
        TypeRef::F64 => out.copy_from_slice(&float(v, path)?.to_le_bytes()),
        TypeRef::Text { len } => {
            let text = match v {
                Value::Text(t) => t.as_str(),
                Value::Null => "",
                other => {
                    return Err(ValueError(format!(
                        "field `{path}`: text expected, got {}",
                        kind(other)
                    )))
                }
            };
            // NUL-padded, with room for one NUL: the longest text is len - 1 bytes.
            if text.len() >= *len as usize || text.contains('\0') {
                return Err(ValueError(format!(
                    "field `{path}`: text of {} bytes, at most {} fit (no NUL inside)",
                    text.len(),
                    len.saturating_sub(1)
                )));
            }
            out[..text.len()].copy_from_slice(text.as_bytes());
        }
        TypeRef::Enum { repr, values } => {
            let number = match v {
                Value::Text(name) => {
                    let Some((_, n)) = values.iter().find(|(n, _)| n == name) else {
                        let names: Vec<&str> = values.iter().map(|(n, _)| n.as_str()).collect();
                        return Err(ValueError(format!(
                            "field `{path}`: no code named {name:?} (codes: {})",
                            names.join(", ")
                        )));
                    };
                    Value::Int(*n)
                }
                other => other.clone(),
            };
            encode_type(doc, repr, &number, out, path)?;
        }
        TypeRef::Array { elem, len } => {
            let size = size_of(doc, elem)?;
            let n = *len as usize;
            match v {
                Value::Null => {}
                Value::Bytes(b) if matches!(**elem, TypeRef::U8) && b.len() == n => {
                    out.copy_from_slice(b)
                }
                Value::List(items) if items.len() == n => {
                    for (i, item) in items.iter().enumerate() {
                        let slot = &mut out[i * size..(i + 1) * size];
                        encode_type(doc, elem, item, slot, &format!("{path}.{i}"))?;
                    }
                }
                other => {
                    return Err(ValueError(format!(
                        "field `{path}`: a list of {n} expected, got {}",
                        kind(other)
                    )))
                }
            }
        }
        TypeRef::Struct(i) => {
            let s = doc
                .structs
                .get(*i as usize)
                .ok_or_else(|| ValueError(format!("field `{path}`: struct index {i}")))?;
            encode_struct(doc, s, v, out, &format!("{path}."), &[])?;
        }
    }
    Ok(())
}
