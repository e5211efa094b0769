#!/usr/bin/env python3
"""Wrapyfi's Fig. 1: 200×200 tensors of ones from each framework, published at 100 Hz and
received with a blocking receive in another process; latency from the publisher's stamp to
the receiver holding the framework's object again (encoding and decoding included).

    wrapyfi.py run [--trials N] [--hz HZ] [--rounds R] [--json FILE] [--frameworks a,b]
                   [--middlewares a,b]
    wrapyfi.py frameworks|mxnet <quick 0|1>     (as nerve-bench python runs it: 30 or 300 trials)

Runs in the frameworks venv (`benches/python/setup_peers.sh frameworks`; MXNet in its own,
`.venvs/mxnet`, with `--frameworks mxnet`). Middlewares: nerve (a Tensor topic: `send(obj)`
copies the elements once into shared memory, the receiver gets a view and converts it:
`recv(as_=...)` for the frameworks nerve knows, a copy into paddle/mxnet otherwise), Zenoh,
ZeroMQ and ROS 2 (rclpy, a reliable `std_msgs/UInt8MultiArray`): the same array as raw bytes
with a small header (dtype, shape, stamp), decoded with `np.frombuffer` and converted.

Every middleware's listener runs at once; the publisher alternates between them in rounds
(the order turning each round), so a slow moment of the machine lands on all of them, and
nerve / peer is taken per round (each round's median), median over rounds. A listener starts
waiting for messages when the publisher says so (`GO` on its stdin, once every listener is
ready), and waits at most as long as the other middlewares' turns last. A framework or
middleware that cannot be imported, and a listener that fails, is a row with the reason (the
end of the listener's stderr), never a silent gap. Prints one `inproc {json}` line like
`inproc.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

SHAPE = (200, 200)
FRAMEWORKS = ["numpy", "pandas", "pil", "torch", "jax", "tensorflow", "paddle", "mxnet"]
MIDDLEWARES = ["nerve", "zenoh", "zeromq", "ros2"]
MODULE = {"nerve": "nerve", "zenoh": "zenoh", "zeromq": "zmq", "ros2": "rclpy"}
HEAD = struct.Struct("<QB")  # stamp ns, framework index
# Messages each middleware carries before the measured ones (stamp 0, not timed): every nerve
# chunk (40) is written and read once, so first-touch page faults of the shared memory, like
# the other middlewares' first buffer allocations, are not in the figures.
WARM = 48


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
    if fw == "torch":
        import torch
        return torch.ones(SHAPE, dtype=torch.float32)
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
    if fw in ("tensorflow", "paddle", "torch"):
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
    if fw == "torch":
        import torch
        # The received bytes are read-only; torch shares them and warns once that it could
        # write to them (nothing here does).
        warnings.filterwarnings("ignore", "The given NumPy array is not writable")
        return torch.from_numpy(a)
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
            "tensorflow": "tensorflow", "torch": "torch"}


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
        elif mw == "ros2":
            import ros2_env  # benches/python: Fast DDS's large-message profile, the executor

            ros2_env.configure()
            os.environ.setdefault("ROS_LOCALHOST_ONLY", "1")
            os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            import rclpy
            from rclpy.qos import QoSProfile, ReliabilityPolicy
            from std_msgs.msg import UInt8MultiArray

            if not rclpy.ok():
                rclpy.init()
            self.node = rclpy.create_node(f"wrapyfi_{role}_{os.getpid()}")
            qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
            name = "bench_wrapyfi_" + key.replace("-", "_")
            self.msg = UInt8MultiArray
            if role == "pub":
                self.end = self.node.create_publisher(UInt8MultiArray, name, qos)
            else:
                self.inbox: list = []
                self.end = self.node.create_subscription(UInt8MultiArray, name,
                                                         self.inbox.append, qos)
                self.executor, _ = ros2_env.executor()
                self.executor.add_node(self.node)
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
            # frame_id carries the framework's name.
            self.end.send_tensor(obj, stamp_ns=stamp, frame_id=fw)
            return
        a = np.ascontiguousarray(to_numpy(fw, obj))
        dt = a.dtype.str.encode()
        head = HEAD.pack(stamp, FRAMEWORKS.index(fw)) + struct.pack("<B", len(dt)) + dt
        head += struct.pack("<B", a.ndim) + struct.pack(f"<{a.ndim}I", *a.shape)
        data = head + a.tobytes()
        if self.mw == "zenoh":
            self.end.put(data)
        elif self.mw == "ros2":
            m = self.msg()
            m.data = data
            self.end.publish(m)
        else:
            self.end.send(data, copy=False)

    def recv(self, wait: float):
        """(framework, stamp, the framework's object), blocking up to `wait` seconds."""
        if self.mw == "nerve":
            m = self.end.recv(wait)
            if m is None:
                raise TimeoutError(f"nerve: no tensor within {wait:g} s")
            fw = m.header.header.frame_id
            stamp = m.header.header.stamp_ns
            if fw in NERVE_AS:
                return fw, stamp, self.end._convert(m, NERVE_AS[fw])
            return fw, stamp, from_numpy(fw, np.asarray(m.data))
        if self.mw == "zenoh":
            b = self.end.recv().payload.to_bytes()
        elif self.mw == "ros2":
            deadline = time.monotonic() + wait
            while not self.inbox:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"ros2: no tensor within {wait:g} s")
                self.executor.spin_once(timeout_sec=1.0)
            b = self.inbox.pop(0).data
        else:
            b = self.end.recv()
        stamp, k = HEAD.unpack_from(b, 0)
        o = HEAD.size
        n = b[o]
        dt = bytes(b[o + 1:o + 1 + n]).decode("ascii")
        o += 1 + n
        nd = b[o]
        shape = struct.unpack_from(f"<{nd}I", b, o + 1)
        o += 1 + 4 * nd
        a = np.frombuffer(b, dtype=np.dtype(dt), offset=o).reshape(shape)
        fw = FRAMEWORKS[k]
        return fw, stamp, from_numpy(fw, a)


