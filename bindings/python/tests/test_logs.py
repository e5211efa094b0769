"""Logs as a topic across languages: records from a C program and from Python's `logging`
reach `nerve log` in order per process, with their node, level, file:line and fields."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

import nerve
import pytest

REPO = Path(__file__).resolve().parents[3]


def test_c_and_python_records_reach_nerve_log(domain: int, nerve_cli: str,
                                              tmp_path: Path) -> None:
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    subprocess.run(["cargo", "build", "-j", "2", "--release", "-p", "nerve-c"], cwd=REPO,
                   check=True)
    c = REPO / "bindings" / "c"
    exe = tmp_path / "logger"
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", str(c / "include"),
                    str(c / "tests/c/logger.c"), str(REPO / "target/release/libnerve_c.a"),
                    "-lpthread", "-ldl", "-lm", "-o", str(exe)], check=True)
    log = logging.getLogger("test_logs")
    log.setLevel(logging.DEBUG)
    handler = nerve.LogHandler("py_planner", domain=domain)
    log.addHandler(handler)
    try:
        # This process holds the log topic open (as `nerve launch` does for its nodes), so the
        # C program's records stay readable after it exits.
        log.warning("python record %d", 0, extra={"fields": {"speed": 0.0}})
        env = {**os.environ, "NERVE_DOMAIN": str(domain), "NERVE_NODE": "c_driver"}
        ran = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=30)
        assert ran.returncode == 0 and ran.stdout.strip() == "logged", ran.stderr
        for i in range(1, 3):
            log.warning("python record %d", i, extra={"fields": {"speed": i * 0.5}})
        log.debug("python debug")
    finally:
        log.removeHandler(handler)
    assert handler.dropped == 0

    out = subprocess.run([nerve_cli, "log"], env={**os.environ, "NERVE_DOMAIN": str(domain)},
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    c_lines = [x for x in lines if "[c_driver]" in x]
    assert [x.split("] ", 1)[1] for x in c_lines] == [
        *(f"logger.c:{10} c record {i}" for i in range(5)), "logger.c:14 debug now shows"
    ], out.stdout
    assert all(" INFO  " in x for x in c_lines[:5]) and " DEBUG " in c_lines[5]
    py = [x for x in lines if "[py_planner]" in x]
    assert len(py) == 4, out.stdout
    assert py[0].split("] ", 1)[1] == "test_logs.py:37 python record 0 speed=0.0", py[0]
    assert " WARN  " in py[2] and py[2].endswith("python record 2 speed=1.0")
    assert " DEBUG " in py[3] and py[3].endswith("python debug")
    # Filters, as a user narrows it down at 2 am.
    out = subprocess.run([nerve_cli, "log", "--node", "c_driver", "--grep", "record [34]"],
                         env={**os.environ, "NERVE_DOMAIN": str(domain)},
                         capture_output=True, text=True, timeout=30)
    assert out.stdout.count("\n") == 2, out.stdout
