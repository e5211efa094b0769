"""The Python examples (examples/python/<scenario>/main.py) run, check their own output and end
with an `ok:` line. Each runs as its own process in a domain of its own."""

import subprocess
import sys

import pytest
from conftest import REPO

EXAMPLES = REPO / "examples" / "python"
SCENARIOS = [
    "async_nodes",
    "image_pipeline",
    "publish_subscribe",
    "realtime_control",
    "request_response",
]


def test_every_example_is_run_here():
    assert sorted(p.parent.name for p in EXAMPLES.glob("*/main.py")) == SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_example_runs_and_checks_itself(scenario, domain):
    # The `domain` fixture set NERVE_DOMAIN, which the example inherits.
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / scenario / "main.py")],
        capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 0, f"exit code {r.returncode}\n{r.stdout}\n{r.stderr}"
    lines = r.stdout.strip().splitlines()
    assert lines and lines[-1].startswith("ok: "), r.stdout
