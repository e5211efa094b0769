#!/usr/bin/env python3
"""Wrapyfi's Fig. 1: 200×200 tensors of ones from each framework, published at 100 Hz and
received with a blocking receive in another process; latency from the publisher's stamp to
the receiver holding the framework's object again (encoding and decoding included).

    wrapyfi.py run [--trials N] [--hz HZ] [--json FILE] [--frameworks a,b] [--middlewares a,b]
    wrapyfi.py frameworks|mxnet <quick 0|1>     (as nerve-bench python runs it: 50 or 2000 trials)

Runs in the frameworks venv (`benches/python/setup_peers.sh frameworks`; MXNet in its own,
`.venvs/mxnet`, with `--frameworks mxnet`). Middlewares: nerve (a Tensor topic: `send(obj)`
copies the elements once into shared memory, the receiver gets a view and converts it:
`recv(as_=...)` for the frameworks nerve knows, a copy into paddle/mxnet otherwise), Zenoh
and ZeroMQ (the same array as raw bytes with a small header: dtype, shape, stamp; decoded
with `np.frombuffer` and converted). A framework or middleware that cannot be imported is a
row with the reason, never a silent gap. Prints one `inproc {json}` line like `inproc.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import time
import traceback

import numpy as np

SHAPE = (200, 200)
FRAMEWORKS = ["numpy", "pandas", "pil", "jax", "tensorflow", "paddle", "mxnet"]
MIDDLEWARES = ["nerve", "zenoh", "zeromq"]
HEAD = struct.Struct("<QB")  # stamp ns, framework index


def make(fw: str):
    """The framework's 200×200 tensor of ones (PIL: an 8-bit image of ones)."""
    ones = np.ones(SHAPE, np.float32)
    if fw == "numpy":
        return ones
    if fw == "pandas":
        import pandas as pd
        return pd.DataFrame(ones)
    if fw == "pil":
        from PIL import Image
        return Image.fromarray(np.ones(SHAPE, np.uint8))
    if fw == "jax":
        import jax.numpy as jnp
        return jnp.ones(SHAPE, jnp.float32)
    if fw == "tensorflow":
        import tensorflow as tf
        return tf.ones(SHAPE, tf.float32)
    if fw == "paddle":
        import paddle
        return paddle.ones(SHAPE, "float32")
    if fw == "mxnet":
        import mxnet as mx
        return mx.nd.ones(SHAPE, dtype="float32")
    raise ValueError(fw)


def to_numpy(fw: str, obj) -> np.ndarray:
    if fw in ("numpy",):
        return obj
    if fw == "pandas":
        return obj.to_numpy()
    if fw == "pil":
        return np.asarray(obj)
    if fw in ("jax",):
        return np.asarray(obj)
    if fw in ("tensorflow", "paddle"):
        return obj.numpy()
    if fw == "mxnet":
        return obj.asnumpy()
    raise ValueError(fw)


def from_numpy(fw: str, a: np.ndarray):
    if fw == "numpy":
        return a
    if fw == "pandas":
        import pandas as pd
        return pd.DataFrame(a)
    if fw == "pil":
        from PIL import Image
        return Image.fromarray(a)
    if fw == "jax":
        import jax.numpy as jnp
        return jnp.asarray(a)
    if fw == "tensorflow":
        import tensorflow as tf
        return tf.convert_to_tensor(a)
    if fw == "paddle":
        import paddle
        return paddle.to_tensor(a)
    if fw == "mxnet":
        import mxnet as mx
        return mx.nd.array(a)
    raise ValueError(fw)


NERVE_AS = {"numpy": "numpy", "pandas": "pandas", "pil": "pil", "jax": "jax",
            "tensorflow": "tensorflow"}


