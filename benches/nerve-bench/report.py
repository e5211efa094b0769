#!/usr/bin/env python3
"""benchmarks.md from a folder of `nerve-bench <suite> --json` files (what `nerve-bench all`
writes), so that every figure a reader sees comes from a run, with its machine, commit and date.

    python3 benches/nerve-bench/report.py bench-results/all --out bench-results/all/benchmarks.md
    python3 benches/nerve-bench/report.py DIR --out DIR/benchmarks.md --copy-to docs/benchmarks.md
    python3 benches/nerve-bench/report.py RUN1 --also RUN2 --copy-to docs/benchmarks.md --readme README.md

First every target of `targets.toml` (the one list), met or missed, in this run and in each
`--also` run beside it (a target met in one run and missed in another is missed); then the
seeds' tables; then per suite the machine line and every measured row (p50, p99, n).
`--readme` rewrites README's headline block from the same runs (`headline.py`). A suite that failed (`<suite>.error`)
or was not run is listed as such, never left out. With matplotlib (in this interpreter or
the plot peer's venv, which `benches/python/setup_peers.sh plot` sets up on demand), the `ipc`
suite's plots and the Wrapyfi box plot are drawn beside the file and linked; a page without
them says why.

Only the standard library is needed for the tables.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import headline
import seeds
import targets as tg

SUITES = {
    "ipc": "Shared-memory messaging between processes and threads: nerve, iceoryx2, a raw "
           "shared-memory floor, UDP; the C, C++ and Python FFI rows.",
    "sched": "The scheduler: start lateness of a 1 kHz RT node among others, tick overhead, "
             "e-stop latency, async sleeps.",
    "rpc": "Services: round trip and calls/s at 512 B / 2 KB / 8 KB, against rclpy services and "
           "Zenoh queryables.",
    "python": "Python to Python across processes: nerve, HORUS, iceoryx2, Zenoh, rclpy.",
    "log": "One log call against tracing-subscriber's file writer and Python's logging.",
    "record": "Recording: nerve's recorder against an rclpy subscriber writing MCAP.",
    "ros2": "The ROS 2 bridge's added latency beside a direct rclpy hop.",
    "soak": "Endurance: every byte of every message checked while publishers and subscribers "
            "are killed with SIGKILL at random; no corrupt delivery, every message accounted.",
    "local": "One machine, AimRT's single-machine tables: 1 kHz channels (512 B to 8 KB, 1/4/8 "
             "topics) and services, nerve on shared memory against iceoryx2, Zenoh, UDP, rclpy.",
    "network": "Two hosts (network namespaces): nerve over its Zenoh bridge, raw Zenoh, UDP.",
}

ORDER = list(SUITES)


def load(path: Path) -> dict[str, Any] | None:
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) and "results" in d else None


def fmt(v: Any, metric: str) -> str:
    """A number in the unit its metric names (`*_ns` shown in ns, µs or ms)."""
    if not isinstance(v, (int, float)):
        return "–"
    if metric.endswith("_ns"):
        if abs(v) >= 1e6:
            return f"{v / 1e6:.2f} ms"
        if abs(v) >= 1e3:
            return f"{v / 1e3:.1f} µs"
        return f"{v:.0f} ns"
    if metric.endswith("_us"):
        return f"{v:.1f} µs" if abs(v) < 1e3 else f"{v / 1e3:.2f} ms"
    if abs(v) >= 1e5:
        return f"{v:.3g}"
    if float(v).is_integer():
        return f"{int(v)}"
    return f"{v:.3g}"


def machine_line(m: dict[str, Any]) -> str:
    return (f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores, Linux {m.get('kernel', '?')}, "
            f"{m.get('rustc', '?')}, Python {m.get('python', '?')}; commit `{m.get('commit', '?')}`, "
            f"{m.get('date', '?')}")


def detail(r: dict[str, Any]) -> str:
    """The fields a suite adds to tell rows apart (`path`, `topics`, ...), as k=v."""
    skip = {"suite", "system", "api", "transport", "topology", "mode", "message", "payload_bytes",
            "metric", "min", "p50", "p90", "p99", "p999", "max", "n", "mean", "error", "how",
            "pass", "threshold", "per_round", "worst_round", "note"}
    return ", ".join(f"{k}={v}" for k, v in r.items()
                     if k not in skip and isinstance(v, (str, int, float, bool)))


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return out


def suite_section(name: str, d: dict[str, Any] | None, error: str | None,
                  timing: dict[str, Any], plots: list[str]) -> list[str]:
    out = [f"## `{name}`", "", SUITES.get(name, ""), ""]
    if error:
        out += [f"**Failed:** {error.strip()} (its own output above the report says why).", ""]
    if d is None:
        if not error:
            out += ["Not run in this report.", ""]
        return out
    t = timing.get(name, {})
    secs = f"; {t['seconds']:.0f} s" if isinstance(t.get("seconds"), (int, float)) else ""
    out += [f"Machine: {machine_line(d.get('machine', {}))}{secs}.", ""]
    results = d["results"]
    out += [f"This suite's targets are in the table at the top (`targets.toml`, suite `{name}`).",
            ""]
    rows = []
    for r in results:
        metric = r.get("metric", "")
        if "error" in r:
            p50, p99, n = "error: " + str(r["error"])[:120], "", ""
        else:
            p50, p99, n = fmt(r.get("p50"), metric), fmt(r.get("p99"), metric), str(r.get("n", ""))
        rows.append([r.get("system", ""), r.get("api", ""), r.get("transport", ""),
                     r.get("topology", ""), r.get("mode", ""), r.get("message", ""),
                     str(r.get("payload_bytes", "")), metric, detail(r), p50, p99, n])
    if rows:
        out += table(["system", "api", "transport", "topology", "mode", "message", "bytes",
                      "metric", "case", "p50", "p99", "n"], rows)
        out.append("")
    out += [f"![{p}]({p})" for p in plots]
    if plots:
        out.append("")
    return out


def plot_python() -> tuple[str | None, str]:
    """An interpreter with matplotlib: this one, or the plot peer's venv, set up on demand by
    the benchmark's own script (`benches/python/setup_peers.sh plot`, cached under
    ~/.cache/nerve/peers like the other peers). (None, why) when there is none."""
    try:
        import matplotlib  # noqa: F401
        return sys.executable, ""
    except ImportError:
        pass
    here = Path(__file__).parent.parent / "python"
    venv = here / ".venvs" / "plot" / "bin" / "python"
    if not venv.exists():
        print("report.py: no matplotlib; setting up the plot peer (benches/python/setup_peers.sh "
              "plot) ...", file=sys.stderr)
        r = subprocess.run(["bash", str(here / "setup_peers.sh"), "plot"], capture_output=True,
                           text=True, check=False)
        if r.returncode != 0 or not venv.exists():
            why = (r.stderr or r.stdout).strip()[-300:]
            return None, f"matplotlib could not be installed (setup_peers.sh plot: {why})"
    return str(venv), ""


def draw_ipc_plots(folder: Path) -> tuple[list[str], str]:
    """The ipc suite's plots (plot.py) and the Wrapyfi box plot (boxplot.py), both needing
    matplotlib: the names written, and why none were when none were."""
    ipc = folder / "ipc.json"
    if not ipc.exists():
        return [], ""
    python, why = plot_python()
    if python is None:
        print(f"report.py: no plots: {why}", file=sys.stderr)
        return [], why
    plot = Path(__file__).with_name("plot.py")
    r = subprocess.run([python, str(plot), str(ipc), "--out", str(folder)],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        why = f"plot.py failed: {r.stderr.strip()[-300:]}"
        print(f"report.py: {why}", file=sys.stderr)
        return [], why
    out = sorted(p.name for p in folder.glob("ipc_*.png"))
    if (folder / "python.json").exists():
        box = Path(__file__).with_name("boxplot.py")
        r = subprocess.run([python, str(box), str(folder / "python.json"), "--out",
                            str(folder)], capture_output=True, text=True, check=False)
        if r.returncode == 0:
            out.append("wrapyfi_boxplot.png")
        else:
            print(f"report.py: boxplot.py failed: {r.stderr.strip()[-300:]}", file=sys.stderr)
    return out, ""


def targets_section(runs: list[tg.Run]) -> list[str]:
    """Every target of targets.toml in every run given, met or missed."""
    ls = tg.lines(tg.load(), runs)
    bad = tg.missed(ls)
    names = ", ".join(f"{r.name} (`{r.machine.get('commit', '?')}`, {r.machine.get('date', '?')}, "
                      f"{r.machine.get('cpu', '?')})" for r in runs)
    return ["## Every target, met or missed", "",
            (f"{len(ls) - len(bad)} of {len(ls)} met in every run; **{len(bad)} missed**. "
             f"Runs: {names}. The list and how each value is computed: "
             "`benches/nerve-bench/targets.toml`; ✗ marks a run that missed; \"worst round\" "
             "is shown where the median of the rounds meets a limit that a single round "
             "misses; a crash is shown with its error."), ""] + tg.markdown(ls, runs) + [""]


def render(folder: Path, plots: bool = True, also: list[Path] | None = None) -> str:
    timing = {}
    tj = folder / "timing.json"
    if tj.exists():
        timing = json.loads(tj.read_text())
    found = {p.stem for p in folder.glob("*.json") if p.stem != "timing"}
    names = ORDER + sorted(found - set(ORDER))
    ipc_plots, no_plots = draw_ipc_plots(folder) if plots else ([], "")
    lines = [
        "# nerve benchmarks",
        "",
        ("Written by `benches/nerve-bench/report.py` from the JSON files of one "
         "`nerve-bench all` run (the targets' table: of every run it names); not edited by hand. Every figure was measured on the machine "
         "named in its section, in interleaved rounds with its peers (`docs/benchmarking.md`)."),
        ("What each row measures: `benches/nerve-bench/README.md`; which published tables "
         "they reproduce: `docs/design/benchmark-suite.md`."),
        "",
    ]
    if no_plots:
        lines += [f"No plots in this page: {no_plots}.", ""]
    every: list[dict[str, Any]] = []
    for name in names:
        d = load(folder / f"{name}.json")
        if d:
            every += [{**r, "suite": r.get("suite", name)} for r in d["results"]]
    lines += targets_section(headline.runs_of([folder, *(also or [])]))
    lines += seeds.section(every)
    if timing:
        total = sum(t.get("seconds", 0) for t in timing.values())
        each = ", ".join(f"{k} {v.get('seconds', 0):.0f} s" for k, v in timing.items())
        lines += [f"Wall time of the suites: {total / 60:.1f} min ({each}).", ""]
    for name in names:
        d = load(folder / f"{name}.json")
        err_file = folder / f"{name}.error"
        error = err_file.read_text() if err_file.exists() else None
        mine = [p for p in ipc_plots if p.startswith("ipc_" if name == "ipc" else "wrapyfi")
                if name in ("ipc", "python")]
        lines += suite_section(name, d, error, timing, mine)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path, help="where nerve-bench all wrote its JSON files")
    p.add_argument("--out", type=Path, help="the markdown file (default: FOLDER/benchmarks.md)")
    p.add_argument("--copy-to", type=Path, help="also copy it here (docs/benchmarks.md)")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--also", type=Path, action="append", default=[],
                   help="another run's folder: its values beside this run's in the targets")
    p.add_argument("--readme", type=Path,
                   help="rewrite this README's headline block from these runs")
    a = p.parse_args(argv)
    for f in [a.folder, *a.also]:
        if not f.is_dir():
            p.error(f"{f} is not a folder")
    text = render(a.folder, plots=not a.no_plots, also=a.also)
    out = a.out or a.folder / "benchmarks.md"
    out.write_text(text)
    if a.copy_to:
        # The plots go beside the copy, in a folder of their own, and the links follow them.
        shots = sorted({m for m in a.folder.glob("*.png") if f"]({m.name})" in text})
        if shots:
            there = a.copy_to.parent / "benchmarks-plots"
            there.mkdir(parents=True, exist_ok=True)
            for png in shots:
                shutil.copyfile(png, there / png.name)
                text = text.replace(f"]({png.name})", f"](benchmarks-plots/{png.name})")
        a.copy_to.write_text(text)
    if a.readme:
        headline.rewrite(a.readme, [a.folder, *a.also])
        print(f"wrote the headline of {a.readme}", file=sys.stderr)
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
