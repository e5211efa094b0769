//! The type description a topic carries (nerve_msgs::described): what a typed endpoint writes
//! into a new topic, and what any opener reads back, trusting nothing.

use nerve_msgs::described::{DocError, TypeDoc};
use nerve_msgs::serde_doc::SerdeDoc;
use nerve_msgs::Message;
use nerve_shm::StoredType;

/// The bytes a topic of `T` carries: its description, or nothing for a type without one.
pub(crate) fn bytes_of<T: Message>() -> Vec<u8> {
    T::description_bytes()
}

/// The serde description in a topic's bytes: `Ok(None)` when they hold none (a layout
/// description, or nothing), an error when they are damaged.
pub(crate) fn decode_serde(bytes: &[u8]) -> Result<Option<SerdeDoc>, DocError> {
    if !SerdeDoc::is_serde(bytes) {
        return Ok(None);
    }
    SerdeDoc::from_bytes(bytes).map(Some)
}

/// The first difference between two serde descriptions a MessagePack reader would notice
/// (`None` unless both sides have one and they differ).
pub(crate) fn serde_difference(ours: &[u8], theirs: &[u8]) -> Option<(String, String, String)> {
    let (Ok(Some(a)), Ok(Some(b))) = (decode_serde(ours), decode_serde(theirs)) else {
        return None;
    };
    a.first_difference_as(&b, ("in this endpoint's type", "in the topic's"))
        .map(|d| (a.name, b.name, format!(" (first difference: {d})")))
}

/// Decodes the description bytes of a topic created for `stored`: `None` when it carries
/// none (and is not a standard type), an error when they are not a description of that type
/// (corrupt, or a lie).
pub(crate) fn decode(bytes: &[u8], stored: &StoredType) -> Result<Option<TypeDoc>, DocError> {
    if SerdeDoc::is_serde(bytes) {
        // A MessagePack type's fields (`decode_serde`), not a layout.
        return Ok(None);
    }
    if bytes.is_empty() {
        // Created without one (a raw creator, an older nerve): a standard type is still known.
        return Ok(nerve_msgs::standard(&stored.name, stored.layout_hash).map(TypeDoc::of));
    }
    let doc = TypeDoc::from_bytes(bytes)?;
    if doc.hash() != stored.layout_hash || doc.root().name != stored.name {
        return Err(DocError(format!(
            "it describes {} (layout {:#018x}), the topic carries {}",
            doc.root().name,
            doc.hash(),
            stored.describe()
        )));
    }
    Ok(Some(doc))
}

/// What a type mismatch adds to its message: the first field that differs, when both sides
/// have a description ("" otherwise).
pub(crate) fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    match (TypeDoc::from_bytes(ours), TypeDoc::from_bytes(theirs)) {
        (Ok(a), Ok(b)) => a
            .first_difference_as(&b, ("in this endpoint's type", "in the topic's"))
            .map(|d| format!(" (first difference: {d})"))
            .unwrap_or_default(),
        _ => String::new(),
    }
}
