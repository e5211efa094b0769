//! Runs the scheduler benchmark and prints one JSON row per line.
//! `cargo run --release -p nerve-exec --features bench --example sched_bench -- [--full]`

fn main() {
    let full = std::env::args().any(|a| a == "--full");
    for row in nerve_exec::bench::run(!full) {
        println!("{}", row.to_json());
    }
}
