"""The ROS 2 side of `nerve-bench ros2` (run in ROS 2's Python, the ros2 peer venv).

Two roles:

- ``echo``: an rclpy node that answers ``/direct/<k>/a`` on ``/direct/<k>/b`` and
  ``/nrn/<k>/a`` on ``/nrn/<k>/b`` (the message taken and published again, as an rclpy
  application does), for k in ``b16``, ``b1k``, ``image``.
- ``ping``: an rclpy node that reads commands on stdin, ``PING <path> <k> <n>``, publishes
  on ``/<path>/<k>/a`` and spins until the same message is back on ``/<path>/<k>/b``, ``n`` times,
  and prints ``RESULT <path> <k> <json list of round trips in ns>``. Paths: ``direct`` (the
  echo node answers) and ``rnr`` (the bridge carries it into nerve, where nerve-bench's echo
  answers, and back).

Messages: ``std_msgs/UInt8MultiArray`` with 16 or 1024 bytes of data, ``sensor_msgs/Image``
640×480 rgb8; the first four data bytes (an image: its stamp) carry the sequence number.
"""

from __future__ import annotations

import array
import json
import sys
import time
from typing import Any

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image
from std_msgs.msg import UInt8MultiArray

KINDS = ("b16", "b1k", "image")
QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)


def cls_of(kind: str) -> Any:
    return Image if kind == "image" else UInt8MultiArray


def make(kind: str) -> Any:
    if kind == "image":
        m = Image()
        m.width, m.height, m.encoding, m.step = 640, 480, "rgb8", 1920
        m.data = bytes(640 * 480 * 3)
        return m
    m = UInt8MultiArray()
    m.data = bytes(16 if kind == "b16" else 1024)
    return m


def set_seq(kind: str, m: Any, seq: int) -> None:
    if kind == "image":
        m.header.stamp.sec = seq
    else:
        m.data[0:4] = array.array("B", seq.to_bytes(4, "little"))


def seq_of(kind: str, m: Any) -> int:
    if kind == "image":
        return int(m.header.stamp.sec)
    return int.from_bytes(bytes(m.data[0:4]), "little")


def executor() -> Any:
    """rclpy's fastest executor here (EventsExecutor; else the single-threaded one)."""
    try:
        from rclpy.experimental import EventsExecutor

        return EventsExecutor()
    except ImportError:
        from rclpy.executors import SingleThreadedExecutor

        return SingleThreadedExecutor()


def echo() -> None:
    node = rclpy.create_node("bench_echo")
    keep = []
    for path in ("direct", "nrn"):
        for k in KINDS:
            pub = node.create_publisher(cls_of(k), f"/{path}/{k}/b", QOS)
            keep.append(node.create_subscription(cls_of(k), f"/{path}/{k}/a",
                                                 lambda m, pub=pub: pub.publish(m), QOS))
    ex = executor()
    ex.add_node(node)
    print("READY", flush=True)
    # spin_once in a loop: EventsExecutor.spin() delivered nothing here (rclpy 9.1).
    while rclpy.ok():
        ex.spin_once(timeout_sec=0.1)


def ping() -> None:
    """Publishes, then spins this thread until the answer is in (no hand-over between
    threads: the shortest an rclpy round trip gets)."""
    node = rclpy.create_node("bench_ping")
    pubs, got = {}, {}
    for path in ("direct", "rnr"):
        for k in KINDS:
            pubs[(path, k)] = node.create_publisher(cls_of(k), f"/{path}/{k}/a", QOS)

            def on(m: Any, key: tuple[str, str] = (path, k)) -> None:
                got[key] = seq_of(key[1], m)

            node.create_subscription(cls_of(k), f"/{path}/{k}/b", on, QOS)
    ex = executor()
    ex.add_node(node)
    print("READY", flush=True)
    seq = 1
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] != "PING":
            continue
        path, k, n = words[1], words[2], int(words[3])
        key, msg, pub, rtts = (path, k), make(k), pubs[(path, k)], []
        deadline = time.monotonic() + 60.0
        while len(rtts) < n and time.monotonic() < deadline:
            seq += 1
            set_seq(k, msg, seq)
            t0 = time.perf_counter_ns()
            pub.publish(msg)
            give_up = time.monotonic() + 2.0
            while got.get(key) != seq and time.monotonic() < give_up:
                ex.spin_once(timeout_sec=0.1)
            if got.get(key) == seq:
                rtts.append(time.perf_counter_ns() - t0)
            # a lost round trip (the first ones, while matching) is retried
        print(f"RESULT {path} {k} {json.dumps(rtts)}", flush=True)


def main() -> int:
    rclpy.init()
    role = sys.argv[1] if len(sys.argv) > 1 else ""
    try:
        if role == "echo":
            echo()
        elif role == "ping":
            ping()
        else:
            print("usage: ros2_bridge_bench.py echo|ping", file=sys.stderr)
            return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
