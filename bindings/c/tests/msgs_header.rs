//! The committed message headers (`include/nerve/msgs.h` for C, `include/nerve/msgs.hpp` for
//! C++) are what nerve's standard schemas make now: every standard struct laid out as the Rust
//! type, with static asserts of its size, alignment and every field's offset, and a function
//! giving its `nerve_type` checked against the layout hash compiled into the header.
//! `NERVE_BLESS=1 cargo test -p nerve-c --test msgs_header` rewrites them.

use std::collections::HashSet;
use std::fmt::Write as _;

use nerve::msgs::described::{KindDoc, StructDoc, TypeDoc, TypeRef};
use nerve::msgs::{StandardStruct, STANDARD_STRUCTS};

/// Words C or C++ reserve: a field so named gets a trailing `_` in C (its description keeps the
/// name).
const RESERVED: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "explicit",
    "extern",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "namespace",
    "new",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "throw",
    "try",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
    "bool",
    "true",
    "false",
];

fn c_name(field: &str) -> String {
    if RESERVED.contains(&field) {
        format!("{field}_")
    } else {
        field.to_owned()
    }
}

/// The standard class of struct `i` of `doc`.
fn class_of(doc: &TypeDoc, i: u32) -> &'static str {
    let s = &doc.structs[i as usize];
    let hash = doc.hash_of(i);
    STANDARD_STRUCTS
        .iter()
        .find(|st| st.schema.name == s.name && st.schema.hash() == hash)
        .map(|st| st.class)
        .unwrap_or_else(|| panic!("{} nests a struct that is not standard", s.name))
}

/// The C type of `t` and the array dimensions that follow the field's name.
fn c_type(doc: &TypeDoc, t: &TypeRef) -> (String, String) {
    let scalar = |s: &str| (s.to_owned(), String::new());
    match t {
        TypeRef::Bool => scalar("bool"),
        TypeRef::U8 => scalar("uint8_t"),
        TypeRef::I8 => scalar("int8_t"),
        TypeRef::U16 => scalar("uint16_t"),
        TypeRef::I16 => scalar("int16_t"),
        TypeRef::U32 => scalar("uint32_t"),
        TypeRef::I32 => scalar("int32_t"),
        TypeRef::U64 => scalar("uint64_t"),
        TypeRef::I64 => scalar("int64_t"),
        TypeRef::F32 => scalar("float"),
        TypeRef::F64 => scalar("double"),
        TypeRef::Text { len } => ("char".into(), format!("[{len}]")),
        TypeRef::Enum { repr, .. } => c_type(doc, repr),
        TypeRef::Struct(i) => (format!("nerve_msgs_{}", class_of(doc, *i)), String::new()),
        TypeRef::Array { elem, len } => {
            let (base, dims) = c_type(doc, elem);
            (base, format!("[{len}]{dims}"))
        }
    }
}

/// The standard structs, each after every struct it nests.
fn in_dependency_order() -> Vec<(&'static StandardStruct, TypeDoc)> {
    let mut done: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    let mut left: Vec<_> = STANDARD_STRUCTS
        .iter()
        .map(|s| (s, TypeDoc::of(s.schema)))
        .collect();
    while !left.is_empty() {
        let before = left.len();
        let mut i = 0;
        while i < left.len() {
            let doc = &left[i].1;
            let needs = (0..doc.structs.len() as u32)
                .filter(|&k| k != doc.root)
                .all(|k| done.contains(class_of(doc, k)));
            if needs {
                let item = left.remove(i);
                done.insert(item.0.class);
                out.push(item);
            } else {
                i += 1;
            }
        }
        assert!(
            left.len() < before,
            "standard structs nest each other in a circle"
        );
    }
    out
}

fn upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

/// One struct's typedef, asserts, enum values and type function.
fn c_struct(out: &mut String, st: &StandardStruct, doc: &TypeDoc) {
    let s: &StructDoc = doc.root();
    let class = st.class;
    let ty = format!("nerve_msgs_{class}");
    let mut lines: Vec<String> = s
        .doc
        .lines()
        .map(|l| l.trim().replace("*/", "* /"))
        .filter(|l| !l.is_empty())
        .collect();
    let ros2 = if s.ros2.is_empty() {
        String::new()
    } else {
        format!(", ROS 2 {}", s.ros2)
    };
    lines.push(format!("{} ({} bytes){ros2}", s.name, s.size));
    let _ = writeln!(out, "/* {} */", lines.join("\n * "));
    let _ = writeln!(out, "typedef struct {ty} {{");
    for f in &s.fields {
        let (base, dims) = c_type(doc, &f.ty);
        let unit = if f.unit.is_empty() {
            String::new()
        } else {
            format!(" /* {} */", f.unit)
        };
        let _ = writeln!(out, "    {base} {}{dims};{unit}", c_name(&f.name));
    }
    let _ = writeln!(out, "}} {ty};");
    let _ = writeln!(
        out,
        "NERVE_MSGS_ASSERT(sizeof({ty}) == {}, \"{class}: size\");",
        s.size
    );
    let _ = writeln!(
        out,
        "NERVE_MSGS_ASSERT(NERVE_ALIGNOF({ty}) == {}, \"{class}: alignment\");",
        s.align
    );
    for f in &s.fields {
        let _ = writeln!(
            out,
            "NERVE_MSGS_ASSERT(offsetof({ty}, {}) == {}, \"{class}.{}: offset\");",
            c_name(&f.name),
            f.offset,
            f.name
        );
        if let TypeRef::Enum { values, .. } = &f.ty {
            for (name, v) in values {
                let _ = writeln!(
                    out,
                    "#define NERVE_MSGS_{}_{}_{} ({v})",
                    upper(class),
                    upper(&f.name),
                    upper(name)
                );
            }
        }
    }
    let (fn_class, hash) = match st.chunked {
        Some(message) => (message, doc.hash()),
        None => (class, doc.hash()),
    };
    if let KindDoc::Chunked(e) = &s.kind {
        let (base, dims) = c_type(doc, e);
        assert!(dims.is_empty(), "{class}: an array as a chunk element");
        let _ = writeln!(out, "/* The elements of a {fn_class} message. */\ntypedef {base} nerve_msgs_{fn_class}_elem;");
    }
    let _ = writeln!(
        out,
        "/* {fn_class}'s nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */\n\
         static inline int32_t nerve_msgs_{fn_class}_type(nerve_type *out) {{\n    \
         return nerve_standard_type_checked(\"{fn_class}\", UINT64_C({hash:#018x}), out);\n}}\n"
    );
}

