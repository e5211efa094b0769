"""nerve: typed fixed messages (one memcpy), msgpack dicts, loaned images (zero-copy), tensors
(a numpy or torch array copied once into a loaned chunk, received as a view; or, for the
baseline, the same array as MessagePack bytes) and a message type declared in Python."""

from __future__ import annotations

import time

import nerve

from pingpong import FIRST_3D, LAST_3D, Unsupported, check_ends, image_dims, make_dict, write_ends

try:
    import numpy as np
except ImportError:  # the adapter still loads; tensor rounds then fail with the reason
    np = None

M32 = 0xFFFFFFFF  # Pose2D carries the sequence number as two exact float halves

@nerve.message("bench/Custom")
class Custom:
    """A message type declared only in Python (32 bytes)."""

    stamp_ns: nerve.u64
    x: nerve.f64
    y: nerve.f64
    theta: nerve.f64


def check_supported(scenario: str, mode: str) -> None:
    """Refuses, before the echo is told, what this interpreter cannot run."""
    if scenario.endswith("-torch"):
        try:
            import torch  # noqa: F401
        except ImportError:
            raise Unsupported(
                "torch is not installed in nerve's .venv (PyPI's Linux wheel pulls gigabytes "
                "of CUDA libraries, so only `benches/python/setup_peers.sh torch` installs "
                "it)") from None


