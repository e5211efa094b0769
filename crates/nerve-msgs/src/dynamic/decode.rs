//! Bytes → [`Value`].

use super::{FieldPath as Path, Value, ValueError, DATA, DATA_LEN};
use crate::described::{KindDoc, StructDoc, TypeDoc, TypeRef};

/// Decodes a message of `doc`'s type: `fixed` holds the message (or a chunked message's
/// header), `payload` a chunked message's elements (ignored otherwise), of which at most
/// `max_elements` are decoded (then [`DATA_LEN`] says how many there are).
pub fn decode(
    doc: &TypeDoc,
    fixed: &[u8],
    payload: &[u8],
    max_elements: usize,
) -> Result<Value, ValueError> {
    let root = doc.root();
    let mut value = decode_struct(doc, root, fixed, Path::Root)?;
    if let KindDoc::Chunked(elem) = &root.kind {
        let size = doc
            .size_of(elem, 0)
            .map_err(|e| ValueError(e.to_string()))? as usize;
        if size == 0 || !payload.len().is_multiple_of(size) {
            return Err(ValueError(format!(
                "{}: a payload of {} bytes is not a whole number of {size}-byte elements",
                root.name,
                payload.len()
            )));
        }
        let total = payload.len() / size;
        let shown = total.min(max_elements);
        let data = if matches!(elem, TypeRef::U8) {
            Value::Bytes(payload[..shown].to_vec())
        } else {
            let items = payload[..shown * size]
                .chunks_exact(size)
                .enumerate()
                .map(|(i, b)| {
                    decode_type(
                        doc,
                        elem,
                        b,
                        Path::Index(&Path::Field(&Path::Root, DATA), i),
                    )
                })
                .collect::<Result<_, _>>()?;
            Value::List(items)
        };
        if let Value::Struct(fields) = &mut value {
            fields.push((DATA.to_owned(), data));
            if shown < total {
                fields.push((DATA_LEN.to_owned(), Value::UInt(total as u64)));
            }
        }
    }
    Ok(value)
}

fn decode_struct(
    doc: &TypeDoc,
    s: &StructDoc,
    bytes: &[u8],
    path: Path,
) -> Result<Value, ValueError> {
    if bytes.len() < s.size as usize {
        return Err(ValueError(format!(
            "{}{}: {} bytes, the type has {}",
            s.name,
            if matches!(path, Path::Root) {
                String::new()
            } else {
                format!(" at `{path}`")
            },
            bytes.len(),
            s.size
        )));
    }
    let mut fields = Vec::with_capacity(s.fields.len());
    for f in s.fields.iter().filter(|f| !f.padding) {
        let at = f.offset as usize;
        let size = doc
            .size_of(&f.ty, 0)
            .map_err(|e| ValueError(e.to_string()))? as usize;
        // Validated descriptions keep every field inside its struct; checked again here so a
        // description built by hand cannot send us past the end.
        let p = Path::Field(&path, &f.name);
        let b = bytes
            .get(at..at + size)
            .ok_or_else(|| ValueError(format!("field `{p}` lies outside {}", s.name)))?;
        fields.push((f.name.clone(), decode_type(doc, &f.ty, b, p)?));
    }
    Ok(Value::Struct(fields))
}

fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}

fn decode_type(doc: &TypeDoc, t: &TypeRef, b: &[u8], path: Path) -> Result<Value, ValueError> {
    Ok(match t {
        TypeRef::Bool => Value::Bool(b[0] != 0),
        TypeRef::U8 => Value::UInt(b[0].into()),
        TypeRef::I8 => Value::Int((b[0] as i8).into()),
        TypeRef::U16 => Value::UInt(u16::from_le_bytes(le(b)).into()),
        TypeRef::I16 => Value::Int(i16::from_le_bytes(le(b)).into()),
        TypeRef::U32 => Value::UInt(u32::from_le_bytes(le(b)).into()),
        TypeRef::I32 => Value::Int(i32::from_le_bytes(le(b)).into()),
        TypeRef::U64 => Value::UInt(u64::from_le_bytes(le(b))),
        TypeRef::I64 => Value::Int(i64::from_le_bytes(le(b))),
        TypeRef::F32 => Value::Float(widen(f32::from_le_bytes(le(b)))),
        TypeRef::F64 => Value::Float(f64::from_le_bytes(le(b))),
        TypeRef::Text { .. } => {
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            Value::Text(String::from_utf8_lossy(&b[..end]).into_owned())
        }
        TypeRef::Enum { repr, values } => {
            let raw = decode_type(doc, repr, b, path)?;
            let n = match raw {
                Value::Int(i) => Some(i),
                Value::UInt(u) => i64::try_from(u).ok(),
                _ => None,
            };
            match values.iter().find(|(_, v)| Some(*v) == n) {
                Some((name, _)) => Value::Text(name.clone()),
                None => raw,
            }
        }
        TypeRef::Array { elem, len } => {
            let size = doc
                .size_of(elem, 0)
                .map_err(|e| ValueError(e.to_string()))? as usize;
            let items = (0..*len as usize)
                .map(|i| decode_type(doc, elem, &b[i * size..], Path::Index(&path, i)))
                .collect::<Result<_, _>>()?;
            Value::List(items)
        }
        TypeRef::Struct(i) => {
            let s = doc
                .structs
                .get(*i as usize)
                .ok_or_else(|| ValueError(format!("field `{path}`: struct index {i}")))?;
            decode_struct(doc, s, b, path)?
        }
    })
}

/// An `f32` as the `f64` that prints the same (0.3f32 as 0.3, not 0.30000001192092896): the
/// shortest decimal that reads back as the `f32`, parsed as an `f64`. Infinities and NaN
/// keep their value.
fn widen(v: f32) -> f64 {
    if v.is_finite() {
        v.to_string().parse().unwrap_or(f64::from(v))
    } else {
        f64::from(v)
    }
}
