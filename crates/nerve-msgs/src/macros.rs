//! `fixed_message!` declares a `#[repr(C)]` Pod message and its fingerprint in one place, so
//! the layout hash always matches the fields as written.

/// Declares a fixed-size message.
///
/// ```
/// nerve_msgs::fixed_message! {
///     /// A demo message.
///     pub struct Demo ("demo/Demo") { pub a: u64, pub b: f32, pub _pad: u32 }
/// }
/// assert_eq!(core::mem::size_of::<Demo>(), 16);
/// ```
#[macro_export]
macro_rules! fixed_message {
    (
        $(#[$meta:meta])*
        pub struct $name:ident ($type_name:literal) {
            $( $(#[$fmeta:meta])* pub $field:ident : $fty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, $crate::__bytemuck::Pod, $crate::__bytemuck::Zeroable)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field : $fty ),*
        }

        impl Default for $name {
            fn default() -> Self {
                $crate::__bytemuck::Zeroable::zeroed()
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
                layout_hash: $crate::fnv1a(stringify!($( $field : $fty ),*)),
            };
        }

        impl $crate::FixedMessage for $name {}
    };
}
