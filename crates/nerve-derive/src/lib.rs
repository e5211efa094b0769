//! Internal crate of nerve: `#[derive(Message)]`, the one definition of a message type.
//!
//! On a `#[repr(C)]` struct with named fields, it checks at compile time that every field is
//! Pod and that the fields cover every byte (no implicit padding), implements `bytemuck::Pod`,
//! and emits the type's runtime schema (`Describe`: field names, types, offsets, docs, units)
//! and its fingerprint hashed from that schema. With a `name`, the struct is a message:
//!
//! ```ignore
//! /// Velocity command.
//! #[derive(Clone, Copy, Debug, PartialEq, Message)]
//! #[message(name = "nerve/CmdVel", ros2 = "geometry_msgs/msg/Twist", default = "zeroed")]
//! #[repr(C)]
//! pub struct CmdVel {
//!     /// Time of the command.
//!     #[field(unit = "ns")]
//!     pub stamp_ns: u64,
//!     /// Forward speed.
//!     #[field(unit = "m/s")]
//!     pub linear: f32,
//!     /// Turn rate.
//!     #[field(unit = "rad/s")]
//!     pub angular: f32,
//! }
//! ```
//!
//! `#[message(name = "…", chunked(elem = T, message = Marker, doc = "…"))]` makes the struct
//! the header of a chunked message and declares `Marker` (documented by `doc`), the message
//! type topics carry. Without a name
//! the struct is a building block (a field type, a chunk header or element).
//!
//! Options of `#[message(…)]`: `name`, `ros2`, `chunked(elem = Type, message = Ident)`,
//! `default = "zeroed"` (implements `Default` as all zeroes), `crate = "path"` (where the
//! message traits live; default `::nerve::msgs`). Options of `#[field(…)]`: `unit = "…"`,
//! `text` (a `[u8; N]` holding NUL-padded UTF-8), `codes = Path` (an integer whose values are
//! named by `Path: Codes`).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{parse_macro_input, Attribute, Data, DeriveInput, Fields, Ident, LitStr, Path, Type};

/// Derives a message type's layout checks, schema and fingerprint (crate docs).
#[proc_macro_derive(Message, attributes(message, field))]
pub fn derive_message(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What `#[message(…)]` says.
#[derive(Default)]
struct MessageOpts {
    name: Option<LitStr>,
    ros2: Option<LitStr>,
    krate: Option<Path>,
    zeroed_default: bool,
    chunked: Option<(Type, Ident, Option<LitStr>)>,
}

/// What `#[field(…)]` says.
#[derive(Default)]
struct FieldOpts {
    unit: Option<LitStr>,
    text: bool,
    codes: Option<Path>,
}

fn doc_of(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    lines.join("\n").trim().to_owned()
}

fn message_opts(attrs: &[Attribute]) -> syn::Result<MessageOpts> {
    let mut o = MessageOpts::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("message")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("name") {
                o.name = Some(m.value()?.parse()?);
            } else if m.path.is_ident("ros2") {
                o.ros2 = Some(m.value()?.parse()?);
            } else if m.path.is_ident("crate") {
                let s: LitStr = m.value()?.parse()?;
                o.krate = Some(s.parse()?);
            } else if m.path.is_ident("default") {
                let s: LitStr = m.value()?.parse()?;
                if s.value() != "zeroed" {
                    return Err(m.error("the only default is \"zeroed\""));
                }
                o.zeroed_default = true;
            } else if m.path.is_ident("chunked") {
                let (mut elem, mut marker, mut doc) = (None, None, None);
                m.parse_nested_meta(|c| {
                    if c.path.is_ident("elem") {
                        elem = Some(c.value()?.parse::<Type>()?);
                    } else if c.path.is_ident("message") {
                        marker = Some(c.value()?.parse::<Ident>()?);
                    } else if c.path.is_ident("doc") {
                        doc = Some(c.value()?.parse::<LitStr>()?);
                    } else {
                        return Err(
                            c.error("expected `elem = Type`, `message = Name` or `doc = \"…\"`")
                        );
                    }
                    Ok(())
                })?;
                match (elem, marker) {
                    (Some(e), Some(n)) => o.chunked = Some((e, n, doc)),
                    _ => return Err(m.error("chunked(…) needs `elem = Type, message = Name`")),
                }
            } else {
                return Err(
                    m.error("unknown option: expected name, ros2, chunked(…), default or crate")
                );
            }
            Ok(())
        })?;
    }
    if o.chunked.is_some() && o.name.is_none() {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "a chunked message needs a `name`",
        ));
    }
    Ok(o)
}

