//! Any topic's messages as [`Value`]s, for tools that were never compiled against its type:
//! a [`ValueCodec`] decodes what a [`RawSubscriber`](crate::raw::RawSubscriber) receives and
//! sends values through a [`RawPublisher`], using the description the topic carries (fixed
//! and chunked types) or MessagePack (serialized types).
//!
//! ```
//! use nerve_transport::prelude::*;
//! use nerve_transport::raw::RawTopic;
//! use nerve_transport::values::ValueCodec;
//! use nerve_transport::msgs::dynamic::Value;
//! # std::env::set_var("NERVE_DOMAIN", "4244");
//! let odom = Topic::<CmdVel>::open("doc/values")?;
//! let topic = RawTopic::join("doc/values", nerve_transport::default_domain())?;
//! let codec = ValueCodec::of(&topic)?;
//! let mut sub = topic.subscriber(0)?;
//! let publisher = topic.publisher()?;
//! codec.send(&publisher, &serde_json::from_str(r#"{"linear": 0.5}"#)?)?;
//! let msg = sub.try_recv()?.unwrap();
//! assert_eq!(codec.decode(&msg, usize::MAX)?.path("linear"), Some(&Value::Float(0.5)));
//! # drop(odom);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use nerve_msgs::described::TypeDoc;
use nerve_msgs::dynamic::{self, Value, ValueError};
use nerve_msgs::MessageKind;

use crate::error::SendError;
use crate::raw::{RawMessage, RawPublisher, RawTopic};

/// Decodes and encodes one topic's messages as values.
#[derive(Clone, Debug)]
pub struct ValueCodec {
    topic: String,
    kind: MessageKind,
    doc: Option<TypeDoc>,
}

impl ValueCodec {
    /// The codec of `topic`: its description for fixed and chunked types (an error naming
    /// the topic when it carries none, or a damaged one), MessagePack for serialized ones.
    pub fn of(topic: &RawTopic) -> Result<ValueCodec, ValueError> {
        let kind = topic.kind();
        let doc = match kind {
            MessageKind::Serialized => None,
            _ => Some(
                topic
                    .description()
                    .map_err(|e| {
                        ValueError(format!(
                            "topic '{}': its type description {e}",
                            topic.name()
                        ))
                    })?
                    .ok_or_else(|| {
                        ValueError(format!(
                            "topic '{}' carries {} without a type description (its creator gave \
                             none): its messages can only be read as bytes",
                            topic.name(),
                            topic.stored_type().describe()
                        ))
                    })?,
            ),
        };
        Ok(ValueCodec {
            topic: topic.name().to_owned(),
            kind,
            doc,
        })
    }

    /// The description values follow (`None` for MessagePack topics).
    pub fn description(&self) -> Option<&TypeDoc> {
        self.doc.as_ref()
    }

    /// A received message as a value, with at most `max_elements` of a chunked message's
    /// elements.
    pub fn decode(&self, msg: &RawMessage, max_elements: usize) -> Result<Value, ValueError> {
        let named = |e: ValueError| ValueError(format!("topic '{}': {e}", self.topic));
        match (msg, &self.doc) {
            (RawMessage::Chunk(s), None) => rmp_serde::from_slice(s.data())
                .map_err(|e| ValueError(format!("not MessagePack: {e}")))
                .map_err(named),
            (RawMessage::Fixed(bytes), Some(doc)) => {
                dynamic::decode(doc, bytes, &[], max_elements).map_err(named)
            }
            (RawMessage::Chunk(s), Some(doc)) => {
                dynamic::decode(doc, s.header(), s.data(), max_elements).map_err(named)
            }
            (RawMessage::Fixed(_), None) => Err(named(ValueError(
                "a fixed message on a MessagePack topic".into(),
            ))),
        }
    }

    /// Encodes `value` and publishes it through `publisher` (of this codec's topic).
    pub fn send(&self, publisher: &RawPublisher, value: &Value) -> Result<(), SendError<()>> {
        let encode_error = |e: ValueError| SendError::Encode {
            topic: self.topic.clone(),
            reason: e.to_string(),
        };
        let Some(doc) = &self.doc else {
            let bytes = rmp_serde::to_vec_named(value).map_err(|e| SendError::Encode {
                topic: self.topic.clone(),
                reason: e.to_string(),
            })?;
            return publisher.send_serialized(&bytes);
        };
        let (fixed, payload) = dynamic::encode(doc, value).map_err(encode_error)?;
        match self.kind {
            MessageKind::Fixed => publisher.send_bytes(&fixed),
            _ => {
                let mut loan = publisher.loan(fixed.len(), payload.len())?;
                loan.header_mut().copy_from_slice(&fixed);
                loan.data_mut().copy_from_slice(&payload);
                loan.send()
            }
        }
    }
}
