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

/// A 1 kHz node logging at every tick while another thread floods the log topic with
/// 100 000 records/s: the node's log call never waits, so its ticks stay within its budget
/// (p99; a single tick preempted by the machine is the machine's, not the logger's).
#[test]
fn a_flood_of_records_never_holds_up_a_1khz_node() {
    use nerve::exec::{Context, Node, Scheduler};
    use nerve::log::Logger;
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::sync::Arc;
    use std::time::Duration;

    struct Control(Logger);
    impl Node for Control {
        fn name(&self) -> &str {
            "control"
        }
        fn tick(&mut self, ctx: &mut Context<'_>) {
            let tick = ctx.tick().to_string();
            self.0.log(
                Level::Info,
                "control.rs",
                1,
                "tick",
                vec![("n".into(), tick)],
            );
        }
    }

    let (domain, _guard) = nerve_testing::domain();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let flooder = std::thread::spawn(move || {
        let flood = Logger::with_domain("flood", domain);
        let mut sent = 0u64;
        // Relaxed: a stop flag; the join orders the rest.
        while !flag.load(Relaxed) {
            for _ in 0..100 {
                flood.log(Level::Info, "flood.rs", 1, "flood", vec![]);
            }
            sent += 100;
            std::thread::sleep(Duration::from_millis(1));
        }
        sent
    });
    let budget = Duration::from_micros(500);
    let mut s = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .announce(false)
        .node(Control(Logger::with_domain("control", domain)))
        .rate(1000.0)
        .budget(budget)
        .done()
        .build()
        .unwrap();
    s.run_for(Duration::from_secs(1)).unwrap();
    // Relaxed: see the flooder.
    stop.store(true, Relaxed);
    let sent = flooder.join().unwrap();
    let st = &s.stats()[0];
    assert!(sent > 20_000, "the flood sent only {sent} records");
    assert!(st.tick_ns.n > 800, "{st:?}");
    assert!(
        st.tick_ns.p99 < budget.as_nanos() as u64,
        "tick p99 {} ns over the {budget:?} budget under the flood",
        st.tick_ns.p99
    );
    assert!(st.budget_overruns * 100 <= st.tick_ns.n, "{st:?}");
}
