"""Markdown tables of ``nerve-bench network`` runs, for a results README.

    python3 benches/python/net_table.py RUN1.json [RUN2.json ...]

One row per case and system, each cell ``run1 / run2 / ...``; within a run, the rounds are
averaged (latency mean and p50, rate, CPU) or their worst is taken (max latency, loss). Then
the targets (nerve ÷ raw Zenoh per round, every round listed) and, per case, the systems
ranked by mean latency. Reads only the JSON the benchmark wrote: every figure is a measured
one.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

SYSTEM_ORDER = ["nerve", "zenoh", "udp", "ros2", "nerve-local"]


def case_key(r: dict) -> tuple:
    return (r["mode"], r["topology"], r["message"], r["payload_bytes"])


def case_label(k: tuple) -> str:
    mode, topology, message, size = k
    return f"{mode} {size} B, {topology}, {message}"


def load(path: str) -> dict:
    """(case, system, metric) -> the rows of every round."""
    rows: dict = defaultdict(list)
    with open(path) as f:
        for r in json.load(f)["results"]:
            rows[(case_key(r), r["system"], r["metric"])].append(r)
    return rows


def mean(v: list[float]) -> float:
    return sum(v) / len(v) if v else float("nan")


def fmt(v: float | None, digits: int = 0) -> str:
    if v is None or v != v:
        return "—"
    return f"{v:,.{digits}f}".replace(",", " ")


def cell(runs: list[dict], case: tuple, system: str, metric: str, pick: str,
         how: str = "mean", digits: int = 0) -> str:
    out = []
    for rows in runs:
        rs = rows.get((case, system, metric), [])
        vals = [r.get(pick) for r in rs if r.get(pick) is not None]
        if not vals:
            out.append("—")
            continue
        out.append(fmt(max(vals) if how == "max" else mean(vals), digits))
    return " / ".join(out)


def main(paths: list[str]) -> None:
    runs = [load(p) for p in paths]
    # The benchmark's own order: as the cases first appear in the files.
    cases: list[tuple] = []
    for p in paths:
        with open(p) as f:
            for r in json.load(f)["results"]:
                if case_key(r) not in cases:
                    cases.append(case_key(r))
    print("| case | system | mean latency / RTT µs | p50 | max | msgs or calls /s | loss "
          "| CPU % sender | CPU % receiver |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        rpc = case[0].startswith("rpc")
        lat, rate = ("rtt_us", "qps") if rpc else ("latency_us", "msgs_per_s")
        systems = [s for s in SYSTEM_ORDER
                   if any((case, s, lat) in rows for rows in runs)]
        for i, s in enumerate(systems):
            label = case_label(case) if i == 0 else ""
            loss = ("—" if rpc else
                    cell(runs, case, s, "loss_rate", "max", how="max", digits=3))
            print(f"| {label} | {s} | {cell(runs, case, s, lat, 'mean')} "
                  f"| {cell(runs, case, s, lat, 'p50')} "
                  f"| {cell(runs, case, s, lat, 'max', how='max')} "
                  f"| {cell(runs, case, s, rate, 'p50')} | {loss} "
                  f"| {cell(runs, case, s, 'cpu_pct_sender', 'p50', digits=1)} "
                  f"| {cell(runs, case, s, 'cpu_pct_receiver', 'p50', digits=1)} |")
    print()
    print("| case | mean latency (or RTT) nerve ÷ raw Zenoh per round, target ≤ 1.2 "
          "| rate nerve ÷ raw Zenoh per round (and no loss), target ≥ 0.9 |")
    print("|---|---|---|")
    for case in cases:
        lat_metric = ("target_rtt_vs_zenoh" if case[0].startswith("rpc")
                      else "target_latency_vs_zenoh")
        cells = []
        for metric in (lat_metric, "target_rate_vs_zenoh"):
            per_run = []
            for rows in runs:
                rs = rows.get((case, "nerve", metric), [])
                if not rs:
                    per_run.append("—")
                    continue
                r = rs[0]
                mark = "" if r["pass"] else " ✗"
                per_run.append(", ".join(f"{v:.2f}" for v in r["per_round"]) + mark)
            cells.append(" / ".join(per_run))
        print(f"| {case_label(case)} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    main(sys.argv[1:])
