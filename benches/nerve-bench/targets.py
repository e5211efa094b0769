#!/usr/bin/env python3
"""nerve's performance targets (``targets.toml``, the one list) evaluated over the JSON files of
one or more runs: every target, met or missed, in every run.

    python3 benches/nerve-bench/targets.py RUN_DIR [RUN_DIR ...]            # the table, markdown
    python3 benches/nerve-bench/targets.py RUN_DIR --check                  # the check targets only,
                                                                            # exit 1 when one misses

``report.py`` puts the same table at the top of benchmarks.md and writes README's headline from it;
``nerve-bench check`` calls this with ``--check``. Only the standard library is needed.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Row = dict[str, Any]
HERE = Path(__file__).parent
TARGETS = HERE / "targets.toml"
KEYS = {"id", "suite", "what", "metric", "where", "absent", "contains", "only", "each", "stat",
        "agg", "over", "limit", "dir", "trade_off", "check", "issue", "how", "like", "scale"}
SELECT = {"metric", "where", "absent", "contains", "only"}


class TargetError(ValueError):
    """targets.toml says something this script cannot evaluate (named by target id)."""


def load(path: Path = TARGETS) -> list[dict[str, Any]]:
    """The targets, checked: known keys only, unique ids, a direction, a numeric limit."""
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise TargetError(f"{path}: {e}") from e
    out, seen = [], set()
    for t in doc.get("target", []):
        tid = t.get("id", "?")
        unknown = set(t) - KEYS
        if unknown:
            raise TargetError(f"{path}: target {tid}: unknown keys {sorted(unknown)}")
        for k in ("id", "suite", "what", "metric", "limit", "dir"):
            if k not in t:
                raise TargetError(f"{path}: target {tid}: '{k}' is missing")
        if tid in seen:
            raise TargetError(f"{path}: target id {tid} appears twice")
        if t["dir"] not in ("<=", ">="):
            raise TargetError(f"{path}: target {tid}: dir must be '<=' or '>=', not {t['dir']!r}")
        if not isinstance(t["limit"], (int, float)):
            raise TargetError(f"{path}: target {tid}: limit must be a number")
        if "over" in t and set(t["over"]) - SELECT:
            raise TargetError(f"{path}: target {tid}: over takes only {sorted(SELECT)}")
        seen.add(tid)
        out.append(t)
    return out


FIGURE_KEYS = {"what", "suite", "unit", "metric", "stat", "where", "absent", "contains", "columns"}
COLUMN_KEYS = {"name", "metric", "where", "absent", "contains", "only", "agg"}


def load_figures(path: Path = TARGETS) -> list[dict[str, Any]]:
    """README's headline figures (`[[figure]]`), checked like the targets."""
    doc = tomllib.loads(path.read_text())
    for f in doc.get("figure", []):
        if set(f) - FIGURE_KEYS or any(set(c) - COLUMN_KEYS for c in f.get("columns", [])):
            raise TargetError(f"{path}: figure {f.get('what', '?')!r}: unknown keys")
    return doc.get("figure", [])


def figure_values(f: dict[str, Any], run: Run) -> list[tuple[str, float | None, str]]:
    """(column name, value, error) of one figure in one run."""
    out = []
    rows = [r for r in run.rows if r.get("suite") == f["suite"]]
    for c in f["columns"]:
        sel = {"metric": c.get("metric", f.get("metric")),
               "where": {**f.get("where", {}), **c.get("where", {})},
               "absent": c.get("absent", f.get("absent", [])),
               "contains": {**f.get("contains", {}), **c.get("contains", {})},
               "only": c.get("only", {})}
        chosen = [r for r in rows if matches(r, sel)]
        vals = [v for r in chosen if "error" not in r
                and (v := statistic(r, f.get("stat", "p50"), True)) is not None]
        errs = [str(r["error"]) for r in chosen if "error" in r]
        value = (min(vals) if c.get("agg") == "min" else statistics.median(vals)) if vals else None
        out.append((c["name"], value, "" if vals else (errs[0] if errs else "")))
    return out


def matches(r: Row, sel: dict[str, Any]) -> bool:
    """Whether row `r` is one the selection (metric, where, absent, contains, only) picks."""
    if r.get("metric") != sel["metric"]:
        return False
    if any(r.get(k) != v for k, v in sel.get("where", {}).items()):
        return False
    if any(r.get(k) is not None for k in sel.get("absent", [])):
        return False
    if any(str(v) not in str(r.get(k, "")) for k, v in sel.get("contains", {}).items()):
        return False
    return all(r.get(k) in vs for k, vs in sel.get("only", {}).items())


