"""The ROS 2 bridge (`nerve.ros2_bridge`, `nerve bridge ros2`) against real rclpy nodes.

The bridge and the ROS 2 peer (`ros2_peer.py`) run in ROS 2's Python: rclpy's wheels from
PyPI, installed by `benches/python/setup_peers.sh ros2` (which `bindings/python/dev.sh`, so
`make test`, runs) into a cache outside the clone. The tests skip, with the installer's reason,
only where those wheels could not be installed. Fast DDS keeps to UDP on localhost here (no
shared-memory files of its own left behind), each test in its own ROS_DOMAIN_ID and nerve domain.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nerve
import numpy as np
import pytest
from conftest import REPO
from ros2_fields import imu_fields

HERE = Path(__file__).resolve().parent
VENVS = REPO / "benches" / "python" / ".venvs"


def ros_python() -> str:
    exe = os.environ.get("NERVE_ROS2_PYTHON") or str(VENVS / "ros2" / "bin" / "python")
    why = ""
    if not Path(exe).exists():
        err = VENVS / "ros2.error"
        why = err.read_text().strip() if err.exists() else f"{exe} is missing"
    else:
        r = subprocess.run([exe, "-c", "import rclpy, std_srvs.srv, sensor_msgs.msg"],
                           capture_output=True, text=True)
        why = r.stderr.strip().splitlines()[-1] if r.returncode else ""
    if why:
        pytest.skip(f"ROS 2's wheels could not be installed ({why}); "
                    "benches/python/setup_peers.sh ros2 installs them")
    return exe


@pytest.fixture
def ros(domain: int, tmp_path: Path) -> Iterator[Ros]:
    r = Ros(ros_python(), domain, tmp_path)
    yield r
    r.close()


class Proc:
    """A child printing JSON lines, read by a thread so the test never blocks on it."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self.p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                  stderr=open(log, "w"), text=True)
        self.lines: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.p.stdout:  # type: ignore[union-attr]
            if line.startswith("{"):
                self.lines.append(json.loads(line))

    def poll_lines(self) -> list[dict[str, Any]]:
        return list(self.lines)

    def wait_for(self, pred: Any, timeout: float, what: str) -> dict[str, Any]:
        end = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < end:
            lines = self.poll_lines()
            for line in lines[seen:]:
                if pred(line):
                    return line
            seen = len(lines)
            if self.p.poll() is not None and self.p.returncode != 0:
                break
            time.sleep(0.02)
        pytest.fail(f"{what}: not seen in {timeout} s (exit {self.p.poll()}); "
                    f"its log: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


class Ros:
    """Runs the bridge and ROS 2 peers for one test, in their own domains."""

    def __init__(self, python: str, domain: int, tmp: Path) -> None:
        self.python, self.domain, self.tmp = python, domain, tmp
        self.env = dict(os.environ)
        self.env.update({
            "PYTHONPATH": str(REPO / "bindings" / "python" / "python"),
            "NERVE_DOMAIN": str(domain),
            "ROS_DOMAIN_ID": str(1 + domain % 200),
            "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST",
            "RMW_IMPLEMENTATION": "rmw_fastrtps_cpp",
            "FASTDDS_BUILTIN_TRANSPORTS": "UDPv4",
            "PYTHONUNBUFFERED": "1",
        })
        self.procs: list[Proc] = []
        self.status = tmp / "bridge.json"

    def start(self, argv: list[str], name: str) -> Proc:
        p = Proc([self.python, *argv], self.env, self.tmp / f"{name}.log")
        self.procs.append(p)
        return p

    def bridge(self, *args: str) -> Proc:
        p = self.start(["-m", "nerve.ros2_bridge", "--status-file", str(self.status),
                        "--period", "0.2", *args], f"bridge{len(self.procs)}")
        return p

    def peer(self, *args: str) -> Proc:
        p = self.start([str(HERE / "ros2_peer.py"), *args], f"peer{len(self.procs)}")
        p.wait_for(lambda d: d.get("ready"), 30, "the ROS 2 peer starting")
        return p

    def bridge_status(self) -> dict[str, Any]:
        try:
            return json.loads(self.status.read_text())
        except (OSError, ValueError):
            return {}

    def wait_status(self, pred: Any, timeout: float, what: str) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            s = self.bridge_status()
            if s and pred(s):
                return s
            time.sleep(0.05)
        logs = "\n".join(p.log.read_text()[-2000:] for p in self.procs)
        pytest.fail(f"{what}: not in the bridge's status in {timeout} s: "
                    f"{self.bridge_status()}\n{logs}")

    def close(self) -> None:
        for p in self.procs:
            p.stop()


def join(name: str, timeout: float = 20.0) -> nerve.Topic:
    end = time.monotonic() + timeout
    while True:
        try:
            return nerve.Topic.join(name)
        except nerve.NotFound:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def recv_where(sub: Any, pred: Any, timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        m = sub.recv(0.2)
        if m is not None and pred(m):
            return m
    pytest.fail(f"{what}: nothing in {timeout} s")


PIXELS = ((np.arange(640 * 480 * 3) * 7) % 251).astype(np.uint8)


def test_ros2_imu_image_and_cloud_arrive_in_nerve_field_by_field(ros: Ros) -> None:
    ros.bridge()
    ros.peer("--pub", "imu:/r/imu", "--pub", "image:/r/image", "--pub", "cloud:/r/cloud")
    ros.wait_status(lambda s: len(s.get("imports", {})) >= 3, 30, "three imports")

    imu = recv_where(join("r/imu").subscriber(), lambda m: True, 10, "an Imu")
    sec = imu.header.stamp_ns // 1_000_000_000
    assert sec >= 1000 and imu.header.stamp_ns % 1_000_000_000 == 123_456_789
    assert imu.header.frame_id == "imu_link"
    # Every other field, as the peer set it (ros2_peer.make).
    assert imu_fields(imu) == {
        "orientation": [0.1, 0.2, 0.3, 0.9],
        "orientation_covariance": [-1.0] + [k * 0.5 for k in range(1, 9)],
        "angular_velocity": [1.5, -2.5, 0.5 + sec - 1000],
        "angular_velocity_covariance": [10 + k * 0.25 for k in range(9)],
        "linear_acceleration": [-9.81, 0.25, 4.75],
        "linear_acceleration_covariance": [20 + k * 0.125 for k in range(9)],
    }

    image = recv_where(join("r/image").subscriber(), lambda m: True, 10, "an Image")
    assert (image.width, image.height, image.encoding) == (640, 480, "rgb8")
    assert (image.header.step, image.header.header.frame_id) == (1920, "camera")
    assert image.header.header.stamp_ns % 1_000_000_000 == 123_456_789
    assert np.array_equal(np.asarray(image.data).reshape(-1), PIXELS)

    cloud = recv_where(join("r/cloud").subscriber(), lambda m: True, 10, "a PointCloud2")
    h = cloud.header
    assert (h.height, h.width, h.point_step, h.row_step) == (1, 1000, 12, 12_000)
    assert (h.is_bigendian, h.is_dense, h.header.frame_id) == (0, 1, "lidar")
    assert h.header.stamp_ns % 1_000_000_000 == 123_456_789
    fields = [(f.name, f.offset, f.datatype, f.count) for f in h.fields[: h.fields_len]]
    assert fields == [("x", 0, 7, 1), ("y", 4, 7, 1), ("z", 8, 7, 1)]  # 7: FLOAT32
    data = np.asarray(cloud.data).reshape(-1)
    want = np.frombuffer(bytes(range(256)) * 46 + bytes(12 * 1000 % 256), np.uint8)
    assert np.array_equal(data, want)
    status = ros.bridge_status()
    assert status["imports"]["/r/image"]["type"] == "nerve/Image"


@pytest.mark.parametrize("pump", ["rcl", "python"])
def test_nerve_imu_and_image_reach_an_rclpy_subscriber(ros: Ros, pump: str) -> None:
    """Through the Rust pump publishing with rcl, and through the Python one (the fallback
    where rcl's library cannot be found)."""
    if pump == "python":
        ros.env["NERVE_ROS2_BRIDGE_PUMP"] = "python"
    imu_pub = nerve.Topic("n/imu", nerve.Imu).publisher()
    cam_pub = nerve.Topic("n/image", nerve.Image).publisher()
    ros.bridge()
    peer = ros.peer("--sub", "imu:/n/imu", "--sub", "image:/n/image")
    ros.wait_status(lambda s: {"n/imu", "n/image"} <= set(s.get("exports", {})), 30,
                    "two exports")
    imu = nerve.Imu()
    imu.header.stamp_ns = 5_000_000_123
    imu.header.frame_id = "imu_link"
    o, av, la = imu.orientation, imu.angular_velocity, imu.linear_acceleration
    o.x, o.y, o.z, o.w = 0.5, -0.5, 0.25, 0.75
    av.x, av.y, av.z = 1.0, 2.0, 2.5
    la.x, la.y, la.z = -9.81, 0.5, 1.5
    imu.orientation_covariance[:] = [k + 0.5 for k in range(9)]
    imu.angular_velocity_covariance[:] = [k * 2.0 for k in range(9)]
    imu.linear_acceleration_covariance[:] = [-k * 0.25 for k in range(9)]
    sent_fields = imu_fields(imu)
    import hashlib

    sha = hashlib.sha256(PIXELS.tobytes()).hexdigest()
    got: dict[str, dict[str, Any]] = {}
    end = time.monotonic() + 30
    while len(got) < 2 and time.monotonic() < end:
        imu_pub.send(imu)
        loan = cam_pub.loan_image(640, 480, "rgb8", stamp_ns=7_000_000_001, frame_id="camera")
        loan.data[:] = PIXELS.reshape(480, 640, 3)
        loan.send()
        time.sleep(0.05)
        for line in peer.poll_lines():
            if "got" in line:
                got[line["got"]] = line
    assert set(got) == {"/n/imu", "/n/image"}, f"received only {set(got)}"
    i = got["/n/imu"]
    assert (i["sec"], i["nanosec"], i["frame_id"]) == (5, 123, "imu_link")
    assert {k: i[k] for k in sent_fields} == sent_fields, "every field as sent"
    m = got["/n/image"]
    assert (m["width"], m["height"], m["encoding"], m["step"]) == (640, 480, "rgb8", 1920)
    assert (m["sec"], m["nanosec"], m["frame_id"]) == (7, 1, "camera")
    assert m["sha"] == sha


@pytest.mark.parametrize("pump", ["rcl", "python"])
def test_a_topic_bridged_both_ways_never_echoes(ros: Ros, pump: str) -> None:
    """ROS 2 and nerve both publish /both/imu: each side receives every message once."""
    if pump == "python":
        ros.env["NERVE_ROS2_BRIDGE_PUMP"] = "python"
    nerve_pub = nerve.Topic("both/imu", nerve.Imu).publisher()
    nerve_sub = nerve.Topic.join("both/imu").subscriber()
    ros.bridge()
    peer = ros.peer("--pub", "imu:/both/imu", "--sub", "imu:/both/imu", "--rate", "50",
                    "--side", "2")
    ros.wait_status(lambda s: "both/imu" in s.get("exports", {})
                    and "/both/imu" in s.get("imports", {}), 30, "both directions")
    time.sleep(1.0)
    in_nerve = []

    def drain() -> None:
        while (m := nerve_sub.try_recv()) is not None:
            in_nerve.append(m.header.stamp_ns // 1_000_000_000)

    for k in range(100):
        m = nerve.Imu()
        m.header.stamp_ns = (3000 + k) * 1_000_000_000
        nerve_pub.send(m)
        time.sleep(0.01)
        drain()
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        drain()
        time.sleep(0.01)
    in_ros = [line["sec"] for line in peer.poll_lines() if line.get("got") == "/both/imu"]
    # Each side got the other's messages...
    assert sum(1 for s in in_nerve if 2000 <= s < 3000) > 20, in_nerve
    assert sum(1 for s in in_ros if s >= 3000) >= 90, in_ros
    # ...and nothing twice: an echo would come back as a second copy.
    assert len(in_nerve) == len(set(in_nerve)), "a message reached nerve twice"
    assert len(in_ros) == len(set(in_ros)), "a message reached ROS 2 twice"


def test_services_both_ways(ros: Ros) -> None:
    server = nerve.Service("n/set").server(
        lambda req: {"success": not req["data"], "message": f"nerve got {req['data']}"})
    ros.bridge("--service", "n/set=std_srvs/srv/SetBool")
    peer = ros.peer("--serve", "/r/set", "--call", "/n/set")
    # rclpy → nerve
    reply = peer.wait_for(lambda d: d.get("reply") == "/n/set", 30, "rclpy calling nerve")
    assert reply == {"reply": "/n/set", "success": False, "message": "nerve got True"}
    # nerve → rclpy
    client = nerve.Service("r/set").client()
    assert client.wait_for_server(30.0), f"r/set never served: {ros.bridge_status()}"
    assert client.call({"data": True}, timeout=10.0) == {"success": True,
                                                         "message": "ros2 got True"}
    assert client.call({"data": False}, timeout=10.0)["success"] is False
    with pytest.raises(nerve.CallError, match="no field nope"):
        client.call({"nope": 1}, timeout=10.0)
    server.close()


def test_a_topic_nerve_cannot_carry_is_reported_skipped(ros: Ros, tmp_path: Path) -> None:
    script = tmp_path / "grid.py"
    script.write_text(
        "import rclpy, time\nfrom nav_msgs.msg import GridCells\nrclpy.init()\n"
        "n = rclpy.create_node('g')\np = n.create_publisher(GridCells, '/r/cells', 1)\n"
        "print('{\"ready\": true}', flush=True)\n"
        "while True:\n    p.publish(GridCells()); rclpy.spin_once(n, timeout_sec=0.1)\n")
    ros.start([str(script)], "grid").wait_for(lambda d: d.get("ready"), 30, "grid publisher")
    ros.bridge()
    s = ros.wait_status(lambda s: any("/r/cells" in k for k in s.get("skipped", {})), 30,
                        "the skipped topic")
    reason = next(v for k, v in s["skipped"].items() if "/r/cells" in k)
    assert "no standard type" in reason


def test_a_bridge_killed_with_kill_9_restarts_without_leftovers(ros: Ros) -> None:
    pub = nerve.Topic("k/imu", nerve.Imu).publisher()
    first = ros.bridge()
    peer = ros.peer("--sub", "imu:/k/imu")

    def flows(after_sec: int) -> None:
        end = time.monotonic() + 30
        k = after_sec
        while time.monotonic() < end:
            m = nerve.Imu()
            m.header.stamp_ns = k * 1_000_000_000
            pub.send(m)
            k += 1
            time.sleep(0.05)
            if any(line.get("sec", 0) >= after_sec for line in peer.poll_lines()
                   if line.get("got")):
                return
        pytest.fail(f"nothing after {after_sec} reached ROS 2: {ros.bridge_status()}")

    flows(100)
    first.p.kill()  # SIGKILL: no clean-up of its own
    first.p.wait()
    ros.status.unlink()
    ros.bridge()
    flows(10_000)
    [topic] = [t for t in nerve.topics() if t["name"] == "k/imu"]
    assert first.p.pid not in topic["pids"], topic
    assert topic["subscribers"] == 1, f"the dead bridge's reader is still counted: {topic}"


def test_the_cli_says_what_to_do_without_rclpy(nerve_cli: str) -> None:
    import sys

    env = dict(os.environ, NERVE_ROS2_PYTHON=sys.executable)
    r = subprocess.run([nerve_cli, "bridge", "ros2"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode != 0
    assert "cannot import rclpy" in r.stderr and "NERVE_ROS2_PYTHON" in r.stderr


def test_the_cli_helps_without_rclpy_and_says_how_to_get_nerve(nerve_cli: str) -> None:
    import sys

    env = dict(os.environ, NERVE_ROS2_PYTHON=sys.executable)
    r = subprocess.run([nerve_cli, "bridge", "ros2", "--help"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "--export" in r.stdout and "--import" in r.stdout
    # A Python without nerve: the error says nerve is not on PyPI and what to run instead.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["NERVE_ROS2_PYTHON"] = "/usr/bin/python3"
    r = subprocess.run([nerve_cli, "bridge", "ros2"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode != 0
    assert "not on PyPI" in r.stderr and "make ros2-env" in r.stderr, r.stderr


def test_bridge_status_and_doctor_show_the_ros2_bridge(ros: Ros, nerve_cli: str) -> None:
    t = nerve.Topic("st/imu", nerve.Imu)
    pub = t.publisher()
    pub.send(nerve.Imu())
    ros.bridge()
    ros.wait_status(lambda s: "st/imu" in s.get("exports", {}), 30, "the export")
    env = dict(ros.env)
    end = time.monotonic() + 10
    while True:
        r = subprocess.run([nerve_cli, "bridge", "status", "--json"], env=env,
                           capture_output=True, text=True, timeout=60)
        view = json.loads(r.stdout)["ros2"] if r.returncode == 0 else {}
        if "st/imu" in view.get("view", {}).get("exports", {}) or time.monotonic() > end:
            break
        time.sleep(0.2)
    assert view["alive"] and "st/imu" in view["view"]["exports"], (r.stdout, r.stderr)
    text = subprocess.run([nerve_cli, "bridge", "status"], env=env, capture_output=True,
                          text=True, timeout=60).stdout
    assert "ROS 2 bridge" in text and "st/imu" in text, text
    doctor = subprocess.run([nerve_cli, "doctor"], env=env, capture_output=True, text=True,
                            timeout=120).stdout
    assert "ROS 2 bridge (pid" in doctor, doctor
    # Not a topic of the user's: `topic list` leaves it out, `topic list -a` shows it.
    listed = subprocess.run([nerve_cli, "topic", "list"], env=env, capture_output=True,
                            text=True, timeout=60).stdout
    assert "nerve/bridge/ros2" not in listed and "st/imu" in listed, listed
    del pub


def test_latched_and_best_effort_publishers_keep_their_qos_in_nerve(ros: Ros) -> None:
    """A TRANSIENT_LOCAL publisher's messages, sent before the bridge started, reach a nerve
    subscriber joining after them (from the topic's history); a BEST_EFFORT publisher makes
    the nerve topic best_effort."""
    ros.peer("--pub", "imu:/l/imu", "--latched", "--count", "3", "--rate", "50")
    ros.peer("--pub", "imu:/be/imu", "--best-effort", "--rate", "20")
    time.sleep(0.5)  # the latched messages are all sent before the bridge exists
    ros.bridge()
    ros.wait_status(lambda s: {"/l/imu", "/be/imu"} <= set(s.get("imports", {})), 30,
                    "both imports")
    end = time.monotonic() + 10
    while ros.bridge_status()["imports"]["/l/imu"]["received"] < 3 and time.monotonic() < end:
        time.sleep(0.05)
    late = join("l/imu").subscriber(history=10)
    secs = []
    while (m := late.recv(1.0)) is not None:
        secs.append(m.header.stamp_ns // 1_000_000_000)
    assert secs == [1000, 1001, 1002], "the late subscriber gets the latched messages, in order"
    qos = {t["name"]: t["reliability"] for t in nerve.topics()}
    assert (qos["l/imu"], qos["be/imu"]) == ("reliable", "best_effort")


def test_garbage_from_ros2_is_counted_and_the_bridge_goes_on(ros: Ros, tmp_path: Path) -> None:
    """Bytes that are no Imu, published raw on an Imu topic, are refused and counted; the good
    messages between them still reach nerve and the bridge keeps running."""
    script = tmp_path / "garbage.py"
    script.write_text(
        "import rclpy\nfrom rclpy.serialization import serialize_message\n"
        "from sensor_msgs.msg import Imu\nrclpy.init()\n"
        "n = rclpy.create_node('g')\np = n.create_publisher(Imu, '/g/imu', 10)\n"
        "print('{\"ready\": true}', flush=True)\ni = 0\n"
        "while True:\n"
        "    p.publish(b'\\x00\\x01\\x00\\x00' + b'\\xff' * 7)\n"
        "    m = Imu(); m.header.stamp.sec = 5000 + i; m.orientation.w = 1.0\n"
        "    p.publish(serialize_message(m)); i += 1\n"
        "    rclpy.spin_once(n, timeout_sec=0.05)\n")
    ros.start([str(script)], "garbage").wait_for(lambda d: d.get("ready"), 30, "publisher")
    bridge = ros.bridge()
    s = ros.wait_status(lambda s: s.get("imports", {}).get("/g/imu", {}).get("failed", 0) > 2
                        and s["imports"]["/g/imu"].get("received", 0) > 2, 30,
                        "garbage refused and good messages through")
    assert s["imports"]["/g/imu"]["type"] == "nerve/Imu"
    got = recv_where(join("g/imu").subscriber(), lambda m: True, 10, "a good Imu")
    assert got.header.stamp_ns // 1_000_000_000 >= 5000 and got.orientation.w == 1.0
    assert bridge.p.poll() is None, "the bridge is still running"
    assert "not a sensor_msgs/msg/Imu" in bridge.log.read_text()
