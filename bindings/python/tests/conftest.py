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
    """The Rust peer binary (crates/nerve/examples/py_peer.rs), in release as `make test`'s
    build makes it (up to date, this compiles nothing)."""
    exe = REPO / "target" / "release" / "examples" / "py_peer"
    subprocess.run(
        ["cargo", "build", "-j", "2", "--release", "-p", "nerve", "--example", "py_peer"],
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


# --- Skips: said, logged, and under CI failures unless allowed --------------------------------
# A test that cannot run its main case skips with its reason; under CI (`CI=true`) that skip is
# a failure unless the test is on ci/allowed-skips.txt (the list the Rust tests read too). Every
# skip is appended to $NERVE_SKIP_LOG, which `make test`'s summary prints.
ALLOWED_SKIPS = REPO / "ci" / "allowed-skips.txt"
_unallowed_collection_skips: list[str] = []


def _allowed_skip_ids() -> set[str]:
    ids = set()
    for line in ALLOWED_SKIPS.read_text().splitlines():
        line = line.split("#", 1)[0]
        if "|" in line:
            ids.add(line.split("|", 1)[0].strip())
    return ids


def _under_ci() -> bool:
    return os.environ.get("CI", "").strip() not in ("", "0", "false")


def _skip_id(path: Path, name: str | None) -> str:
    return f"python/{Path(path).name}" + (f"::{name}" if name else "")


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason.removeprefix("Skipped: ").replace("\n", " ").replace("\t", " ")


def _judge_skip(report: pytest.TestReport | pytest.CollectReport, test_id: str) -> bool:
    """Logs a skip; True when it must fail (under CI and not allowed)."""
    fails = _under_ci() and test_id not in _allowed_skip_ids()
    log = os.environ.get("NERVE_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            verdict = "FAILED" if fails else "skipped"
            f.write(f"python\t{test_id}\t{verdict}\t{_skip_reason(report)}\n")
    return fails


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        test_id = _skip_id(item.path, item.name)
        if _judge_skip(report, test_id):
            reason = _skip_reason(report)
            report.outcome = "failed"
            report.longrepr = (f"{test_id} cannot run its main case under CI: {reason}. Make it "
                               f"runnable here, or add `{test_id} | <why>` to "
                               "ci/allowed-skips.txt")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and isinstance(collector, pytest.Module):
        test_id = _skip_id(collector.path, None)
        if _judge_skip(report, test_id):
            _unallowed_collection_skips.append(f"{test_id}: {_skip_reason(report)}")


def pytest_terminal_summary(terminalreporter) -> None:
    for line in _unallowed_collection_skips:
        terminalreporter.write_line(f"FAILED (skipped under CI, not allowed) {line}", red=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _unallowed_collection_skips and exitstatus == 0:
        session.exitstatus = 1
