"""Recordings read by the reference readers of MCAP: `nerve record` of every standard message
(published from Rust), of standard messages published from Python and of a type declared in
Python, read back with the `mcap` reader, its
ROS 2 decoder (`mcap-ros2-support`) and `rosbags`, field by field."""

import json
import math
import os
import signal
import subprocess
import time
from typing import Annotated, Any

import nerve
import numpy as np
import pytest

WHY = "installed by bindings/python/dev.sh"
mcap_reader = pytest.importorskip("mcap.reader", reason=f"mcap is {WHY}")
mcap_ros2 = pytest.importorskip("mcap_ros2.decoder", reason=f"mcap-ros2-support is {WHY}")
typesys = pytest.importorskip("rosbags.typesys", reason=f"rosbags is {WHY}")

# Standard types without a ROS 2 counterpart: nerve's own encoding.
NATIVE = {"Heartbeat", "Tensor"}


def shaped(short: str, ros: dict[str, Any], ours: dict[str, Any]) -> int:
    """The types whose ROS 2 form is shaped differently (docs/messages.md): their own checks.
    Returns how many values were compared."""
    data = ours.get("data", [])
    if short == "JointState":
        assert ros["position"] == pytest.approx([s["position"] for s in data])
        return len(data)
    if short == "BatteryState":
        cells = ros["cell_voltage"]
        assert len(cells) == ours["cell_count"]
        assert min(cells) == pytest.approx(ours["cell_voltage_min"])
        assert max(cells) == pytest.approx(ours["cell_voltage_max"])
        return 3
    if short == "PointCloud":
        names = [f["name"] for f in ros["fields"]]
        assert names[:3] == ["x", "y", "z"] and ros["row_step"] == ours["width"] * ours[
            "point_step"]
        assert ros["data"] == data
        return 3
    if short == "DiagnosticArray":
        statuses = [e for e in data if e["kind"] == "status"]
        assert [s["name"] for s in ros["status"]] == [s["name"] for s in statuses]
        values = [e for e in data if e["kind"] == "value"]
        got = [kv["key"] for s in ros["status"] for kv in s["values"]]
        assert got == [v["name"] for v in values]
        return len(statuses) + len(values)
    if short in ("BoundingBox2D", "Detection2D"):
        box, rbox = (ours, ros) if short == "BoundingBox2D" else (ours["bbox"], ros["bbox"])
        assert rbox["center"]["position"]["x"] == pytest.approx(box["center_x"])
        assert rbox["center"]["theta"] == pytest.approx(box["theta"])
        return 2
    if short == "Marker":
        assert len(ros["points"]) == len(data)
        assert ros["points"][0]["x"] == pytest.approx(data[0]["point"]["x"])
        assert ros["type"] != 0 or ours["marker_type"] == "arrow"
        return len(data)
    return 0


@nerve.message("bagtest/Gripper")
class Gripper:
    """Declared only here: recorded with its own description."""

    stamp_ns: nerve.u64
    width: nerve.f64
    force: nerve.f32
    closed: nerve.bool_
    _pad: Annotated[bytes, nerve.array("u8", 3)]


def plain(m: Any) -> Any:
    """A decoded ROS 2 message as dicts and lists."""
    if hasattr(m, "__slots__"):
        return {k: plain(getattr(m, k)) for k in m.__slots__}
    if isinstance(m, (list, tuple)):
        return [plain(x) for x in m]
    if isinstance(m, (bytes, bytearray)):
        return list(m)
    return m


def same(ros: Any, ours: Any) -> bool:
    if isinstance(ros, bool):
        return ros == bool(ours)
    if isinstance(ros, str) and isinstance(ours, list):
        return ros == bytes(ours).decode()
    if isinstance(ros, float) or isinstance(ours, float):
        return math.isclose(float(ros), float(ours), rel_tol=1e-6, abs_tol=1e-6)
    if isinstance(ours, str) and not isinstance(ros, str):
        return True  # a code: its name on nerve's side, its value on ROS 2's
    return ros == ours


