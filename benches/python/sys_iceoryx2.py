"""iceoryx2 (PyPI iceoryx2): ctypes payloads for the typed messages, ``Slice[c_uint8]`` for
MessagePack dicts and images (loaned, written in place: zero-copy); blocking receive through an
event service (Notifier/Listener), as iceoryx2 does it. Its numpy view does not keep the sample
alive, so the receiver holds the sample while it reads the view."""

from __future__ import annotations

import ctypes
import time

import iceoryx2 as iox2
import msgpack
import numpy as np

from pingpong import check_ends, image_dims, make_dict, write_ends

try:
    from importlib.metadata import version

    VERSION = version("iceoryx2")
except Exception:  # noqa: BLE001
    VERSION = ""


class CmdVel(ctypes.Structure):
    _fields_ = [("stamp_ns", ctypes.c_uint64), ("linear", ctypes.c_float),
                ("angular", ctypes.c_float)]

    @staticmethod
    def type_name() -> str:
        return "CmdVel"


class Pose2D(ctypes.Structure):
    _fields_ = [("stamp_ns", ctypes.c_uint64), ("x", ctypes.c_double), ("y", ctypes.c_double),
                ("theta", ctypes.c_double)]

    @staticmethod
    def type_name() -> str:
        return "Pose2D"


class Imu(ctypes.Structure):
    """Header stamp + orientation, angular velocity, linear acceleration and their 3×3
    covariances (f64): 304 B like HORUS's Imu."""

    _fields_ = [("stamp_ns", ctypes.c_uint64), ("orientation", ctypes.c_double * 4),
                ("orientation_covariance", ctypes.c_double * 9),
                ("angular_velocity", ctypes.c_double * 3),
                ("angular_velocity_covariance", ctypes.c_double * 9),
                ("linear_acceleration", ctypes.c_double * 3),
                ("linear_acceleration_covariance", ctypes.c_double * 9)]

    @staticmethod
    def type_name() -> str:
        return "Imu"


class Stamp(ctypes.Structure):
    _fields_ = [("stamp_ns", ctypes.c_uint64)]

    @staticmethod
    def type_name() -> str:
        return "Stamp"


class Context:
    def __init__(self, role: str) -> None:
        iox2.set_log_level_from_env_or(iox2.LogLevel.Error)
        self.node = iox2.NodeBuilder.new().create(iox2.ServiceType.Ipc)

    def close(self) -> None:
        pass


class Endpoint:
    def __init__(self, ctx: Context, scenario: str, mode: str, role: str, tag: str) -> None:
        self.scenario = scenario
        self.blocking = mode == "blocking"
        out, inp = ("ping", "pong") if role == "ping" else ("pong", "ping")
        base = f"pybench/{tag}/{scenario}/{mode}"
        node = ctx.node
        self.variant = "publish_subscribe"
        if scenario == "CmdVel":
            t, n = CmdVel, 0
            self.message, self.payload_bytes, self.check = "CmdVel", 16, "stamp_ns"
        elif scenario == "Pose2D":
            t, n = Pose2D, 0
            self.message, self.payload_bytes, self.check = "Pose2D", 32, "stamp_ns"
        elif scenario == "Imu":
            t, n = Imu, 0
            self.message, self.payload_bytes, self.check = "Imu", ctypes.sizeof(Imu), "stamp_ns"
        elif scenario.startswith("dict"):
            t = iox2.Slice[ctypes.c_uint8]
            n = 4096
            self.message = "dict"
            self.payload_bytes = len(msgpack.packb(make_dict(scenario, 1 << 40)))
            self.check = "msg['seq']"
            self.variant = "Slice[u8] + msgpack"
        else:
            t = iox2.Slice[ctypes.c_uint8]
            self.w, self.h = image_dims(scenario)
            n = self.w * self.h * 3
            self.message, self.payload_bytes = "Image", n
            self.check = "user-header stamp + first/last pixel byte"
            self.variant = "Slice[u8] loan + numpy view"
        self.n = n

        def service(name):
            b = node.service_builder(iox2.ServiceName.new(name)).publish_subscribe(t)
            if t is iox2.Slice[ctypes.c_uint8]:
                b = b.user_header(Stamp)
            return (b.subscriber_max_buffer_size(4).history_size(0)
                    .max_publishers(2).max_subscribers(2).open_or_create())

        pub_svc, sub_svc = service(f"{base}/{out}"), service(f"{base}/{inp}")
        pb = pub_svc.publisher_builder()
        if n:
            pb = pb.initial_max_slice_len(n)
        self.pub = pb.create()
        self.sub = sub_svc.subscriber_builder().create()
        if self.blocking:
            def event(name):
                return node.service_builder(iox2.ServiceName.new(name)).event().open_or_create()

            self.notifier = event(f"{base}/{out}/ev").notifier_builder().create()
            self.listener = event(f"{base}/{inp}/ev").listener_builder().create()
            self.variant += " + event Listener"

    def send(self, seq: int) -> None:
        s = self.scenario
        if s == "CmdVel":
            self.pub.send_copy(CmdVel(stamp_ns=seq, linear=0.5, angular=0.1))
        elif s == "Pose2D":
            self.pub.send_copy(Pose2D(stamp_ns=seq, x=1.0, y=2.0, theta=0.5))
        elif s == "Imu":
            m = Imu(stamp_ns=seq)
            m.orientation[3] = 1.0
            m.angular_velocity[2] = 0.1
            self.pub.send_copy(m)
        elif s.startswith("dict"):
            b = msgpack.packb(make_dict(s, seq))
            smp = self.pub.loan_slice_uninit(len(b))
            ctypes.memmove(smp.payload_ptr, b, len(b))
            smp.user_header().contents.stamp_ns = seq
            smp.assume_init().send()
        else:
            smp = self.pub.loan_slice_uninit(self.n)
            flat = np.ctypeslib.as_array((ctypes.c_uint8 * self.n).from_address(smp.payload_ptr))
            write_ends(flat, seq)
            smp.user_header().contents.stamp_ns = seq
            smp.assume_init().send()
        if self.blocking:
            self.notifier.notify()

    def recv(self, timeout: float):
        sub = self.sub
        smp = sub.receive()
        if smp is None:
            if self.blocking:
                end = time.perf_counter() + timeout
                while smp is None:
                    left = end - time.perf_counter()
                    if left <= 0:
                        return None
                    self.listener.timed_wait(iox2.Duration.from_secs_f64(left))
                    smp = sub.receive()
            else:
                end = time.perf_counter() + timeout
                while smp is None:
                    for _ in range(1000):
                        smp = sub.receive()
                        if smp is not None:
                            break
                    else:
                        if time.perf_counter() > end:
                            return None
        s = self.scenario
        if s in ("CmdVel", "Pose2D", "Imu"):
            return smp.payload().contents.stamp_ns
        if s.startswith("dict"):
            n = smp.header.number_of_elements
            raw = ctypes.string_at(smp.payload_ptr, n)
            return msgpack.unpackb(raw)["seq"]
        seq = smp.user_header().contents.stamp_ns
        # The view does not keep the sample alive: `smp` is held until the check is done.
        flat = np.ctypeslib.as_array((ctypes.c_uint8 * self.n).from_address(smp.payload_ptr))
        check_ends(flat, seq)
        del flat
        return seq