fn c_header() -> String {
    let mut out = String::from(
        "/* nerve's standard messages for C: every struct laid out as the Rust type, its size,\n \
         * alignment and offsets checked by the compiler, and nerve_msgs_<Type>_type() giving\n \
         * the nerve_type every language shares. Generated from nerve's schemas by\n \
         * bindings/c/tests/msgs_header.rs: do not edit. */\n\
         #ifndef NERVE_MSGS_H\n#define NERVE_MSGS_H\n\n#include \"../nerve.h\"\n\n\
         #ifdef __cplusplus\n#define NERVE_MSGS_ASSERT(e, m) static_assert(e, m)\n\
         #else\n#define NERVE_MSGS_ASSERT(e, m) _Static_assert(e, m)\n#endif\n\n",
    );
    let ordered = in_dependency_order();
    for (st, doc) in &ordered {
        c_struct(&mut out, st, doc);
    }
    let each = |pick: &dyn Fn(&StandardStruct, &TypeDoc) -> Option<String>| {
        ordered
            .iter()
            .filter_map(|(s, d)| pick(s, d))
            .map(|c| format!(" \\\n    X({c})"))
            .collect::<String>()
    };
    let fixed = each(&|s, d| matches!(d.root().kind, KindDoc::Fixed).then(|| s.class.to_owned()));
    let chunked = each(&|s, _| s.chunked.map(|c| format!("{c}, {}", s.class)));
    let structs =
        each(&|s, d| matches!(d.root().kind, KindDoc::Struct).then(|| s.class.to_owned()));
    let _ = writeln!(
        out,
        "/* X(Type) for every fixed message. */\n#define NERVE_MSGS_EACH_FIXED(X){fixed}\n\n\
         /* X(Type, Header) for every chunked message. */\n#define NERVE_MSGS_EACH_CHUNKED(X){chunked}\n\n\
         /* X(Type) for every struct that messages nest. */\n#define NERVE_MSGS_EACH_STRUCT(X){structs}\n\n\
         #endif /* NERVE_MSGS_H */"
    );
    out
}

fn cpp_header() -> String {
    let mut out = String::from(
        "// nerve's standard messages for C++: nerve::msgs::Imu, nerve::msgs::Image (a\n\
         // nerve::Chunked of its header and elements), ... usable as Topic<T> directly.\n\
         // Generated from nerve's schemas by bindings/c/tests/msgs_header.rs: do not edit.\n\
         #ifndef NERVE_MSGS_HPP\n#define NERVE_MSGS_HPP\n\n#include \"../nerve.hpp\"\n#include \"msgs.h\"\n\n",
    );
    let mut aliases = String::new();
    for (st, doc) in in_dependency_order() {
        let class = st.class;
        match (&doc.root().kind, st.chunked) {
            (KindDoc::Fixed, _) => {
                let _ = writeln!(
                    out,
                    "NERVE_TYPE(nerve_msgs_{class}, nerve_msgs_{class}_type);"
                );
                let _ = writeln!(aliases, "using {class} = ::nerve_msgs_{class};");
            }
            (KindDoc::Chunked(_), Some(message)) => {
                let _ = writeln!(out, "NERVE_CHUNKED_TYPE(nerve_msgs_{class}, nerve_msgs_{message}_elem, nerve_msgs_{message}_type);");
                let _ = writeln!(aliases, "using {class} = ::nerve_msgs_{class};");
                let _ = writeln!(
                    aliases,
                    "using {message} = Chunked<::nerve_msgs_{class}, ::nerve_msgs_{message}_elem>;"
                );
            }
            _ => {
                let _ = writeln!(aliases, "using {class} = ::nerve_msgs_{class};");
            }
        }
    }
    let _ = writeln!(out, "\nnamespace nerve {{\nnamespace msgs {{\n{aliases}}}  // namespace msgs\n}}  // namespace nerve\n\n#endif  // NERVE_MSGS_HPP");
    out
}

fn check(file: &str, made: &str) {
    let path = format!("{}/include/nerve/{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("NERVE_BLESS").is_some() {
        std::fs::write(&path, made).expect("writing the header");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == made,
        "bindings/c/include/nerve/{file} is stale: regenerate it with \
         `NERVE_BLESS=1 cargo test -p nerve-c --test msgs_header` and commit it"
    );
}

#[test]
fn the_committed_c_message_header_is_current() {
    check("msgs.h", &c_header());
}

#[test]
fn the_committed_cpp_message_header_is_current() {
    check("msgs.hpp", &cpp_header());
}
