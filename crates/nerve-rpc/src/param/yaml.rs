//! Parameters in YAML files, the shape ROS 2 uses: `node: {ros__parameters: {name: value}}`
//! (dotted names nest), read into flat (name, value) pairs and written back.

use super::descriptor::ParamInfo;
use super::value::ParamValue;
use crate::error::ParamError;

/// The parameters for `node` in a YAML document (the keys `/node`, `node` and `/**` match;
/// `ros__parameters` is optional; dotted names nest), flattened to dotted names.
pub(crate) fn parse(node: &str, yaml: &str) -> Result<Vec<(String, ParamValue)>, ParamError> {
    let yaml_err = |reason: String| ParamError::Yaml {
        node: node.to_owned(),
        reason,
    };
    nerve_transport::document::check(yaml, "the parameters")
        .map_err(|e| yaml_err(e.to_string()))?;
    let doc: serde_yaml::Value = serde_yaml::from_str(yaml).map_err(|e| yaml_err(e.to_string()))?;
    let Some(nodes) = doc.as_mapping() else {
        return Err(yaml_err(
            "the top level must map node names to parameters".into(),
        ));
    };
    let mut flat = Vec::new();
    for (key, body) in nodes {
        let key = key.as_str().unwrap_or("").trim_start_matches('/');
        // The node's full name, `**` for every node, or its own name without the namespace
        // (a file written for `planner` applies to `r1/planner` as launched in `r1`).
        let base = node.rsplit('/').next().unwrap_or(node);
        if key != node && key != "**" && key != base {
            continue;
        }
        let body = body.get("ros__parameters").unwrap_or(body);
        flatten("", body, &mut flat).map_err(yaml_err)?;
    }
    Ok(flat)
}

/// `params` of `node` as YAML: `node: {ros__parameters: {name: value}}` (dotted names nest,
/// as ROS 2 writes them).
pub(crate) fn dump(node: &str, params: &[ParamInfo]) -> String {
    use serde_yaml::{Mapping, Value as Y};
    let mut root = Mapping::new();
    for info in params {
        let mut map = &mut root;
        let parts: Vec<&str> = info.descriptor.name.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            let key = Y::String((*part).to_owned());
            if !matches!(map.get(&key), Some(Y::Mapping(_))) {
                map.insert(key.clone(), Y::Mapping(Mapping::new()));
            }
            map = match map.get_mut(&key) {
                Some(Y::Mapping(m)) => m,
                _ => unreachable!("inserted above"),
            };
        }
        map.insert(
            Y::String(parts[parts.len() - 1].to_owned()),
            info.value.to_yaml(),
        );
    }
    let mut body = Mapping::new();
    body.insert(Y::String("ros__parameters".into()), Y::Mapping(root));
    let mut doc = Mapping::new();
    doc.insert(Y::String(node.to_owned()), Y::Mapping(body));
    serde_yaml::to_string(&Y::Mapping(doc)).expect("YAML of plain values")
}

fn flatten(
    prefix: &str,
    v: &serde_yaml::Value,
    out: &mut Vec<(String, ParamValue)>,
) -> Result<(), String> {
    match v {
        serde_yaml::Value::Mapping(m) => {
            for (k, v) in m {
                let k = k
                    .as_str()
                    .ok_or_else(|| format!("parameter names must be strings, found {k:?}"))?;
                let name = if prefix.is_empty() {
                    k.to_owned()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&name, v, out)?;
            }
            Ok(())
        }
        other => {
            let value = ParamValue::from_yaml(other).ok_or_else(|| {
                format!("parameter '{prefix}': unsupported value {other:?} (use a bool, number, string or a list of one of them)")
            })?;
            out.push((prefix.to_owned(), value));
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_file_nested_too_deep_is_refused_before_parsing() {
        let t0 = std::time::Instant::now();
        let deep = format!(
            "n:\n  ros__parameters:\n    x: {}{}\n",
            "[".repeat(80_000),
            "]".repeat(80_000)
        );
        let e = parse("n", &deep).unwrap_err().to_string();
        assert!(e.contains("nested more than 64 levels deep"), "{e}");
        assert!(t0.elapsed() < std::time::Duration::from_millis(500));
        let ok = parse("n", "n:\n  ros__parameters:\n    x: [1.5, 2.5]\n").unwrap();
        assert_eq!(ok.len(), 1);
    }
}
