"""The ROS 2 side of ``nerve-bench record``: what ``ros2 bag record`` does, in rclpy: a node
subscribed to every topic of the case with raw (serialized) delivery, writing each message's
CDR bytes into an MCAP file with the ``mcap`` writer (no deserialization), and a publisher of
the same workload as nerve's.

    record_ros2.py rec --case sensors --out FILE   # prints READY, then RECORDED n bytes 0
    record_ros2.py pub --case sensors --secs 10    # prints SENT n

The message definitions (``ros2msg`` schemas) are read from nerve-bag's generated table, the
same text ``nerve record`` writes. Both processes run Fast DDS with the large-message /
shared-memory profile (``ros2_env.py``; with the default one a 1080p frame goes over UDP), and
the recorder spins rclpy's fastest executor (``EventsExecutor``); ``READY`` names both."""

import argparse
import re
import signal
import sys
import time
from pathlib import Path

import ros2_env

ros2_env.configure()

import rclpy  # noqa: E402
from geometry_msgs.msg import Twist  # noqa: E402
from mcap.writer import CompressionType, Writer  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import Image, Imu, LaserScan  # noqa: E402

MANY = 1000
DEFS = Path(__file__).resolve().parents[2] / "bridges/ros2/src/defs.rs"


def topics(case: str) -> list[tuple[str, type, str]]:
    if case == "sensors":
        return [("rec/imu", Imu, "sensor_msgs/msg/Imu"),
                ("rec/scan", LaserScan, "sensor_msgs/msg/LaserScan"),
                ("rec/image", Image, "sensor_msgs/msg/Image")]
    return [(f"rec/t{i}", Twist, "geometry_msgs/msg/Twist") for i in range(MANY)]


def msgdef(name: str) -> str:
    text = DEFS.read_text()
    m = re.search(r'\("' + re.escape(name) + r'", "((?:[^"\\]|\\.)*)"\)', text)
    if m is None:
        raise SystemExit(f"no definition of {name} in {DEFS}")
    return m.group(1).encode().decode("unicode_escape")


# Reliable, as ROS 2 publishes and `ros2 bag` records by default (best effort drops most images).
QOS = QoSProfile(depth=256, reliability=ReliabilityPolicy.RELIABLE)


def rec(case: str, out: str) -> None:
    rclpy.init()
    node = Node("nerve_bench_rec")
    f = open(out, "wb")  # noqa: SIM115 (closed after the writer finishes)
    w = Writer(f, compression=CompressionType.NONE)  # as nerve's side: see record.rs
    w.start(profile="ros2", library="nerve-bench record peer")
    count = [0, 0]
    subs = []
    schemas: dict[str, int] = {}
    for topic, cls, name in topics(case):
        if name not in schemas:
            schemas[name] = w.register_schema(name=name, encoding="ros2msg",
                                              data=msgdef(name).encode())
        channel = w.register_channel(topic=topic, message_encoding="cdr",
                                     schema_id=schemas[name])

        def write(data: bytes, channel: int = channel) -> None:
            t = time.time_ns()
            w.add_message(channel_id=channel, log_time=t, data=data, publish_time=t)
            count[0] += 1
            count[1] += len(data)

        subs.append(node.create_subscription(cls, topic, write, QOS, raw=True))
    stop = [False]
    signal.signal(signal.SIGINT, lambda *_: stop.__setitem__(0, True))
    ex, name = ros2_env.executor()
    ex.add_node(node)
    print(f"READY {name}; {ros2_env.profile()}", flush=True)
    while not stop[0]:
        ex.spin_once(timeout_sec=0.05)
    w.finish()
    f.close()
    print(f"RECORDED {count[0]} {count[1]} 0", flush=True)


def pub(case: str, secs: int) -> None:
    rclpy.init()
    node = Node("nerve_bench_pub")
    pubs = {t: node.create_publisher(cls, t, QOS) for t, cls, _ in topics(case)}
    end = time.monotonic() + 30
    while any(p.get_subscription_count() == 0 for p in pubs.values()) and time.monotonic() < end:
        time.sleep(0.01)
    sent = 0
    start = time.monotonic()
    if case == "sensors":
        imu, scan, image = Imu(), LaserScan(), Image()
        scan.ranges = [2.5] * 360
        image.height, image.width, image.encoding, image.step = 1080, 1920, "rgb8", 1920 * 3
        image.data = bytes(1920 * 1080 * 3)
        for i in range(secs * 1000):
            now = time.time_ns()
            imu.header.stamp.sec, imu.header.stamp.nanosec = divmod(now, 10**9)
            pubs["rec/imu"].publish(imu)
            sent += 1
            if i % 100 == 0:
                pubs["rec/scan"].publish(scan)
                sent += 1
            if i * 30 // 1000 != (i + 1) * 30 // 1000:
                pubs["rec/image"].publish(image)
                sent += 1
            delay = start + (i + 1) / 1000 - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    else:
        msg = Twist()
        for r in range(secs * 10):
            for p in pubs.values():
                p.publish(msg)
                sent += 1
            delay = start + (r + 1) / 10 - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    print(f"SENT {sent}", flush=True)
    node.destroy_node()
    rclpy.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=["rec", "pub"])
    ap.add_argument("--case", default="sensors")
    ap.add_argument("--out", default="ros2.mcap")
    ap.add_argument("--secs", type=int, default=10)
    a = ap.parse_args()
    if a.role == "rec":
        rec(a.case, a.out)
    else:
        pub(a.case, a.secs)


if __name__ == "__main__":
    sys.exit(main())
