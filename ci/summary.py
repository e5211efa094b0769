"""The end of `make test`: where the time went, what ran, what skipped and why, one closing line.

Reads target/test-report/ as ci/test.sh leaves it: phases.tsv (name, seconds, exit status), a
log per phase, skips.tsv (suite, id, verdict, reason: written by nerve_testing::skip and by the
Python tests' conftest). Counts libtest's `test result:` lines (Rust, the C API's tests, miri)
and pytest's closing line. Prints a table per phase and per suite, every skip with its reason,
and last `nerve: N passed, M failed, K skipped`; writes the same to summary.md. Exit status 1
when a phase failed or a test failed.

Usage: python3 ci/summary.py REPORT_DIR [TOTAL_SECONDS]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBTEST = re.compile(
    r"test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; "
    r"(\d+) filtered out")
STAMP = re.compile(r"^\[\s*([\d.]+)s\] ")
RUNNING = re.compile(r"^\s*(Running|Doc-tests) (\S+)(?: \((\S+)\))?")
IGNORED = re.compile(r"^test (.+?) \.\.\. ignored(?:, (.*))?$")
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")

# The C API's tests are Rust test binaries that compile and run C and C++ (bindings/c/tests).
C_TESTS = {p.stem for p in (ROOT / "bindings/c/tests").glob("*.rs")} | {"nerve_c"}


def libtest_counts(log: Path, split_c: bool) -> dict[str, list[int]]:
    """{suite: [passed, failed, ignored]} from one cargo test log."""
    out: dict[str, list[int]] = {}
    suite = "Rust"
    if not log.exists():
        return out
    for line in log.read_text(errors="replace").splitlines():
        line = STAMP.sub("", line)
        m = RUNNING.match(line)
        if m:
            exe = Path(m.group(3) or "").name
            stem = exe.rsplit("-", 1)[0]
            suite = "C" if split_c and stem in C_TESTS else "Rust"
            if m.group(1) == "Doc-tests":
                suite = "C" if split_c and m.group(2) == "nerve_c" else "Rust"
            continue
        m = LIBTEST.search(line)
        if m:
            c = out.setdefault(suite, [0, 0, 0])
            for i in range(3):
                c[i] += int(m.group(i + 1))
    return out


def slowest(log: Path, n: int = 8) -> list[tuple[float, str]]:
    """The test binaries (or doc-test sets) that took longest, from the stamped log."""
    if not log.exists():
        return []
    spans, current, start = [], None, 0.0
    for line in log.read_text(errors="replace").splitlines():
        stamp = STAMP.match(line)
        if not stamp:
            continue
        t = float(stamp.group(1))
        m = RUNNING.match(STAMP.sub("", line))
        if m or "test result:" in line:
            if current:
                spans.append((t - start, current))
                current = None
            if m:
                exe = f" ({Path(m.group(3)).name})" if m.group(3) else ""
                current, start = m.group(2) + exe, t
    return sorted(spans, reverse=True)[:n]


def pytest_counts(log: Path) -> list[int] | None:
    """[passed, failed, skipped] from pytest's closing line, or None if it has none."""
    if not log.exists():
        return None
    for line in reversed(log.read_text(errors="replace").splitlines()):
        if re.search(r"\d+ (passed|failed|skipped)", line) and " in " in line:
            got = {k: int(n) for n, k in PYTEST_COUNT.findall(line)}
            failed = got.get("failed", 0) + got.get("error", 0) + got.get("errors", 0)
            return [got.get("passed", 0), failed, got.get("skipped", 0)]
    return None


def fmt_secs(s: float) -> str:
    return f"{int(s // 60)}:{s % 60:04.1f}"


def main() -> int:
    report = Path(sys.argv[1])
    total = float(sys.argv[2]) if len(sys.argv) > 2 else None
    lines: list[str] = []
    phases = []
    for row in (report / "phases.tsv").read_text().splitlines():
        name, secs, rc = row.split("\t")
        phases.append((name, float(secs), int(rc)))
    lines += ["## make test: phases", "", "| phase | wall (m:s) | exit |", "|---|---:|---:|"]
    for name, secs, rc in phases:
        lines.append(f"| {name} | {fmt_secs(secs)} | {rc} |")
    if total is not None:
        lines.append(f"| **total** | **{fmt_secs(total)}** | |")

    suites: dict[str, list[int]] = {}
    for log, split_c in (("rust-tests", True), ("rust-no-solo", False)):
        for suite, c in libtest_counts(report / f"{log}.log", split_c).items():
            key = suite if log == "rust-tests" else "Rust (NERVE_NO_SOLO=1)"
            s = suites.setdefault(key, [0, 0, 0])
            for i in range(3):
                s[i] += c[i]
    miri = libtest_counts(report / "miri.log", False).get("Rust")
    if miri:
        suites["miri"] = miri
    py = pytest_counts(report / "pytest.log")
    if py:
        suites["Python"] = py
    lines += ["", "## Tests", "", "| suite | passed | failed | skipped |", "|---|---:|---:|---:|"]
    passed = failed = skipped = 0
    for suite, (p, f, s) in suites.items():
        lines.append(f"| {suite} | {p} | {f} | {s} |")
        passed, failed, skipped = passed + p, failed + f, skipped + s

    slow = slowest(report / "rust-tests.log")
    if slow:
        lines += ["", "Slowest Rust test binaries: " + ", ".join(
            f"{name} {secs:.0f} s" for secs, name in slow)]

    # Skips said through nerve_testing::skip return from the test, which libtest counts as
    # passed: they are moved to "skipped" here.
    said = []
    if (report / "skips.tsv").exists():
        for row in (report / "skips.tsv").read_text(errors="replace").splitlines():
            parts = row.split("\t", 3)
            if len(parts) == 4:
                said.append(parts)
    rust_said = sum(1 for s in said if s[0] == "rust" and s[2] == "skipped")
    passed -= rust_said
    skipped += rust_said
    lines += ["", "## Skips, each with its reason", ""]
    if said:
        lines += [f"- {suite} `{tid}` ({verdict}): {why}" for suite, tid, verdict, why in said]
    # Tests marked #[ignore] (miri leaves out what it cannot run in reasonable time).
    for log in ("rust-tests", "rust-no-solo", "miri"):
        path = report / f"{log}.log"
        if path.exists():
            for line in path.read_text(errors="replace").splitlines():
                m = IGNORED.search(STAMP.sub("", line))
                if m:
                    why = m.group(2) or "(#[ignore] gives no reason)"
                    lines.append(f"- {log} `{m.group(1)}` (ignored): {why}")
    if lines[-1] == "":
        lines.append("- none")
    expected = {"build", "rust-tests", "rust-no-solo", "miri", "python-build", "pytest"}
    missing = sorted(expected - {n for n, _, _ in phases})
    bad = [n for n, _, rc in phases if rc != 0]
    if missing:
        lines.append(f"\nPhases that did not run: {', '.join(missing)}")
    if bad:
        lines.append(f"\nPhases that failed: {', '.join(bad)}")
    if py is None and "pytest" in {n for n, _, _ in phases}:
        lines.append("\npytest printed no closing line: counted as one failure")
        failed += 1
    text = "\n".join(lines)
    (report / "summary.md").write_text(text + "\n")
    print("\n" + text + "\n")
    print(f"nerve: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or bad or missing else 0


if __name__ == "__main__":
    sys.exit(main())
