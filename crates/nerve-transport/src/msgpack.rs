//! Dynamic data: any serde type as MessagePack.

use std::marker::PhantomData;

use nerve_msgs::{Fingerprint, Message, MessageKind, Serialized};

/// Carries any serde type `V` as MessagePack through a shared chunk:
/// `Topic::<Msgpack<Status>>::open("status")`. Every `Msgpack<_>` topic has the same
/// fingerprint (the values name their fields), so a dict published from Python can be
/// received as a Rust struct with the same fields; a Rust creator also writes `V`'s fields
/// into the topic (`nerve_msgs::serde_doc`), and a Rust endpoint whose `V` disagrees with them
/// gets `TypeMismatch` naming the field.
pub struct Msgpack<V>(PhantomData<fn() -> V>);

impl<V: serde::de::DeserializeOwned + Send + Sync + 'static> Message for Msgpack<V> {
    const TYPE_NAME: &'static str = "nerve/Msgpack";
    const FINGERPRINT: Fingerprint = Fingerprint {
        name: "nerve/Msgpack",
        kind: MessageKind::Serialized,
        size: 0,
        align: 1,
        elem_size: 1,
        layout_hash: nerve_msgs::fnv1a("msgpack"),
    };
    type Kind = Serialized;

    /// `V`'s fields, traced from its `Deserialize` (none for a type that cannot be traced).
    fn description_bytes() -> Vec<u8> {
        nerve_msgs::serde_doc::SerdeDoc::bytes_of::<V>()
    }
}
