#!/usr/bin/env python3
"""Latency vs payload, every system, from `nerve-bench python --json FILE`.

Usage: plot.py RESULTS.json OUT.png
One panel per receive mode (poll, blocking); x = payload bytes (log), y = one-way p50 (log),
error bars p50..p99; one line per system (ros2: one per executor). Rows with `error` are listed
under the panel instead of drawn.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"nerve": "tab:red", "horus": "tab:blue", "iceoryx2": "tab:green",
          "zenoh": "tab:purple", "ros2": "tab:gray"}


def main() -> None:
    src, out = sys.argv[1], sys.argv[2]
    doc = json.load(open(src))
    rows = [r for r in doc["results"] if r.get("metric") == "one_way_ns"
            and r.get("suite") == "python"]
    modes = ["poll", "blocking"]
    fig, axes = plt.subplots(1, 2, figsize=(14, 6.5), sharey=True)
    for ax, mode in zip(axes, modes, strict=True):
        lines: dict[str, list] = defaultdict(list)
        errors = []
        for r in rows:
            if r["mode"] != mode:
                continue
            key = r["system"]
            v = r.get("variant", "")
            if r["system"] == "ros2":
                key += " (" + ("EventsExecutor" if "Events" in v else "SingleThreaded") + ")"
            if "error" in r:
                errors.append(f"{key} {r.get('scenario', r['message'])}: {r['error'][:70]}")
                continue
            lines[key].append((r["payload_bytes"], r["p50"], r["p99"], r.get("scenario", "")))
        for key, pts in sorted(lines.items()):
            pts.sort()
            xs = [p[0] for p in pts]
            ys = [p[1] / 1000 for p in pts]
            hi = [(p[2] - p[1]) / 1000 for p in pts]
            sysname = key.split(" ")[0]
            style = "--" if "SingleThreaded" in key else "-"
            ax.errorbar(xs, ys, yerr=[[0] * len(ys), hi], fmt="o" + style, capsize=3,
                        color=COLORS.get(sysname), label=key, alpha=0.9)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("payload bytes (CmdVel, Imu, dicts, 640x480, 1920x1080 rgb8)")
        ax.set_title(f"{mode} receive")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        if errors:
            ax.text(0.01, -0.16, "not measured:\n" + "\n".join(sorted(set(errors))[:8]),
                    transform=ax.transAxes, fontsize=6, va="top")
    axes[0].set_ylabel("one-way latency p50 (µs), bar to p99")
    m = doc.get("machine", {})
    load = next((r.get("loadavg_at_start") for r in doc["results"]
                 if r.get("metric") == "timer_overhead_ns" and r.get("loadavg_at_start")), None)
    fig.suptitle(f"Python cross-process one-way latency (RTT/2) — {m.get('cpu', '')}, "
                 f"{m.get('cores', '')} cores, {m.get('date', '')}"
                 + (f", load average {load} at start" if load else ""), fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
