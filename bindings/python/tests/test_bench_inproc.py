"""`benches/python/inproc.py` (the HORUS seed's in-process Python tables, run by `nerve-bench
python`) in nerve's interpreter: every case it promises is there with numbers that make sense —
building a view costs far less than a copy of a 1080p image, a Python node at 1 kHz ticks about 500
times in 0.5 s, the MessagePack sizes are those of the payloads."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO

INPROC = REPO / "benches" / "python" / "inproc.py"


def test_the_in_process_tables_measure_what_they_say() -> None:
    r = subprocess.run([sys.executable, str(INPROC), "nerve", "1"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    line = next(x for x in r.stdout.splitlines() if x.startswith("inproc "))
    out = json.loads(line.removeprefix("inproc "))
    assert "fatal" not in out, out
    cases = {(c["table"], c["case"], c["metric"]): c for c in out["cases"]}
    for res in ["320x240", "640x480", "1280x720", "1920x1080"]:
        for metric in ["build_view_ns", "data_attr_ns", "dlpack_ns", "copy_ns"]:
            assert cases[("zero_copy", f"Image {res}", metric)]["samples_ns"]
    # Building a view over the received chunk (np.from_dlpack) against copying it.
    view = min(cases[("zero_copy", "Image 1920x1080", "build_view_ns")]["samples_ns"])
    copy = min(cases[("zero_copy", "Image 1920x1080", "copy_ns")]["samples_ns"])
    assert view * 50 < copy, (view, copy)
    # Structured point arrays have no DLPack form: said, not skipped.
    assert "structured" in cases[("zero_copy", "PointCloud 10K", "dlpack_ns")]["error"]
    for body in ["empty tick", "tick + send(dict)", "tick + send + recv"]:
        tick = cases[("node_tick", body, "tick_cpu_ns")]
        assert 350 <= tick["ticks"] <= 510, tick
        assert 0 < tick["samples_ns"][0] < 1e6, tick
    sizes = {c["case"]: c["value"] for c in out["cases"] if c["table"] == "generic_size"}
    assert sizes == {"empty dict": 1, "CmdVel-like": 34, "IMU-like": 100,
                     "LaserScan 360 rays": 3295, "10 detections": 773}