fn field_opts(attrs: &[Attribute]) -> syn::Result<FieldOpts> {
    let mut o = FieldOpts::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("field")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("unit") {
                o.unit = Some(m.value()?.parse()?);
            } else if m.path.is_ident("text") {
                o.text = true;
            } else if m.path.is_ident("codes") {
                o.codes = Some(m.value()?.parse()?);
            } else {
                return Err(m.error("unknown option: expected unit, text or codes"));
            }
            Ok(())
        })?;
    }
    Ok(o)
}

fn is_repr_c(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("repr") && {
            let mut c = false;
            let _ = a.parse_nested_meta(|m| {
                c |= m.path.is_ident("C");
                Ok(())
            });
            c
        }
    })
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            name,
            "#[derive(Message)] takes a struct",
        ));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            name,
            "#[derive(Message)] takes a struct with named fields",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(Message)] takes a struct without generic parameters",
        ));
    }
    if !is_repr_c(&input.attrs) {
        return Err(syn::Error::new_spanned(
            name,
            "#[derive(Message)] needs #[repr(C)]: the layout is shared with other processes and languages",
        ));
    }
    let opts = message_opts(&input.attrs)?;
    let krate = opts
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::nerve::msgs));
    let doc = doc_of(&input.attrs);
    let ros2 = opts.ros2.as_ref().map_or_else(String::new, |s| s.value());

    let mut field_types = Vec::new();
    let mut field_schemas = Vec::new();
    for f in &fields.named {
        let ident = f.ident.as_ref().expect("named fields");
        let fname = ident.to_string();
        let ty = &f.ty;
        let fo = field_opts(&f.attrs)?;
        let fdoc = doc_of(&f.attrs);
        // nerve's convention: an instant or duration in nanoseconds is named `*_ns`.
        let unit = match &fo.unit {
            Some(s) => s.value(),
            None if fname.ends_with("_ns") => "ns".to_owned(),
            None => String::new(),
        };
        let padding = fname.starts_with("_pad");
        let schema_ty = if fo.text {
            quote! { #krate::schema::FieldType::Text { len: core::mem::size_of::<#ty>() as u32 } }
        } else if let Some(codes) = &fo.codes {
            quote! {
                #krate::schema::FieldType::Enum {
                    repr: &<#ty as #krate::schema::FieldTyped>::TYPE,
                    values: <#codes as #krate::schema::Codes>::VALUES,
                }
            }
        } else {
            quote! { <#ty as #krate::schema::FieldTyped>::TYPE }
        };
        field_schemas.push(quote! {
            #krate::schema::Field {
                name: #fname,
                ty: #schema_ty,
                offset: core::mem::offset_of!(#name, #ident) as u32,
                padding: #padding,
                doc: #fdoc,
                unit: #unit,
            }
        });
        field_types.push(ty.clone());
    }

    let type_name = opts
        .name
        .as_ref()
        .map_or_else(|| name.to_string(), |s| s.value());
    let kind = match &opts.chunked {
        Some((elem, _, _)) => quote! {
            #krate::schema::SchemaKind::Chunked {
                elem: &<#elem as #krate::schema::FieldTyped>::TYPE,
            }
        },
        None if opts.name.is_some() => quote! { #krate::schema::SchemaKind::Fixed },
        None => quote! { #krate::schema::SchemaKind::Struct },
    };
    let padding_msg = format!(
        "`{name}` has implicit padding: add explicit `_pad` fields so that the fields cover every byte"
    );

    let mut out = quote! {
        // The Pod contract, checked at compile time: every field is Pod, and the struct is
        // exactly as large as its fields (no implicit padding).
        const _: () = {
            const fn field_is_pod<T: #krate::__bytemuck::Pod>() {}
            #( field_is_pod::<#field_types>(); )*
            assert!(
                core::mem::size_of::<#name>() == 0 #( + core::mem::size_of::<#field_types>() )*,
                #padding_msg,
            );
        };

        // SAFETY: `#[repr(C)]` (checked by the derive), every field is Pod and the fields cover
        // every byte (both checked in the const block above), so every bit pattern, all zeroes
        // included, is a valid value; the type has no generic parameters or lifetimes. This is
        // the check `#[derive(Pod)]` makes, without `bytemuck` in the caller's crate.
        unsafe impl #krate::__bytemuck::Zeroable for #name {}
        // SAFETY: see above; the type is `Copy` (required by `Pod`, so a missing derive is a
        // compile error).
        unsafe impl #krate::__bytemuck::Pod for #name {}

        impl #krate::schema::Describe for #name {
            const SCHEMA: #krate::schema::Schema = #krate::schema::Schema {
                name: #type_name,
                kind: #kind,
                size: core::mem::size_of::<#name>() as u32,
                align: core::mem::align_of::<#name>() as u32,
                fields: &[ #( #field_schemas ),* ],
                doc: #doc,
                ros2: #ros2,
            };
        }

        impl #krate::schema::FieldTyped for #name {
            const TYPE: #krate::schema::FieldType =
                #krate::schema::FieldType::Struct(&<#name as #krate::schema::Describe>::SCHEMA);
        }
    };

    if opts.zeroed_default {
        out.extend(quote! {
            impl Default for #name {
                fn default() -> Self {
                    <Self as #krate::__bytemuck::Zeroable>::zeroed()
                }
            }
        });
    }

    match &opts.chunked {
        None if opts.name.is_some() => out.extend(quote! {
            impl #name {
                /// `size_of::<Self>()`: the bytes this message occupies in a ring slot.
                pub const SIZE: usize = core::mem::size_of::<#name>();

                /// The message's bytes, exactly as they are copied into a ring slot.
                pub fn as_bytes(&self) -> &[u8] {
                    #krate::__bytemuck::bytes_of(self)
                }

                /// Reads a message from bytes at any alignment. `None` unless
                /// `bytes.len() == Self::SIZE`.
                pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
                    #krate::__bytemuck::try_pod_read_unaligned(bytes).ok()
                }
            }

            impl #krate::Message for #name {
                const TYPE_NAME: &'static str = #type_name;
                type Kind = #krate::Fixed;
                const FINGERPRINT: #krate::Fingerprint = #krate::Fingerprint {
                    name: #type_name,
                    kind: #krate::MessageKind::Fixed,
                    size: core::mem::size_of::<#name>() as u32,
                    align: core::mem::align_of::<#name>() as u32,
                    elem_size: 0,
                    layout_hash: <#name as #krate::schema::Describe>::SCHEMA.hash(),
                };
                const DESCRIPTION: Option<&'static #krate::schema::Schema> =
                    Some(&<#name as #krate::schema::Describe>::SCHEMA);
            }

            impl #krate::FixedMessage for #name {}
        }),
        Some((elem, marker, doc)) => {
            let layout = format!(
                "A [`{name}`] header followed by any number of `{}` elements, carried in a shared chunk (loan → fill → send; subscribers read it in place).",
                quote!(#elem).to_string().replace(' ', "")
            );
            let marker_doc = match doc {
                Some(d) => format!("{}\n\n{layout}", d.value()),
                None => format!("The `{type_name}` message. {layout}"),
            };
            let vis = &input.vis;
            out.extend(quote! {
                #[doc = #marker_doc]
                #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
                #vis struct #marker;

                impl #krate::Message for #marker {
                    const TYPE_NAME: &'static str = #type_name;
                    type Kind = #krate::Chunked;
                    const FINGERPRINT: #krate::Fingerprint = #krate::Fingerprint {
                        name: #type_name,
                        kind: #krate::MessageKind::Chunked,
                        size: core::mem::size_of::<#name>() as u32,
                        align: core::mem::align_of::<#name>() as u32,
                        elem_size: core::mem::size_of::<#elem>() as u32,
                        layout_hash: <#name as #krate::schema::Describe>::SCHEMA.hash(),
                    };
                    const DESCRIPTION: Option<&'static #krate::schema::Schema> =
                        Some(&<#name as #krate::schema::Describe>::SCHEMA);
                }

                impl #krate::ChunkedMessage for #marker {
                    type Header = #name;
                    type Elem = #elem;
                }
            });
        }
        None => {}
    }
    Ok(out)
}
