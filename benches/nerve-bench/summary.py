#!/usr/bin/env python3
"""Markdown tables (and issue-2 target checks) from `nerve-bench ipc --json` files.

The README's numbers come from this script's output, never typed by hand:
    python3 benches/nerve-bench/summary.py bench-results/ipc-run1.json bench-results/ipc-run2.json
One column per run, so both runs of the noisy 2-core machine are shown side by side.
"""

from __future__ import annotations

import json
import sys

SYSTEMS = ["nerve", "iceoryx2", "raw-shm", "udp"]


def load(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def rows(run: dict, **want) -> list[dict]:
    out = []
    for r in run["results"]:
        if "error" in r:
            continue
        ok = True
        for k, v in want.items():
            got = r.get(k)
            if callable(v):
                ok = ok and v(got)
            else:
                ok = ok and got == v
        if ok:
            out.append(r)
    return out


def one(run: dict, **want) -> dict | None:
    found = rows(run, **want)
    return found[0] if found else None


def fmt_ns(v: float | None) -> str:
    if v is None:
        return "–"
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e4:
        return f"{v / 1e3:.1f} µs"
    return f"{v:.0f} ns"


def plain(variant: str | None) -> bool:
    return variant is None or "futex-only" not in variant


def adaptive(variant: str | None) -> bool:
    return variant is None or "futex-only" not in variant


def futex_only(variant: str | None) -> bool:
    return variant is not None and "futex-only" in variant


BASE = {"transport": "cross-process", "topology": "1:1", "metric": "one_way_ns"}


def p50(run, system, mode, message, payload, variant=plain, **extra) -> float | None:
    want = dict(BASE, system=system, mode=mode, message=message, payload_bytes=payload, **extra)
    if system == "nerve":
        want["variant"] = variant
    r = one(run, **want)
    return r["p50"] if r else None


def ratio(run, peer, mode, message, payload, variant=plain, **extra) -> float | None:
    want = dict(
        transport="cross-process", topology=extra.pop("topology", "1:1"), system="nerve",
        mode=mode, message=message, payload_bytes=payload, metric=f"ratio_p50_vs_{peer}",
        variant=variant, **extra,
    )
    r = one(run, **want)
    return r["p50"] if r else None


def main(paths: list[str]) -> None:
    runs = [load(p) for p in paths]
    m = runs[0]["machine"]
    print(
        f"Machine: {m['cpu']}, {m['cores']} cores, kernel {m['kernel']}, {m['rustc']}; "
        + ", ".join(f"run {i + 1}: {r['machine']['date']}" for i, r in enumerate(runs))
    )
    hdr = " | ".join(f"run {i + 1}" for i in range(len(runs)))
    sep = "|---" * (len(runs) + 1) + "|"

    print("\n**Cross-process 1:1, 16 B, one-way p50 (RTT/2), busy-poll**\n")
    print(f"| system | {hdr} |\n{sep}")
    for s in SYSTEMS:
        cells = [fmt_ns(p50(r, s, "poll", "bytes", 16, topics=1)) for r in runs]
        print(f"| {s} | " + " | ".join(cells) + " |")

    print("\n**Cross-process 1:1, 16 B, one-way p50, blocking receive**\n")
    print(f"| system | {hdr} |\n{sep}")
    print("| nerve `recv` (spin 20 µs, then futex) | " + " | ".join(
        fmt_ns(p50(r, "nerve", "blocking", "bytes", 16, variant=lambda v: v is not None and "adaptive" in v)) for r in runs) + " |")
    print("| nerve, futex only (spin 0) | " + " | ".join(
        fmt_ns(p50(r, "nerve", "blocking", "bytes", 16, variant=futex_only)) for r in runs) + " |")
    for s in SYSTEMS[1:]:
        print(f"| {s} | " + " | ".join(fmt_ns(p50(r, s, "blocking", "bytes", 16)) for r in runs) + " |")

    print("\n**Cross-process 1:1 one-way p50 by payload, busy-poll (receiver checks seq + first/last 64 B; nerve ≥ 4 KiB: loan → send, zero copy)**\n")
    print("| payload | " + " | ".join(f"nerve r{i + 1} | iceoryx2 r{i + 1} | raw-shm r{i + 1}" for i in range(len(runs))) + " |")
    print("|---" * (1 + 3 * len(runs)) + "|")
    for size in [16, 64, 256, 1024, 4096, 65536, 1048576, 6291456]:
        cells = []
        for r in runs:
            msg_n = "bytes-chunk" if size >= 65536 else "bytes"
            cells += [
                fmt_ns(p50(r, "nerve", "poll", msg_n, size, topics=lambda t: t in (None, 1))),
                fmt_ns(p50(r, "iceoryx2", "poll", "bytes", size, topics=lambda t: t in (None, 1))),
                fmt_ns(p50(r, "raw-shm", "poll", "bytes", size, topics=lambda t: t in (None, 1))),
            ]
        print(f"| {size} B | " + " | ".join(cells) + " |")

    print("\n**Seed message types, cross-process 1:1 one-way p50, busy-poll**\n")
    print("| message | size | nerve | iceoryx2 |\n|---|---|---|---|")
    for msg in ["CmdVel", "BatteryState", "Imu", "Odometry", "LaserScan"]:
        r0 = one(runs[0], **dict(BASE, system="nerve", mode="poll", message=msg))
        size = r0["payload_bytes"] if r0 else None
        n = " / ".join(fmt_ns(p50(r, "nerve", "poll", msg, size)) for r in runs)
        i = " / ".join(fmt_ns(p50(r, "iceoryx2", "poll", msg, size)) for r in runs)
        print(f"| {msg} | {size} B | {n} | {i} |")

    print("\n**Topologies, 16 B, one-way p50, busy-poll (P publishers : S subscribers)**\n")
    print("| topology | transport | nerve | iceoryx2 |\n|---|---|---|---|")
    for topo in ["1:1", "3:1", "1:3", "3:3"]:
        for tr in ["cross-thread", "cross-process"]:
            def get(s, r, tr=tr, topo=topo):
                want = {"system": s, "transport": tr, "topology": topo, "mode": "poll", "metric": "one_way_ns", "payload_bytes": 16, "message": "bytes"}
                if s == "nerve":
                    want["variant"] = plain
                if topo == "1:1":
                    want["topics"] = lambda t: t in (None, 1)
                x = one(r, **want)
                return x["p50"] if x else None
            print(f"| {topo} | {tr} | " + " / ".join(fmt_ns(get("nerve", r)) for r in runs) + " | " + " / ".join(fmt_ns(get("iceoryx2", r)) for r in runs) + " |")

    print("\n**Topic scaling: 16 B cross-process 1:1 p50 with N topics alive**\n")
    print("| topics | nerve | iceoryx2 |\n|---|---|---|")
    for n in [1, 10, 100, 1000]:
        cells = []
        for s in ["nerve", "iceoryx2"]:
            cells.append(" / ".join(fmt_ns(p50(r, s, "poll", "bytes", 16, topics=n)) for r in runs))
        print(f"| {n} | " + " | ".join(cells) + " |")

    print("\n**Throughput, 1:1 16 B (msgs/s)**\n")
    print(f"| system | transport | mode | {hdr} |\n" + "|---" * (3 + len(runs)) + "|")
    for r0 in rows(runs[0], metric="msgs_per_s"):
        cells = []
        for r in runs:
            x = one(r, metric="msgs_per_s", system=r0["system"], transport=r0["transport"], mode=r0["mode"], variant=r0.get("variant"))
            cells.append(f"{x['p50'] / 1e6:.2f} M" if x else "–")
        var = " (futex only)" if futex_only(r0.get("variant")) else ""
        print(f"| {r0['system']}{var} | {r0['transport']} | {r0['mode']} | " + " | ".join(cells) + " |")

    print("\n**Issue 2 targets (per run)**\n")
    for i, r in enumerate(runs):
        n16 = p50(r, "nerve", "poll", "bytes", 16, topics=1)
        checks = [
            ("16 B p50 ≤ 0.5 × iceoryx2 (median per-round ratio)", ratio(r, "iceoryx2", "poll", "bytes", 16, topics=1), 0.5),
            ("16 B p50 ≤ 2.5 × raw-shm (median per-round ratio)", ratio(r, "raw-shm", "poll", "bytes", 16, topics=1), 2.5),
        ]
        n6 = p50(r, "nerve", "poll", "bytes-chunk", 6291456)
        checks.append(("6 MB zero-copy p50 ≤ 1.5 × 16 B p50", n6 / n16 if n6 and n16 else None, 1.5))
        n33 = one(r, system="nerve", transport="cross-process", topology="3:3", mode="poll", metric="one_way_ns", payload_bytes=16)
        checks.append(("3:3 p50 ≤ 2 × 1:1 p50", n33["p50"] / n16 if n33 and n16 else None, 2.0))
        n1000 = p50(r, "nerve", "poll", "bytes", 16, topics=1000)
        checks.append(("1000 topics p50 ≤ 1.1 × 1 topic", n1000 / n16 if n1000 and n16 else None, 1.1))
        nb = p50(r, "nerve", "blocking", "bytes", 16, variant=futex_only)
        ib = p50(r, "iceoryx2", "blocking", "bytes", 16)
        checks.append(("blocking 16 B p50 ≤ iceoryx2 event-based p50 (nerve futex-only)", nb / ib if nb and ib else None, 1.0))
        tp = [x["p50"] for x in rows(r, metric="msgs_per_s", system="nerve")]
        best = max(tp) if tp else None
        checks.append(("throughput ≥ 20 M msgs/s (best nerve row, M/s)", best / 1e6 if best else None, -20.0))
        print(f"Run {i + 1}:")
        for name, v, limit in checks:
            if v is None:
                print(f"- {name}: not measured")
                continue
            ok = v >= -limit if limit < 0 else v <= limit
            print(f"- {name}: {v:.2f} → {'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main(sys.argv[1:])
