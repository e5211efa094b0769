//! Declarative macros that declare a `#[repr(C)]` Pod type and its fingerprint in one place, so
//! the layout hash always matches the fields as written:
//!
//! - [`fixed_message!`]: a message copied into a ring slot ([`FixedMessage`](crate::FixedMessage)).
//! - [`chunked_message!`]: a marker type, its Pod header and its element type
//!   ([`ChunkedMessage`](crate::ChunkedMessage)).
//! - [`pod_struct!`]: a plain Pod struct usable as a field, a chunk header or a chunk element.
//!
//! Every declared struct is `#[repr(C)]`, derives `Clone, Copy, Debug, PartialEq`, implements
//! [`bytemuck::Pod`] and [`LayoutHash`](crate::LayoutHash), and by default implements
//! `Default` as all zeroes. Implicit padding is a compile error: add explicit `_pad` fields.
//! Write `(no_default)` after the name (or `, no_default` after the type name of a message) to
//! implement `Default` by hand, for types whose all-zero value is wrong (a quaternion).
//!
//! The generated code names only `$crate` paths, so crates that use the macros do not need
//! `bytemuck` in their own `Cargo.toml`.

/// Declares a `#[repr(C)]` Pod struct with a layout hash: a building block for messages
/// (a field type, a chunk header, a chunk element).
///
/// ```
/// nerve_msgs::pod_struct! {
///     /// A 2D point, metres.
///     pub struct Point2 { pub x: f64, pub y: f64 }
/// }
/// nerve_msgs::pod_struct! {
///     /// A gain that defaults to 1.
///     pub struct Gain (no_default) { pub k: f32 }
/// }
/// impl Default for Gain {
///     fn default() -> Self { Gain { k: 1.0 } }
/// }
/// assert_eq!(core::mem::size_of::<Point2>(), 16);
/// assert_eq!(Gain::default().k, 1.0);
/// ```
#[macro_export]
macro_rules! pod_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident $(($opt:ident))? {
            $( $(#[$fmeta:meta])* pub $field:ident : $fty:ty ),* $(,)?
        }
    ) => {
        $crate::__pod_struct! {
            [$($opt)?]
            $(#[$meta])*
            pub struct $name { $( $(#[$fmeta])* pub $field : $fty ),* }
        }
    };
}

/// Declares a fixed-size message: a `#[repr(C)]` Pod struct, its
/// [`Message`](crate::Message) (kind `Fixed`) and [`FixedMessage`](crate::FixedMessage) impls,
/// `SIZE`, `as_bytes()` and `from_bytes()`.
///
/// ```
/// nerve_msgs::fixed_message! {
///     /// A demo message.
///     pub struct Demo ("demo/Demo") { pub a: u64, pub b: f32, pub _pad: u32 }
/// }
/// assert_eq!(core::mem::size_of::<Demo>(), 16);
/// assert_eq!(Demo::SIZE, 16);
/// let d = Demo { a: 7, ..Default::default() };
/// assert_eq!(Demo::from_bytes(d.as_bytes()), Some(d));
///
/// // `no_default`: write `Default` by hand.
/// nerve_msgs::fixed_message! {
///     /// Scale factor, defaults to 1.
///     pub struct Scale ("demo/Scale", no_default) { pub s: f64 }
/// }
/// impl Default for Scale {
///     fn default() -> Self { Scale { s: 1.0 } }
/// }
/// ```
///
/// Implicit padding does not compile:
///
/// ```compile_fail
/// nerve_msgs::fixed_message! {
///     /// 4 bytes of padding after `b`.
///     pub struct Padded ("demo/Padded") { pub a: u64, pub b: f32 }
/// }
/// ```
#[macro_export]
macro_rules! fixed_message {
    (
        $(#[$meta:meta])*
        pub struct $name:ident ($type_name:literal $(, $opt:ident)?) {
            $( $(#[$fmeta:meta])* pub $field:ident : $fty:ty ),* $(,)?
        }
    ) => {
        $crate::__pod_struct! {
            [$($opt)?]
            $(#[$meta])*
            pub struct $name { $( $(#[$fmeta])* pub $field : $fty ),* }
        }

        impl $name {
            /// `size_of::<Self>()`: the bytes this message occupies in a ring slot.
            pub const SIZE: usize = core::mem::size_of::<$name>();

            /// The message's bytes, exactly as they are copied into a ring slot.
            pub fn as_bytes(&self) -> &[u8] {
                $crate::__bytemuck::bytes_of(self)
            }

            /// Reads a message from bytes at any alignment. `None` unless
            /// `bytes.len() == Self::SIZE`.
            pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
                $crate::__bytemuck::try_pod_read_unaligned(bytes).ok()
            }
        }

        impl $crate::Message for $name {
            const TYPE_NAME: &'static str = $type_name;
            type Kind = $crate::Fixed;
            const FINGERPRINT: $crate::Fingerprint = $crate::Fingerprint {
                name: $type_name,
                kind: $crate::MessageKind::Fixed,
                size: core::mem::size_of::<$name>() as u32,
                align: core::mem::align_of::<$name>() as u32,
                elem_size: 0,
                layout_hash: <$name as $crate::LayoutHash>::LAYOUT_HASH,
            };
        }

        impl $crate::FixedMessage for $name {}
    };
}

/// Declares a variable-size message: a marker type `X` (the data lives in shared memory; a
/// subscriber gets `Sample<X>` with `header()` and `data()`), its `#[repr(C)]` Pod header
/// struct, and the element type of its payload.
///
/// The fingerprint has kind `Chunked`, the size and alignment of the header, `elem_size =
/// size_of::<Elem>()`, and a layout hash over the header's fields and the element type.
///
/// ```
/// nerve_msgs::chunked_message! {
///     /// A list of temperatures.
///     pub struct Temps ("demo/Temps") {
///         /// Fixed part of a [`Temps`].
///         header: pub struct TempsHeader {
///             /// Nanoseconds.
///             pub stamp_ns: u64,
///         },
///         elem: f32,
///     }
/// }
/// use nerve_msgs::{ChunkedMessage, Message, MessageKind};
/// let _h: <Temps as ChunkedMessage>::Header = TempsHeader { stamp_ns: 1 };
/// assert_eq!(Temps::FINGERPRINT.kind, MessageKind::Chunked);
/// assert_eq!(Temps::FINGERPRINT.size, 8);
/// assert_eq!(Temps::FINGERPRINT.elem_size, 4);
/// ```
///
/// The header accepts `(no_default)` like [`pod_struct!`]:
/// `header: pub struct TempsHeader (no_default) { .. }`.
#[macro_export]
macro_rules! chunked_message {
    (
        $(#[$meta:meta])*
        pub struct $name:ident ($type_name:literal) {
            $(#[$hmeta:meta])*
            header: pub struct $header:ident $(($opt:ident))? {
                $( $(#[$fmeta:meta])* pub $field:ident : $fty:ty ),* $(,)?
            },
            elem: $elem:ty $(,)?
        }
    ) => {
        $crate::__pod_struct! {
            [$($opt)?]
            $(#[$hmeta])*
            pub struct $header { $( $(#[$fmeta])* pub $field : $fty ),* }
        }

        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $crate::Message for $name {
            const TYPE_NAME: &'static str = $type_name;
            type Kind = $crate::Chunked;
            const FINGERPRINT: $crate::Fingerprint = $crate::Fingerprint {
                name: $type_name,
                kind: $crate::MessageKind::Chunked,
                size: core::mem::size_of::<$header>() as u32,
                align: core::mem::align_of::<$header>() as u32,
                elem_size: core::mem::size_of::<$elem>() as u32,
                layout_hash: $crate::layout::mix(
                    $crate::layout::mix(
                        <$header as $crate::LayoutHash>::LAYOUT_HASH,
                        $crate::fnv1a(stringify!($elem)),
                    ),
                    <$elem as $crate::LayoutHash>::LAYOUT_HASH,
                ),
            };
        }

        impl $crate::ChunkedMessage for $name {
            type Header = $header;
            type Elem = $elem;
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __pod_struct {
    (
        [$($opt:ident)?]
        $(#[$meta:meta])*
        pub struct $name:ident { $( $(#[$fmeta:meta])* pub $field:ident : $fty:ty ),* }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field : $fty ),*
        }

        // The Pod contract, checked at compile time: every field is Pod, and the struct is
        // exactly as large as its fields (no implicit padding).
        const _: () = {
            const fn field_is_pod<T: $crate::__bytemuck::Pod>() {}
            $( field_is_pod::<$fty>(); )*
            assert!(
                core::mem::size_of::<$name>() == 0 $( + core::mem::size_of::<$fty>() )*,
                concat!(
                    "`", stringify!($name), "` has implicit padding: add explicit `_pad` fields ",
                    "so that the fields cover every byte"
                ),
            );
        };

        // SAFETY: `#[repr(C)]`, every field is Pod and the fields cover every byte (both
        // checked in the const block above), so every bit pattern, all zeroes included, is a
        // valid value; the type is Copy and has no lifetimes ('static). This is the check
        // `#[derive(Pod)]` makes, without requiring `bytemuck` in the caller's crate.
        unsafe impl $crate::__bytemuck::Zeroable for $name {}
        // SAFETY: see above.
        unsafe impl $crate::__bytemuck::Pod for $name {}

        impl $crate::LayoutHash for $name {
            const LAYOUT_HASH: u64 = {
                let hash = $crate::fnv1a(stringify!($( $field : $fty ),*));
                $( let hash = $crate::layout::mix(hash, <$fty as $crate::LayoutHash>::LAYOUT_HASH); )*
                hash
            };
        }

        $crate::__pod_default!([$($opt)?] $name);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __pod_default {
    ([] $name:ident) => {
        impl Default for $name {
            fn default() -> Self {
                <Self as $crate::__bytemuck::Zeroable>::zeroed()
            }
        }
    };
    ([no_default] $name:ident) => {};
}