def statistic(r: Row, stat: str, le: bool) -> float | None:
    """A row's number for `stat`; "worst" is the worst per-round value (or p50 when one round)."""
    if stat == "worst":
        pr = [x for x in r.get("per_round") or [] if isinstance(x, (int, float))]
        if pr:
            return max(pr) if le else min(pr)
        # A ratio row over rounds holds the rounds' median in p50 and the extremes in min/max.
        ratio = str(r.get("metric", "")).startswith(("ratio_", "target_"))
        stat = ("max" if le else "min") if ratio and (r.get("n") or 0) > 1 else "p50"
    v = r.get(stat)
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


@dataclass
class Result:
    """One line of the table in one run."""

    value: float | None = None
    verdict: str = "not measured"
    error: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.verdict in ("met", "n/a (full run)") or self.verdict.startswith("over: doc")


def judge(t: dict[str, Any], value: float) -> str:
    ok = value <= t["limit"] if t["dir"] == "<=" else value >= t["limit"]
    if ok:
        return "met"
    if t.get("trade_off"):
        return f"over: documented trade-off ({t['trade_off']})"
    return "missed"


def combine(values: list[float], agg: str) -> float:
    return max(values) if agg == "max" else statistics.median(values)


def one_value(rows: list[Row], sel: dict[str, Any], stat: str, le: bool,
              agg: str) -> tuple[float | None, str, list[Row]]:
    """(value, error, chosen rows) of one selection over a run's rows."""
    chosen = [r for r in rows if matches(r, sel)]
    vals = [v for r in chosen if "error" not in r and (v := statistic(r, stat, le)) is not None]
    if vals:
        return combine(vals, agg), "", chosen
    errs = [str(r["error"]) for r in chosen if "error" in r]
    return None, (errs[0] if errs else ""), chosen


def group_key(t: dict[str, Any], r: Row) -> tuple[tuple[str, Any], ...]:
    return tuple((k, r.get(k)) for k in t.get("each", []))


def evaluate(t: dict[str, Any], rows: list[Row], timing: dict[str, Any] | None = None
             ) -> dict[tuple, Result]:
    """One run: {group key: Result} (the key is () when the target has no `each`)."""
    le = t["dir"] == "<="
    if t["suite"] == "all":
        return {(): wall_time(t, timing)}
    rows = [r for r in rows if r.get("suite") == t["suite"]]
    sel = {k: t[k] for k in SELECT if k in t}
    stat, agg = t.get("stat", "p50"), t.get("agg", "median")
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        if matches(r, sel):
            groups.setdefault(group_key(t, r), []).append(r)
    if not groups:
        return {(): Result()}
    den = None
    if "over" in t:
        den, den_err, _ = one_value(rows, t["over"], stat, le, "median")
        if den is None or den == 0:
            why = den_err or "its denominator's rows are absent"
            return {k: Result(verdict="error" if den_err else "not measured", error=why)
                    for k in groups}
    out: dict[tuple, Result] = {}
    for key, chosen in groups.items():
        v, err, _ = one_value(chosen, {**sel, "metric": t["metric"]}, stat, le, agg)
        res = Result()
        if v is None:
            res.verdict, res.error = ("error", err) if err else ("not measured", "")
        else:
            v = v / den if den else v
            v *= t.get("scale", 1)
            res.value, res.verdict = v, judge(t, v)
            res.notes += worst_round(t, chosen, v, stat)
        for r in chosen:
            th = r.get("threshold")
            if isinstance(th, (int, float)) and not math.isclose(th, t["limit"]):
                note = f"the suite's own threshold is {th:g}"
                if note not in res.notes:
                    res.notes.append(note)
        out[key] = res
    return out


def worst_round(t: dict[str, Any], chosen: list[Row], value: float, stat: str) -> list[str]:
    """"worst round X" where a target judged on the median of rounds misses in one round."""
    le = t["dir"] == "<="
    if stat == "worst" or "over" in t or t.get("agg") == "max":
        return []
    rounds = [r for r in chosen if "error" not in r and (
        len(r.get("per_round") or []) > 1 or (
            str(r.get("metric", "")).startswith(("ratio_", "target_")) and (r.get("n") or 0) > 1))]
    worst = [w * t.get("scale", 1) for r in rounds if (w := statistic(r, "worst", le)) is not None]
    if not worst:
        return []
    w = max(worst) if le else min(worst)
    return [f"worst round {fmt(w)}"] if judge(t, w) != "met" and not math.isclose(w, value) else []


def wall_time(t: dict[str, Any], timing: dict[str, Any] | None) -> Result:
    if not timing:
        return Result()
    if any(isinstance(v, dict) and v.get("quick") is False for v in timing.values()):
        return Result(verdict="n/a (full run)")
    secs = [v.get("seconds") for v in timing.values() if isinstance(v, dict)]
    total = sum(s for s in secs if isinstance(s, (int, float))) / 60
    return Result(value=total, verdict=judge(t, total))