class Link:
    """One middleware's publisher or subscriber for every framework's messages."""

    def __init__(self, mw: str, role: str, key: str) -> None:
        self.mw, self.role = mw, role
        if mw == "nerve":
            import nerve
            # Reliable: a publisher ahead of its subscriber waits instead of overwriting.
            topic = nerve.Topic(f"bench/wrapyfi/{key}", nerve.Tensor, depth=16,
                                reliable=True,
                                max_message_bytes=SHAPE[0] * SHAPE[1] * 4 + 4096, chunks=40)
            self.end = topic.publisher() if role == "pub" else topic.subscriber()
        elif mw == "zenoh":
            import zenoh
            self.session = zenoh.open(zenoh.Config())
            k = f"bench/wrapyfi/{key}"
            if role == "pub":
                self.end = self.session.declare_publisher(
                    k, congestion_control=zenoh.CongestionControl.BLOCK)
            else:
                self.end = self.session.declare_subscriber(k)
        elif mw == "zeromq":
            import zmq
            self.ctx = zmq.Context()
            addr = f"ipc:///tmp/nerve-wrapyfi-{key}"
            if role == "pub":
                self.end = self.ctx.socket(zmq.PUSH)
                self.end.bind(addr)
            else:
                self.end = self.ctx.socket(zmq.PULL)
                self.end.connect(addr)
        else:
            raise ValueError(mw)

    def send(self, fw: str, obj, stamp: int) -> None:
        if self.mw == "nerve":
            if fw in ("paddle", "mxnet"):
                obj = to_numpy(fw, obj)
            # frame_id carries the framework's index.
            self.end.send_tensor(obj, stamp_ns=stamp, frame_id=fw)
            return
        a = np.ascontiguousarray(to_numpy(fw, obj))
        dt = a.dtype.str.encode()
        head = HEAD.pack(stamp, FRAMEWORKS.index(fw)) + struct.pack("<B", len(dt)) + dt
        head += struct.pack("<B", a.ndim) + struct.pack(f"<{a.ndim}I", *a.shape)
        data = head + a.tobytes()
        if self.mw == "zenoh":
            self.end.put(data)
        else:
            self.end.send(data, copy=False)

    def recv(self):
        """(framework, stamp, the framework's object), blocking."""
        if self.mw == "nerve":
            m = self.end.recv(10.0)
            if m is None:
                raise TimeoutError("nerve: no tensor within 10 s")
            fw = m.header.header.frame_id
            stamp = m.header.header.stamp_ns
            if fw in NERVE_AS:
                return fw, stamp, self.end._convert(m, NERVE_AS[fw])
            return fw, stamp, from_numpy(fw, np.asarray(m.data))
        if self.mw == "zenoh":
            b = self.end.recv().payload.to_bytes()
        else:
            b = self.end.recv()
        stamp, k = HEAD.unpack_from(b, 0)
        o = HEAD.size
        n = b[o]
        dt = bytes(b[o + 1:o + 1 + n]).decode()
        o += 1 + n
        nd = b[o]
        shape = struct.unpack_from(f"<{nd}I", b, o + 1)
        o += 1 + 4 * nd
        a = np.frombuffer(b, dtype=np.dtype(dt), offset=o).reshape(shape)
        fw = FRAMEWORKS[k]
        return fw, stamp, from_numpy(fw, a)


def listen(mw: str, key: str, total: int, fws: list[str]) -> None:
    link = Link(mw, "sub", key)
    # Each framework imported and its conversion run once before the first message: a first
    # use (an import, a lazy initialisation) would otherwise land in the first latency.
    for fw in fws:
        from_numpy(fw, to_numpy(fw, make(fw)))
    print("READY", flush=True)
    lat: dict[str, list[float]] = {}
    for _ in range(total):
        fw, stamp, _obj = link.recv()
        lat.setdefault(fw, []).append(time.time_ns() - stamp)
    print("RESULT " + json.dumps(lat), flush=True)


def available(fws: list[str]) -> tuple[list[str], dict[str, str]]:
    ok, why = [], {}
    for fw in fws:
        try:
            make(fw)
            ok.append(fw)
        except Exception as e:  # noqa: BLE001
            why[fw] = f"not installed here: {type(e).__name__}: {str(e)[:120]}"
    return ok, why


