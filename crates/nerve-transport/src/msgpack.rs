//! Dynamic data: any serde type as MessagePack.

use std::marker::PhantomData;

use nerve_msgs::{Fingerprint, Message, MessageKind, Serialized};

/// Carries any serde type `V` as MessagePack through a shared chunk:
/// `Topic::<Msgpack<Status>>::open("status")`. Every `Msgpack<_>` topic has the same
/// fingerprint (the schema travels with the data), so a dict published from Python can be
/// received as a Rust struct with the same fields.
pub struct Msgpack<V>(PhantomData<fn() -> V>);

impl<V: Send + Sync + 'static> Message for Msgpack<V> {
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
}
