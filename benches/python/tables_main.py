"""The command line shared by the in-process table scripts (`inproc.py`, `async_tables.py`):
`<script> <system> <quick 0|1>` runs that system's cases pinned to core 0 and prints one line
`inproc {"system", "version", "cases" | "fatal"}` for `nerve-bench python`."""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable


def run(cases_of: dict[str, Callable[[bool], list[dict]]], packages: dict[str, str]) -> int:
    """`cases_of[system](quick)` gives the cases; `packages[system]` names the distribution
    whose version the line reports."""
    system, quick = sys.argv[1], sys.argv[2] == "1"
    os.sched_setaffinity(0, {0})
    try:
        from importlib.metadata import version

        ver = version(packages[system])
    except Exception:  # noqa: BLE001
        ver = ""
    try:
        cases = cases_of[system](quick)
        print("inproc " + json.dumps({"system": system, "version": ver, "cases": cases}),
              flush=True)
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        print("inproc " + json.dumps({"system": system, "version": ver,
                                      "fatal": f"{type(e).__name__}: {e}"}), flush=True)
    return 0