def compare(ros: Any, ours: Any, path: str, out: list[str]) -> int:
    """Every ROS 2 leaf whose path nerve has (or `x` for nerve's `x_ns`): the values agree.
    Returns how many leaves were compared; differences go to `out`."""
    if isinstance(ros, dict) and isinstance(ours, dict):
        n = 0
        for k, x in ros.items():
            if k in ours:
                n += compare(x, ours[k], f"{path}.{k}", out)
            elif f"{k}_ns" in ours and isinstance(x, dict):
                n += 1
                if x["sec"] * 10**9 + x["nanosec"] != ours[f"{k}_ns"]:
                    out.append(f"{path}.{k}: {x} != {ours[k + '_ns']} ns")
        return n
    if isinstance(ros, list) and isinstance(ours, list) and not isinstance(ros, str):
        pairs = enumerate(zip(ros, ours, strict=False))
        return sum(compare(x, y, f"{path}[{i}]", out) for i, (x, y) in pairs)
    if isinstance(ros, dict) or isinstance(ours, dict):
        return 0  # a field that moved (CmdVel's linear is Twist's linear.x): checked apart
    if not same(ros, ours):
        out.append(f"{path}: {ros!r} != {ours!r}")
    return 1


def test_standard_messages_are_read_by_the_ros2_readers(domain, py_peer, nerve_cli, tmp_path):
    path = tmp_path / "standard.mcap"
    rec = subprocess.Popen([nerve_cli, "record", "-a", "-o", str(path)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    peer = subprocess.Popen([str(py_peer), "standard", "rs"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = {}
    assert peer.stdout is not None
    for line in peer.stdout:
        if line.strip() == "done":
            break
        s = json.loads(line)
        samples[s["topic"]] = s
    gripper = nerve.Topic("rs/gripper", Gripper).publisher()
    gripper.send(Gripper(stamp_ns=5, width=0.07, force=2.5, closed=1))
    # Standard types from a Python publisher: a fixed one and an image loaned from the chunk.
    py_imu = nerve.Imu()
    py_imu.header.stamp_ns = 1_700_000_000_123_456_789
    py_imu.angular_velocity.z = 0.25
    py_imu.linear_acceleration.x = -9.81
    imu_pub = nerve.Topic("py/imu", nerve.Imu).publisher()
    imu_pub.send(py_imu)
    image_pub = nerve.Topic("py/image", nerve.Image).publisher()
    loan = image_pub.loan_image(6, 4, "mono8", stamp_ns=42, frame_id="cam")
    loan.data[:] = np.arange(24, dtype=np.uint8).reshape(4, 6)
    loan.send()
    time.sleep(1.0)
    rec.send_signal(signal.SIGINT)
    out, err = rec.communicate(timeout=20)
    peer.communicate("", timeout=10)
    assert rec.returncode == 0, err
    assert ", 0 lost," in out, out

    store = typesys.get_typestore(typesys.Stores.ROS2_HUMBLE)
    factory = mcap_ros2.DecoderFactory()
    seen, native, problems, from_python = set(), set(), [], {}
    with open(path, "rb") as f:
        for schema, channel, message in mcap_reader.make_reader(f).iter_messages():
            short = channel.topic.rsplit("/", 1)[-1]
            seen.add(channel.topic)
            if channel.topic.startswith("py/"):
                assert (channel.message_encoding, schema.encoding) == ("cdr", "ros2msg")
                from_python[channel.topic] = factory.decoder_for("cdr", schema)(message.data)
                continue
            assert channel.metadata["nerve.type"], channel.topic
            if channel.message_encoding != "cdr":
                native.add(short)
                assert schema.encoding == "nerve.description"
                continue
            assert schema.encoding == "ros2msg"
            ros = plain(factory.decoder_for("cdr", schema)(message.data))
            if short == "CameraInfo":
                model = samples[channel.topic]["value"]["distortion_model"]
                assert ros["distortion_model"] == ("" if model == "none" else model)
            # rosbags decodes the same bytes with its own definitions (its store has no
            # vision_msgs).
            if not schema.name.startswith("vision_msgs/"):
                store.deserialize_cdr(message.data, schema.name)
            ours = samples[channel.topic]["value"]
            n = compare(ros, ours, short, problems) + shaped(short, ros, ours)
            if short == "CmdVel":
                assert (ros["linear"]["x"], ros["angular"]["z"]) == (
                    pytest.approx(ours["linear"]), pytest.approx(ours["angular"]))
                n = 2
            elif short in ("Time", "Clock"):
                t = ros if short == "Time" else ros["clock"]
                ns = ours["ns"] if short == "Time" else ours["sim_ns"]
                assert t["sec"] * 10**9 + t["nanosec"] == ns
                n = 1
            elif short in ("Polygon", "TFMessage"):
                items = ros["points"] if short == "Polygon" else ros["transforms"]
                assert len(items) == len(ours["data"]) > 0
                n = sum(compare(x, y, short, problems)
                        for x, y in zip(items, ours["data"], strict=True))
            assert n > 0, f"{short}: no field compared"
    assert problems == []
    assert {f"rs/{s.rsplit('/', 1)[-1]}" for s in samples} | {"rs/gripper"} <= seen
    assert native == NATIVE | {"gripper"}, native
    imu, image = from_python["py/imu"], from_python["py/image"]
    assert (imu.header.stamp.sec, imu.header.stamp.nanosec) == (1_700_000_000, 123_456_789)
    assert (imu.angular_velocity.z, imu.linear_acceleration.x) == (0.25, -9.81)
    assert (image.width, image.height, image.encoding, image.step) == (6, 4, "mono8", 6)
    assert (image.header.frame_id, image.header.stamp.nanosec) == ("cam", 42)
    assert bytes(image.data) == bytes(range(24))
    info = subprocess.run([nerve_cli, "bag", "info", str(path)], capture_output=True, text=True,
                          check=True).stdout
    assert "sensor_msgs/msg/Imu" in info and "bagtest/Gripper" in info, info

    # nerve.bag.Reader: every message typed, as nerve's classes (from ROS 2 encodings too).
    typed = {m.topic: m.message for m in nerve.bag.Reader(path)}
    for topic in samples:
        short = topic.rsplit("/", 1)[-1]
        cls = nerve.msgs.CHUNKED.get(short) or nerve.msgs.STRUCTS[short]
        assert isinstance(typed[topic], cls), (topic, type(typed[topic]))
    g = typed["rs/gripper"]
    assert isinstance(g, Gripper) and (g.width, g.force, g.closed) == (0.07, 2.5, 1)
    imu = typed["rs/Imu"]
    ours = samples["rs/Imu"]["value"]
    assert imu.angular_velocity.z == ours["angular_velocity"]["z"]
    assert imu.header.stamp_ns == ours["header"]["stamp_ns"]
    assert imu.header.seq == 0, "ROS 2 has no seq"
    os.remove(path)


def test_writer_and_reader_round_trip_without_a_graph(tmp_path):
    path = tmp_path / "w.mcap"
    imu = nerve.Imu()
    imu.header.stamp_ns = 1_500
    imu.header.frame_id = "imu_link"
    imu.angular_velocity.z = 0.25
    scan = nerve.LaserScan(nerve.LaserScanHeader(range_max=30.0),
                           np.arange(360, dtype=np.float32) * 0.5)
    with nerve.bag.Writer(path, compression="lz4") as w:
        w.write("imu", imu, log_time_ns=10)
        w.write("scan", scan, log_time_ns=20)
        w.write("status", {"mode": "auto", "ok": True}, log_time_ns=30)
        w.write("gripper", Gripper(stamp_ns=3, width=0.02, force=1.0, closed=0), log_time_ns=40)
        with pytest.raises(TypeError, match="not a nerve message"):
            w.write("x", object())
    got = list(nerve.bag.Reader(path))
    assert [(m.topic, m.log_time_ns) for m in got] == [
        ("imu", 10), ("scan", 20), ("status", 30), ("gripper", 40)]
    r_imu, r_scan, r_status, r_gripper = (m.message for m in got)
    assert (r_imu.header.stamp_ns, r_imu.header.frame_id, r_imu.angular_velocity.z) == (
        1_500, "imu_link", 0.25)
    assert r_scan.header.range_max == 30.0 and np.array_equal(r_scan.data, scan.data)
    assert r_status == {"mode": "auto", "ok": True}
    assert isinstance(r_gripper, Gripper) and r_gripper.width == 0.02
    # The standard ones as ROS 2, readable by ROS 2's readers.
    with open(path, "rb") as f:
        schemas = {c.topic: s.name for s, c, _m in mcap_reader.make_reader(f).iter_messages()}
    assert schemas["imu"] == "sensor_msgs/msg/Imu"
    assert schemas["scan"] == "sensor_msgs/msg/LaserScan"
    with pytest.raises(OSError):
        nerve.bag.Reader(tmp_path / "nosuch.mcap")
    (tmp_path / "junk.mcap").write_bytes(b"junk")
    with pytest.raises(ValueError, match="not an MCAP file"):
        nerve.bag.Reader(tmp_path / "junk.mcap")
