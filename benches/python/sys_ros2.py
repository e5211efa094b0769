"""ROS 2 (PyPI ros-rclpy + ros-rmw-fastrtps-cpp, Fast DDS): geometry_msgs/Twist as the CmdVel
equivalent, sensor_msgs/Imu, std_msgs/UInt8MultiArray carrying MessagePack for dicts,
sensor_msgs/Image for images; default QoS (reliable, keep last 10). Receive through an executor:
``PYBENCH_VARIANT=events`` (rclpy.experimental.EventsExecutor) or ``single`` (the default
SingleThreadedExecutor); poll = ``spin_once(timeout_sec=0)`` in a loop, blocking =
``spin_once(timeout_sec=…)``. Fast DDS runs with the large-message / shared-memory profile
(``ros2_env.py``), in every rclpy process alike; rows say which profile and executor ran. Runs
in its own venv (the ROS .pth re-executes interpreters)."""

from __future__ import annotations

import array
import os
import time

import ros2_env

ros2_env.configure()
os.environ.setdefault("ROS_LOCALHOST_ONLY", "1")
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import msgpack  # noqa: E402
import numpy as np  # noqa: E402
import rclpy  # noqa: E402
from geometry_msgs.msg import Pose2D, Twist  # noqa: E402
from sensor_msgs.msg import Image, Imu  # noqa: E402
from std_msgs.msg import UInt8MultiArray  # noqa: E402

from pingpong import check_ends, image_dims, make_dict, pattern  # noqa: E402

try:
    from importlib.metadata import version

    VERSION = version("ros-rclpy")
except Exception:  # noqa: BLE001
    VERSION = ""

M32 = 0xFFFFFFFF


class Context:
    def __init__(self, role: str) -> None:
        self.kind = os.environ.get("PYBENCH_VARIANT", "events") or "events"
        rclpy.init()
        self.node = rclpy.create_node(f"pybench_{role}_{os.getpid()}")
        self.executor, self.exec_name = ros2_env.executor(self.kind)
        self.executor.add_node(self.node)
        self.fields = ros2_env.fields(self.exec_name)

    def close(self) -> None:
        try:
            self.executor.shutdown()
            self.node.destroy_node()
            rclpy.shutdown()
        except Exception:  # noqa: BLE001
            pass


class Endpoint:
    def __init__(self, ctx: Context, scenario: str, mode: str, role: str, tag: str) -> None:
        self.ctx = ctx
        self.scenario = scenario
        self.blocking = mode == "blocking"
        out, inp = ("ping", "pong") if role == "ping" else ("pong", "ping")
        base = f"pybench_{tag}/{scenario.replace('-', '_')}/{mode}"
        if scenario == "CmdVel":
            t = Twist
            self.message, self.payload_bytes, self.check = "CmdVel", 48, "linear.x/y (seq)"
            self.variant = "geometry_msgs/Twist"
        elif scenario == "Pose2D":
            t = Pose2D
            self.message, self.payload_bytes, self.check = "Pose2D", 24, "x/y (seq)"
            self.variant = "geometry_msgs/Pose2D"
        elif scenario == "Imu":
            t = Imu
            self.message, self.payload_bytes, self.check = "Imu", 8 + 4 + 8 * 37, "header.stamp"
            self.variant = "sensor_msgs/Imu"
        elif scenario.startswith("dict"):
            t = UInt8MultiArray
            self.message = "dict"
            self.payload_bytes = len(msgpack.packb(make_dict(scenario, 1 << 40)))
            self.check = "msg['seq']"
            self.variant = "std_msgs/UInt8MultiArray + msgpack"
        else:
            t = Image
            self.w, self.h = image_dims(scenario)
            self.n = self.w * self.h * 3
            self.message, self.payload_bytes = "Image", self.n
            self.check = "header.stamp + first/last pixel byte"
            self.variant = "sensor_msgs/Image"
            # array('B') is the fast path of rclpy's uint8[] setter (a numpy array or list is
            # checked element by element in Python: ~1 s per 1080p frame).
            self._buf = array.array("B", bytes(self.n))
            self._view = np.frombuffer(self._buf, dtype=np.uint8)
        self.variant += f", {ctx.exec_name}"
        self.fields = ctx.fields
        self.type = t
        self.pub = ctx.node.create_publisher(t, f"{base}/{out}", 10)
        self.got: list = []
        self.sub = ctx.node.create_subscription(t, f"{base}/{inp}", self.got.append, 10)

    def wait_ready(self, timeout: float) -> None:
        end = time.perf_counter() + timeout
        while self.pub.get_subscription_count() < 1:
            if time.perf_counter() > end:
                raise RuntimeError("ros2: echo's subscription never matched (discovery)")
            self.ctx.executor.spin_once(timeout_sec=0.01)

    def send(self, seq: int) -> None:
        s = self.scenario
        if s == "CmdVel":
            m = Twist()
            m.linear.x = float(seq & M32)
            m.linear.y = float(seq >> 32)
            m.angular.z = 0.1
        elif s == "Pose2D":
            m = Pose2D(x=float(seq & M32), y=float(seq >> 32), theta=0.5)
        elif s.startswith("dict"):
            m = UInt8MultiArray()
            m.data = msgpack.packb(make_dict(s, seq))
        else:
            m = Imu() if s == "Imu" else Image()
            m.header.stamp.sec = seq >> 32
            m.header.stamp.nanosec = seq & M32
            if s != "Imu":
                m.height, m.width, m.encoding, m.step = self.h, self.w, "rgb8", self.w * 3
                p = np.frombuffer(pattern(seq), dtype=np.uint8)
                self._view[:64] = p
                self._view[-64:] = p
                m.data = self._buf
        self.pub.publish(m)

    def recv(self, timeout: float):
        got = self.got
        ex = self.ctx.executor
        if not got:
            end = time.perf_counter() + timeout
            while not got:
                if self.blocking:
                    left = end - time.perf_counter()
                    if left <= 0:
                        return None
                    ex.spin_once(timeout_sec=left)
                else:
                    ex.spin_once(timeout_sec=0)
                    if not got and time.perf_counter() > end:
                        return None
        m = got.pop(0)
        s = self.scenario
        if s == "CmdVel":
            return int(m.linear.x) | (int(m.linear.y) << 32)
        if s == "Pose2D":
            return int(m.x) | (int(m.y) << 32)
        if s.startswith("dict"):
            return msgpack.unpackb(bytes(m.data))["seq"]
        seq = (m.header.stamp.sec << 32) | m.header.stamp.nanosec
        if s != "Imu":
            d = m.data
            flat = np.frombuffer(d, dtype=np.uint8) if not isinstance(d, np.ndarray) else d
            check_ends(flat, seq)
        return seq
