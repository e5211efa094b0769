//! The short soak the test command runs: every workload, a few seconds each, with kills; the
//! built binary must pass (exit 0), deliver nothing corrupt, and have killed something.

use std::process::Command;

#[test]
fn short_soak_passes_with_kills_and_nothing_corrupt() {
    let json = std::env::temp_dir().join(format!("nerve-soak-test-{}.json", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_nerve-bench"))
        .args([
            "soak",
            "--quick",
            "--messages",
            "300000",
            "--duration",
            "10",
        ])
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run nerve-bench soak");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "soak failed:\n{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the --json report"))
            .expect("valid JSON");
    let _ = std::fs::remove_file(&json);
    let rows = report["results"].as_array().expect("results");
    let value = |topology: &str, metric: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r["topology"] == topology && r["metric"] == metric)
            .map(|r| r["p50"].as_f64().expect("a number"))
            .collect()
    };
    for topology in ["1:1", "3:3", "2:2"] {
        let sent = value(topology, "messages_sent");
        assert!(
            !sent.is_empty() && sent.iter().all(|&n| n > 0.0),
            "{topology}: {sent:?}\n{stderr}"
        );
    }
    assert_eq!(value("all", "corrupt_delivered"), vec![0.0], "{stderr}");
    assert!(value("all", "kills")[0] > 0.0, "no kills:\n{stderr}");
    assert!(
        rows.iter().all(|r| r["pass"] == true),
        "a workload failed:\n{stderr}"
    );
}
