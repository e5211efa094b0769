#!/usr/bin/env python3
"""Draws PNG plots from a `nerve-bench ipc --json FILE` report (format: docs/benchmarking.md).

    python benches/nerve-bench/plot.py ipc.json --out plots/

writes
  - ipc_latency_vs_payload.png: one-way p50 latency (RTT/2) against payload size, one line per
    system (nerve's blocking variants as two lines), log-log, cross-process 1:1, busy-poll and
    blocking side by side;
  - ipc_topologies.png: one-way p50 at 16 B for 1:1, 3:1, 1:3 and 3:3, bars per system, one
    panel per transport and mode.

Every figure carries the machine line from the report: the numbers mean nothing without it.
Needs matplotlib only (the repository's Makefile installs it into `.venv`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

TRANSPORTS = ["same-thread", "cross-thread", "cross-process"]
MODES = ["poll", "blocking"]
TOPOLOGIES = ["1:1", "3:1", "1:3", "3:3"]
# Fixed colours so a system looks the same in every figure.
COLORS = {
    "nerve": "#d62728",
    "nerve (futex-only)": "#ff9896",
    "iceoryx2": "#1f77b4",
    "raw-shm": "#7f7f7f",
    "udp": "#2ca02c",
}


def series_name(row: dict) -> str:
    """The legend entry: the system, and for nerve which blocking wait it used."""
    system = row["system"]
    if system == "nerve" and str(row.get("variant", "")).endswith(
        "futex-only (spin 0)"
    ):
        return "nerve (futex-only)"
    return system


def machine_line(machine: dict) -> str:
    parts = [str(machine[k]) for k in ("cpu",) if k in machine]
    if "cores" in machine:
        parts.append(f"{machine['cores']} cores")
    parts += [str(machine[k]) for k in ("kernel", "rustc", "date") if k in machine]
    return " | ".join(parts)


def latency_rows(results: list[dict]) -> list[dict]:
    """One-way per-sample latency rows with numbers, excluding the topic-scaling series."""
    return [
        r
        for r in results
        if r.get("suite") == "ipc"
        and r.get("metric") == "one_way_ns"
        and "error" not in r
        and r.get("p50") is not None
        and "topics" not in r
    ]


def plot_payload(results: list[dict], machine: dict, out: Path) -> Path | None:
    rows = [
        r
        for r in latency_rows(results)
        if r["transport"] == "cross-process"
        and r["topology"] == "1:1"
        and r["message"] in ("bytes", "bytes-chunk")
    ]
    if not rows:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    for ax, mode in zip(axes, MODES):
        lines: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for r in rows:
            if r["mode"] == mode:
                lines[series_name(r)].append((r["payload_bytes"], r["p50"]))
        for name in sorted(
            lines, key=lambda n: list(COLORS).index(n) if n in COLORS else 99
        ):
            pts = sorted(lines[name])
            ax.plot(
                [p for p, _ in pts],
                [v for _, v in pts],
                marker="o",
                label=name,
                color=COLORS.get(name),
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"cross-process 1:1, {mode} receive")
        ax.set_xlabel("payload (bytes)")
        ax.grid(True, which="both", alpha=0.3)
        if lines:
            ax.legend()
        else:
            ax.text(0.5, 0.5, "no rows", transform=ax.transAxes, ha="center")
    axes[0].set_ylabel("one-way latency p50 (ns, RTT/2)")
    fig.suptitle(
        f"nerve-bench ipc: one-way p50 vs payload\n{machine_line(machine)}", fontsize=10
    )
    fig.tight_layout()
    path = out / "ipc_latency_vs_payload.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_topologies(results: list[dict], machine: dict, out: Path) -> Path | None:
    rows = [
        r
        for r in latency_rows(results)
        if r["message"] == "bytes"
        and r["payload_bytes"] == 16
        and r["topology"] in TOPOLOGIES
    ]
    if not rows:
        return None
    fig, axes = plt.subplots(
        len(MODES), len(TRANSPORTS), figsize=(15, 8.5), squeeze=False
    )
    legend: dict[str, object] = {}
    for i, mode in enumerate(MODES):
        for j, transport in enumerate(TRANSPORTS):
            ax = axes[i][j]
            cell = {
                (series_name(r), r["topology"]): r["p50"]
                for r in rows
                if r["mode"] == mode and r["transport"] == transport
            }
            systems = sorted(
                {s for s, _ in cell},
                key=lambda n: list(COLORS).index(n) if n in COLORS else 99,
            )
            width = 0.8 / max(len(systems), 1)
            for k, system in enumerate(systems):
                xs, ys = [], []
                for t, topology in enumerate(TOPOLOGIES):
                    if (system, topology) in cell:
                        xs.append(t + (k - (len(systems) - 1) / 2) * width)
                        ys.append(cell[(system, topology)])
                bars = ax.bar(
                    xs, ys, width=width, label=system, color=COLORS.get(system)
                )
                legend.setdefault(system, bars)
            ax.set_xticks(range(len(TOPOLOGIES)), TOPOLOGIES)
            ax.set_title(f"{transport}, {mode}", fontsize=10)
            ax.set_yscale("log")
            ax.grid(True, axis="y", which="both", alpha=0.3)
            if j == 0:
                ax.set_ylabel("one-way p50 (ns), 16 B")
            if not systems:
                ax.text(0.5, 0.5, "no rows", transform=ax.transAxes, ha="center")
    names = sorted(legend, key=lambda n: list(COLORS).index(n) if n in COLORS else 99)
    fig.legend([legend[n] for n in names], names, loc="lower center", ncol=len(names))
    fig.suptitle(
        f"nerve-bench ipc: topologies (P:S), 16 B one-way p50\n{machine_line(machine)}",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path = out / "ipc_topologies.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "json", type=Path, help="report written by `nerve-bench ipc --json`"
    )
    ap.add_argument(
        "--out", type=Path, default=Path("."), help="folder for the PNG files"
    )
    args = ap.parse_args(argv)
    report = json.loads(args.json.read_text())
    results, machine = report.get("results", []), report.get("machine", {})
    args.out.mkdir(parents=True, exist_ok=True)
    written = [
        p
        for p in (
            plot_payload(results, machine, args.out),
            plot_topologies(results, machine, args.out),
        )
        if p is not None
    ]
    for p in written:
        print(f"wrote {p}")
    if not written:
        print(f"{args.json}: no ipc latency rows to plot", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
