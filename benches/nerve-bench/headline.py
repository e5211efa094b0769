"""README's performance headline, written from the runs the report reads (used by ``report.py
--readme``): the runs named with their machine and commit, the figures of ``targets.toml``'s
``[[figure]]`` list, how many targets were met, and every missed target with its figures. README
keeps it between two markers; nothing in it is typed by hand."""

from __future__ import annotations

import re
from pathlib import Path

import targets as tg
from seedcells import fmt

BEGIN = "<!-- nerve-bench headline: written by benches/nerve-bench/report.py --readme; do not edit -->"
END = "<!-- nerve-bench headline end -->"


def machine(run: tg.Run) -> str:
    m = run.machine
    return (f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores, Linux {m.get('kernel', '?')}, "
            f"{m.get('rustc', '?')}, Python {m.get('python', '?')}")


def run_line(run: tg.Run, own_machine: bool = False) -> str:
    """A run's line; `own_machine`: the runs were on different machines, so each names its."""
    m = run.machine
    quick = {v.get("quick") for v in run.timing.values() if isinstance(v, dict)}
    kind = {frozenset({True}): "quick", frozenset({False}): "full"}.get(
        frozenset(quick), "quick or full: not recorded")
    mins = sum(v.get("seconds", 0) for v in run.timing.values() if isinstance(v, dict)) / 60
    where = f" on {machine(run)}" if own_machine else ""
    return (f"{run.name}: `nerve-bench all{' --quick' if kind == 'quick' else ''}` ({kind}, "
            f"{mins:.1f} min of suites) on commit `{m.get('commit', '?')}`, "
            f"{m.get('date', '?')}{where}")


def value(v: float | None, err: str, unit: str) -> str:
    if v is not None:
        return fmt(v, unit)
    return f"crashed: {err[:60]}" if err else "–"


def short(r: tg.Result) -> str:
    """A run's value in the missed list: the number (✗ where that run missed), or why none."""
    if r.value is None:
        return "crashed" if r.verdict == "error" else r.verdict
    return tg.fmt(r.value) + (" ✗" if r.verdict == "missed" else "")


def figure_rows(runs: list[tg.Run], path: Path) -> list[str]:
    out = ["| what | nerve | peers (same runs) |", "|---|---|---|"]
    for f in tg.load_figures(path):
        per_run = [tg.figure_values(f, run) for run in runs]
        if all(v is None and not e for cols in per_run for _, v, e in cols):
            continue  # a figure none of these runs measured (a newer scenario) is left out
        cells = []
        for i, (name, _, _) in enumerate(per_run[0]):
            vals = " / ".join(value(cols[i][1], cols[i][2], f["unit"]) for cols in per_run)
            cells.append(vals if i == 0 else f"{name} {vals}")
        first = per_run[0][0][0]
        head = f["what"] if first == "nerve" else f"{f['what']} ({first})"
        out.append(f"| {head} | {cells[0]} | {'; '.join(cells[1:])} |")
    return out


FROM = "<!-- from:"


def block(runs: list[tg.Run], sources: list[str], path: Path = tg.TARGETS) -> list[str]:
    """The block; `sources` (the runs' folders as README names them) is kept in it so a test
    can write it again from the same runs and compare."""
    ls = tg.lines(tg.load(path), runs)
    bad = tg.missed(ls)
    out = [BEGIN, f"{FROM} {' '.join(sources)} -->", ""]
    # Runs on different machines (a session's machine is drawn anew) each name their own: a
    # ratio holds within its run, an absolute figure only beside the others of its run.
    same = len({machine(r) for r in runs}) == 1
    if same:
        out += [(f"Measured on {machine(runs[0])}, nothing else running, peers in "
                 "interleaved rounds:"), ""]
    else:
        out += [("Measured on two machines (each run names its own; compare a figure with "
                 "the others of its run, not across runs), nothing else running, peers in "
                 "interleaved rounds:"), ""]
    out += [f"- {run_line(r, not same)}" for r in runs]
    out += ["", "Cells read " + " / ".join(r.name for r in runs) + ".", ""]
    out += figure_rows(runs, path)
    out += ["", (f"**Targets: {len(ls) - len(bad)} of {len(ls)} met in every run** "
                 "(`benches/nerve-bench/targets.toml`; the whole table, with how each is "
                 "computed, opens `docs/benchmarks.md`). **Missed:**"), ""]
    by_target: dict[str, list[tg.Line]] = {}
    for ln in bad:
        by_target.setdefault(ln.target["id"], []).append(ln)
    for tid, group in by_target.items():
        t = group[0].target
        cases = "; ".join((f"{ln.case}: " if ln.case else "")
                          + " / ".join(short(r) for r in ln.results) for ln in group)
        out.append(f"- {t['what']}, target {tg.limit(t)} (`{tid}`): {cases}")
    if not bad:
        out.append("- none")
    out += ["", END]
    return out


PATTERN = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)


def runs_of(folders: list[Path]) -> list[tg.Run]:
    """The runs of a page: "run 1", "run 2", ... (or "this run" when there is one)."""
    if len(folders) == 1:
        return [tg.Run.read(folders[0], "this run")]
    return [tg.Run.read(f, f"run {i + 1}") for i, f in enumerate(folders)]


def sources(readme: Path, folders: list[Path]) -> list[str]:
    base = readme.resolve().parent
    out = []
    for f in folders:
        try:
            out.append(str(f.resolve().relative_to(base)))
        except ValueError:
            out.append(str(f.resolve()))
    return out


def current(readme: Path) -> tuple[str, list[Path]]:
    """README's block as it is, and the run folders it says it was written from."""
    m = PATTERN.search(readme.read_text())
    if not m:
        raise SystemExit(f"report.py: {readme} has no headline markers ({BEGIN!r} ... {END!r})")
    found = re.search(re.escape(FROM) + r"(.*?)-->", m.group(0))
    names = found.group(1).split() if found else []
    return m.group(0), [readme.resolve().parent / n for n in names]


def rewrite(readme: Path, folders: list[Path], path: Path = tg.TARGETS) -> None:
    """Replaces README's block between the markers (which must both be there)."""
    current(readme)
    text = readme.read_text()
    new = "\n".join(block(runs_of(folders), sources(readme, folders), path))
    readme.write_text(PATTERN.sub(lambda _: new, text, count=1))
