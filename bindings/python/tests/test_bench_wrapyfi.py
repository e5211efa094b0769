"""`benches/python/wrapyfi.py` (Wrapyfi's Fig. 1, run by `nerve-bench python`) in nerve's own
interpreter, nerve only: a publisher and a listener process, 200×200 tensors paced at 100 Hz,
every trial received and timed per framework; a framework or middleware that is not there is a
row with the reason."""

from __future__ import annotations

import json
import subprocess
import sys
import time

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


def test_a_listener_waits_from_go_and_a_failing_one_says_why(domain) -> None:
    # The publisher starts once every middleware's listener is ready, each importing the
    # framework (seconds for TensorFlow): a listener's wait runs from GO, not from its own
    # start (it waited 10 s from its start, and nerve's, started first, gave up).
    sys.path.insert(0, str(WRAPYFI.parent))
    import wrapyfi

    def listener(key: str, n: int) -> wrapyfi.Listener:
        child = wrapyfi.Listener([sys.executable, str(WRAPYFI), "listen", "nerve", key, str(n),
                                  "numpy", "1"])
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY", wrapyfi.listener_error(
            "nerve", child, "did not start")
        return child

    child = listener("nerve-go", 3)
    pub = wrapyfi.Link("nerve", "pub", "nerve-go")
    time.sleep(2.0)  # twice the listener's wait: the other listeners still starting
    child.stdin.write("GO\n")
    child.stdin.flush()
    for _ in range(3):
        pub.send("numpy", wrapyfi.make("numpy"), time.time_ns())
    line = child.stdout.readline()
    assert child.wait(timeout=30) == 0 and line.startswith("RESULT "), wrapyfi.listener_error(
        "nerve", child, "gave no result")
    assert len(json.loads(line.removeprefix("RESULT "))["numpy"]) == 3
    # Nothing sent after GO: the row says what the listener said.
    child = listener("nerve-none", 1)
    child.stdin.write("GO\n")
    child.stdin.flush()
    assert child.wait(timeout=30) == 1
    why = wrapyfi.listener_error("nerve", child, "ended with status 1 and no result")
    assert "TimeoutError: nerve: no tensor within 1 s" in why, why
