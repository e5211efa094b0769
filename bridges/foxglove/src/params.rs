//! Every node's parameters in Foxglove's Parameters panel, readable and settable. A
//! parameter is named `NODE.NAME` (`r1/planner.max_speed`), as Foxglove's ROS 2 sources name
//! them; a node is one serving its parameters (`NODE/param/list`). Requests are answered on a
//! thread of their own: a slow node never holds up the server.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use foxglove::websocket::{
    AnyClient, GetParametersResponder, Parameter, ParameterHandler, ParameterType, ParameterValue,
    SetParametersResponder,
};
use foxglove::WebSocketServerHandle;
use nerve::rpc::discovery;
use nerve::rpc::{ParamClient, ParamValue};

/// How long a node has to answer.
const TIMEOUT: Duration = Duration::from_secs(2);

/// Answers Foxglove's parameter requests from the domain's nodes.
pub(crate) struct Params {
    pub domain: u32,
    /// Set once the server runs: a change is sent to every subscribed client.
    pub server: Arc<Mutex<Option<WebSocketServerHandle>>>,
}

/// The nodes serving parameters now.
fn nodes(domain: u32) -> Vec<String> {
    discovery::services(domain)
        .into_iter()
        .filter(|s| s.server.is_some())
        .filter_map(|s| s.name.strip_suffix("/param/list").map(str::to_owned))
        .collect()
}

/// `NODE.NAME` split at the longest node of `nodes` it starts with (names may hold dots).
fn split<'a>(full: &'a str, nodes: &[String]) -> Option<(&'a str, &'a str)> {
    let full = full.trim_start_matches('/');
    nodes
        .iter()
        .filter(|n| full.len() > n.len() + 1 && full.starts_with(n.as_str()))
        .filter(|n| full.as_bytes()[n.len()] == b'.')
        .max_by_key(|n| n.len())
        .map(|n| (&full[..n.len()], &full[n.len() + 1..]))
}

/// Every parameter of every node (`names` empty) or the ones named.
fn get(domain: u32, names: &[String]) -> Vec<Parameter> {
    let nodes = nodes(domain);
    let mut out = Vec::new();
    for node in &nodes {
        let wanted =
            |p: &str| names.is_empty() || names.iter().any(|n| n == &format!("{node}.{p}"));
        let listed = ParamClient::with_domain(node, domain).and_then(|c| c.list(TIMEOUT));
        match listed {
            Ok(list) => out.extend(
                list.into_iter()
                    .filter(|p| wanted(&p.descriptor.name))
                    .map(|p| to_foxglove(&format!("{node}.{}", p.descriptor.name), &p.value)),
            ),
            Err(e) => tracing::warn!(node = %node, error = %e, "its parameters could not be read"),
        }
    }
    out
}

