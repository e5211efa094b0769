//! What it takes to create a topic again somewhere else: its stored type, QoS and sizes, as
//! plain key-value pairs. A recording keeps them in each channel's metadata; a bridge carries
//! them to the other host. [`TopicMeta::open`] joins the topic there, or creates it as it was.

use std::collections::BTreeMap;

use nerve_msgs::MessageKind;
use nerve_shm::{Reliability, StoredType};

use crate::error::OpenError;
use crate::raw::RawTopic;

/// A topic's stored type, QoS and sizes: enough to create it again.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicMeta {
    /// The stored type (name, kind, sizes, layout hash).
    pub stored_type: StoredType,
    /// Its reliability.
    pub reliability: Reliability,
    /// Its ring depth.
    pub depth: u64,
    /// Largest payload in bytes (chunked topics).
    pub max_payload_bytes: usize,
}

impl TopicMeta {
    /// The meta of a live topic.
    pub fn of(topic: &RawTopic) -> Self {
        TopicMeta {
            stored_type: topic.stored_type().clone(),
            reliability: topic.reliability(),
            depth: topic.depth(),
            max_payload_bytes: topic.max_payload_bytes(),
        }
    }

    /// As key-value pairs (`nerve.type`, `nerve.kind`, ..., all strings).
    pub fn to_metadata(&self) -> BTreeMap<String, String> {
        let t = &self.stored_type;
        let reliability = match self.reliability {
            Reliability::Reliable => "reliable",
            Reliability::LatestOnly => "latest_only",
            _ => "best_effort",
        };
        [
            ("nerve.type", t.name.clone()),
            ("nerve.kind", t.kind.to_string()),
            ("nerve.size", t.size.to_string()),
            ("nerve.align", t.align.to_string()),
            ("nerve.elem_size", t.elem_size.to_string()),
            ("nerve.layout_hash", format!("{:#018x}", t.layout_hash)),
            ("nerve.reliability", reliability.to_owned()),
            ("nerve.depth", self.depth.to_string()),
            (
                "nerve.max_payload_bytes",
                self.max_payload_bytes.to_string(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// From key-value pairs (untrusted: a file's, another host's); the error names the key
    /// that is missing or malformed.
    pub fn from_metadata(m: &BTreeMap<String, String>) -> Result<Self, String> {
        let get = |k: &str| m.get(k).ok_or_else(|| format!("the metadata has no {k}"));
        let num = |k: &str| -> Result<u64, String> {
            let v = get(k)?;
            let parsed = match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            };
            parsed.map_err(|_| format!("the metadata's {k} = {v:?} is not a number"))
        };
        let small = |k: &str| -> Result<u32, String> {
            u32::try_from(num(k)?).map_err(|_| format!("the metadata's {k} is too large"))
        };
        let reliability = match get("nerve.reliability")?.as_str() {
            "reliable" => Reliability::Reliable,
            "latest_only" => Reliability::LatestOnly,
            "best_effort" => Reliability::BestEffort,
            other => return Err(format!("unknown reliability {other:?}")),
        };
        Ok(TopicMeta {
            stored_type: StoredType {
                name: get("nerve.type")?.clone(),
                kind: small("nerve.kind")?,
                size: small("nerve.size")?,
                align: small("nerve.align")?,
                elem_size: small("nerve.elem_size")?,
                layout_hash: num("nerve.layout_hash")?,
            },
            reliability,
            depth: num("nerve.depth")?,
            max_payload_bytes: usize::try_from(num("nerve.max_payload_bytes")?)
                .map_err(|_| "the metadata's max_payload_bytes is too large".to_owned())?,
        })
    }

    /// A message in nerve's encoding as recordings and bridges carry it (a fixed message's
    /// bytes; a chunked one as it lies in its chunk: header, padding to a multiple of 64,
    /// payload) split into its fixed part and its payload, ready for
    /// [`RawPublisher::send_parts`](crate::raw::RawPublisher::send_parts). Untrusted bytes:
    /// every length is checked against this meta; the error says what does not fit.
    pub fn split<'a>(&self, data: &'a [u8]) -> Result<(&'a [u8], &'a [u8]), String> {
        let t = &self.stored_type;
        let size = t.size as usize;
        if MessageKind::from_raw(t.kind) == Some(MessageKind::Fixed) {
            if data.len() != size {
                return Err(format!(
                    "a message of {} bytes, but {} is {size} bytes",
                    data.len(),
                    t.name
                ));
            }
            return Ok((data, &[]));
        }
        let offset = crate::raw::chunk_data_offset(size);
        if data.len() < offset {
            return Err(format!(
                "a message of {} bytes is shorter than its {size}-byte header",
                data.len()
            ));
        }
        let payload = &data[offset..];
        let elem = (t.elem_size as usize).max(1);
        if !payload.len().is_multiple_of(elem) || payload.len() > self.max_payload_bytes {
            return Err(format!(
                "a payload of {} bytes: not a whole number of {elem}-byte elements of at most \
                 {} bytes",
                payload.len(),
                self.max_payload_bytes
            ));
        }
        Ok((&data[..size], payload))
    }

    /// Topic `name` of `domain`: joined as it is when it exists and carries this type, created
    /// as described otherwise (with `description`, the bytes
    /// [`RawTopic::description_bytes`] gave where it came from). A topic there with another
    /// type is [`OpenError::TypeMismatch`], naming both.
    pub fn open(
        &self,
        name: &str,
        domain: u32,
        description: Vec<u8>,
    ) -> Result<RawTopic, OpenError> {
        match RawTopic::join(name, domain) {
            Ok(t) if *t.stored_type() == self.stored_type => Ok(t),
            Ok(t) => Err(OpenError::TypeMismatch {
                topic: name.to_owned(),
                expected: self.stored_type.describe(),
                found: t.stored_type().describe(),
                difference: String::new(),
            }),
            Err(OpenError::NotFound { .. }) => RawTopic::builder(name, self.stored_type.clone())
                .domain(domain)
                .description_bytes(description)
                .reliability(self.reliability)
                .depth(u32::try_from(self.depth).unwrap_or(u32::MAX))
                .max_message_bytes(self.max_payload_bytes.max(1))
                .open(),
            Err(e) => Err(e),
        }
    }
}
