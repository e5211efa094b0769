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


def _pkg_config_flags(pc: Path, field: str) -> list[str]:
    """A field of a .pc file with its variables expanded (as pkg-config would)."""
    values: dict[str, str] = {}
    for line in pc.read_text().splitlines():
        if "=" in line and ":" not in line.split("=", 1)[0]:
            k, v = line.split("=", 1)
            values[k.strip()] = v.strip()
        elif line.startswith(f"{field}:"):
            text = line.split(":", 1)[1]
            for _ in range(3):
                for k, v in values.items():
                    text = text.replace("${" + k + "}", v)
            return text.split()
    raise AssertionError(f"{pc} has no {field}")


def test_cmake_package_installs_and_the_examples_build_with_it(domain: int,
                                                               tmp_path: Path) -> None:
    """As a C or C++ user builds against nerve: install the CMake package, then build
    examples/c and examples/cpp with find_package(nerve), and a C program with the flags of
    nerve.pc; each runs."""
    cmake = REPO / ".venv" / "bin" / "cmake"
    if not cmake.exists():
        pytest.skip("CMake is not in .venv (bindings/python/dev.sh installs it from PyPI)")
    prefix = tmp_path / "prefix"
    run = lambda *a: subprocess.run([str(x) for x in a], check=True, cwd=REPO)  # noqa: E731
    run(cmake, "-S", REPO / "bindings/c", "-B", tmp_path / "build",
        f"-DCMAKE_INSTALL_PREFIX={prefix}")
    run(cmake, "--build", tmp_path / "build")
    run(cmake, "--install", tmp_path / "build")
    for header in ("nerve.h", "nerve.hpp"):
        assert (prefix / "include" / header).exists()
    # Every example (examples/c/*, examples/cpp/*) builds with find_package(nerve) and runs,
    # finding the shared library through the installed package's run path.
    outputs = {}
    for example in sorted((REPO / "examples").glob("c*/*/CMakeLists.txt")):
        src = example.parent
        name = f"{src.parent.name}/{src.name}"
        build = tmp_path / "examples" / src.parent.name / src.name
        run(cmake, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}")
        run(cmake, "--build", build)
        done = subprocess.run([str(build / src.name)], capture_output=True, text=True)
        assert done.returncode == 0, f"{name}: {done.stderr}"
        outputs[name] = done.stdout.splitlines()
    assert {f"{lang}/{scenario}" for lang in ("c", "cpp") for scenario in (
        "publish_subscribe", "request_response", "image_pipeline")} <= set(outputs)
    for name in ("c/publish_subscribe", "cpp/publish_subscribe"):
        assert len(outputs[name]) == 10, outputs[name]
        assert outputs[name][-1] == "cmd_vel 9: linear 0.9 m/s"
    assert outputs["c/request_response"] == [
        "3 -> plan: 3 steps", "12 -> plan: 12 steps",
        "500 -> refused: service 'arm/plan': the handler failed: steps must be a number up to 100"]
    # C and C++ do the same: the same calls and answers, the same frames.
    assert outputs["c/request_response"] == outputs["cpp/request_response"]
    assert outputs["c/image_pipeline"] == outputs["cpp/image_pipeline"]
    assert len(outputs["c/image_pipeline"]) == 5
    pc = prefix / "lib" / "pkgconfig" / "nerve.pc"
    exe = tmp_path / "with_pkg_config"
    subprocess.run(
        [os.environ.get("CC", "cc"), *_pkg_config_flags(pc, "Cflags"),
         str(REPO / "examples/c/publish_subscribe/main.c"), *_pkg_config_flags(pc, "Libs"),
         "-o", str(exe)],
        check=True,
    )
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                         env={**os.environ, "LD_LIBRARY_PATH": str(prefix / "lib")}).stdout
    assert out.splitlines()[-1] == "cmd_vel 9: linear 0.9 m/s"