@dataclass
class Run:
    """One run's rows (every suite's, each with its `suite`) and its timing.json."""

    name: str
    rows: list[Row]
    timing: dict[str, Any]
    machine: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path, name: str | None = None) -> Run:
        rows: list[Row] = []
        machine: dict[str, Any] = {}
        for p in sorted(folder.glob("*.json")):
            if p.stem == "timing":
                continue
            try:
                d = json.loads(p.read_text())
            except (OSError, ValueError):
                continue
            if isinstance(d, dict) and isinstance(d.get("results"), list):
                rows += [{**r, "suite": r.get("suite", p.stem)} for r in d["results"]]
                machine = machine or d.get("machine", {})
        timing = {}
        if (folder / "timing.json").exists():
            timing = json.loads((folder / "timing.json").read_text())
        return cls(name or folder.name, rows, timing, machine)


@dataclass
class Line:
    """One line of the table: a target (and group) across runs."""

    target: dict[str, Any]
    key: tuple
    results: list[Result]

    @property
    def verdict(self) -> str:
        """Met only when met in every run; a target met once and missed later is missed."""
        if all(r.verdict == "met" for r in self.results):
            return "met"
        if all(r.ok for r in self.results):
            over = [r.verdict for r in self.results if r.verdict.startswith("over")]
            return over[0] if over else "met"
        return "missed"

    @property
    def case(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.key)


def lines(targets: list[dict[str, Any]], runs: list[Run]) -> list[Line]:
    out = []
    for t in targets:
        per_run = [evaluate(t, run.rows, run.timing) for run in runs]
        keys: list[tuple] = []
        for ev in per_run:
            keys += [k for k in ev if k not in keys]
        if len(keys) > 1 and () in keys:
            keys.remove(())
        for k in keys:
            out.append(Line(t, k, [ev.get(k, Result()) for ev in per_run]))
    return out


def fmt(v: float | None) -> str:
    if v is None:
        return "–"
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:.3g} M"
    if a >= 1e4:
        return f"{v:.0f}"
    return f"{v:.3g}"


def cell(r: Result) -> str:
    if r.verdict == "error":
        return "crashed: " + r.error[:140].replace("|", "/").replace("\n", " ")
    if r.value is None:
        return r.verdict
    text = fmt(r.value) + ("" if r.verdict in ("met",) else " ✗" if r.verdict == "missed" else "")
    return text + "".join(f" ({n})" for n in r.notes)


def limit(t: dict[str, Any]) -> str:
    return f"{'≤' if t['dir'] == '<=' else '≥'} {fmt(t['limit'])}"


def markdown(ls: list[Line], runs: list[Run]) -> list[str]:
    """The table of every target in every run (the top of benchmarks.md)."""
    head = ["target", "case", *[r.name for r in runs], "limit", "result"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ln in ls:
        verdict = "met" if ln.verdict == "met" else (
            "**missed**" if ln.verdict == "missed" else ln.verdict)
        cells = [f"{ln.target['what']} `{ln.target['id']}`", ln.case,
                 *[cell(r) for r in ln.results], limit(ln.target), verdict]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return out


def missed(ls: list[Line]) -> list[Line]:
    return [ln for ln in ls if ln.verdict == "missed"]


def text(ls: list[Line], runs: list[Run]) -> str:
    """A plain table for a terminal (`nerve-bench check`)."""
    rows = [["target", "case", *[r.name for r in runs], "limit", "result"]]
    for ln in ls:
        rows.append([ln.target["id"], ln.case or "-", *[cell(r) for r in ln.results],
                     limit(ln.target), ln.verdict.upper() if ln.verdict == "missed"
                     else ln.verdict])
    width = [min(max(len(r[i]) for r in rows), 60) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c[:60].ljust(w) for c, w in zip(r, width)).rstrip()
                     for r in rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", type=Path, help="folders of one run's JSON files each")
    p.add_argument("--check", action="store_true",
                   help="only the targets marked check = true; exit 1 when one is not met")
    p.add_argument("--text", action="store_true", help="a plain table instead of markdown")
    p.add_argument("--targets", type=Path, default=TARGETS)
    a = p.parse_args(argv)
    try:
        targets = load(a.targets)
    except TargetError as e:
        print(f"targets.py: {e}", file=sys.stderr)
        return 2
    if a.check:
        targets = [t for t in targets if t.get("check")]
    for f in a.runs:
        if not f.is_dir():
            p.error(f"{f} is not a folder")
    runs = [Run.read(f, f"run {i + 1}" if len(a.runs) > 1 else f.name)
            for i, f in enumerate(a.runs)]
    ls = lines(targets, runs)
    print(text(ls, runs) if a.text or a.check else "\n".join(markdown(ls, runs)))
    bad = missed(ls)
    if a.check:
        print(f"\nnerve-bench check: {len(ls) - len(bad)} of {len(ls)} met"
              + (f"; missed: {', '.join(sorted({ln.target['id'] for ln in bad}))}" if bad
                 else ""))
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
