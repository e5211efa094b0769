import itertools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
_counter = itertools.count()


@pytest.fixture
def domain(monkeypatch: pytest.MonkeyPatch):
    """A NERVE_DOMAIN no other test or test process uses; its directory is removed after."""
    d = 2_000_000 + (os.getpid() % 40_000) * 100 + next(_counter)
    monkeypatch.setenv("NERVE_DOMAIN", str(d))
    yield d
    shutil.rmtree(f"/dev/shm/nerve-{os.getuid()}-{d}", ignore_errors=True)


@pytest.fixture(scope="session")
def py_peer() -> Path:
    """The Rust peer binary (crates/nerve/examples/py_peer.rs), built if missing."""
    exe = REPO / "target" / "debug" / "examples" / "py_peer"
    subprocess.run(
        ["cargo", "build", "-j", "2", "-p", "nerve", "--example", "py_peer"],
        cwd=REPO, check=True,
    )
    return exe


@pytest.fixture(scope="session")
def nerve_cli() -> str:
    """The `nerve` binary, built (release, as `make test` builds it: up to date, this is
    quick)."""
    subprocess.run(["cargo", "build", "-j", "2", "--release", "-p", "nerve-cli"], cwd=REPO,
                   check=True)
    return str(REPO / "target" / "release" / "nerve")


def run_python(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def recv_n(sub, n: int, peer: subprocess.Popen, timeout: float = 20.0) -> list:
    """Receives `n` messages from a peer process; fails at once (with the peer's stderr) if the
    peer exits with an error, and after `timeout` seconds in all."""
    got: list = []
    end = time.monotonic() + timeout
    while len(got) < n:
        m = sub.recv(timeout=0.2)
        if m is not None:
            got.append(m)
            continue
        code = peer.poll()
        if code not in (None, 0):
            err = peer.stderr.read() if peer.stderr else ""
            pytest.fail(f"peer exited with {code} after {len(got)}/{n} messages: {err}")
        if time.monotonic() > end:
            pytest.fail(f"received {len(got)}/{n} messages in {timeout} s (peer exit code {code})")
    return got
