#!/usr/bin/env python3
"""The FFI-overhead ping-pong in Python: the same protocol and checks as benches/c/pingpong.c
(read its header), through nerve's Python API, for `nerve-bench ipc`'s FFI table.

    ffi_pingpong.py ping|echo <prefix> <bytes> poll|blocking <samples> <warmup> <core>
    ffi_pingpong.py loop <prefix> <message> <batches> <per_batch> <core>
        (message: CmdVel, Pose2D, Imu, dict, dict-v or dict-xyz)

``loop`` is the HORUS seed's "send+recv" in one thread: nerve's standard CmdVel or Imu, or the
small dict {"x", "y", "cmd", "seq"} as MessagePack, published and received ``per_batch`` times
per batch (its stamp or seq checked); it prints each batch's mean ns per send+recv.
"""

from __future__ import annotations

import os
import sys
import time

import nerve
import numpy as np

STOP = (1 << 64) - 1
CHECK_WORD = 0x5555555555555555
TIMEOUT_S = 5.0
BYTES = np.arange(64, dtype=np.uint64)


def pattern(seq: int) -> np.ndarray:
    """The 64 bytes that start a Blob of `seq` (the last 64 are pattern(seq + 1))."""
    return ((BYTES + np.uint64(seq & 0xFF)) & np.uint64(0xFF)).astype(np.uint8)


@nerve.message("bench/Ping16")
class Ping16:
    seq: nerve.u64
    check: nerve.u64


@nerve.message("bench/Blob", elem=nerve.u8)
class Blob:
    seq: nerve.u64
    len: nerve.u64


def die(what: str) -> None:
    print(f"ffi_pingpong.py: {what}", file=sys.stderr)
    sys.exit(1)


def loop_main() -> int:
    prefix, message = sys.argv[2], sys.argv[3]
    batches, per, core = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    os.sched_setaffinity(0, {core})
    if message == "CmdVel":
        cls = nerve.CmdVel
        make = lambda i: nerve.CmdVel(stamp_ns=i)  # noqa: E731
        seq = lambda m: m.stamp_ns  # noqa: E731
    elif message == "Pose2D":
        cls = nerve.Pose2D
        make = lambda i: nerve.Pose2D(x=float(i), y=2.0, theta=0.5)  # noqa: E731
        seq = lambda m: int(m.x)  # noqa: E731
    elif message == "Imu":
        cls = nerve.Imu
        m0 = nerve.Imu()

        def make(i: int) -> nerve.Imu:
            m0.header.seq = i
            return m0

        seq = lambda m: m.header.seq  # noqa: E731
    elif message.startswith("dict"):
        cls = dict
        make = {
            "dict": lambda i: {"x": 1.0, "y": 2.0, "cmd": "go", "seq": i},
            "dict-v": lambda i: {"v": 1.0, "seq": i},
            "dict-xyz": lambda i: {"x": 1.0, "y": 2.0, "z": 3.0, "seq": i},
        }.get(message)
        if make is None:
            die(f"unknown message {message!r}")
        seq = lambda m: m["seq"]  # noqa: E731
    else:
        die(f"unknown message {message!r}")
    topic = nerve.Topic(f"{prefix}/loop", cls, depth=16)
    pub, sub = topic.publisher(), topic.subscriber()
    clock = time.perf_counter_ns
    out = []
    i = 0
    for _ in range(batches):
        t0 = clock()
        for _ in range(per):
            pub.send(make(i))
            m = sub.try_recv()
            if m is None or seq(m) != i:
                die("send+recv lost a message")
            i += 1
        out.append((clock() - t0) / per)
    print("samples " + " ".join(f"{v:.2f}" for v in out), flush=True)
    return 0


def main() -> int:
    if len(sys.argv) == 7 and sys.argv[1] == "loop":
        return loop_main()
    if len(sys.argv) != 8:
        die("usage: ffi_pingpong.py ping|echo <prefix> <bytes> poll|blocking <samples> "
            "<warmup> <core>")
    role, prefix, size, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    samples, warmup, core = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
    os.sched_setaffinity(0, {core})
    fixed = size == 16
    blocking = mode == "blocking"
    opts = {"depth": 4} if fixed else {"depth": 4, "max_message_bytes": size + 4096}
    cls = Ping16 if fixed else Blob
    out_name, in_name = ("pong", "ping") if role == "echo" else ("ping", "pong")
    tout = nerve.Topic(f"{prefix}/{out_name}", cls, **opts)
    tin = nerve.Topic(f"{prefix}/{in_name}", cls, **opts)
    sub, pub = tin.subscriber(), tout.publisher()

    def send(seq: int) -> None:
        if fixed:
            pub.send(Ping16(seq=seq, check=seq ^ CHECK_WORD))
            return
        loan = pub.loan(size)
        loan.header.seq, loan.header.len = seq, size
        d = loan.data
        d[:64] = pattern(seq)
        d[size - 64:] = pattern(seq + 1)
        loan.send()

    def recv() -> int:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            m = sub.recv(TIMEOUT_S) if blocking else sub.try_recv()
            if m is not None:
                break
            if blocking or time.monotonic() > deadline:
                die("nothing for 5 s")
        if fixed:
            if m.check != m.seq ^ CHECK_WORD:
                die("a corrupt Ping16")
            return int(m.seq)
        seq = int(m.header.seq)
        d = m.data
        if m.header.len != size or len(d) != size:
            die("a Blob of the wrong length")
        if seq != STOP and (not np.array_equal(d[:64], pattern(seq))
                            or not np.array_equal(d[size - 64:], pattern(seq + 1))):
            die("a corrupt Blob")
        return seq

    if role == "echo":
        print("ready", flush=True)
        while (seq := recv()) != STOP:
            send(seq)
        return 0
    out = []
    clock = time.perf_counter_ns
    for i in range(warmup + samples):
        t0 = clock()
        send(i)
        if recv() != i:
            die("an echo out of order")
        t1 = clock()
        if i >= warmup:
            out.append((t1 - t0) // 2)
    send(STOP)
    print("samples " + " ".join(map(str, out)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
