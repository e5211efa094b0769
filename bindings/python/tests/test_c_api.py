"""Python and C on one topic: a C node (bindings/c/tests/c/cross.c, built here against
libnerve_c) and this process exchange nerve's standard CmdVel both ways, every field checked."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import nerve
import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def c_node() -> Path:
    """cross.c, compiled against the static C library (built by cargo if needed)."""
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) to build the C node with")
    subprocess.run(["cargo", "build", "-j", "2", "--release", "-p", "nerve-c"], cwd=REPO,
                   check=True)
    out = Path(tempfile.mkdtemp()) / "cross"
    c = REPO / "bindings" / "c"
    subprocess.run(
        [cc, "-std=c11", "-Wall", "-Werror", "-I", str(c / "include"), str(c / "tests/c/cross.c"),
         str(REPO / "target/release/libnerve_c.a"), "-lpthread", "-ldl", "-lm", "-o", str(out)],
        check=True,
    )
    return out


def test_c_and_python_share_cmd_vel_both_ways(domain: int, c_node: Path) -> None:
    child = subprocess.Popen([str(c_node)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        from_c = nerve.Topic("cross/from_c", nerve.CmdVel, depth=256, reliable=True).subscriber()
        to_c = nerve.Topic("cross/from_py", nerve.CmdVel, depth=256, reliable=True).publisher()
        child.stdin.write("go\n")
        child.stdin.flush()
        for i in range(100):
            m = from_c.recv(5.0)
            assert m is not None, f"message {i} from C did not come"
            assert (m.stamp_ns, m.linear, m.angular) == (1000 + i, 0.5 * i, -float(i))
        for i in range(100):
            to_c.send(nerve.CmdVel(stamp_ns=2000 + i, linear=0.25 * i, angular=float(i)))
        assert child.stdout.readline().strip() == "received 100"
        assert child.wait(10) == 0
    finally:
        if child.poll() is None:
            child.kill()