def listen(mw: str, key: str, total: int, fws: list[str], wait: float) -> None:
    link = Link(mw, "sub", key)
    # Each framework imported and its conversion run once before the first message: a first
    # use (an import, a lazy initialisation) would otherwise land in the first latency.
    for fw in fws:
        from_numpy(fw, to_numpy(fw, make(fw)))
    print("READY", flush=True)
    # The publisher starts once every middleware's listener is ready (each imports the
    # framework: seconds for TensorFlow or PyTorch), then says GO; EOF: it is gone.
    if sys.stdin.readline().strip() != "GO":
        return
    lat: dict[str, list[float]] = {}
    for _ in range(total):
        fw, stamp, _obj = link.recv(wait)
        if stamp:
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
               str(a.hz), "--rounds", str(a.rounds), "--frameworks", fw,
               "--middlewares", ",".join(a.middlewares)]
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


def rounds_of(trials: int, rounds: int) -> list[int]:
    """How many messages each round sends (the trials split as evenly as they go)."""
    rounds = max(1, min(rounds, trials))
    return [trials // rounds + (1 if i < trials % rounds else 0) for i in range(rounds)]


class Listener(subprocess.Popen):
    """A listener process, its stderr kept in a file for the row of a listener that fails."""

    def __init__(self, argv: list[str]) -> None:
        self.log = tempfile.TemporaryFile()
        super().__init__(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                         text=True)


def listener_error(mw: str, child: Listener, what: str) -> str:
    """Why `mw`'s listener gave no result: `what`, and the last lines of its stderr."""
    child.log.seek(0)
    lines = [x for x in child.log.read().decode(errors="replace").splitlines() if x.strip()]
    tail = " | ".join(lines[-2:])[-300:]
    return f"{mw}: the listener {what}" + (f": {tail}" if tail else "")


def start(mws: list[str], fws: list[str], trials: int,
          wait: float) -> tuple[dict, dict, dict[str, str]]:
    """A listener process and a publisher per importable middleware, all ready; then each
    listener is told to start receiving (`wait`: the longest it waits for a message)."""
    children, pubs, why = {}, {}, {}
    started: dict[str, tuple[str, Listener]] = {}
    # Every listener starts at once (each imports its framework, seconds for TensorFlow),
    # then each is waited for: the imports overlap instead of adding up.
    for mw in mws:
        try:
            __import__(MODULE[mw])
        except Exception as e:  # noqa: BLE001
            why[mw] = f"{mw} not importable here: {type(e).__name__}: {str(e)[:120]}"
            continue
        key = f"{mw}-{os.getpid()}"
        started[mw] = (key, Listener([sys.executable, __file__, "listen", mw, key,
                                      str((trials + WARM) * len(fws)), ",".join(fws),
                                      str(wait)]))
    for mw, (key, child) in started.items():
        assert child.stdout is not None
        if child.stdout.readline().strip() != "READY":
            child.kill()
            why[mw] = listener_error(mw, child, f"did not start (status {child.wait()})")
            continue
        children[mw], pubs[mw] = child, Link(mw, "pub", key)
    deadline = time.monotonic() + 10.0
    while "ros2" in pubs and pubs["ros2"].end.get_subscription_count() < 1:
        if time.monotonic() > deadline:
            why["ros2"] = "ros2: the listener's subscription was not matched within 10 s"
            children.pop("ros2").kill()
            pubs.pop("ros2")
            break
        time.sleep(0.01)
    time.sleep(0.5)  # declarations settle (Zenoh's subscriber reaches the publisher)
    for child in children.values():
        assert child.stdin is not None
        child.stdin.write("GO\n")
        child.stdin.flush()
    return children, pubs, why


def run(a: argparse.Namespace) -> int:
    fws, missing = available(a.frameworks)
    split = rounds_of(a.trials, a.rounds)
    period = 1.0 / a.hz
    # A listener waits while the others take their turns of a round (and their warm-up
    # messages), with 10 s to spare.
    wait = 10.0 + len(a.middlewares) * max(max(split) * period, WARM * 0.01)
    children, pubs, why = start(a.middlewares, fws, a.trials, wait) if fws else ({}, {}, {})
    for fw in fws:
        obj = make(fw)
        to_numpy(fw, obj)  # first use outside the measurement, as on the listener's side
        for mw in pubs:
            for _ in range(WARM):
                pubs[mw].send(fw, obj, 0)
                time.sleep(0.001)
        for r, n in enumerate(split):
            order = list(pubs)
            order = order[r % len(order):] + order[:r % len(order)] if order else order
            for mw in order:
                start_t = time.perf_counter()
                for i in range(n):
                    due = start_t + i * period
                    now = time.perf_counter()
                    if due > now:
                        time.sleep(due - now)
                    pubs[mw].send(fw, obj, time.time_ns())
    lat: dict[str, dict[str, list[float]]] = {}
    for mw, child in children.items():
        assert child.stdout is not None
        line = child.stdout.readline()
        child.wait(timeout=30)
        if not line.startswith("RESULT "):
            why[mw] = listener_error(mw, child,
                                     f"ended with status {child.returncode} and no result")
            continue
        lat[mw] = json.loads(line.removeprefix("RESULT "))
    cases = []
    for fw in a.frameworks:
        size = SHAPE[0] * SHAPE[1] * (1 if fw == "pil" else 4)
        for mw in a.middlewares:
            c = {"table": "wrapyfi", "case": f"{fw} {mw}", "metric": "one_way_ns",
                 "payload_bytes": size}
            got = lat.get(mw, {}).get(fw, [])
            if fw in missing or mw in why:
                c["error"] = missing.get(fw) or why[mw]
            elif len(got) != a.trials:
                c["error"] = f"{mw} delivered {len(got)} of {a.trials} {fw} tensors"
            else:
                c["samples_ns"] = got
                c["note"] = (f"{a.trials} trials at {a.hz:g} Hz in {len(split)} rounds "
                             "alternating the middlewares, blocking receive, "
                             "(de)serialisation included")
            cases.append(c)
        mine = lat.get("nerve", {}).get(fw, [])
        for mw in a.middlewares:
            peer = lat.get(mw, {}).get(fw, [])
            if mw == "nerve" or len(mine) != a.trials or len(peer) != a.trials:
                continue
            ratios, o = [], 0
            for n in split:
                ratios.append(statistics.median(mine[o:o + n]) / statistics.median(peer[o:o + n]))
                o += n
            cases.append({"table": "wrapyfi", "case": f"{fw} nerve",
                          "metric": f"ratio_one_way_ns_vs_{mw}", "payload_bytes": size,
                          "value": statistics.median(ratios),
                          "note": "nerve / the peer per round (each round's median), median "
                                  f"over {len(split)} rounds"})
    print("inproc " + json.dumps({"system": "nerve", "version": "", "cases": cases}), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(cases, f)
    return 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] in ("frameworks", "mxnet"):
        # As `nerve-bench python` runs its in-process tables: `wrapyfi.py <venv> <quick>`.
        fws = ["mxnet"] if sys.argv[1] == "mxnet" else [f for f in FRAMEWORKS if f != "mxnet"]
        quick = sys.argv[2] == "1"
        return run_each(argparse.Namespace(frameworks=fws, middlewares=MIDDLEWARES,
                                           trials=30 if quick else 300,
                                           rounds=5 if quick else 6, hz=100.0, json=None))
    if len(sys.argv) > 1 and sys.argv[1] == "listen":
        listen(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5].split(","),
               float(sys.argv[6]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cmd", choices=["run"])
    p.add_argument("--trials", type=int, default=2000)
    p.add_argument("--hz", type=float, default=100.0)
    p.add_argument("--rounds", type=int, default=10,
                   help="rounds alternating the middlewares (nerve / peer per round)")
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
