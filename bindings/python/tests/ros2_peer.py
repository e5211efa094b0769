"""A plain rclpy node the ROS 2 bridge tests talk to (run by ROS 2's Python, not nerve's).

Each option starts one role; the node prints one JSON line per event on stdout:
``{"ready": true}`` once everything is created, ``{"got": topic, ...fields}`` per message
received, ``{"reply": service, ...}`` per answered call.

    ros2_peer.py --pub imu:/r/imu --pub image:/r/image --pub cloud:/r/cloud --rate 20
    ros2_peer.py --sub imu:/n/imu --sub image:/n/image
    ros2_peer.py --serve /r/set --call /n/set
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from typing import Any

import rclpy
from geometry_msgs.msg import TransformStamped  # noqa: F401  (the package must import)
from rclpy.executors import ExternalShutdownException
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros2_fields import imu_fields
from sensor_msgs.msg import Image, Imu, PointCloud2, PointField
from std_srvs.srv import SetBool

WIDTH, HEIGHT = 640, 480
CLOUD_POINTS = 1000


def pixels() -> bytes:
    """The test image: rgb8, byte i = (i * 7) % 251."""
    return bytes((i * 7) % 251 for i in range(WIDTH * HEIGHT * 3))


def make(kind: str, i: int, side: int = 1) -> Any:
    """Message `i` of a kind; `side` marks who published it (stamp.sec = side * 1000 + i)."""
    if kind == "imu":
        # Every field set, each to its own value (IMU_FIELDS).
        m = Imu()
        m.header.frame_id = "imu_link"
        m.orientation.x, m.orientation.y, m.orientation.z, m.orientation.w = 0.1, 0.2, 0.3, 0.9
        m.angular_velocity.x, m.angular_velocity.y = 1.5, -2.5
        m.angular_velocity.z = 0.5 + i
        m.linear_acceleration.x, m.linear_acceleration.y = -9.81, 0.25
        m.linear_acceleration.z = 4.75
        for k in range(9):
            m.orientation_covariance[k] = -1.0 if k == 0 else k * 0.5
            m.angular_velocity_covariance[k] = 10 + k * 0.25
            m.linear_acceleration_covariance[k] = 20 + k * 0.125
    elif kind == "image":
        m = Image()
        m.header.frame_id = "camera"
        m.width, m.height, m.encoding, m.step = WIDTH, HEIGHT, "rgb8", WIDTH * 3
        m.data = PIXELS
    elif kind == "cloud":
        m = PointCloud2()
        m.header.frame_id = "lidar"
        m.height, m.width = 1, CLOUD_POINTS
        m.fields = [PointField(name=n, offset=4 * k, datatype=PointField.FLOAT32, count=1)
                    for k, n in enumerate("xyz")]
        m.point_step, m.row_step = 12, 12 * CLOUD_POINTS
        m.is_dense = True
        m.data = bytes(range(256)) * (12 * CLOUD_POINTS // 256) + bytes(12 * CLOUD_POINTS % 256)
    else:
        raise SystemExit(f"unknown kind {kind}")
    m.header.stamp.sec = side * 1000 + i
    m.header.stamp.nanosec = 123_456_789
    return m


def describe(kind: str, m: Any) -> dict[str, Any]:
    """What the tests compare of a received message."""
    d: dict[str, Any] = {"sec": m.header.stamp.sec, "nanosec": m.header.stamp.nanosec,
                         "frame_id": m.header.frame_id}
    if kind == "imu":
        d |= imu_fields(m)
    elif kind == "image":
        d |= {"width": m.width, "height": m.height, "encoding": m.encoding, "step": m.step,
              "sha": hashlib.sha256(bytes(m.data)).hexdigest()}
    elif kind == "cloud":
        d |= {"width": m.width, "point_step": m.point_step, "fields": [f.name for f in m.fields],
              "sha": hashlib.sha256(bytes(m.data)).hexdigest()}
    return d


CLASSES = {"imu": Imu, "image": Image, "cloud": PointCloud2}
PIXELS = pixels()


def emit(**d: Any) -> None:
    print(json.dumps(d), flush=True)


def loop(a: argparse.Namespace, node: Any, pubs: list[tuple[str, Any]], client: Any) -> None:
    end = time.monotonic() + a.duration
    period = 1.0 / a.rate
    next_pub, i, calling = time.monotonic(), 0, None
    while rclpy.ok() and time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=min(period, 0.05))
        now = time.monotonic()
        if pubs and now >= next_pub and (a.count == 0 or i < a.count):
            for kind, pub in pubs:
                pub.publish(make(kind, i, a.side))
            i += 1
            next_pub = now + period
        if client is not None and calling is None and client.service_is_ready():
            calling = client.call_async(SetBool.Request(data=True))
        if calling is not None and calling.done():
            r = calling.result()
            emit(reply=a.call, success=r.success, message=r.message)
            client, calling = None, None


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--pub", action="append", default=[], help="KIND:TOPIC")
    p.add_argument("--sub", action="append", default=[], help="KIND:TOPIC")
    p.add_argument("--serve", help="a SetBool service answering success=data")
    p.add_argument("--call", help="a SetBool service to call (data=True) once it is there")
    p.add_argument("--rate", type=float, default=20.0)
    p.add_argument("--count", type=int, default=0, help="publish this many, then keep spinning")
    p.add_argument("--side", type=int, default=1)
    p.add_argument("--best-effort", action="store_true")
    p.add_argument("--latched", action="store_true", help="TRANSIENT_LOCAL publishers")
    p.add_argument("--duration", type=float, default=60.0)
    a = p.parse_args()

    rclpy.init()
    node = rclpy.create_node("ros2_peer")
    qos = QoSProfile(depth=10)
    if a.best_effort:
        qos.reliability = ReliabilityPolicy.BEST_EFFORT
    if a.latched:
        qos.durability = DurabilityPolicy.TRANSIENT_LOCAL
    pubs = []
    for spec in a.pub:
        kind, topic = spec.split(":")
        pubs.append((kind, node.create_publisher(CLASSES[kind], topic, qos)))
    for spec in a.sub:
        kind, topic = spec.split(":")

        def on(m: Any, kind: str = kind, topic: str = topic) -> None:
            emit(got=topic, **describe(kind, m))

        node.create_subscription(CLASSES[kind], topic, on, QoSProfile(depth=50))
    if a.serve:
        def serve(req: Any, resp: Any) -> Any:
            resp.success = bool(req.data)
            resp.message = f"ros2 got {req.data}"
            return resp

        node.create_service(SetBool, a.serve, serve)
    client = node.create_client(SetBool, a.call) if a.call else None
    emit(ready=True)

    try:
        loop(a, node, pubs, client)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    node.destroy_node()
    rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