def run_each(a: argparse.Namespace) -> int:
    """Every framework in processes of its own (TensorFlow and PaddlePaddle cannot share
    one: importing both kills the process), the rows merged into one line."""
    cases = []
    for fw in a.frameworks:
        cmd = [sys.executable, __file__, "run", "--one", "--trials", str(a.trials), "--hz",
               str(a.hz), "--frameworks", fw, "--middlewares", ",".join(a.middlewares)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        line = next((x for x in r.stdout.splitlines() if x.startswith("inproc ")), None)
        if line is None:
            tail = " | ".join(r.stderr.strip().splitlines()[-2:])[-200:]
            for mw in a.middlewares:
                cases.append({"table": "wrapyfi", "case": f"{fw} {mw}", "metric": "one_way_ns",
                              "payload_bytes": 0,
                              "error": f"the {fw} run ended with status {r.returncode}: {tail}"})
            continue
        cases += json.loads(line.removeprefix("inproc "))["cases"]
    print("inproc " + json.dumps({"system": "nerve", "version": "", "cases": cases}), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(cases, f)
    return 0


def run(a: argparse.Namespace) -> int:
    fws, missing = available(a.frameworks)
    cases = []
    for mw in a.middlewares if fws else []:
        key = f"{mw}-{os.getpid()}"
        total = a.trials * len(fws)
        try:
            Link(mw, "pub", "probe") if mw != "zeromq" else __import__("zmq")
        except Exception as e:  # noqa: BLE001
            for fw in a.frameworks:
                cases.append({"table": "wrapyfi", "case": f"{fw} {mw}", "metric": "one_way_ns",
                              "payload_bytes": SHAPE[0] * SHAPE[1] * 4,
                              "error": f"{mw} not importable: {e}"})
            continue
        child = subprocess.Popen([sys.executable, __file__, "listen", mw, key, str(total),
                                  ",".join(fws)], stdout=subprocess.PIPE, text=True)
        pub = Link(mw, "pub", key)
        assert child.stdout is not None
        if child.stdout.readline().strip() != "READY":
            raise RuntimeError(f"{mw}: the listener did not start")
        time.sleep(0.5)  # declarations settle (Zenoh's subscriber reaches the publisher)
        period = 1.0 / a.hz
        for fw in fws:
            obj = make(fw)
            to_numpy(fw, obj)  # first use outside the measurement, as on the listener's side
            start = time.perf_counter()
            for i in range(a.trials):
                due = start + i * period
                now = time.perf_counter()
                if due > now:
                    time.sleep(due - now)
                pub.send(fw, obj, time.time_ns())
        line = child.stdout.readline()
        child.wait(timeout=30)
        lat = json.loads(line.removeprefix("RESULT "))
        for fw in a.frameworks:
            c = {"table": "wrapyfi", "case": f"{fw} {mw}", "metric": "one_way_ns",
                 "payload_bytes": SHAPE[0] * SHAPE[1] * (1 if fw == "pil" else 4)}
            if fw in missing:
                c["error"] = missing[fw]
            else:
                c["samples_ns"] = lat.get(fw, [])
                c["note"] = (f"{a.trials} trials at {a.hz:g} Hz, blocking receive, "
                             "(de)serialisation included")
            cases.append(c)
    if not fws:
        cases = [{"table": "wrapyfi", "case": f"{fw} {mw}", "metric": "one_way_ns",
                  "payload_bytes": 0, "error": missing[fw]}
                 for fw in a.frameworks for mw in a.middlewares]
    print("inproc " + json.dumps({"system": "nerve", "version": "", "cases": cases}), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(cases, f)
    return 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] in ("frameworks", "mxnet"):
        # As `nerve-bench python` runs its in-process tables: `wrapyfi.py <venv> <quick>`.
        fws = ["mxnet"] if sys.argv[1] == "mxnet" else [f for f in FRAMEWORKS if f != "mxnet"]
        trials = 50 if sys.argv[2] == "1" else 2000
        return run_each(argparse.Namespace(frameworks=fws, middlewares=MIDDLEWARES,
                                           trials=trials, hz=100.0, json=None))
    if len(sys.argv) > 1 and sys.argv[1] == "listen":
        listen(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5].split(","))
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cmd", choices=["run"])
    p.add_argument("--trials", type=int, default=2000)
    p.add_argument("--hz", type=float, default=100.0)
    p.add_argument("--json")
    p.add_argument("--frameworks", type=lambda s: s.split(","), default=FRAMEWORKS)
    p.add_argument("--middlewares", type=lambda s: s.split(","), default=MIDDLEWARES)
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    try:
        a = p.parse_args()
        return run(a) if a.one else run_each(a)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
