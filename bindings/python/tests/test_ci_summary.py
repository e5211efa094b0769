"""`make test`'s closing summary (ci/summary.py) counts what ran, moves said skips out of
"passed", lists every skip's reason and fails on a failed phase."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

RUST = """\
[    0.1s]      Running unittests src/lib.rs (target/release/deps/nerve_shm-0123)
[    0.2s] test result: ok. 10 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out
[    0.3s]      Running tests/hostile.rs (target/release/deps/hostile-4567)
[   40.3s] test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out
[   40.4s]      Running tests/c_api.rs (target/release/deps/c_api-89ab)
[   41.0s] test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out
"""
PYTEST = "[  99.0s] ======= 7 passed, 2 skipped in 98.1s =======\n"


def run(tmp: Path, phases: str, skips: str = "") -> tuple[int, str]:
    (tmp / "phases.tsv").write_text(phases)
    (tmp / "rust-tests.log").write_text(RUST)
    (tmp / "pytest.log").write_text(PYTEST)
    (tmp / "skips.tsv").write_text(skips)
    r = subprocess.run([sys.executable, str(REPO / "ci" / "summary.py"), str(tmp), "61.5"],
                       capture_output=True, text=True)
    return r.returncode, r.stdout


ALL = "".join(f"{p}\t1.0\t0\n" for p in
              ("build", "rust-tests", "rust-no-solo", "miri", "python-build", "pytest"))


def test_counts_every_suite_and_moves_said_skips(tmp_path: Path) -> None:
    code, out = run(tmp_path, ALL, "rust\tnerve/hostile/full_tmpfs\tskipped\tno tmpfs here\n")
    # Rust 15 passed (one of them a said skip), C 3 passed 1 failed, Python 7 passed 2 skipped.
    assert out.strip().splitlines()[-1] == "nerve: 24 passed, 1 failed, 4 skipped"
    assert "| C | 3 | 1 | 0 |" in out
    assert "`nerve/hostile/full_tmpfs` (skipped): no tmpfs here" in out
    assert "tests/hostile.rs (hostile-4567) 40 s" in out
    assert code == 1  # a test failed


def test_a_failed_or_missing_phase_fails_the_summary(tmp_path: Path) -> None:
    code, out = run(tmp_path, ALL.replace("miri\t1.0\t0", "miri\t1.0\t101"))
    assert code == 1 and "Phases that failed: miri" in out
    code, out = run(tmp_path, "build\t1.0\t0\n")
    assert code == 1 and "Phases that did not run" in out
