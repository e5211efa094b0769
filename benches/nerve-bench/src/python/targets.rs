//! Issue 3's targets of `nerve-bench python`, computed from the rows of the run.

use super::{new_row, MODES};
use crate::report::Row;
use crate::stats::Summary;
use serde_json::Value;

/// Issue 3's targets, computed from the rows of this run.
pub(super) fn target_rows(rows: &[Row]) -> Vec<Row> {
    let find = |system: &str, scenario: &str, mode: &str, metric: &str| -> Option<f64> {
        rows.iter()
            .find(|r| {
                r.system == system
                    && r.mode == mode
                    && r.metric == metric
                    && r.extra.get("scenario").and_then(Value::as_str) == Some(scenario)
            })
            .and_then(|r| r.summary.map(|s| s.p50))
    };
    let mut out = Vec::new();
    let mut push = |name: &str, mode: &str, value: Option<f64>, limit: f64, le: bool, how: &str| {
        let row = new_row("nerve", mode, "-", 0, &format!("target_{name}"))
            .field("threshold", limit)
            .field("how", how);
        match value {
            None => out.push(row.error("not measured in this run")),
            Some(v) => {
                let pass = if le { v <= limit } else { v >= limit };
                let s = Summary {
                    min: v,
                    p50: v,
                    p90: v,
                    p99: v,
                    p999: v,
                    max: v,
                    mean: Some(v),
                    n: 1,
                };
                out.push(row.summary(s).field("pass", pass));
            }
        }
    };
    // HORUS's Python Topic has no blocking receive: its targets are poll-mode ones.
    {
        let mode = "poll";
        push(
            "cmdvel_vs_horus",
            mode,
            find("nerve", "CmdVel", mode, "ratio_p50_vs_horus"),
            0.7,
            true,
            "typed CmdVel: nerve p50 / HORUS p50 ≤ 0.7",
        );
        push(
            "dict_vs_horus",
            mode,
            find("nerve", "dict-small", mode, "ratio_p50_vs_horus"),
            0.5,
            true,
            "small dict: nerve p50 / HORUS dict p50 ≤ 0.5",
        );
    }
    for mode in MODES {
        push(
            "speedup_vs_rclpy_16B",
            mode,
            find("nerve", "CmdVel", mode, "ratio_p50_vs_ros2").map(|r| 1.0 / r),
            200.0,
            false,
            "rclpy p50 / nerve p50 at CmdVel ≥ 200",
        );
        push(
            "speedup_vs_rclpy_1080p",
            mode,
            find("nerve", "Image-1920x1080", mode, "ratio_p50_vs_ros2").map(|r| 1.0 / r),
            1000.0,
            false,
            "rclpy p50 / nerve p50 at 1920x1080 ≥ 1000",
        );
        let tensor = find("nerve", "Tensor-200x200", mode, "one_way_ns");
        let packed = find("nerve", "Tensor-200x200-msgpack", mode, "one_way_ns");
        push(
            "tensor_vs_msgpack_200x200",
            mode,
            tensor.zip(packed).map(|(t, p)| t / p),
            0.1,
            true,
            "nerve 200x200 float32 Tensor p50 / the same array as MessagePack bytes p50 ≤ 0.1 (same run)",
        );
        let img = find("nerve", "Image-1920x1080", mode, "one_way_ns");
        let small = find("nerve", "CmdVel", mode, "one_way_ns");
        push(
            "1080p_vs_16B",
            mode,
            img.zip(small).map(|(a, b)| a / b),
            2.0,
            true,
            "nerve 1080p image p50 / nerve CmdVel p50 ≤ 2",
        );
    }
    out
}
