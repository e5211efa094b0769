#!/usr/bin/env python3
"""One send + receive at a time in one thread, through nerve's Python API, for the
instruction counts of `benches/nerve-bench/instructions.py` (run under callgrind) and their
times (run bare).

    hop_count.py <case> <hops> [<core>]
        case: CmdVel, Pose2D, Imu, dict, Image-1920x1080, Tensor-200x200

Each hop does what the Python suite's nerve side does for that case (`sys_nerve.py`): the
same constructors, the same loan or copy, the same check of the received data; the topic has
one publisher and one subscriber in this thread, so a hop is the API's own cost, no wake-up.
Prints ``hops <n> ns_per_hop <mean>``.
"""

from __future__ import annotations

import os
import sys
import time

import nerve
import numpy as np

M32 = 0xFFFFFFFF
W, H = 1920, 1080
SHAPE = (200, 200)
WARM = 32


def die(what: str) -> None:
    print(f"hop_count.py: {what}", file=sys.stderr)
    sys.exit(1)


def fixed_case(case: str):
    """(type, send, check) of a fixed message case."""
    if case == "CmdVel":
        return (nerve.CmdVel, lambda i: nerve.CmdVel(i, 0.5, 0.1), lambda m: m.stamp_ns)
    if case == "Pose2D":
        return (nerve.Pose2D, lambda i: nerve.Pose2D(float(i & M32), float(i >> 32), 0.5),
                lambda m: int(m.x) | (int(m.y) << 32))

    def imu(i: int) -> nerve.Imu:
        m = nerve.Imu()
        m.header.stamp_ns = i
        m.orientation.w = 1.0
        m.angular_velocity.z = 0.1
        return m

    return nerve.Imu, imu, lambda m: m.header.stamp_ns


def hop_fn(case: str):
    """The one-hop function of `case`: sends message `i`, receives it, checks it."""
    if case in ("CmdVel", "Pose2D", "Imu"):
        typ, make, seq = fixed_case(case)
        t = nerve.Topic("hopcount/loop", typ, depth=16)
        pub, sub = t.publisher(), t.subscriber()
        send, try_recv = pub.send, sub.try_recv

        def hop(i: int) -> None:
            send(make(i))
            m = try_recv()
            if m is None or seq(m) != i:
                die("lost a message")

        return hop, (pub, sub)
    if case == "dict":
        t = nerve.Topic("hopcount/loop", dict, depth=16)
        pub, sub = t.publisher(), t.subscriber()

        def hop(i: int) -> None:
            pub.send({"x": 1.0, "y": 2.0, "cmd": "go", "seq": i})
            m = sub.try_recv()
            if m is None or m["seq"] != i:
                die("lost a message")

        return hop, (pub, sub)
    if case == "Image-1920x1080":
        t = nerve.Topic("hopcount/loop", nerve.Image, depth=4,
                        max_message_bytes=W * H * 3 + 4096, chunks=8)
        pub, sub = t.publisher(), t.subscriber()

        def hop(i: int) -> None:
            loan = pub.loan_image(W, H, "rgb8", stamp_ns=i)
            d = loan.data
            d[0, 0, 0] = d[-1, -1, -1] = i % 251
            loan.send()
            m = sub.try_recv()
            if m is None or m.header.header.stamp_ns != i:
                die("lost a message")
            if m.data[0, 0, 0] != i % 251 or m.data[-1, -1, -1] != i % 251:
                die("image check failed")

        return hop, (pub, sub)
    if case == "Tensor-200x200":
        n = SHAPE[0] * SHAPE[1] * 4
        t = nerve.Topic("hopcount/loop", nerve.Tensor, depth=4, max_message_bytes=n + 4096,
                        chunks=8)
        pub, sub = t.publisher(), t.subscriber()
        a = np.ones(SHAPE, np.float32)

        def hop(i: int) -> None:
            a[0, 0] = a[-1, -1] = i % 251
            pub.send_tensor(a, stamp_ns=i)  # one copy into a loan, as send(array)
            m = sub.try_recv()
            if m is None or m.header.header.stamp_ns != i:
                die("lost a message")
            if m.data[0, 0] != i % 251 or m.data[-1, -1] != i % 251:
                die("tensor check failed")

        return hop, (pub, sub)
    die(f"unknown case {case!r}")
    raise AssertionError


def main() -> int:
    if len(sys.argv) not in (3, 4):
        die("usage: hop_count.py <case> <hops> [<core>]")
    case, hops = sys.argv[1], int(sys.argv[2])
    if len(sys.argv) == 4:
        os.sched_setaffinity(0, {int(sys.argv[3])})
    hop, _keep = hop_fn(case)
    # Every chunk of the pool (8) used a few times first: the first touch of a 6 MB chunk's
    # pages (~2 ms) is not timed (and, counted or not, the same in every count).
    for i in range(WARM):
        hop(i)
    clock = time.perf_counter_ns
    t0 = clock()
    for i in range(WARM, WARM + hops):
        hop(i)
    print(f"hops {hops} ns_per_hop {(clock() - t0) / max(hops, 1):.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
