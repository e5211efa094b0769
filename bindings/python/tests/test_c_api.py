"""Python with C and C++ nodes (bindings/c/tests/c, built here against libnerve_c): nerve's
standard CmdVel both ways with a C node; Imu, in-place images and a service call from a C node
to Python and from Python to a C++ node (tests/c_api.rs and tests/cross.rs do the same with
Rust); the CMake package and the examples built with it."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import nerve
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]


def _build(source: str, cpp: bool = False) -> Path:
    """A program of bindings/c/tests/c, compiled against the static C library (built by cargo
    if needed)."""
    cc = os.environ.get("CXX", "c++") if cpp else os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no {'C++' if cpp else 'C'} compiler ({cc}) to build {source} with")
    subprocess.run(["cargo", "build", "-j", "2", "--release", "-p", "nerve-c"], cwd=REPO,
                   check=True)
    out = Path(tempfile.mkdtemp()) / source.replace(".", "_")
    c = REPO / "bindings" / "c"
    subprocess.run(
        [cc, "-std=c++17" if cpp else "-std=c11", "-Wall", "-Werror", "-I", str(c / "include"),
         str(c / "tests/c" / source), str(REPO / "target/release/libnerve_c.a"), "-lpthread",
         "-ldl", "-lm", "-o", str(out)],
        check=True,
    )
    return out


@pytest.fixture(scope="session")
def c_node() -> Path:
    """cross.c: CmdVel both ways."""
    return _build("cross.c")


@pytest.fixture(scope="session")
def c_peer() -> Path:
    """peer.c: the cross-language node (its messages are described in the source)."""
    return _build("peer.c")


@pytest.fixture(scope="session")
def cpp_peer() -> Path:
    """peer.cpp: the same node in C++ (nerve.hpp, nerve/msgs.hpp)."""
    return _build("peer.cpp", cpp=True)


N_IMU, N_IMAGE, W, H, CALLS = 50, 10, 64, 48, 5


def _topics(prefix: str) -> tuple[nerve.Topic, nerve.Topic]:
    opts = {"depth": 64, "reliable": True, "max_message_bytes": 1 << 20}
    return (nerve.Topic(f"{prefix}/imu", nerve.Imu, **opts),
            nerve.Topic(f"{prefix}/image", nerve.Image, **opts))


def _imu(i: int) -> nerve.Imu:
    m = nerve.Imu()
    m.header.stamp_ns, m.header.seq, m.header.frame_id = 1000 + i, i, "imu_link"
    m.orientation.z, m.orientation.w = 0.5 * i, 1.0
    m.orientation_covariance[8] = 0.25 * i
    m.angular_velocity.z = -float(i)
    m.linear_acceleration.x = 9.75
    m.linear_acceleration_covariance[0] = float(i)
    return m


def _pixels(i: int) -> np.ndarray:
    return ((7 * np.arange(W * H * 3, dtype=np.uint64) + i) % 256).astype(np.uint8)


def _in_shared_memory(a: np.ndarray) -> str:
    """The file the array's memory is mapped from ("" if none)."""
    start = a.ctypes.data
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if lo <= start and start + a.nbytes <= hi:
                return parts[5] if len(parts) > 5 else ""
    return ""


def test_c_to_python(domain: int, c_peer: Path) -> None:
    """A C node sends Imu and images and calls a Python service; Python checks every field and
    byte, and reads the images in place."""
    imus, images = _topics("from_c")
    imu_sub, image_sub = imus.subscriber(), images.subscriber()
    server = nerve.Service("from_c/upper").server(lambda s: s.upper())
    child = subprocess.Popen([str(c_peer), "send", "from_c"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        child.stdin.write("go\n")
        child.stdin.flush()
        for i in range(N_IMU):
            m, w = imu_sub.recv(10.0), _imu(i)
            assert m is not None, f"Imu {i} from C did not come"
            assert (m.header.stamp_ns, m.header.seq, m.header.frame_id) == (1000 + i, i,
                                                                            "imu_link")
            got = (m.orientation.z, m.orientation.w, m.orientation_covariance[8],
                   m.angular_velocity.z, m.linear_acceleration.x,
                   m.linear_acceleration_covariance[0])
            assert got == (w.orientation.z, w.orientation.w, w.orientation_covariance[8],
                           w.angular_velocity.z, w.linear_acceleration.x,
                           w.linear_acceleration_covariance[0]), f"Imu {i}"
        for i in range(N_IMAGE):
            s = image_sub.recv(10.0)
            assert s is not None, f"image {i} from C did not come"
            h = s.header
            assert (h.header.stamp_ns, h.header.seq, h.header.frame_id, h.width, h.height,
                    h.step, h.encoding) == (5000 + i, i, "camera", W, H, W * 3, 1)
            assert np.array_equal(s.data.reshape(-1), _pixels(i)), f"image {i}'s pixels"
            assert "nerve-" in _in_shared_memory(s.data), f"image {i} was copied"
        assert child.stdout.readline().strip() == "sent"
        assert child.wait(10) == 0
        assert server.stats()["handled"] == CALLS
    finally:
        if child.poll() is None:
            child.kill()
        server.close()


def test_python_to_cpp(domain: int, cpp_peer: Path) -> None:
    """Python sends Imu and images (filled in place) and calls a C++ service; the C++ node
    checks every field and byte, reading the images in place."""
    child = subprocess.Popen([str(cpp_peer), "recv", "to_cpp"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        imus, images = _topics("to_cpp")
        imu_pub, image_pub = imus.publisher(), images.publisher()
        for i in range(N_IMU):
            imu_pub.send(_imu(i))
        for i in range(N_IMAGE):
            loan = image_pub.loan_image(W, H, "rgb8", stamp_ns=5000 + i, frame_id="camera")
            loan.header.header.seq = i
            loan.data.reshape(-1)[:] = _pixels(i)
            loan.send()
        client = nerve.Service("to_cpp/upper").client()
        for i in range(CALLS):
            assert client.call(f"hello {i}", timeout=10.0) == f"HELLO {i}"
        assert child.stdout.readline().strip() == "received"
        child.stdin.close()
        assert child.wait(10) == 0
    finally:
        if child.poll() is None:
            child.kill()


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