def _tensor_shape(scenario: str) -> tuple[int, int]:
    w, h = scenario.split("-")[1].split("x")
    return int(h), int(w)

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
        elif scenario == "Pose2D":
            typ = nerve.Pose2D
            self.message, self.payload_bytes, self.check = "Pose2D", 24, "x/y (seq)"
        elif scenario == "Imu":
            typ = nerve.Imu
            self.message, self.payload_bytes = "Imu", nerve.sizeof(nerve.Imu)
            self.check = "header.stamp_ns"
        elif scenario.startswith("dict"):
            typ = dict
            self.message = "dict"
            self.payload_bytes = len(nerve.codec.packb(make_dict(scenario, 1 << 40)))
            self.check = "msg['seq']"
        elif scenario == "Custom":
            typ = Custom
            self.message, self.payload_bytes, self.check = "Custom", 32, "stamp_ns"
        elif scenario.startswith("Tensor"):
            self.torch = None
            if scenario.endswith("-torch"):
                check_supported(scenario, mode)
                import torch

                self.torch = torch
            self.shape = _tensor_shape(scenario)
            self.array = np.ones(self.shape, np.float32)
            if self.torch is not None:
                self.array = self.torch.ones(self.shape, dtype=self.torch.float32)
            # The check values are written through a numpy view of the same memory (torch's
            # own indexing would cost more than the hop; it is the benchmark's, not the user's).
            self.check_view = np.from_dlpack(self.array) if self.torch is not None else self.array
            n = self.shape[0] * self.shape[1] * 4
            self.msgpack = scenario.endswith("-msgpack")
            self.loan = scenario.endswith("-loan")
            typ = dict if self.msgpack else nerve.Tensor
            self.message = "Tensor"
            self.payload_bytes = n
            self.check = "stamp + first/last element"
            self.variant = ("msgpack" if self.msgpack else "loan, filled in place" if self.loan
                            else "torch send" if self.torch is not None else "numpy send")
        else:
            typ = nerve.Image
            self.w, self.h = image_dims(scenario)
            self.message, self.payload_bytes = "Image", self.w * self.h * 3
            self.check = "header.stamp_ns + first/last pixel byte"
        kw = {"depth": 4}
        if typ is nerve.Image:
            kw["max_message_bytes"] = self.w * self.h * 3 + 4096
            kw["chunks"] = 8
        if scenario.startswith("Tensor"):
            kw["max_message_bytes"] = self.payload_bytes + 4096
            kw["chunks"] = 8
        self.pub = nerve.Topic(f"{base}/{out}", typ, **kw).publisher()
        self.sub = nerve.Topic(f"{base}/{inp}", typ, **kw).subscriber()
        if self.blocking:
            # Like for like: the peers' blocking receives (iceoryx2's Listener, Zenoh's recv,
            # rclpy's spin_once with a timeout) sleep at once; nerve's recv would first spin
            # up to 20 µs, about a whole Python hop here, and so measure a spinning receive.
            self.sub.set_spin(0.0)
            self.fields = {"wait": "recv(timeout) futex only (set_spin(0)): sleeps at once, "
                                   "as the peers' blocking receives do"}
        else:
            self.fields = {"wait": "try_recv in a loop (spinning), as the peers' poll rows"}
        if not scenario.startswith("Tensor"):
            self.variant = "loan_image" if typ is nerve.Image else ""
        self._imu = None
        self._bind_fast()

    def _bind_fast(self) -> None:
        """CmdVel and images: `send`/`recv` bound here, the timed loop's calls nerve's own."""
        s = self.scenario
        if s != "CmdVel" and not s.startswith("Image"):
            return
        try_recv, get = self.sub.try_recv, self._get
        if self.blocking:
            sub_recv = self.sub.recv

            def take(timeout: float):
                return sub_recv(timeout)
        else:
            def take(timeout: float):
                m = try_recv()
                return get(timeout) if m is None else m
        if s == "CmdVel":
            pub_send, cmd = self.pub.send, nerve.CmdVel

            def send(seq: int) -> None:
                pub_send(cmd(seq, 0.5, 0.1))

            def recv(timeout: float):
                m = take(timeout)
                return None if m is None else m.stamp_ns
        else:
            loan_image, w, h = self.pub.loan_image, self.w, self.h

            def send(seq: int) -> None:
                loan = loan_image(w, h, "rgb8", stamp_ns=seq)
                write_ends(loan.data, seq, FIRST_3D, LAST_3D)
                loan.send()

            def recv(timeout: float):
                m = take(timeout)
                if m is None:
                    return None
                seq = m.header.header.stamp_ns
                check_ends(m.data, seq, FIRST_3D, LAST_3D)
                return seq
        self.send, self.recv = send, recv  # type: ignore[method-assign]

    def send(self, seq: int) -> None:
        s = self.scenario
        if s == "CmdVel":
            self.pub.send(nerve.CmdVel(seq, 0.5, 0.1))
        elif s == "Pose2D":
            self.pub.send(nerve.Pose2D(float(seq & M32), float(seq >> 32), 0.5))
        elif s == "Imu":
            m = nerve.Imu()
            m.header.stamp_ns = seq
            m.orientation.w = 1.0
            m.angular_velocity.z = 0.1
            self.pub.send(m)
        elif s.startswith("dict"):
            self.pub.send(make_dict(s, seq))
        elif s == "Custom":
            self.pub.send(Custom(stamp_ns=seq, x=1.0, y=2.0, theta=0.5))
        elif s.startswith("Tensor"):
            if self.loan:
                # The producer writes its tensor straight into shared memory (here: ones, and
                # the check values): no copy.
                loan = self.pub.loan_tensor(self.shape, "float32", stamp_ns=seq)
                d = loan.data
                d.fill(1.0)
                d[0, 0] = d[-1, -1] = seq % 251
                loan.send()
                return
            a = self.array
            v = self.check_view
            v[0, 0] = v[-1, -1] = seq % 251
            if self.msgpack:
                self.pub.send({"seq": seq, "data": a})
                return
            # What publisher.send(array) does (one copy into a loan), with the sequence in
            # the stamp.
            self.pub.send_tensor(a, stamp_ns=seq)
        else:
            loan = self.pub.loan_image(self.w, self.h, "rgb8", stamp_ns=seq)
            write_ends(loan.data, seq, FIRST_3D, LAST_3D)
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
        if s == "Pose2D":
            return int(m.x) | (int(m.y) << 32)
        if s == "Imu":
            return m.header.stamp_ns
        if s.startswith("dict"):
            return m["seq"]
        if s == "Custom":
            return m.stamp_ns
        if s.startswith("Tensor"):
            if self.msgpack:
                seq, data = m["seq"], m["data"]
            else:
                seq = m.header.header.stamp_ns
                data = m.data
                if self.torch is not None:
                    # What a torch user does with a received tensor (zero copy); the check
                    # reads the same memory through numpy.
                    self.received = nerve.frameworks.convert(m, "torch")
            if data[0, 0] != seq % 251 or data[-1, -1] != seq % 251:
                raise RuntimeError(f"tensor check failed for seq {seq}")
            return seq
        seq = m.header.header.stamp_ns
        check_ends(m.data, seq, FIRST_3D, LAST_3D)
        return seq
