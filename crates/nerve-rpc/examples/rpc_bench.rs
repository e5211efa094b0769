//! Prints the service benchmark as a table: `cargo run -p nerve-rpc --release --features bench
//! --example rpc_bench [-- --full]`. The JSON goes through `nerve-bench rpc`.

fn main() {
    let full = std::env::args().any(|a| a == "--full");
    println!(
        "{:>7} {:>4} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>6}",
        "payload", "par", "metric", "min", "p50", "p90", "p99", "max", "n", "errors"
    );
    for r in nerve_rpc::bench::run(!full) {
        if let Some(e) = &r.error {
            println!("{:>7} {:>4} error: {e}", r.payload_bytes, r.parallelism);
            continue;
        }
        println!(
            "{:>7} {:>4} {:>8} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>8} {:>6}",
            r.payload_bytes,
            r.parallelism,
            r.metric,
            r.min,
            r.p50,
            r.p90,
            r.p99,
            r.max,
            r.n,
            r.errors
        );
    }
}
