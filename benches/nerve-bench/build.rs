//! Records the compiler that built the benchmark, for the `machine` block of the report.
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=NERVE_BENCH_RUSTC={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
