"""nerve: typed fixed messages (one memcpy), msgpack dicts, loaned images (zero-copy)."""

from __future__ import annotations

import time

import nerve

from pingpong import check_ends, image_dims, make_dict, write_ends

VERSION = getattr(nerve, "__version__", "")


class Context:
    def __init__(self, role: str) -> None:
        pass

    def close(self) -> None:
        pass


class Endpoint:
    def __init__(self, ctx: Context, scenario: str, mode: str, role: str, tag: str) -> None:
        self.scenario = scenario
        self.blocking = mode == "blocking"
        out, inp = ("ping", "pong") if role == "ping" else ("pong", "ping")
        base = f"pybench/{tag}/{scenario}/{mode}"
        if scenario == "CmdVel":
            typ = nerve.CmdVel
            self.message, self.payload_bytes, self.check = "CmdVel", 16, "stamp_ns"
        elif scenario == "Imu":
            typ = nerve.Imu
            self.message, self.payload_bytes = "Imu", nerve.sizeof(nerve.Imu)
            self.check = "header.stamp_ns"
        elif scenario.startswith("dict"):
            typ = dict
            self.message = "dict"
            self.payload_bytes = len(nerve.codec.packb(make_dict(scenario, 1 << 40)))
            self.check = "msg['seq']"
        else:
            typ = nerve.Image
            self.w, self.h = image_dims(scenario)
            self.message, self.payload_bytes = "Image", self.w * self.h * 3
            self.check = "header.stamp_ns + first/last 64 B of pixels"
        kw = {"depth": 4}
        if typ is nerve.Image:
            kw["max_message_bytes"] = self.w * self.h * 3 + 4096
            kw["chunks"] = 8
        self.pub = nerve.Topic(f"{base}/{out}", typ, **kw).publisher()
        self.sub = nerve.Topic(f"{base}/{inp}", typ, **kw).subscriber()
        self.variant = "loan_image" if typ is nerve.Image else ""
        self._imu = None

    def send(self, seq: int) -> None:
        s = self.scenario
        if s == "CmdVel":
            self.pub.send(nerve.CmdVel(stamp_ns=seq, linear=0.5, angular=0.1))
        elif s == "Imu":
            m = nerve.Imu()
            m.header.stamp_ns = seq
            m.orientation.w = 1.0
            m.angular_velocity.z = 0.1
            self.pub.send(m)
        elif s.startswith("dict"):
            self.pub.send(make_dict(s, seq))
        else:
            loan = self.pub.loan_image(self.w, self.h, "rgb8", stamp_ns=seq)
            write_ends(loan.data.reshape(-1), seq)
            loan.send()

    def _get(self, timeout: float):
        sub = self.sub
        if self.blocking:
            return sub.recv(timeout=timeout)
        m = sub.try_recv()
        if m is not None:
            return m
        end = time.perf_counter() + timeout
        while True:
            for _ in range(1000):
                m = sub.try_recv()
                if m is not None:
                    return m
            if time.perf_counter() > end:
                return None

    def recv(self, timeout: float):
        m = self._get(timeout)
        if m is None:
            return None
        s = self.scenario
        if s == "CmdVel":
            return m.stamp_ns
        if s == "Imu":
            return m.header.stamp_ns
        if s.startswith("dict"):
            return m["seq"]
        seq = m.header.header.stamp_ns
        check_ends(m.data.reshape(-1), seq)
        return seq
