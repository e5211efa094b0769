//! The domain's services, callable from Foxglove (the Service Call panel), and its graph (the
//! Topic Graph panel). A call's request and response are JSON, as `nerve service call` takes
//! and prints them; a call that fails (no server, a timeout, a bad request) answers Foxglove
//! with the reason.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::Duration;

use foxglove::websocket::service::{Request, Service as FgService, ServiceSchema};
use foxglove::websocket::ConnectionGraph;
use nerve::plumbing::TopicKind;
use nerve::registry::TopicInfo;
use nerve::rpc::discovery::{self, ServiceInfo};
use nerve::rpc::Service;
use serde_json::Value as Json;

/// How long a service has to answer a call from Foxglove.
pub(crate) const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The services to offer: every live one, actions' own services left out.
pub(crate) fn live(domain: u32) -> BTreeMap<String, ServiceInfo> {
    discovery::services(domain)
        .into_iter()
        .filter(|s| s.server.is_some() && s.action.is_none())
        .map(|s| (s.name.clone(), s))
        .collect()
}

/// The Foxglove service calling nerve service `s` of `domain`.
pub(crate) fn service(domain: u32, s: &ServiceInfo) -> FgService {
    // The service's type: its request and response types, as its server announced them.
    let type_name = s
        .interface
        .as_ref()
        .map(|i| {
            let part = |role| i.part(role).map_or("?", |p| p.type_name.as_str());
            format!("{} -> {}", part("request"), part("response"))
        })
        .unwrap_or_else(|| "nerve service".to_owned());
    let name = s.name.clone();
    let client = Mutex::new(None);
    FgService::builder(&s.name, ServiceSchema::new(type_name)).blocking_handler_fn(
        move |req: Request| -> Result<Vec<u8>, String> {
            let request: Json = if req.payload().is_empty() {
                Json::Object(Default::default())
            } else {
                serde_json::from_slice(req.payload())
                    .map_err(|e| format!("service '{name}': the request is not JSON: {e}"))?
            };
            let mut client = client.lock().unwrap_or_else(|e| e.into_inner());
            if client.is_none() {
                let c = Service::<Json, Json>::builder(&name)
                    .domain(domain)
                    .build()
                    .client()
                    .map_err(|e| format!("service '{name}': {e}"))?;
                *client = Some(c);
            }
            let c = client.as_ref().expect("set above");
            let response = c
                .call(&request, CALL_TIMEOUT)
                .map_err(|e| format!("service '{name}': {e}"))?;
            serde_json::to_vec(&response).map_err(|e| e.to_string())
        },
    )
}

/// The graph: each topic's publishing and subscribing processes, each service's server.
/// `own` is this process's life token (the view's own subscriptions are left out).
pub(crate) fn graph(
    domain: u32,
    topics: &[TopicInfo],
    services: &BTreeMap<String, ServiceInfo>,
    own: u64,
) -> (ConnectionGraph, String) {
    let names = nerve::exec::announce::process_labels(&nerve::exec::announce::nodes(domain));
    let id = |pid: u32| {
        names
            .get(&pid)
            .cloned()
            .unwrap_or_else(|| format!("pid {pid}"))
    };
    let mut g = ConnectionGraph::new();
    // A text form of the graph, to tell whether it changed.
    let mut text = String::new();
    for t in topics
        .iter()
        .filter(|t| !TopicKind::of_info(t).is_plumbing())
    {
        let ends = |publisher: bool| -> BTreeSet<String> {
            t.endpoints
                .iter()
                .filter(|e| e.alive && e.publisher == publisher && e.process.token != own)
                .map(|e| id(e.process.pid))
                .collect()
        };
        let (pubs, subs) = (ends(true), ends(false));
        text.push_str(&format!("{}:{pubs:?}{subs:?};", t.name));
        g.set_published_topic(&t.name, pubs);
        g.set_subscribed_topic(&t.name, subs);
    }
    for s in services.values() {
        let server: Vec<String> = s.server.map(|p| id(p.pid)).into_iter().collect();
        text.push_str(&format!("{}:{server:?};", s.name));
        g.set_advertised_service(&s.name, server);
    }
    (g, text)
}
