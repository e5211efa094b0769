//! ROS 2's CDR (XCDR1, little endian): what `ros2 bag`, Foxglove and the ROS 2 readers decode.
//! A 4-byte encapsulation header, then the fields in order, each primitive aligned to its size
//! (from the end of the header), strings as a `u32` length counting a final NUL, sequences as a
//! `u32` count then the elements, fixed arrays as their elements.

use nerve::msgs::dynamic::{FieldPath as Path, Value};

use super::msgdef::{Prim, Registry, RosType};

/// `CDR_LE`, no options.
const HEADER: [u8; 4] = [0, 1, 0, 0];

/// Writes `value` (a struct of `root`'s fields) as CDR; errors name the field.
pub fn encode(reg: &Registry, root: &str, value: &Value) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(&HEADER);
    let mut w = Writer { out };
    w.message(reg, root, value, Path::Root)?;
    Ok(w.out)
}

struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn align(&mut self, n: usize) {
        let pos = self.out.len() - HEADER.len();
        let pad = (n - pos % n) % n;
        self.out.resize(self.out.len() + pad, 0);
    }

    fn message(&mut self, reg: &Registry, name: &str, v: &Value, path: Path) -> Result<(), String> {
        let fields = reg
            .fields(name)
            .ok_or_else(|| format!("{path}: no definition of {name}"))?;
        for (f, ty) in fields {
            let x = v.get(f).unwrap_or(&Value::Null);
            self.value(reg, ty, x, Path::Field(&path, f))?;
        }
        Ok(())
    }

    fn value(&mut self, reg: &Registry, ty: &RosType, v: &Value, path: Path) -> Result<(), String> {
        match ty {
            RosType::Prim(p) => self.prim(*p, v, path),
            RosType::Str => {
                let s = match v {
                    Value::Text(t) => t.as_str(),
                    Value::Null => "",
                    other => return Err(format!("{path}: a string, got {other:?}")),
                };
                self.align(4);
                self.out
                    .extend_from_slice(&(s.len() as u32 + 1).to_le_bytes());
                self.out.extend_from_slice(s.as_bytes());
                self.out.push(0);
                Ok(())
            }
            RosType::Msg(m) => self.message(reg, m, v, path),
            RosType::Array(elem, n) => self.elements(reg, elem, v, Some(*n), path),
            RosType::Seq(elem) => self.elements(reg, elem, v, None, path),
        }
    }

    fn elements(
        &mut self,
        reg: &Registry,
        elem: &RosType,
        v: &Value,
        fixed: Option<usize>,
        path: Path,
    ) -> Result<(), String> {
        let count = match v {
            Value::List(items) => items.len(),
            Value::Bytes(b) => b.len(),
            Value::Null => 0,
            other => return Err(format!("{path}: a list, got {other:?}")),
        };
        let n = fixed.unwrap_or(count);
        if fixed.is_none() {
            self.align(4);
            self.out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        if let (Value::Bytes(b), RosType::Prim(Prim::U8 | Prim::I8)) = (v, elem) {
            // Bytes as they are: the one large copy of an image or a cloud.
            let take = b.len().min(n);
            self.out.extend_from_slice(&b[..take]);
            self.out.resize(self.out.len() + (n - take), 0);
            return Ok(());
        }
        for i in 0..n {
            let x = match v {
                Value::List(items) => items.get(i).unwrap_or(&Value::Null),
                _ => &Value::Null,
            };
            self.value(reg, elem, x, Path::Index(&path, i))?;
        }
        Ok(())
    }

    fn prim(&mut self, p: Prim, v: &Value, path: Path) -> Result<(), String> {
        let bad = || format!("{path}: a number for {p:?}, got {v:?}");
        let f = match v {
            Value::Null => 0.0,
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Int(i) => *i as f64,
            Value::UInt(u) => *u as f64,
            Value::Float(x) => *x,
            _ => return Err(bad()),
        };
        // Integers keep their exact value (through i128, not the f64 above).
        let int = match v {
            Value::Int(i) => i128::from(*i),
            Value::UInt(u) => i128::from(*u),
            Value::Bool(b) => i128::from(*b),
            _ => f as i128,
        };
        self.align(p.size());
        match p {
            Prim::Bool => self.out.push(u8::from(int != 0)),
            Prim::U8 => self.out.push(int as u8),
            Prim::I8 => self.out.push(int as i8 as u8),
            Prim::U16 => self.out.extend_from_slice(&(int as u16).to_le_bytes()),
            Prim::I16 => self.out.extend_from_slice(&(int as i16).to_le_bytes()),
            Prim::U32 => self.out.extend_from_slice(&(int as u32).to_le_bytes()),
            Prim::I32 => self.out.extend_from_slice(&(int as i32).to_le_bytes()),
            Prim::U64 => self.out.extend_from_slice(&(int as u64).to_le_bytes()),
            Prim::I64 => self.out.extend_from_slice(&(int as i64).to_le_bytes()),
            Prim::F32 => self.out.extend_from_slice(&(f as f32).to_le_bytes()),
            Prim::F64 => self.out.extend_from_slice(&f.to_le_bytes()),
        }
        Ok(())
    }
}

