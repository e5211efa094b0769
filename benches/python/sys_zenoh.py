"""Zenoh (PyPI eclipse-zenoh): two peers on loopback TCP only (no multicast scouting; ping
listens on 127.0.0.1, echo connects). Typed messages are ``struct``-packed bytes of the same
layout, dicts MessagePack; images are written into a shared-memory buffer
(``ShmProvider.alloc`` with ``BlockOn(GarbageCollect())``). The Python API offers no zero-copy
read of a received payload (no buffer protocol on ZBytes/ZShm), so the receiver copies it with
``to_bytes()`` before checking (said in the row's ``variant``)."""

from __future__ import annotations

import os
import struct
import time

import msgpack
import zenoh
from zenoh import shm

from pingpong import check_ends, image_dims, make_dict

try:
    from importlib.metadata import version

    VERSION = version("eclipse-zenoh")
except Exception:  # noqa: BLE001
    VERSION = ""

CMDVEL = struct.Struct("<Qff")
POSE2D = struct.Struct("<Q3d")
IMU = struct.Struct("<Q37d")  # stamp + 4 + 3 + 3 + 27 f64: 304 B


def _port() -> int:
    return 20000 + int(os.environ.get("PYBENCH_TAG", "0")) % 20000


class Context:
    def __init__(self, role: str) -> None:
        c = zenoh.Config()
        c.insert_json5("mode", '"peer"')
        c.insert_json5("scouting/multicast/enabled", "false")
        c.insert_json5("scouting/gossip/enabled", "false")
        ep = f'["tcp/127.0.0.1:{_port()}"]'
        if role == "ping":
            c.insert_json5("listen/endpoints", ep)
        else:
            c.insert_json5("listen/endpoints", "[]")
            c.insert_json5("connect/endpoints", ep)
        self.session = zenoh.open(c)
        self.provider = None

    def shm(self):
        if self.provider is None:
            self.provider = shm.ShmProvider.default_backend(64 << 20)
        return self.provider

    def close(self) -> None:
        self.session.close()


class Endpoint:
    def __init__(self, ctx: Context, scenario: str, mode: str, role: str, tag: str) -> None:
        self.ctx = ctx
        self.scenario = scenario
        self.blocking = mode == "blocking"
        out, inp = ("ping", "pong") if role == "ping" else ("pong", "ping")
        base = f"pybench/{tag}/{scenario}/{mode}"
        s = ctx.session
        self.pub = s.declare_publisher(f"{base}/{out}",
                                       congestion_control=zenoh.CongestionControl.BLOCK)
        self.sub = s.declare_subscriber(f"{base}/{inp}")
        self.variant = "peer, tcp loopback"
        if scenario == "CmdVel":
            self.message, self.payload_bytes, self.check = "CmdVel", 16, "stamp_ns"
            self.variant += ", struct-packed"
        elif scenario == "Pose2D":
            self.message, self.payload_bytes, self.check = "Pose2D", POSE2D.size, "stamp_ns"
            self.variant += ", struct-packed"
        elif scenario == "Imu":
            self.message, self.payload_bytes, self.check = "Imu", IMU.size, "stamp_ns"
            self.variant += ", struct-packed"
        elif scenario.startswith("dict"):
            self.message = "dict"
            self.payload_bytes = len(msgpack.packb(make_dict(scenario, 1 << 40)))
            self.check = "msg['seq']"
            self.variant += ", msgpack"
        else:
            self.w, self.h = image_dims(scenario)
            self.n = self.w * self.h * 3
            self.message, self.payload_bytes = "Image", self.n
            self.check = "stamp (attachment) + first/last pixel byte"
            self.variant += ", shm send, to_bytes() copy on receive"

    def wait_ready(self, timeout: float) -> None:
        """Waits until the echo's subscriber matches this publisher (no message is sent to
        nobody, so the blocking receive, which has no timeout in this API, cannot hang)."""
        end = time.perf_counter() + timeout
        while not self.pub.matching_status.matching:
            if time.perf_counter() > end:
                raise RuntimeError("zenoh: echo's subscriber never matched (peers not connected)")
            time.sleep(0.01)

    def send(self, seq: int) -> None:
        s = self.scenario
        if s == "CmdVel":
            self.pub.put(CMDVEL.pack(seq, 0.5, 0.1))
        elif s == "Pose2D":
            self.pub.put(POSE2D.pack(seq, 1.0, 2.0, 0.5))
        elif s == "Imu":
            self.pub.put(IMU.pack(seq, *([0.0] * 37)))
        elif s.startswith("dict"):
            self.pub.put(msgpack.packb(make_dict(s, seq)))
        else:
            from pingpong import pattern

            buf = self.ctx.shm().alloc(self.n, shm.BlockOn(shm.GarbageCollect()))
            p = pattern(seq)
            buf[0:64] = p
            buf[self.n - 64:self.n] = p
            self.pub.put(buf, attachment=struct.pack("<Q", seq))

    def recv(self, timeout: float):
        sub = self.sub
        if self.blocking:
            smp = sub.recv()  # no timeout in the API; the driver's timeout covers a hang
        else:
            smp = sub.try_recv()
            if smp is None:
                end = time.perf_counter() + timeout
                while smp is None:
                    for _ in range(1000):
                        smp = sub.try_recv()
                        if smp is not None:
                            break
                    else:
                        if time.perf_counter() > end:
                            return None
        s = self.scenario
        if s == "CmdVel":
            return CMDVEL.unpack(smp.payload.to_bytes())[0]
        if s == "Pose2D":
            return POSE2D.unpack(smp.payload.to_bytes())[0]
        if s == "Imu":
            return IMU.unpack(smp.payload.to_bytes())[0]
        if s.startswith("dict"):
            return msgpack.unpackb(smp.payload.to_bytes())["seq"]
        seq = struct.unpack("<Q", smp.attachment.to_bytes())[0]
        check_ends(smp.payload.to_bytes(), seq)
        return seq
