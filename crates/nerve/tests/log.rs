//! `tracing` events on the domain's log topic through `nerve::log::layer`.

use nerve::log::Level;
use tracing_subscriber::prelude::*;

#[test]
fn tracing_events_become_records_with_their_fields() {
    let (domain, _guard) = nerve_testing::domain();
    std::env::set_var("NERVE_DOMAIN", domain.to_string());
    let topic = nerve::log::log_topic(domain).unwrap();
    let mut sub = topic.subscriber().unwrap();
    let layer = nerve::log::layer("tracer");
    let logger = layer.logger();
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || {
        tracing::info!(speed = 1.5, mode = "auto", "moving");
        tracing::debug!("below the default level");
        logger.set_level(Level::Debug);
        tracing::debug!(n = 3, "now visible");
    });
    let a = sub.try_recv().unwrap().expect("the info record");
    assert_eq!(
        (a.level, a.node.as_str(), a.message.as_str()),
        (Level::Info, "tracer", "moving")
    );
    assert_eq!(
        a.fields,
        [
            ("speed".to_string(), "1.5".to_string()),
            ("mode".to_string(), "auto".to_string())
        ]
    );
    assert!(a.file.ends_with("log.rs") && a.line > 0 && a.pid == std::process::id());
    let b = sub.try_recv().unwrap().expect("the debug record");
    assert_eq!((b.level, b.message.as_str()), (Level::Debug, "now visible"));
    assert!(sub.try_recv().unwrap().is_none());
    assert_eq!(logger.dropped(), 0);
}
