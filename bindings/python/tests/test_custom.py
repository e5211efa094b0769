"""Message types declared in Python: Rust's layout and fingerprint, loud disagreements, and
messages as dicts."""

import json
import subprocess
import sys
from typing import Annotated

import nerve
import numpy as np
import pytest


@nerve.message("demo/WheelCmd")
class WheelCmd:
    """A wheel command (the Rust twin is `WheelCmd` in crates/nerve/examples/py_peer.rs)."""

    stamp_ns: nerve.u64
    speed: nerve.f64 = 0.5
    gains: Annotated[np.ndarray, nerve.array("f64", 3)]
    frame: Annotated[str, nerve.text(32)]
    pose: nerve.Pose


def test_a_python_type_shares_a_topic_with_its_rust_twin(domain, py_peer):
    # The same definition in Rust opens the same topics (a different fingerprint would be a
    # TypeMismatch there or here) and reads every field where Python wrote it.
    t_in = nerve.Topic("custom/in", WheelCmd, depth=4)
    t_out = nerve.Topic("custom/out", WheelCmd, depth=4)
    sub = t_out.subscriber()
    peer = subprocess.Popen([str(py_peer), "wheel", "custom/in", "custom/out"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert peer.stdout is not None
    assert peer.stdout.readline().strip() == "ready", peer.stderr.read() if peer.stderr else ""
    msg = WheelCmd(stamp_ns=42, speed=1.25, gains=[1.0, 2.0, 3.0], frame="left")
    msg.pose.position.x = 7.5
    t_in.publisher().send(msg)
    seen = json.loads(peer.stdout.readline())
    assert seen["stamp_ns"] == 42 and seen["speed"] == 1.25 and seen["frame"] == "left"
    assert seen["gains"] == [1.0, 2.0, 3.0]
    assert seen["pose"]["position"]["x"] == 7.5 and seen["pose"]["orientation"]["w"] == 1.0
    back = sub.recv(timeout=10)
    peer.wait(timeout=10)
    assert isinstance(back, WheelCmd)
    assert (back.speed, back.frame, back.stamp_ns) == (2.5, "rust", 42)
    assert back.pose.position.x == 7.5


def test_two_definitions_of_one_topic_fail_loudly_naming_the_field(domain):
    first = nerve.Topic("custom/wheel", WheelCmd)

    @nerve.message("demo/WheelCmd")
    class Narrowed:
        stamp_ns: nerve.u64
        speed: nerve.f32
        _pad0: nerve.u32
        gains: Annotated[np.ndarray, nerve.array("f64", 3)]
        frame: Annotated[str, nerve.text(32)]
        pose: nerve.Pose

    with pytest.raises(nerve.TypeMismatch) as e:
        nerve.Topic("custom/wheel", Narrowed)
    assert "custom/wheel" in str(e.value) and "speed" in str(e.value), str(e.value)
    assert first.publisher() is not None


def test_a_declaration_rust_would_pad_is_refused_naming_the_fix():
    with pytest.raises(ValueError, match=r"Bad\.b would start at byte 1.*_pad1: Annotated"):
        @nerve.message("demo/Bad")
        class Bad:
            a: nerve.u8
            b: nerve.f64

    with pytest.raises(ValueError, match=r"ends at byte 12.*_pad2: nerve\.u32"):
        @nerve.message("demo/Tail")
        class Tail:
            a: nerve.f64
            b: nerve.f32

    with pytest.raises(TypeError, match=r"Loose\.x: .*has no nerve layout"):
        @nerve.message("demo/Loose")
        class Loose:
            x: float


def test_defaults_nesting_and_dicts():
    w = WheelCmd()
    assert w.speed == 0.5 and w.pose.orientation.w == 1.0  # nested defaults kept
    with pytest.raises(TypeError, match="has no field .spede."):
        WheelCmd(spede=1.0)
    d = nerve.to_dict(w)
    assert set(d) == {"stamp_ns", "speed", "gains", "frame", "pose"}
    # Numeric arrays are views of the message's own bytes.
    d["gains"][1] = 9.0
    assert w.gains[1] == 9.0
    m = nerve.from_dict(WheelCmd, {"speed": 3.0, "pose": {"position": {"y": 2.0}},
                                   "gains": [1, 2, 3], "frame": "f"})
    assert (m.speed, m.pose.position.y, list(m.gains), m.frame) == (3.0, 2.0, [1, 2, 3], "f")
    with pytest.raises(TypeError, match=r"WheelCmd\.pose has no field 'postion'; its fields: "
                                        r"position, orientation"):
        nerve.from_dict(WheelCmd, {"pose": {"postion": {}}})
    with pytest.raises(OverflowError):
        nerve.from_dict(WheelCmd, {"stamp_ns": -1})


@nerve.message()
class TrackPoint:
    x: nerve.f32
    y: nerve.f32


@nerve.message("demo/Track", elem=TrackPoint)
class Track:
    stamp_ns: nerve.u64
    name: Annotated[str, nerve.text(24)]


def test_a_chunked_type_declared_in_python(domain):
    assert issubclass(Track, nerve.msgs._Chunked)
    t = nerve.Topic("custom/track", Track)
    sub = t.subscriber()
    pub = t.publisher()
    pub.send(nerve.from_dict(Track, {"name": "lap", "data": [{"x": 1.0, "y": 2.0},
                                                             {"x": 3.0, "y": 4.0}]}))
    got = sub.recv(timeout=5)
    assert got.header.name == "lap"
    assert got.data["x"].tolist() == [1.0, 3.0] and got.data["y"].tolist() == [2.0, 4.0]
    assert nerve.Topic.join("custom/track").type is Track


def test_hostile_declarations_and_descriptions_are_refused():
    with pytest.raises(ValueError, match=r"Huge is 2000000 bytes, above the 1048576"):
        @nerve.message("demo/Huge")
        class Huge:
            a: Annotated[np.ndarray, nerve.array("u8", 2_000_000)]

    with pytest.raises(ValueError, match="a length is an int > 0"):
        nerve.array("f64", 0)
    with pytest.raises(TypeError, match="unknown field kind"):
        nerve._nerve.declare("demo/K", "fixed", [("x", "f65")])
    with pytest.raises(ValueError, match="declared twice"):
        nerve._nerve.declare("demo/K", "fixed", [("x", "f64"), ("x", "f64")])
    with pytest.raises(ValueError, match="declares no fields"):
        nerve._nerve.declare("demo/K", "fixed", [])
    # Descriptions as another process may have damaged them: refused, never a crash.
    good = WheelCmd._nerve_doc_
    refused = 0
    for i in range(len(good)):
        bad = bytearray(good)
        bad[i] ^= 0x5A
        try:
            nerve.custom.from_description(bytes(bad), "Bad")
        except (ValueError, TypeError):
            refused += 1
    assert refused > 0
    with pytest.raises(ValueError, match="invalid type description"):
        nerve.custom.from_description(b"\x92\x00\x91", "Bad")


def test_joining_keeps_the_topic_joined_in_process_too(domain):
    home = nerve.Topic("custom/heap", nerve.CmdVel, in_process=True)
    joined = nerve.Topic.join("custom/heap")
    assert joined.path == "heap" and joined.type is nerve.CmdVel
    sub = home.subscriber()
    joined.publisher().send(nerve.CmdVel(linear=2.0))
    assert sub.recv(timeout=1).linear == 2.0
    dicts = nerve.Topic("custom/dicts", dict)
    dsub = dicts.subscriber(as_="dict")
    dicts.publisher().send({"a": 1})
    assert dsub.recv(timeout=1) == {"a": 1}


def test_a_subclass_cannot_lie_about_its_layout():
    class Lying(nerve.Imu):
        _nerve_spec_ = nerve.Time._nerve_spec_

    m = Lying()
    # The layout is Imu's (the class nerve built), whatever the attribute says.
    assert len(bytes(m)) == nerve.sizeof(nerve.Imu)
    assert m.orientation.w == 1.0
    m.linear_acceleration.z = 9.81
    assert nerve.Imu.from_bytes(bytes(m)).linear_acceleration.z == 9.81


def _description(n: int, align: int = 8, name: str = "S") -> bytes:
    """A description (the MessagePack form nerve writes) of a root nesting `n` structs."""
    msgpack = pytest.importorskip("msgpack")
    root = ["demo/Root", "Fixed", 8 * n, align,
            [[f"f{i}", {"Struct": i + 1}, 8 * i, False, "", ""] for i in range(n)], "", ""]
    nested = [[f"{name}{i}", "Struct", 8, 8, [["x", "U64", 0, False, "", ""]], "", ""]
              for i in range(n)]
    return msgpack.packb([0, [root, *nested]])


def test_descriptions_another_process_wrote_are_checked_before_classes_are_made():
    assert nerve.sizeof(nerve.custom.from_description(_description(2), "Root")) == 16
    with pytest.raises(ValueError, match="301 structs, at most 256"):
        nerve.custom.from_description(_description(300), "Root")
    with pytest.raises(ValueError, match="alignment 0"):
        nerve.custom.from_description(_description(2, align=0), "Root")
    with pytest.raises(ValueError, match="no class can have"):
        nerve.custom.from_description(_description(2, name="a\0b"), "Root")


def test_a_declaration_names_its_ros2_counterpart_in_its_description(domain):
    @nerve.message("demo/Level", ros2="std_msgs/msg/Float32")
    class Level:
        data: nerve.f32

    t = nerve.Topic("custom/level", Level)
    out = subprocess.run([sys.executable, "-c", (
        "import nerve, msgpack; "
        "d = msgpack.unpackb(nerve.Topic.join('custom/level')._raw.description); "
        "print(d[1][d[0]][6])")], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == "std_msgs/msg/Float32", out.stderr
    assert t.type is Level
    with pytest.raises(TypeError, match="not an array of them"):
        @nerve.message("demo/Bad", elem=nerve.array(TrackPoint, 3))
        class Bad:
            n: nerve.u32


def test_a_leading_slash_names_the_same_topic(domain):
    a = nerve.Topic("/custom/slash", nerve.CmdVel)
    sub = nerve.Topic("custom/slash", nerve.CmdVel).subscriber()
    a.publisher().send(nerve.CmdVel(linear=1.0))
    assert sub.recv(timeout=1).linear == 1.0
    assert nerve.Topic.join("/custom/slash").name == "custom/slash"
