#!/usr/bin/env python3
"""Instructions per send + receive, Python against Rust, per message type: the compass of the
Python hot path (a count does not move with the machine's load, a time does).

Each case runs one send + receive at a time in one thread, in Rust (`nerve-bench
__hop-count`) and in Python (`benches/python/hop_count.py`), the same work and checks on both
sides. The instructions of one hop are counted with callgrind as the difference of two runs
(N2 and N1 hops: start-up, imports and set-up cancel out); the time of one hop is measured
bare, pinned to one core, median of three runs. Both counted runs use locked claims
(`NERVE_NO_SOLO=1`: valgrind does not offer the `membarrier` the single-publisher path needs),
so the counts compare like for like; the timed runs use nerve's default path.

    instructions.py [--out DIR] [--cases CmdVel,Imu,...] [--before FILE] [--core N]

Writes DIR/instructions.json (`{"machine": .., "results": [rows]}`, the suite's row
contract: `docs/benchmarking.md`) and DIR/instructions.md (the table, with a before/after
column when `--before` names an earlier instructions.json); prints the table.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "target" / "release" / "nerve-bench"
PYTHON = ROOT / ".venv" / "bin" / "python"
HOP_PY = ROOT / "benches" / "python" / "hop_count.py"
# (case, hops of the two counted runs, hops of a timed run)
CASES = {
    "CmdVel": (200, 2200, 200_000),
    "Pose2D": (200, 2200, 200_000),
    "Imu": (200, 2200, 200_000),
    "dict": (200, 2200, 100_000),
    "Image-1920x1080": (5, 45, 2_000),
    "Tensor-200x200": (20, 220, 20_000),
}


def command(lang: str, case: str, hops: int, core: int | None) -> list[str]:
    tail = [case, str(hops)] + ([str(core)] if core is not None else [])
    if lang == "rust":
        return [str(BENCH), "__hop-count", *tail]
    return [str(PYTHON), str(HOP_PY), *tail]


def run(cmd: list[str], env: dict[str, str]) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    return p.stdout


def count(lang: str, case: str, hops: int, env: dict[str, str]) -> int:
    """Instructions (callgrind's Ir) of a whole run of `hops` hops."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             *command(lang, case, hops, None)], {**env, "NERVE_NO_SOLO": "1"})
        text = out.read_text()
    m = re.search(r"^(?:summary|totals):\s+(\d+)", text, re.MULTILINE)
    if not m:
        raise RuntimeError(f"no instruction total in callgrind's output for {lang} {case}")
    return int(m.group(1))


def per_hop(lang: str, case: str, env: dict[str, str]) -> float:
    n1, n2, _ = CASES[case]
    return (count(lang, case, n2, env) - count(lang, case, n1, env)) / (n2 - n1)


def ns_per_hop(lang: str, case: str, env: dict[str, str], core: int) -> float:
    hops = CASES[case][2]
    times = []
    for _ in range(3):
        out = run(command(lang, case, hops, core), env)
        times.append(float(re.search(r"ns_per_hop ([\d.]+)", out).group(1)))
    return statistics.median(times)


def row(lang: str, case: str, metric: str, value: float) -> dict:
    return {"suite": "python", "system": "nerve", "api": lang, "transport": "in-thread",
            "topology": "1:1", "mode": "poll", "message": case, "metric": metric,
            "value": round(value, 1),
            "method": "one send + try_recv + check per hop in one thread; instructions: "
                      "callgrind, difference of two runs, locked claims on both sides"}


def measure(cases: list[str], core: int) -> list[dict]:
    # A fixed hash seed: Python's dict and str hashing do the same work in every run.
    # One BLAS thread: numpy's OpenBLAS threads otherwise spin at start-up (5 % of a counted
    # run's instructions, more in one run than in the other), none of it a hop's.
    env = {**os.environ, "NERVE_DOMAIN": str(40_000 + os.getpid() % 10_000),
           "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    rows = []
    for case in cases:
        for lang in ("rust", "python"):
            # Timed first: the bare runs also leave Python's bytecode caches written, so no
            # counted run pays for compiling them.
            ns = ns_per_hop(lang, case, env, core)
            ins = per_hop(lang, case, env)
            print(f"{case:16} {lang:6} {ins:10.0f} instructions/hop {ns:10.1f} ns/hop",
                  file=sys.stderr, flush=True)
            rows += [row(lang, case, "instructions_per_hop", ins), row(lang, case, "ns_per_hop", ns)]
    return rows


def value(rows: list[dict], lang: str, case: str, metric: str) -> float | None:
    return next((r["value"] for r in rows if (r["api"], r["message"], r["metric"])
                 == (lang, case, metric)), None)


def table(rows: list[dict], before: list[dict] | None) -> str:
    head = ["case", "Python instr/hop", "Rust instr/hop", "Python / Rust", "Python ns/hop",
            "Rust ns/hop", "Python over Rust, ns"]
    if before:
        head.insert(2, "Python instr/hop before")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in dict.fromkeys(r["message"] for r in rows):
        py, rs = (value(rows, lang, case, "instructions_per_hop") for lang in ("python", "rust"))
        pns, rns = (value(rows, lang, case, "ns_per_hop") for lang in ("python", "rust"))
        cells = [case, f"{py:.0f}", f"{rs:.0f}", f"{py / rs:.1f}", f"{pns:.0f}", f"{rns:.0f}",
                 f"{pns - rns:.0f}"]
        if before:
            b = value(before, "python", case, "instructions_per_hop")
            cells.insert(2, "–" if b is None else f"{b:.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--out", type=Path, default=ROOT / "bench-results" / "instructions")
    a.add_argument("--cases", default=",".join(CASES))
    a.add_argument("--before", type=Path, help="an earlier instructions.json")
    a.add_argument("--core", type=int, default=1)
    args = a.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        a.error(f"unknown case(s) {unknown}; known: {', '.join(CASES)}")
    for path, what in ((BENCH, "make bench-build"), (PYTHON, "bash bindings/python/dev.sh")):
        if not path.exists():
            a.error(f"{path} is missing: run `{what}` first")
    rows = measure(cases, args.core)
    before = json.loads(args.before.read_text())["results"] if args.before else None
    md = table(rows, before)
    args.out.mkdir(parents=True, exist_ok=True)
    machine = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
               "kernel": platform.release(), "python": platform.python_version()}
    (args.out / "instructions.json").write_text(
        json.dumps({"machine": machine, "results": rows}, indent=1) + "\n")
    (args.out / "instructions.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
