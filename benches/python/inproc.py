#!/usr/bin/env python3
"""In-process Python tables of the HORUS seed, for one system per run: nerve or horus.

    inproc.py <system> <quick 0|1>

Prints one line ``inproc <JSON>`` (the systems print their own lines too):
``{"system": .., "version": .., "cases": [{"table", "case", "metric",
"payload_bytes", "samples_ns" | "value" | "error", "note"}, ...]}``. ``nerve-bench python``
runs it in alternating rounds, nerve's interpreter then HORUS's, and pools the samples.

Tables (each sample is the mean time of one operation over a batch, in ns):
* ``zero_copy``: getting a numpy array of a received message's data without a copy, against
  ``np.copy`` of it: images 320×240 … 1920×1080 (rgb8), point clouds of 10K and 100K xyz
  points, a 640×480 float32 depth image. Same work on both sides: ``build_view_ns`` makes a
  NEW array over the message's memory (nerve: ``np.from_dlpack(sample)``; HORUS:
  ``to_numpy()`` of a message received through an in-process Topic; nerve's points, which
  DLPack cannot describe, only have ``sample.data.view()``, numpy's view of the array built in
  the receive: shown, said not like for like, no ratio); ``data_attr_ns``
  (nerve only) reads ``sample.data``, the array nerve built while receiving (its cost is in
  the receive, so it is no build and is not compared with one); ``dlpack_ns`` is
  ``np.from_dlpack(...)`` where the system exports DLPack; ``copy_ns`` is ``np.copy`` of the
  array.
* ``node_tick``: a Python node on the system's scheduler at 1 kHz: an empty body; a body that
  sends a small dict; one that sends and receives it. ``tick_cpu_ns`` = the process's CPU time
  per tick (the scheduler's waits and wake-ups, the GIL and the call included); ``hz`` the
  rate reached.
* ``generic_size``: MessagePack bytes of HORUS's five generic-message payloads (no timing).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

IMAGES = [(320, 240), (640, 480), (1280, 720), (1920, 1080)]
CLOUDS = [10_000, 100_000]
DEPTH = (640, 480)


def batch_means(fn, quick: bool) -> list[float]:
    """Mean ns per call of ``fn`` over batches: about 20 ms (quick) or 200 ms per round."""
    clock = time.perf_counter_ns
    fn()
    t0 = clock()
    fn()
    one = max(clock() - t0, 50)
    per = max(1, min(2_000, 200_000 // one))
    out = []
    budget = (20 if quick else 200) * 1_000_000
    start = clock()
    while len(out) < 5 or (clock() - start < budget and len(out) < 200):
        t0 = clock()
        for _ in range(per):
            fn()
        out.append((clock() - t0) / per)
    return out


def generic_payloads() -> list[tuple[str, object]]:
    return [
        ("empty dict", {}),
        ("CmdVel-like", {"linear": 1.0, "angular": 0.5}),
        ("IMU-like", {"accel": [0.1, 0.2, 9.81], "gyro": [0.0, 0.0, 0.1],
                      "mag": [0.2, 0.0, 0.4]}),
        ("LaserScan 360 rays", {"ranges": [1.0 + 0.01 * i for i in range(360)],
                                "angle_min": -3.14159, "angle_increment": 0.01745}),
        ("10 detections", {"detections": [
            {"class": "person", "confidence": 0.9, "bbox": [10.0 * i, 20.0, 50.0, 100.0]}
            for i in range(10)]}),
    ]


# The rate the tick tables ask for: a fast Python node (1 ms period, above the 160 µs below
# which HORUS's scheduler spins instead of sleeping).
TICK_HZ = 1000.0


def tick_case(case: str, run, secs: float, how: str) -> dict:
    """The ``node_tick`` row: ``run(rate)`` runs the node ``secs`` at ``TICK_HZ`` and returns
    its tick count. Per tick: the process's CPU time (every thread: the scheduler's waits and
    wake-ups, the GIL, the call, the body) over the ticks."""
    cpu0 = time.process_time_ns()
    ticks = run(TICK_HZ)
    cpu = time.process_time_ns() - cpu0
    return {"table": "node_tick", "case": case, "metric": "tick_cpu_ns", "payload_bytes": 0,
            "samples_ns": [cpu / max(ticks, 1)], "ticks": ticks, "hz": ticks / secs,
            "note": f"{how} at {TICK_HZ:.0f} Hz: process CPU time / ticks"}


# ---------------------------------------------------------------------------------------------
# nerve


def nerve_cases(quick: bool) -> list[dict]:
    import nerve

    out: list[dict] = []
    n = 0

    def topic(cls, max_bytes: int):
        nonlocal n
        n += 1
        t = nerve.Topic(f"bench/inproc/{os.getpid()}/{n}", cls, in_process=True, depth=2,
                        max_message_bytes=max_bytes + 4096, chunks=4)
        return t.publisher(), t.subscriber()

    def views(case: str, nbytes: int, sample, dlpack: bool) -> None:
        data = sample.data
        if dlpack:
            build = ("np.from_dlpack(sample): a new array over the received chunk",
                     lambda: np.from_dlpack(sample))
        else:
            # Not like for like, and said so (no ratio row): DLPack cannot describe structured
            # points and nerve has no public call that builds a new array from the chunk.
            build = ("not like for like: sample.data.view(), numpy's view of the array nerve "
                     "built in the receive, not a build from the chunk as HORUS's to_numpy() "
                     "(DLPack cannot describe structured points; nerve has no other public "
                     "builder); no ratio", lambda: sample.data.view())
        rows = [("build_view_ns", build[0], build[1]),
                ("data_attr_ns", "sample.data: an attribute read of the array nerve built "
                 "during receive (its cost is in the receive; no build, not compared with "
                 "HORUS's to_numpy)", lambda: sample.data)]
        if dlpack:
            rows.append(("dlpack_ns", "np.from_dlpack(sample)", lambda: np.from_dlpack(sample)))
        else:
            out.append({"table": "zero_copy", "case": case, "metric": "dlpack_ns",
                        "payload_bytes": nbytes,
                        "error": "not applicable: points are a structured (x, y, z) array, "
                                 "which DLPack cannot describe"})
        rows.append(("copy_ns", "np.copy(sample.data)", lambda: np.copy(data)))
        for metric, note, fn in rows:
            out.append({"table": "zero_copy", "case": case, "metric": metric, "note": note,
                        "payload_bytes": nbytes, "samples_ns": batch_means(fn, quick)})
            if metric == "data_attr_ns" or (metric == "build_view_ns" and not dlpack):
                out[-1]["ratio"] = False

    for w, h in IMAGES:
        pub, sub = topic(nerve.Image, w * h * 3)
        loan = pub.loan_image(w, h, "rgb8")
        loan.data[...] = 7
        loan.send()
        views(f"Image {w}x{h}", w * h * 3, sub.try_recv(), True)
    for points in CLOUDS:
        pub, sub = topic(nerve.PointCloud, points * 12)
        loan = pub.loan_points(points, "xyz")
        loan.data.view(np.uint8)[...] = 7
        loan.send()
        views(f"PointCloud {points // 1000}K", points * 12, sub.try_recv(), False)
    w, h = DEPTH
    pub, sub = topic(nerve.DepthImage, w * h * 4)
    loan = pub.loan_image(w, h, "32FC1")
    loan.data[...] = 1.5
    loan.send()
    views(f"DepthImage {w}x{h}", w * h * 4, sub.try_recv(), True)

    # Node tick overhead: a Python node on nerve's Rust scheduler.
    secs = 0.5 if quick else 2.0
    pub, sub = topic(dict, 256)
    msg = {"x": 1.0, "y": 2.0, "cmd": "go", "seq": 0}

    ticks = [0]

    class Empty(nerve.Node):
        def tick(self, ctx):
            ticks[0] += 1

    class Send(nerve.Node):
        def tick(self, ctx):
            ticks[0] += 1
            pub.send(msg)

    class SendRecv(nerve.Node):
        def tick(self, ctx):
            ticks[0] += 1
            pub.send(msg)
            sub.try_recv()

    for case, cls in [("empty tick", Empty), ("tick + send(dict)", Send),
                      ("tick + send + recv", SendRecv)]:

        def run(rate: float, cls=cls) -> int:
            ticks[0] = 0
            s = nerve.Scheduler()
            s.add(cls(), rate=rate)
            s.run(secs)
            return ticks[0]

        out.append(tick_case(case, run, secs, "nerve.Scheduler, one Python node"))
    for case, payload in generic_payloads():
        out.append({"table": "generic_size", "case": case, "metric": "encoded_bytes",
                    "payload_bytes": 0, "value": len(nerve.codec.packb(payload)),
                    "note": "nerve.codec (MessagePack); dict topics have no fixed size limit"})
    return out


# ---------------------------------------------------------------------------------------------
# HORUS


def horus_cases(quick: bool) -> list[dict]:
    import horus

    out: list[dict] = []

    def received(msg):  # noqa: ANN001, ANN202
        """``msg`` sent and received through an in-process HORUS Topic of its type, as nerve's
        views are of a received sample (``to_numpy()`` costs the same either way here); the
        message itself, and why, if none comes back."""
        try:
            t = horus.Topic(type(msg), 4, endpoint=f"bench.zc.{os.getpid()}.{len(out)}")
            t.send(msg)
            for _ in range(10_000):
                m = t.recv()
                if m is not None:
                    return m, "received through an in-process horus.Topic"
            return msg, "made, not received (the in-process Topic returned nothing)"
        except Exception as e:  # noqa: BLE001
            return msg, f"made, not received ({type(e).__name__}: {e})"

    def views(case: str, nbytes: int, made) -> None:
        msg, how = received(made)
        arr = msg.to_numpy()
        arr[...] = 7  # written, as a received message is (untouched pages read as zeros fast)
        out.append({"table": "zero_copy", "case": case, "metric": "build_view_ns",
                    "payload_bytes": nbytes, "note": "msg.to_numpy(): a new array (its docs' "
                    f"zero-copy accessor); {how}", "samples_ns": batch_means(msg.to_numpy, quick)})
        out.append({"table": "zero_copy", "case": case, "metric": "data_attr_ns",
                    "payload_bytes": nbytes,
                    "error": "not applicable: HORUS keeps no array from the receive; "
                             "to_numpy() builds one (build_view_ns)"})
        try:
            np.from_dlpack(msg.as_tensor())
            out.append({"table": "zero_copy", "case": case, "metric": "dlpack_ns",
                        "payload_bytes": nbytes, "note": "np.from_dlpack(msg.as_tensor())",
                        "samples_ns": batch_means(lambda: np.from_dlpack(msg.as_tensor()),
                                                  quick)})
        except Exception as e:  # noqa: BLE001
            out.append({"table": "zero_copy", "case": case, "metric": "dlpack_ns",
                        "payload_bytes": nbytes, "error": f"no DLPack export: {e}"})
        out.append({"table": "zero_copy", "case": case, "metric": "copy_ns",
                    "payload_bytes": nbytes, "note": "np.copy(msg.to_numpy())",
                    "samples_ns": batch_means(lambda: np.copy(arr), quick)})

    for w, h in IMAGES:
        views(f"Image {w}x{h}", w * h * 3, horus.Image(h, w, "rgb8"))
    for points in CLOUDS:
        views(f"PointCloud {points // 1000}K", points * 12, horus.PointCloud(points, 3))
    w, h = DEPTH
    views(f"DepthImage {w}x{h}", w * h * 4, horus.DepthImage(h, w))

    secs = 0.5 if quick else 2.0
    msg = {"x": 1.0, "y": 2.0, "cmd": "go", "seq": 0}
    counter = {"ticks": 0}
    topic = f"bench.inproc.{os.getpid()}"

    def empty(node):
        counter["ticks"] += 1

    def send(node):
        counter["ticks"] += 1
        node.send(topic, msg)

    def send_recv(node):
        counter["ticks"] += 1
        node.send(topic, msg)
        if node.has_msg(topic):
            node.recv(topic)

    for case, fn in [("empty tick", empty), ("tick + send(dict)", send),
                     ("tick + send + recv", send_recv)]:

        def run(rate: float, fn=fn) -> int:
            counter["ticks"] = 0
            subs = [topic] if fn is send_recv else None
            # A generous budget and deadline: HORUS derives them from the rate and, on
            # sustained misses, lowers the rate and isolates the node (its safety monitor).
            node = horus.Node(name=f"tick{len(out)}_{int(rate)}", tick=fn, rate=rate,
                              pubs=[topic], subs=subs, budget=0.01, deadline=0.01,
                              on_miss="warn")
            s = horus.Scheduler(tick_rate=rate)
            s.add(node)
            s.run(secs)
            return counter["ticks"]

        how = "horus.Scheduler(tick_rate=rate), one Python node (budget and deadline 10 ms)"
        out.append(tick_case(case, run, secs, how))

    import msgpack

    for case, payload in generic_payloads():
        out.append({"table": "generic_size", "case": case, "metric": "encoded_bytes",
                    "payload_bytes": 0, "value": len(msgpack.packb(payload)),
                    "note": "MessagePack (msgpack.packb), as HORUS's GenericMessage"})
    return out


def main() -> int:
    from tables_main import run

    return run({"nerve": nerve_cases, "horus": horus_cases},
               {"nerve": "nerve", "horus": "horus-robotics"})


if __name__ == "__main__":
    sys.exit(main())
