"""nerve's one list of performance targets (benches/nerve-bench/targets.toml) and its evaluator
(targets.py): every target in every report, met or missed per run, a target met once and missed
later reported missed, a crash shown as a crash, `--check` failing on a miss, and README's
headline block written from the runs it names (the committed README must be exactly what the
report writes from them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

BENCH = REPO / "benches" / "nerve-bench"
sys.path.insert(0, str(BENCH))
import headline  # noqa: E402
import targets as tg  # noqa: E402

HOP = {"suite": "ipc", "system": "nerve", "transport": "cross-process", "topology": "1:1",
       "mode": "poll", "message": "bytes", "payload_bytes": 16}


def write_run(folder: Path, rows: list[dict], timing: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    by_suite: dict[str, list[dict]] = {}
    for r in rows:
        by_suite.setdefault(r["suite"], []).append(r)
    for suite, rs in by_suite.items():
        (folder / f"{suite}.json").write_text(json.dumps(
            {"machine": {"cpu": "test", "cores": 2, "commit": "abc1234", "date": "today"},
             "results": rs}))
    if timing is not None:
        (folder / "timing.json").write_text(json.dumps(timing))
    return folder


def ratio(p50: float, **kw) -> dict:
    return {**HOP, "metric": "ratio_p50_vs_iceoryx2", "p50": p50, "min": p50, "max": p50,
            "n": 3, **kw}


def test_the_list_is_well_formed_and_every_target_reaches_the_table(tmp_path: Path) -> None:
    targets = tg.load()
    assert len({t["id"] for t in targets}) == len(targets) > 30
    # Every suite of `nerve-bench all` that has a limit anywhere is in the list.
    assert {t["suite"] for t in targets} >= {"ipc", "sched", "rpc", "python", "log", "record",
                                            "ros2", "soak", "network", "all"}
    # An empty run: every target appears, as not measured, and counts as missed.
    run = tg.Run.read(write_run(tmp_path / "empty", []), "run 1")
    ls = tg.lines(targets, [run])
    assert {ln.target["id"] for ln in ls} == {t["id"] for t in targets}
    assert all(ln.results[0].verdict == "not measured" for ln in ls)
    assert tg.missed(ls) == ls


def test_met_missed_crash_and_a_target_met_once_then_missed(tmp_path: Path) -> None:
    t = [x for x in tg.load() if x["id"] == "ipc.16B.vs-iceoryx2"]
    good = tg.Run.read(write_run(tmp_path / "a", [ratio(0.3)]), "run 1")
    bad = tg.Run.read(write_run(tmp_path / "b", [ratio(0.7)]), "run 2")
    crash = tg.Run.read(write_run(tmp_path / "c", [{**HOP, "metric": "ratio_p50_vs_iceoryx2",
                                                    "error": "iceoryx2: segfault"}]), "run 3")
    assert tg.lines(t, [good])[0].verdict == "met"
    ln = tg.lines(t, [good, bad])[0]
    assert [r.verdict for r in ln.results] == ["met", "missed"] and ln.verdict == "missed"
    ln = tg.lines(t, [crash])[0]
    assert ln.verdict == "missed" and tg.cell(ln.results[0]) == "crashed: iceoryx2: segfault"
    # A median of rounds that meets the limit while one round misses shows that round.
    lucky = tg.Run.read(write_run(tmp_path / "d", [ratio(0.3, max=0.9)]), "run 1")
    assert tg.cell(tg.lines(t, [lucky])[0].results[0]) == "0.3 (worst round 0.9)"
    # A suite's own threshold that disagrees with the list is shown beside the value.
    other = tg.Run.read(write_run(tmp_path / "e", [ratio(0.3, threshold=0.6)]), "run 1")
    assert "threshold is 0.6" in tg.cell(tg.lines(t, [other])[0].results[0])


def test_each_makes_a_line_per_case_and_over_divides(tmp_path: Path) -> None:
    rows = [{"suite": "log", "system": "nerve", "metric": "ratio_vs_tracing_file",
             "payload_bytes": b, "p50": v, "n": 1} for b, v in ((32, 0.6), (512, 0.2))]
    rows += [{**HOP, "metric": "one_way_ns", "p50": 100.0},
             {**HOP, "metric": "one_way_ns", "p50": 180.0, "message": "bytes-chunk",
              "payload_bytes": 6291456}]
    run = tg.Run.read(write_run(tmp_path / "r", rows), "run 1")
    by_id = {}
    for ln in tg.lines(tg.load(), [run]):
        by_id.setdefault(ln.target["id"], []).append(ln)
    log = {ln.case: ln.verdict for ln in by_id["log.vs-tracing"]}
    assert log == {"payload_bytes=32": "missed", "payload_bytes=512": "met"}
    zero = by_id["ipc.zero-copy"][0].results[0]
    assert zero.value == pytest.approx(1.8) and zero.verdict == "missed"


def test_check_exits_non_zero_on_a_miss(tmp_path: Path) -> None:
    listed = tmp_path / "t.toml"
    listed.write_text('[[target]]\nid = "x"\nsuite = "ipc"\nwhat = "x"\n'
                      'metric = "ratio_p50_vs_iceoryx2"\nwhere = { system = "nerve" }\n'
                      'limit = 0.5\ndir = "<="\ncheck = true\n')
    script = str(BENCH / "targets.py")
    for p50, code in ((0.3, 0), (0.7, 1)):
        run = write_run(tmp_path / f"run{p50}", [ratio(p50)])
        r = subprocess.run([sys.executable, script, str(run), "--check", "--targets",
                            str(listed)], capture_output=True, text=True)
        assert r.returncode == code, r.stdout + r.stderr
        assert ("MISSED" in r.stdout) == bool(code)
    listed.write_text('[[target]]\nid = "x"\nsuite = "ipc"\nwhat = "x"\nmetric = "m"\n'
                      'limit = 1\ndir = "<"\n')
    r = subprocess.run([sys.executable, script, str(run), "--targets", str(listed)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "target x: dir must be" in r.stderr


def test_the_wall_time_target_reads_quick_runs_only(tmp_path: Path) -> None:
    t = [x for x in tg.load() if x["id"] == "all.quick-wall"]
    quick = {"ipc": {"seconds": 600, "ok": True, "quick": True},
             "python": {"seconds": 420, "ok": True, "quick": True}}
    run = tg.Run.read(write_run(tmp_path / "q", [ratio(0.3)], quick), "run 1")
    res = tg.lines(t, [run])[0].results[0]
    assert res.value == pytest.approx(17.0) and res.verdict == "missed"
    full = {k: {**v, "quick": False} for k, v in quick.items()}
    run = tg.Run.read(write_run(tmp_path / "f", [ratio(0.3)], full), "run 1")
    assert tg.lines(t, [run])[0].results[0].verdict == "n/a (full run)"


def test_readme_headline_is_what_the_report_writes_from_the_runs_it_names(
        tmp_path: Path) -> None:
    readme = REPO / "README.md"
    block, folders = headline.current(readme)
    assert folders and all(f.is_dir() for f in folders), folders
    copy = tmp_path / "README.md"
    copy.write_text(readme.read_text())
    headline.rewrite(copy, folders)
    # Written from the same runs, the block comes out the same (no figure typed by hand).
    again, _ = headline.current(copy)
    assert again.replace(str(REPO.resolve()) + "/", "") == block
    assert "**Targets:" in block and "**Missed:**" in block
    no_markers = tmp_path / "other.md"
    no_markers.write_text("# nothing here\n")
    with pytest.raises(SystemExit, match="no headline markers"):
        headline.rewrite(no_markers, folders)