/// Reads CDR of `root` back into a value (structs, lists, numbers, strings, bytes for
/// `uint8` sequences and arrays). Hostile input: every length is checked.
pub fn decode(reg: &Registry, root: &str, bytes: &[u8]) -> Result<Value, String> {
    decode_lending(reg, root, bytes, None).map(|(v, _)| v)
}

/// [`decode`], except that the top-level `uint8[]` field named `lend` (an image's or a cloud's
/// `data`) is not copied: the value has it empty, and its bytes come back as a slice of
/// `bytes`, for the caller to copy once to where they go.
pub fn decode_lending<'a>(
    reg: &Registry,
    root: &str,
    bytes: &'a [u8],
    lend: Option<&str>,
) -> Result<(Value, Option<&'a [u8]>), String> {
    if bytes.len() < 4 || bytes[1] != 1 {
        return Err("not little-endian CDR (encapsulation header)".into());
    }
    let mut r = Reader {
        buf: &bytes[4..],
        pos: 0,
        lend,
        lent: None,
    };
    let v = r.message(reg, root, 0)?;
    Ok((v, r.lent))
}

struct Reader<'a, 'l> {
    buf: &'a [u8],
    pos: usize,
    /// The top-level `uint8[]` field to lend rather than copy.
    lend: Option<&'l str>,
    lent: Option<&'a [u8]>,
}

impl<'a> Reader<'a, '_> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.buf.len());
        let end = end.ok_or_else(|| format!("truncated at byte {}", self.pos))?;
        let buf: &'a [u8] = self.buf;
        let s = &buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn align(&mut self, n: usize) {
        self.pos += (n - self.pos % n) % n;
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.align(4);
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn message(&mut self, reg: &Registry, name: &str, depth: u32) -> Result<Value, String> {
        if depth > 32 {
            return Err("messages nested too deep".into());
        }
        let fields = reg
            .fields(name)
            .ok_or_else(|| format!("no definition of {name}"))?;
        let mut out = Vec::with_capacity(fields.len());
        for (f, ty) in fields {
            let lent = depth == 0
                && self.lend == Some(f.as_str())
                && matches!(ty, RosType::Seq(e) if **e == RosType::Prim(Prim::U8));
            if lent {
                let n = self.u32()? as usize;
                self.lent = Some(self.take(n)?);
                out.push((f.clone(), Value::Bytes(Vec::new())));
                continue;
            }
            out.push((f.clone(), self.value(reg, ty, depth)?));
        }
        Ok(Value::Struct(out))
    }

    fn value(&mut self, reg: &Registry, ty: &RosType, depth: u32) -> Result<Value, String> {
        Ok(match ty {
            RosType::Prim(p) => self.prim(*p)?,
            RosType::Str => {
                let n = self.u32()? as usize;
                let b = self.take(n)?;
                let b = b.strip_suffix(&[0]).unwrap_or(b);
                Value::Text(String::from_utf8_lossy(b).into_owned())
            }
            RosType::Msg(m) => self.message(reg, m, depth + 1)?,
            RosType::Array(elem, n) => self.elements(reg, elem, *n, depth)?,
            RosType::Seq(elem) => {
                let n = self.u32()? as usize;
                self.elements(reg, elem, n, depth)?
            }
        })
    }

    fn elements(
        &mut self,
        reg: &Registry,
        elem: &RosType,
        n: usize,
        depth: u32,
    ) -> Result<Value, String> {
        if let RosType::Prim(Prim::U8) = elem {
            return Ok(Value::Bytes(self.take(n)?.to_vec()));
        }
        // Every element takes at least one byte: a count beyond what is left is a lie.
        if n > self.buf.len() - self.pos.min(self.buf.len()) {
            return Err(format!(
                "a count of {n} at byte {} beyond the message",
                self.pos
            ));
        }
        (0..n)
            .map(|_| self.value(reg, elem, depth))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List)
    }

    fn prim(&mut self, p: Prim) -> Result<Value, String> {
        self.align(p.size());
        let b = self.take(p.size())?;
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(w);
        Ok(match p {
            Prim::Bool => Value::Bool(u != 0),
            Prim::U8 | Prim::U16 | Prim::U32 | Prim::U64 => Value::UInt(u),
            Prim::I8 => Value::Int(i64::from(u as u8 as i8)),
            Prim::I16 => Value::Int(i64::from(u as u16 as i16)),
            Prim::I32 => Value::Int(i64::from(u as u32 as i32)),
            Prim::I64 => Value::Int(u as i64),
            Prim::F32 => Value::Float(f64::from(f32::from_bits(u as u32))),
            Prim::F64 => Value::Float(f64::from_bits(u)),
        })
    }
}
