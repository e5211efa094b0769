"""HORUS (PyPI horus-robotics): typed Topic(CmdVel/Imu), generic Topic(name) for dicts
(MessagePack), and its shared-memory Image (``horus.Image`` + ``to_numpy()``, zero-copy)."""

from __future__ import annotations

import time

import horus

from pingpong import FIRST_3D, LAST_3D, Unsupported, check_ends, image_dims, make_dict, write_ends

try:
    from importlib.metadata import version

    VERSION = version("horus-robotics")
except Exception:  # noqa: BLE001
    VERSION = ""


def check_supported(scenario: str, mode: str) -> None:
    if mode == "blocking":
        raise Unsupported(
            "horus-robotics' Python Topic has no blocking receive (recv/try_recv return None "
            "at once; blocking waits exist only inside its scheduler's node ticks)"
        )


class Context:
    def __init__(self, role: str) -> None:
        pass

    def close(self) -> None:
        pass


class Endpoint:
    def __init__(self, ctx: Context, scenario: str, mode: str, role: str, tag: str) -> None:
        check_supported(scenario, mode)
        self.scenario = scenario
        out, inp = ("ping", "pong") if role == "ping" else ("pong", "ping")
        base = f"pybench.{tag}.{scenario.replace('-', '_')}.{mode}"
        self.variant = ""
        if scenario == "CmdVel":
            self.pub = horus.Topic(horus.CmdVel, 4, endpoint=f"{base}.{out}")
            self.sub = horus.Topic(horus.CmdVel, 4, endpoint=f"{base}.{inp}")
            self.message, self.payload_bytes, self.check = "CmdVel", 16, "timestamp_ns"
        elif scenario == "Pose2D":
            self.pub = horus.Topic(horus.Pose2D, 4, endpoint=f"{base}.{out}")
            self.sub = horus.Topic(horus.Pose2D, 4, endpoint=f"{base}.{inp}")
            # x, y, theta (f64) + u64 stamp
            self.message, self.payload_bytes, self.check = "Pose2D", 32, "timestamp_ns"
        elif scenario == "Imu":
            self.pub = horus.Topic(horus.Imu, 4, endpoint=f"{base}.{out}")
            self.sub = horus.Topic(horus.Imu, 4, endpoint=f"{base}.{inp}")
            # 3 × 3-vector + quaternion + 3 × 9 covariances (f64) + u64 stamp
            self.message, self.payload_bytes, self.check = "Imu", 304, "timestamp_ns"
        elif scenario.startswith("dict"):
            import msgpack

            self.pub = horus.Topic(f"{base}.{out}", 4)
            self.sub = horus.Topic(f"{base}.{inp}", 4)
            self.message = "dict"
            self.payload_bytes = len(msgpack.packb(make_dict(scenario, 1 << 40)))
            self.check = "msg['seq']"
            self.variant = "generic (MessagePack)"
        else:
            self.w, self.h = image_dims(scenario)
            self.pub = horus.Topic(horus.Image, 4, endpoint=f"{base}.{out}")
            self.sub = horus.Topic(horus.Image, 4, endpoint=f"{base}.{inp}")
            self.message, self.payload_bytes = "Image", self.w * self.h * 3
            self.check = "timestamp_ns + first/last pixel byte"
            self.variant = "Image + to_numpy"
        self._bind_fast()

    def _bind_fast(self) -> None:
        """CmdVel: `send`/`recv` bound here, as nerve's adapter binds its own."""
        if self.scenario != "CmdVel":
            return
        pub_send, sub_recv, cmd, slow = self.pub.send, self.sub.recv, horus.CmdVel, self._wait

        def send(seq: int) -> None:
            pub_send(cmd(0.5, 0.1, seq))

        def recv(timeout: float):
            m = sub_recv()
            if m is None:
                m = slow(timeout)
                if m is None:
                    return None
            return m.timestamp_ns

        self.send, self.recv = send, recv  # type: ignore[method-assign]

    def _wait(self, timeout: float):
        """Polls until a message comes or `timeout` passes (None)."""
        sub = self.sub
        end = time.perf_counter() + timeout
        while True:
            for _ in range(1000):
                m = sub.recv()
                if m is not None:
                    return m
            if time.perf_counter() > end:
                return None

    def send(self, seq: int) -> None:
        s = self.scenario
        if s == "CmdVel":
            self.pub.send(horus.CmdVel(0.5, 0.1, seq))
        elif s == "Pose2D":
            self.pub.send(horus.Pose2D(1.0, 2.0, 0.5, timestamp_ns=seq))
        elif s == "Imu":
            self.pub.send(horus.Imu(0.0, 0.0, 9.81, 0.0, 0.0, 0.1, timestamp_ns=seq))
        elif s.startswith("dict"):
            self.pub.send(make_dict(s, seq))
        else:
            img = horus.Image(self.h, self.w, "rgb8")
            write_ends(img.to_numpy(), seq, FIRST_3D, LAST_3D)
            img.set_timestamp_ns(seq)
            self.pub.send(img)

    def recv(self, timeout: float):
        m = self.sub.recv()
        if m is None:
            m = self._wait(timeout)
            if m is None:
                return None
        s = self.scenario
        if s in ("CmdVel", "Pose2D", "Imu"):
            return m.timestamp_ns
        if s.startswith("dict"):
            return m["seq"]
        seq = m.timestamp_ns
        check_ends(m.to_numpy(), seq, FIRST_3D, LAST_3D)
        return seq
