//! JSON Schemas of nerve types, for topics Foxglove receives as JSON: the schema follows the
//! value [`nerve::msgs::dynamic::decode`] gives (structs as objects, padding left out, codes
//! by name, text as strings, a chunked message's elements under `data`), with each field's
//! doc and unit as its description, so Foxglove's panels name and plot every field.

use nerve::msgs::described::{KindDoc, TypeDoc, TypeRef};
use nerve::msgs::dynamic::DATA;
use serde_json::{json, Map, Value as Json};

/// The JSON Schema of messages of the type `doc` describes.
pub fn of(doc: &TypeDoc) -> Json {
    let mut schema = object(doc, doc.root, 0);
    let Some(root) = doc.structs.get(doc.root as usize) else {
        return schema;
    };
    if let KindDoc::Chunked(elem) = &root.kind {
        if let Some(props) = schema.get_mut("properties").and_then(Json::as_object_mut) {
            props.insert(
                DATA.to_owned(),
                json!({
                    "type": "array",
                    "items": of_type(doc, elem, 1),
                    "description": "the message's elements",
                }),
            );
        }
    }
    if let Some(o) = schema.as_object_mut() {
        o.insert("title".into(), Json::String(root.name.clone()));
        o.insert(
            "$schema".into(),
            Json::String("https://json-schema.org/draft/2020-12/schema".into()),
        );
    }
    schema
}

/// Deepest nesting written out (a description's own limit); deeper structs are any object (a
/// hostile description is cut here rather than recursed through).
use nerve::msgs::described::MAX_NESTING;

fn object(doc: &TypeDoc, index: u32, depth: u32) -> Json {
    let Some(s) = doc.structs.get(index as usize) else {
        return json!({ "type": "object" });
    };
    if depth > MAX_NESTING {
        return json!({ "type": "object" });
    }
    let mut props = Map::new();
    for f in s.fields.iter().filter(|f| !f.padding) {
        let mut field = of_type(doc, &f.ty, depth + 1);
        let description = match (f.doc.is_empty(), f.unit.is_empty()) {
            (_, true) => f.doc.clone(),
            (true, false) => format!("[{}]", f.unit),
            (false, false) => format!("{} [{}]", f.doc, f.unit),
        };
        if !description.is_empty() {
            if let Some(o) = field.as_object_mut() {
                o.insert("description".into(), Json::String(description));
            }
        }
        props.insert(f.name.clone(), field);
    }
    let mut o = json!({ "type": "object", "properties": props });
    if !s.doc.is_empty() {
        o["description"] = Json::String(s.doc.clone());
    }
    o
}

fn of_type(doc: &TypeDoc, t: &TypeRef, depth: u32) -> Json {
    match t {
        TypeRef::Bool => json!({ "type": "boolean" }),
        TypeRef::U8 | TypeRef::U16 | TypeRef::U32 | TypeRef::U64 => {
            json!({ "type": "integer", "minimum": 0 })
        }
        TypeRef::I8 | TypeRef::I16 | TypeRef::I32 | TypeRef::I64 => json!({ "type": "integer" }),
        // NaN is written as null.
        TypeRef::F32 | TypeRef::F64 => json!({ "type": ["number", "null"] }),
        TypeRef::Array { elem, len } => json!({
            "type": "array",
            "items": of_type(doc, elem, depth + 1),
            "minItems": len,
            "maxItems": len,
        }),
        TypeRef::Text { len } => json!({ "type": "string", "maxLength": len }),
        TypeRef::Enum { values, .. } => {
            // A code with no name is written as its number.
            let names: Vec<&str> = values.iter().map(|(n, _)| n.as_str()).collect();
            json!({ "anyOf": [{ "type": "string", "enum": names }, { "type": "integer" }] })
        }
        TypeRef::Struct(i) => object(doc, *i, depth + 1),
    }
}

#[cfg(test)]
mod tests {
    use nerve::msgs::described::TypeDoc;
    use nerve::msgs::{CmdVel, Message};

    #[test]
    fn fields_with_units_and_kinds() {
        let doc = TypeDoc::of(CmdVel::DESCRIPTION.unwrap());
        let s = super::of(&doc);
        assert_eq!(s["type"], "object");
        assert_eq!(s["title"], doc.root().name);
        let linear = &s["properties"]["linear"];
        assert_eq!(linear["type"][0], "number");
        assert!(
            linear["description"].as_str().unwrap().contains("m/s"),
            "{linear}"
        );
        assert_eq!(s["properties"]["stamp_ns"]["type"], "integer");
    }

    #[test]
    fn chunked_types_list_their_elements_under_data() {
        let doc = TypeDoc::of(nerve::msgs::LaserScan::DESCRIPTION.unwrap());
        let s = super::of(&doc);
        assert_eq!(s["properties"]["data"]["type"], "array");
        assert_eq!(s["properties"]["data"]["items"]["type"][0], "number");
    }

    #[test]
    fn a_struct_index_out_of_range_is_any_object() {
        let mut doc = TypeDoc::of(CmdVel::DESCRIPTION.unwrap());
        doc.root = 99;
        // `root()` would panic on such a doc; `object` must not.
        assert_eq!(super::object(&doc, 99, 0)["type"], "object");
    }
}
