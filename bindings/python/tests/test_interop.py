"""Every standard message crosses between Rust and Python both ways, filled with non-default
values, and is compared field by field with what the generic decoder (no compiled type) reads;
a type declared only in Python is read by Rust's generic decoder and by another Python process
as a typed object."""

import json
import subprocess
import sys
from typing import Any

import nerve
import numpy as np
import pytest


def plain(x: Any) -> Any:
    """A message's dict (``nerve.to_dict``) as JSON values: arrays as lists, records as dicts
    without padding, text as str."""
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        if x.dtype.names:
            return [plain(r) for r in x]
        return [plain(v) for v in x.ravel().tolist()]
    if isinstance(x, np.void) and x.dtype.names:
        return {n: plain(x[n]) for n in x.dtype.names if not n.startswith("_pad")}
    if isinstance(x, bytes):
        return x.rstrip(b"\0").decode()
    if isinstance(x, np.generic):
        return plain(x.item())
    if isinstance(x, bool):
        return int(x)
    return x


def diff(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, by field path."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}.{k}: missing on one side" for k in set(a) ^ set(b)]
        for k in set(a) & set(b):
            out += diff(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


@pytest.fixture
def rust_standard(domain, py_peer):
    """`py_peer standard rs`: every standard message published from Rust, as JSON lines."""
    peer = subprocess.Popen([str(py_peer), "standard", "rs"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = []
    assert peer.stdout is not None
    for line in peer.stdout:
        if line.strip() == "done":
            break
        samples.append(json.loads(line))
    else:
        pytest.fail(f"py_peer standard: {peer.stderr.read() if peer.stderr else ''}")
    yield samples
    peer.communicate("", timeout=10)


def test_every_standard_message_from_rust_is_received_typed_in_python(rust_standard):
    fixed = {n for n, c in nerve.msgs.STRUCTS.items() if hasattr(c, "_nerve_type_")}
    sent = {s["type"].rsplit("/", 1)[-1] for s in rust_standard}
    assert sent == fixed | set(nerve.msgs.CHUNKED), "every standard message is published"
    for sample in rust_standard:
        short = sample["type"].rsplit("/", 1)[-1]
        topic = nerve.Topic.join(sample["topic"])
        expected = nerve.msgs.CHUNKED.get(short) or nerve.msgs.STRUCTS[short]
        assert topic.type is expected, sample["type"]
        msg = topic.subscriber(history=1).recv(timeout=5)
        assert isinstance(msg, expected), sample["type"]
        got = plain(nerve.to_dict(msg))
        if nerve.MESSAGE_TYPES[short][2] == "u8":
            # Bytes viewed by encoding or point format in Python, as bytes by the decoder.
            got["data"] = np.ascontiguousarray(msg.data).view(np.uint8).ravel().tolist()
        assert diff(got, sample["raw"]) == [], (sample["type"], diff(got, sample["raw"]))


def test_every_standard_message_from_python_is_decoded_by_rust(rust_standard, py_peer):
    topics, keep = [], []
    for sample in rust_standard:
        short = sample["type"].rsplit("/", 1)[-1]
        cls = nerve.msgs.CHUNKED.get(short) or nerve.msgs.STRUCTS[short]
        name = f"py/{short}"
        t = nerve.Topic(name, cls, depth=2)
        pub = t.publisher()
        pub.send(nerve.from_dict(cls, sample["raw"]))
        keep.append((t, pub))
        topics.append((name, sample))
    out = subprocess.run([str(py_peer), "values", *(n for n, _ in topics)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [d["topic"] for d in lines] == [n for n, _ in topics]
    for d, (_name, sample) in zip(lines, topics, strict=True):
        # Rust reads what Python sent as it reads what Rust sent (code names included).
        assert diff(d["value"], sample["value"]) == [], (sample["type"],
                                                         diff(d["value"], sample["value"]))


def test_joining_a_topic_that_does_not_exist_is_not_found(domain):
    with pytest.raises(nerve.NotFound, match="interop/none"):
        nerve.Topic.join("interop/none")


PYTHON_ONLY = """
import sys
from typing import Annotated
import numpy as np
import nerve

@nerve.message("demo/OnlyPython")
class Reading:
    stamp_ns: nerve.u64
    values: Annotated[np.ndarray, nerve.array("f32", 4)]
    sensor: Annotated[str, nerve.text(16)]
    ok: nerve.bool_
    _pad0: nerve.u8
    level: nerve.i16
    _pad1: nerve.u32
"""


def test_a_type_declared_only_in_python_is_read_by_rust_and_another_python(domain, py_peer):
    ns: dict[str, Any] = {}
    exec(PYTHON_ONLY, ns)
    reading = ns["Reading"]
    t = nerve.Topic("interop/only", reading, depth=2)
    pub = t.publisher()
    msg = reading(stamp_ns=7, values=[0.5, 1.5, 2.5, -1.0], sensor="lidar", ok=True, level=-3)
    pub.send(msg)
    # Rust, with no compiled type: the generic decoder, from the description the topic carries.
    out = subprocess.run([str(py_peer), "values", "interop/only"], capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    value = json.loads(out.stdout)["value"]
    assert value == {"stamp_ns": 7, "values": [0.5, 1.5, 2.5, -1.0], "sensor": "lidar",
                     "ok": True, "level": -3}
    # Another Python process that never declared it: a typed object from the description.
    code = """
import json, nerve
t = nerve.Topic.join("interop/only")
m = t.subscriber(history=1).recv(timeout=5)
d = nerve.to_dict(m)
d["values"] = d["values"].tolist()
print(type(m).__name__, isinstance(m, nerve.Struct), json.dumps(d))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    name, typed, d = r.stdout.split(" ", 2)
    assert (name, typed) == ("OnlyPython", "True")
    assert json.loads(d) == {"stamp_ns": 7, "values": [0.5, 1.5, 2.5, -1.0], "sensor": "lidar",
                             "ok": True, "level": -3}
