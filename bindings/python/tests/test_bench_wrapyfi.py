"""`benches/python/wrapyfi.py` (Wrapyfi's Fig. 1, run by `nerve-bench python`) in nerve's own
interpreter, nerve only: a publisher and a listener process, 200×200 tensors paced at 100 Hz,
every trial received and timed per framework; a framework or middleware that is not there is a
row with the reason."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO

WRAPYFI = REPO / "benches" / "python" / "wrapyfi.py"


def test_tensors_of_each_framework_arrive_timed_and_missing_ones_are_named() -> None:
    r = subprocess.run([sys.executable, str(WRAPYFI), "run", "--trials", "20",
                        "--frameworks", "numpy,pandas,nosuch", "--middlewares", "nerve,zeromq"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    line = next(x for x in r.stdout.splitlines() if x.startswith("inproc "))
    cases = {c["case"]: c for c in json.loads(line.removeprefix("inproc "))["cases"]}
    for fw in ("numpy", "pandas"):
        got = cases[f"{fw} nerve"]["samples_ns"]
        assert len(got) == 20 and all(0 < v < 1e9 for v in got), got
    assert "ValueError" in cases["nosuch nerve"]["error"]
    # pyzmq is not in nerve's interpreter: each framework's ZeroMQ row says so.
    assert "zeromq not importable" in cases["numpy zeromq"]["error"]
