"""`nerve-bench all`'s report (benches/nerve-bench/report.py) from a folder of suite JSON files:
the targets with met/missed at the top, a suite's machine line, its rows, a failed suite and a
suite not run named as such. The input is a real `nerve-bench ros2` report kept in docs/results."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

REPORT = REPO / "benches" / "nerve-bench" / "report.py"
SAMPLE = REPO / "docs" / "results" / "2026-11-25" / "issue19" / "ros2-run1.json"


def test_the_report_names_every_suite_and_what_became_of_it(tmp_path: Path) -> None:
    shutil.copyfile(SAMPLE, tmp_path / "ros2.json")
    (tmp_path / "log.error").write_text("nerve-bench log exited with exit status: 1\n")
    (tmp_path / "timing.json").write_text(json.dumps({"ros2": {"seconds": 24.0, "ok": True},
                                                      "log": {"seconds": 3.0, "ok": False}}))
    out = tmp_path / "benchmarks.md"
    docs = tmp_path / "docs" / "benchmarks.md"
    docs.parent.mkdir()
    r = subprocess.run([sys.executable, str(REPORT), str(tmp_path), "--out", str(out),
                        "--copy-to", str(docs), "--no-plots"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    md = out.read_text()
    assert docs.read_text() == md
    machine = json.loads(SAMPLE.read_text())["machine"]
    ros2 = md[md.index("## `ros2`"):md.index("## `network`")]
    assert f"commit `{machine['commit']}`" in ros2 and machine["date"] in ros2
    assert "24 s" in ros2
    # The targets open the page (targets.toml): one line per message and direction, with the
    # median ratio and the verdict; the ones of suites not in this run are there, not measured.
    top = md[md.index("## Every target"):md.index("## The seeds")]
    bridge = [ln for ln in top.splitlines() if "`ros2.bridge-added`" in ln]
    assert len(bridge) == 6 and all(ln.endswith("| met |") for ln in bridge)
    assert "`ipc.16B.vs-iceoryx2` |  | not measured |" in top
    assert "targets are in the table at the top" in ros2
    # A measured row, in the unit its metric names.
    row = "| ros2 | python | cross-process | 1:1 | blocking | UInt8MultiArray | 16 | rtt_ns |"
    assert row in ros2
    assert " µs |" in ros2
    log = md[md.index("## `log`"):md.index("## `record`")]
    assert "**Failed:** nerve-bench log exited with exit status: 1" in log
    ipc = md[md.index("## `ipc`"):md.index("## `sched`")]
    assert "Not run in this report." in ipc


def test_a_folder_that_is_not_one_is_refused(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, str(REPORT), str(tmp_path / "nope")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "is not a folder" in r.stderr


def test_every_seed_table_is_built_or_explained_beside_the_seeds_figures(tmp_path: Path) -> None:
    """Each published table of the seeds gets a section: nerve's table from the run's rows
    (here one hand-made ipc row and its per-round ratio), or the reason it is not reproduced,
    and the seed's own figures folded under it."""
    sys.path.insert(0, str(REPORT.parent))
    import seeds

    base = {"suite": "ipc", "api": "rust", "transport": "cross-process", "topology": "1:1",
            "mode": "poll", "message": "CmdVel", "payload_bytes": 16}
    rows = [{**base, "system": "nerve", "metric": "one_way_ns", "p50": 101.0, "n": 10},
            {**base, "system": "iceoryx2", "metric": "one_way_ns", "p50": 290.0, "n": 10},
            {**base, "system": "nerve", "metric": "ratio_p50_vs_iceoryx2", "p50": 0.35, "n": 3}]
    (tmp_path / "ipc.json").write_text(json.dumps({"machine": {}, "results": rows}))
    out = tmp_path / "benchmarks.md"
    r = subprocess.run([sys.executable, str(REPORT), str(tmp_path), "--out", str(out),
                        "--no-plots"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    md = out.read_text()
    assert "(table not built" not in md
    for key, title, build, why in seeds.SPECS:
        part = md[md.index(f"#### {title}"):]
        part = part[:part.index("</details>")]
        # Built, or explained; and the seed's published figures beneath.
        assert build is not None or why, key
        assert "The seed's published figures" in part
    # Every quoted seed table has a section.
    assert {k for k, *_ in seeds.SPECS} == set(seeds.FIGURES)
    summary = md[md.index("#### Executive summary"):md.index("#### Detailed results")]
    assert "| CmdVel | 16 | 101 ns |" in summary
    assert "| 290 ns |" in summary and "0.35 (yes)" in summary
    # A row the run lacks shows as a gap, not as a number.
    assert "| BatteryState | – | – |" in summary


def test_a_page_without_plots_says_why(tmp_path: Path, monkeypatch) -> None:
    """No matplotlib and none installable: the page says so instead of silently lacking the
    plots the issue asks for (nerve-bench all installs the plot peer on demand)."""
    sys.path.insert(0, str(REPORT.parent))
    try:
        import report
    finally:
        sys.path.remove(str(REPORT.parent))
    (tmp_path / "ipc.json").write_text(json.dumps({"machine": {}, "results": []}))
    monkeypatch.setattr(report, "plot_python", lambda: (None, "matplotlib could not be installed"))
    md = report.render(tmp_path)
    assert "No plots in this page: matplotlib could not be installed." in md
    assert "![" not in md