/// Sets each parameter on its node (a number converted to the type the parameter has);
/// returns the values the nodes hold afterwards.
fn set(domain: u32, params: Vec<Parameter>) -> Vec<Parameter> {
    let nodes = nodes(domain);
    let mut changed = Vec::new();
    for p in params {
        let Some((node, name)) = split(&p.name, &nodes) else {
            tracing::warn!(parameter = %p.name, "no node serves it (NODE.NAME; see `nerve param list`)");
            continue;
        };
        let result = ParamClient::with_domain(node, domain).and_then(|c| {
            let now = c.get(name, TIMEOUT)?;
            match p.value.as_ref().and_then(|v| from_foxglove(v, p.r#type, &now)) {
                Some(v) => c.set(name, v, TIMEOUT)?,
                None => tracing::warn!(
                    parameter = %p.name, "a value of another type than the parameter's ({})", now.ty()
                ),
            }
            c.get(name, TIMEOUT)
        });
        match result {
            Ok(v) => changed.push(to_foxglove(&format!("{node}.{name}"), &v)),
            Err(e) => tracing::warn!(parameter = %p.name, error = %e, "not set"),
        }
    }
    changed
}

/// A nerve parameter value as Foxglove's.
fn to_foxglove(name: &str, v: &ParamValue) -> Parameter {
    let array = |items: Vec<ParameterValue>| Parameter {
        name: name.to_owned(),
        r#type: None,
        value: Some(ParameterValue::Array(items)),
    };
    match v {
        ParamValue::Bool(b) => Parameter::bool(name, *b),
        ParamValue::Int(i) => Parameter::integer(name, *i),
        ParamValue::Float(f) => Parameter::float64(name, *f),
        ParamValue::String(s) => Parameter::string(name, s.clone()),
        ParamValue::Bytes(b) => Parameter::byte_array(name, b),
        ParamValue::IntArray(a) => Parameter::integer_array(name, a.iter().copied()),
        ParamValue::FloatArray(a) => Parameter::float64_array(name, a.iter().copied()),
        ParamValue::BoolArray(a) => array(a.iter().map(|b| ParameterValue::Bool(*b)).collect()),
        ParamValue::StringArray(a) => array(
            a.iter()
                .map(|s| ParameterValue::String(s.clone()))
                .collect(),
        ),
    }
}

/// A value from Foxglove as the type of `now` (the parameter's value): numbers convert
/// between integers and floats where they are whole; `None` for another type.
fn from_foxglove(
    v: &ParameterValue,
    ty: Option<ParameterType>,
    now: &ParamValue,
) -> Option<ParamValue> {
    use ParameterValue as F;
    let whole = |f: f64| (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64);
    Some(match (now, v) {
        (ParamValue::Bool(_), F::Bool(b)) => ParamValue::Bool(*b),
        (ParamValue::Int(_), F::Integer(i)) => ParamValue::Int(*i),
        (ParamValue::Int(_), F::Float64(f)) => ParamValue::Int(whole(*f)?),
        (ParamValue::Float(_), F::Float64(f)) => ParamValue::Float(*f),
        (ParamValue::Float(_), F::Integer(i)) => ParamValue::Float(*i as f64),
        (ParamValue::String(_), F::String(s)) if ty != Some(ParameterType::ByteArray) => {
            ParamValue::String(s.clone())
        }
        (ParamValue::Bytes(_), F::String(_)) => {
            let p = Parameter {
                name: String::new(),
                r#type: ty,
                value: Some(v.clone()),
            };
            ParamValue::Bytes(p.decode_byte_array().ok()??)
        }
        (now, F::Array(items)) => {
            let ints = || {
                items.iter().map(|i| match i {
                    F::Integer(i) => Some(*i),
                    F::Float64(f) => whole(*f),
                    _ => None,
                })
            };
            let floats = || {
                items.iter().map(|i| match i {
                    F::Integer(i) => Some(*i as f64),
                    F::Float64(f) => Some(*f),
                    _ => None,
                })
            };
            match now {
                ParamValue::IntArray(_) => ParamValue::IntArray(ints().collect::<Option<_>>()?),
                ParamValue::FloatArray(_) => {
                    ParamValue::FloatArray(floats().collect::<Option<_>>()?)
                }
                ParamValue::BoolArray(_) => ParamValue::BoolArray(
                    items
                        .iter()
                        .map(|i| if let F::Bool(b) = i { Some(*b) } else { None })
                        .collect::<Option<_>>()?,
                ),
                ParamValue::StringArray(_) => ParamValue::StringArray(
                    items
                        .iter()
                        .map(|i| {
                            if let F::String(s) = i {
                                Some(s.clone())
                            } else {
                                None
                            }
                        })
                        .collect::<Option<_>>()?,
                ),
                _ => return None,
            }
        }
        _ => return None,
    })
}

impl ParameterHandler for Params {
    fn get(&self, _: AnyClient, names: Vec<String>, _: Option<String>, r: GetParametersResponder) {
        let domain = self.domain;
        std::thread::spawn(move || r.respond(get(domain, &names)));
    }

    fn set(
        &self,
        _: AnyClient,
        params: Vec<Parameter>,
        _: Option<String>,
        r: SetParametersResponder,
    ) {
        let (domain, server) = (self.domain, Arc::clone(&self.server));
        std::thread::spawn(move || {
            let changed = set(domain, params);
            // Every subscribed client sees the change; the requester gets its answer.
            if let Some(s) = server.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                s.publish_parameter_values(changed.clone());
            }
            r.respond(changed);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_the_longest_node() {
        let nodes = vec!["r1".to_owned(), "r1/arm".to_owned(), "cam.v2".to_owned()];
        assert_eq!(split("r1/arm.gain", &nodes), Some(("r1/arm", "gain")));
        assert_eq!(split("/r1.pid.kp", &nodes), Some(("r1", "pid.kp")));
        assert_eq!(split("cam.v2.fps", &nodes), Some(("cam.v2", "fps")));
        assert_eq!(split("r2.gain", &nodes), None);
        assert_eq!(split("r1.", &nodes), None);
    }

    #[test]
    fn values_convert_to_the_parameters_type() {
        let int = ParamValue::Int(1);
        assert_eq!(
            from_foxglove(&ParameterValue::Float64(3.0), None, &int),
            Some(ParamValue::Int(3))
        );
        assert_eq!(
            from_foxglove(&ParameterValue::Float64(3.5), None, &int),
            None
        );
        let float = ParamValue::Float(0.0);
        assert_eq!(
            from_foxglove(&ParameterValue::Integer(2), None, &float),
            Some(ParamValue::Float(2.0))
        );
        assert_eq!(
            from_foxglove(&ParameterValue::Bool(true), None, &float),
            None
        );
        let list = ParamValue::FloatArray(vec![]);
        let v = ParameterValue::Array(vec![
            ParameterValue::Integer(1),
            ParameterValue::Float64(0.5),
        ]);
        assert_eq!(
            from_foxglove(&v, None, &list),
            Some(ParamValue::FloatArray(vec![1.0, 0.5]))
        );
        let p = to_foxglove("n.bytes", &ParamValue::Bytes(vec![1, 2, 3]));
        let back = from_foxglove(
            p.value.as_ref().unwrap(),
            p.r#type,
            &ParamValue::Bytes(vec![]),
        );
        assert_eq!(back, Some(ParamValue::Bytes(vec![1, 2, 3])));
    }
}
