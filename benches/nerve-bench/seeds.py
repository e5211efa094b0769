"""The seeds' published tables, each beside nerve's table of the same shape from one run.

Used by ``report.py``. Every seed table (``seed_figures.json``: the published text, quoted
from ``../shared/seeds/``, with its lines) gets a section: nerve's table built here from the
run's rows (peers measured in the same run, in interleaved rounds), then the seed's figures
in a folded block, marked as taken on another machine. Seed figures are never divided by
nerve's: the only ratios shown are the per-round ratio rows of the run itself.

A table whose rows the run lacks says which rows are missing, and a seed table nerve does
not reproduce says why (``WHY``): nothing is left out silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from seedcells import Row, beaten, cell, fmt, rows_where, table, value

FIGURES = json.loads(Path(__file__).with_name("seed_figures.json").read_text())

TYPES = ["CmdVel", "BatteryState", "Imu", "Odometry", "LaserScan", "PointCloud-100",
         "PointCloud-1000", "PointCloud-10000"]
TYPICAL_HZ = {"CmdVel": 1000, "BatteryState": 1, "Imu": 100, "Odometry": 50, "LaserScan": 10,
              "PointCloud-100": 30, "PointCloud-1000": 30, "PointCloud-10000": 30}


# ---------------------------------------------------------------------------------------------
# Builders: results (every suite's rows, each with "suite") -> markdown lines


def ipc(R: list[Row], **flt: Any) -> dict[str, Any]:
    """Filter defaults of the ipc latency rows: cross-process, busy-poll, 1:1, one_way_ns."""
    base = {"suite": "ipc", "transport": "cross-process", "mode": "poll", "topology": "1:1",
            "metric": "one_way_ns", "variant": lambda v: v is None or "ffi" not in str(v),
            "topics": None}
    base.update(flt)
    return base


def nerve_msg(t: str) -> Callable[[Any], bool]:
    """nerve labels its chunk-path bytes rows `bytes-chunk`; types keep their names."""
    return lambda m: m in (t, f"{t}-chunk")


def b_exec(R: list[Row]) -> list[str]:
    body = []
    for t in TYPES:
        thr = value(R, **ipc(R, system="nerve", message=t, metric="msgs_per_s"))
        body.append([
            t, str((rows_where(R, suite="ipc", message=t) or [{}])[0].get("payload_bytes", "–")),
            cell(R, "ns", **ipc(R, system="nerve", message=t)),
            cell(R, "ns", "mean", **ipc(R, system="nerve", message=t, topology="3:3")),
            cell(R, "rate", **ipc(R, system="nerve", message=t, metric="msgs_per_s")),
            cell(R, "ns", **ipc(R, system="iceoryx2", message=t)),
            cell(R, "ns", "mean", **ipc(R, system="iceoryx2", message=t, topology="3:3")),
            cell(R, "rate", **ipc(R, system="iceoryx2", message=t, metric="msgs_per_s")),
            beaten(value(R, **ipc(R, system="nerve", message=t,
                                  metric="ratio_p50_vs_iceoryx2"))),
            f"{TYPICAL_HZ[t]} Hz", fmt(thr / TYPICAL_HZ[t], "x") if thr else "–",
        ])
    return table(["type", "bytes", "nerve 1:1 p50", "nerve 3:3 mean", "nerve msg/s (1:1)",
                  "iceoryx2 1:1 p50", "iceoryx2 3:3 mean", "iceoryx2 msg/s",
                  "nerve/iceoryx2 1:1 (per round)", "typical rate", "headroom"], body) + [
        "", ("Cross-process, busy-poll, one-way = round trip / 2. Throughput: 1:1, windows of up "
        "to 1024 messages acknowledged as a whole. The seed's N:N is HORUS's Hub; nerve has "
        "one topic kind for every topology.")]


def b_mixed(R: list[Row]) -> list[str]:
    body = []
    for system in ("nerve", "iceoryx2", "zenoh", "udp"):
        f = {"suite": "local", "mode": "mixed", "system": system}
        body.append([system, cell(R, "us", "mean", metric="latency_us", **f),
                     cell(R, "us", "min", metric="latency_us", **f),
                     cell(R, "us", "max", metric="latency_us", **f),
                     cell(R, "n", "n", metric="latency_us", **f),
                     cell(R, "pct", metric="loss_rate", **f),
                     cell(R, "x", **{**f, "system": "nerve"}, metric=f"ratio_mean_vs_{system}")
                     if system != "nerve" else "–"])
    return table(["system", "mean", "min", "max", "messages", "loss", "nerve/this (mean)"],
                 body) + ["", ("Three topics on one host: CmdVel (16 B) and Imu (304 B) at 100 Hz, "
                          "BatteryState (104 B) at 1 Hz, one-way from a send stamp.")]


def b_size(R: list[Row]) -> list[str]:
    body = []
    for t in TYPES[:5]:
        body.append([t, cell(R, "ns", **ipc(R, system="nerve", message=t, topology="3:3")),
                     cell(R, "ns", **ipc(R, system="nerve", message=t)),
                     cell(R, "ns", **ipc(R, system="iceoryx2", message=t)),
                     cell(R, "ns", suite="python", system="ros2", scenario=t, mode="poll",
                          metric="one_way_ns") if t in ("CmdVel", "Imu") else "–"])
    return table(["type", "nerve 3:3 p50", "nerve 1:1 p50", "iceoryx2 1:1 p50",
                  "ROS 2 (rclpy, Python) p50"], body) + [
        "", ("One-way (round trip / 2), never send-only: a send alone says nothing about "
        "delivery. ROS 2 figures are Python to Python (the `python` suite); nerve's Python "
        "figures are in the Python IPC table.")]


def b_ros2(R: list[Row]) -> list[str]:
    body = []
    for label, scen in [("small: CmdVel", "CmdVel"), ("medium: Imu", "Imu"),
                        ("large: 1080p image", "Image-1920x1080")]:
        f = {"suite": "python", "scenario": scen, "mode": "poll", "metric": "one_way_ns"}
        body.append([label, cell(R, "ns", system="nerve", **f),
                     cell(R, "ns", system="ros2", variant=lambda v: "Events" in str(v), **f),
                     cell(R, "ns", system="ros2", variant=lambda v: "Single" in str(v), **f),
                     cell(R, "x", **{**f, "metric": "ratio_p50_vs_ros2"}, system="nerve")])
    return table(["size", "nerve (Python)", "ROS 2 rclpy EventsExecutor",
                  "ROS 2 rclpy SingleThreadedExecutor", "nerve/ROS 2 (per round)"], body) + [
        "", ("Python to Python across processes, busy-poll, one-way. ROS 2 is rclpy with Fast "
        "DDS from PyPI (no rclcpp wheel exists there); the seed's ROS 2 row is C++ DDS.")]


def b_ffi(R: list[Row]) -> list[str]:
    body = []
    for m in ["CmdVel", "Pose2D", "Imu", "dict-v", "dict-xyz", "dict"]:
        f = {"suite": "ipc", "variant": "ffi", "metric": "send_recv_ns", "message": m}
        body.append([m] + [cell(R, "ns", api=a, **f) for a in ("rust", "c", "cpp", "python")]
                    + [cell(R, "x", api="python", **{**f, "metric": "ratio_p50_vs_rust"})])
    return table(["message", "Rust", "C", "C++", "Python", "Python/Rust"], body) + [
        "", ("One send and one receive in one thread (median of batch means). dict = "
        "{x, y, cmd, seq}; dict-v = {v, seq}; dict-xyz = {x, y, z, seq}.")]


def b_pyipc(R: list[Row]) -> list[str]:
    body = []
    for s in ["CmdVel", "Pose2D", "Imu", "dict-v", "dict-xyz", "dict-small", "dict-1k"]:
        f = {"suite": "python", "scenario": s, "mode": "poll", "metric": "one_way_ns"}
        body.append([s, cell(R, "ns", system="nerve", **f),
                     cell(R, "ns", "p99", system="nerve", **f),
                     cell(R, "ns", "p999", system="nerve", **f),
                     cell(R, "ns", system="horus", **f),
                     beaten(value(R, system="nerve", **{**f, "metric": "ratio_p50_vs_horus"}))])
    return table(["message", "nerve p50", "nerve p99", "nerve p99.9", "HORUS p50",
                  "nerve/HORUS (per round)"], body) + [
        "", ("Python to Python across processes, one-way = round trip / 2, both systems "
        "polling (HORUS's Python Topic has no blocking receive).")]


def b_zerocopy(R: list[Row]) -> list[str]:
    cases = ["Image 320x240", "Image 640x480", "Image 1280x720", "Image 1920x1080",
             "PointCloud 10K", "PointCloud 100K", "DepthImage 640x480"]
    body = []
    for c in cases:
        f = {"suite": "python", "table": "zero_copy", "message": c}
        body.append([c, cell(R, "ns", system="nerve", metric="build_view_ns", **f),
                     cell(R, "ns", system="horus", metric="build_view_ns", **f),
                     beaten(value(R, system="nerve", metric="ratio_build_view_ns_vs_horus",
                                  **f)),
                     cell(R, "ns", system="nerve", metric="copy_ns", **f),
                     cell(R, "ns", system="horus", metric="copy_ns", **f),
                     cell(R, "ns", system="nerve", metric="data_attr_ns", **f)])
    return table(["data", "nerve new view", "HORUS to_numpy()", "new view nerve/HORUS",
                  "nerve np.copy", "HORUS np.copy", "nerve .data (attribute read)"], body) + [
        "", ("In one process, median of batch means. Build against build: nerve's new view is "
        "`np.from_dlpack(sample)`, HORUS's is `to_numpy()` (of a received message); both make "
        "a new array over the message's memory. nerve's point clouds, which DLPack cannot "
        "describe, only have `sample.data.view()` (numpy's view of the array built in the "
        "receive): not like for like, so no ratio. nerve's `.data` is an attribute read of "
        "the array nerve built "
        "while receiving (its cost is in the receive), shown on its own and compared with "
        "nothing. nerve's point clouds are structured (x, y, z) arrays, slower to `np.copy` "
        "than HORUS's (N, 3) float32.")]


def b_overhead(R: list[Row]) -> list[str]:
    f16 = {"suite": "ipc", "message": lambda m: m in ("bytes", "bytes-chunk"),
           "payload_bytes": 16, "mode": "poll", "topology": "1:1", "metric": "one_way_ns",
           "topics": None}
    body = [
        ["raw memcpy (16 B, one thread)", cell(R, "ns", suite="ipc", system="memcpy",
                                               payload_bytes=16, metric="copy_ns")],
        ["raw shared-memory atomic ping-pong, cross-process",
         cell(R, "ns", system="raw-shm", transport="cross-process", **f16)],
        ["nerve same thread", cell(R, "ns", system="nerve", transport="same-thread", **f16)],
        ["nerve cross-thread", cell(R, "ns", system="nerve", transport="cross-thread", **f16)],
        ["nerve cross-process", cell(R, "ns", system="nerve", transport="cross-process", **f16)],
        ["iceoryx2 cross-process", cell(R, "ns", system="iceoryx2",
                                        transport="cross-process", **f16)],
        ["raw UDP loopback, cross-process", cell(R, "ns", system="udp",
                                                 transport="cross-process", **f16)],
    ]
    return table(["path (16 B)", "p50"], body) + [
        "", ("16 B, not 8 B: every benchmark message carries a 16-byte check header (sequence, "
        "publisher, length).")]


def b_nodescale(R: list[Row]) -> list[str]:
    rows = sorted(rows_where(R, suite="sched", metric="tick_overhead_ns_per_node"),
                  key=lambda r: r.get("nodes", 0))
    base = next((r["p50"] for r in rows if r.get("nodes") == 1 and "p50" in r), None)
    body = []
    for r in rows:
        if "p50" not in r:
            body.append([str(r.get("nodes")), "n/a: " + str(r.get("error", ""))[:80], "–", "–"])
            continue
        total = r["p50"] * r.get("nodes", 1)
        body.append([str(r.get("nodes")), fmt(r["p50"], "ns"), fmt(total, "ns"),
                     fmt(total / base, "x") if base else "–"])
    return table(["nodes", "per node (p50)", "per tick, all nodes", "vs 1 node"], body)


def b_topicscale(R: list[Row]) -> list[str]:
    rows = sorted(rows_where(R, suite="ipc", system="nerve", metric="one_way_ns",
                             topics=lambda t: isinstance(t, int)),
                  key=lambda r: r["topics"])
    base = rows[0].get("p50") if rows else None
    body = [[str(r["topics"]), fmt(r.get("p50"), "ns"),
             fmt(r["p50"] / base, "x") if base and "p50" in r else "–",
             f"{r.get('setup_s', '–')} s"] for r in rows]
    return table(["topics alive", "nerve p50 (16 B, cross-process)", "vs 1 topic",
                  "set-up"], body)


def b_topology(R: list[Row]) -> list[str]:
    body = []
    for label, transport, topo in [("same thread 1:1", "same-thread", "1:1"),
                                   ("cross-thread 1:1", "cross-thread", "1:1"),
                                   ("cross-process 1:1", "cross-process", "1:1"),
                                   ("cross-process 3 → 1", "cross-process", "3:1"),
                                   ("cross-process 1 → 3", "cross-process", "1:3"),
                                   ("cross-process 3 × 3", "cross-process", "3:3")]:
        body.append([label] + [
            cell(R, "ns", **ipc(R, system="nerve", transport=transport, topology=topo,
                                payload_bytes=b, message="bytes")) for b in (16, 256, 1024)])
    return table(["topology", "16 B p50", "256 B p50", "1 KB p50"], body) + [
        "", "nerve, busy-poll. 16 B stands for the seed's 8 B (the check header)."]


def b_apps(R: list[Row]) -> list[str]:
    body = []
    for app, t in [("motor control", "CmdVel"), ("IMU fusion", "Imu"),
                   ("lidar SLAM", "LaserScan"), ("localisation", "Odometry"),
                   ("vision (10K points)", "PointCloud-10000")]:
        body.append([app, t, cell(R, "ns", **ipc(R, system="nerve", message=t)),
                     cell(R, "ns", **ipc(R, system="nerve", message=t, topology="3:3")),
                     cell(R, "ns", **ipc(R, system="iceoryx2", message=t))])
    return table(["application", "message", "nerve 1:1", "nerve 3:3", "iceoryx2 1:1"], body)


def b_throughput(R: list[Row]) -> list[str]:
    body = []
    for transport in ("cross-thread", "cross-process"):
        for mode in ("poll", "blocking"):
            f = {"suite": "ipc", "transport": transport, "mode": mode, "payload_bytes": 16,
                 "message": "bytes", "metric": "msgs_per_s", "topology": "1:1"}
            # Blocking: nerve futex-only, as the peers sleep at once (one row, never a blend
            # with nerve's spin-then-futex default).
            sleeps = {"variant": lambda v: "futex-only" in str(v)} if mode == "blocking" else {}
            body.append([f"{transport} {mode}" + (" (nerve futex-only)" if sleeps else "")] + [
                cell(R, "rate", system=s, **f, **(sleeps if s == "nerve" else {}))
                for s in ("nerve", "iceoryx2", "raw-shm", "udp")])
    for b in (64, 256, 1024, 4096, 16384):
        f = {"suite": "ipc", "transport": "cross-process", "mode": "poll", "payload_bytes": b,
             "metric": "msgs_per_s", "topology": "1:1"}
        mb = value(R, "mb_per_s", system="nerve", **f)
        body.append([f"cross-process poll {b} B (nerve {fmt(mb, 'n')} MB/s)"] + [
            cell(R, "rate", system=s, **f) for s in ("nerve", "iceoryx2", "raw-shm", "udp")])
    return table(["case", "nerve", "iceoryx2", "raw shared memory", "UDP"], body) + [
        "", ("Edges checked (header, first and last 64 B): MB/s counts the message size, not "
        "bytes copied.")]


def b_schedclasses(R: list[Row]) -> list[str]:
    body = []
    for c in ["UltraFastControl", "FastSensor", "HeavyIO", "MixedRealistic", "FaultTolerance"]:
        for r in rows_where(R, suite="sched", message=c, metric="start_lateness_ns"):
            if "error" in r:
                body.append([c, "–", "n/a: " + str(r["error"])[:80], "", "", "", ""])
                continue
            body.append([c, f"{r.get('nodes', '')} × {r.get('group', '')} @ {r.get('rate_hz')} Hz",
                         fmt(r.get("p50"), "ns"), fmt(r.get("p99"), "ns"),
                         str(r.get("misses", "")), fmt(r.get("achieved_hz_min"), "hz"),
                         f"{r.get('panics', 0)} / {r.get('restarts', 0)}"])
    return table(["workload", "nodes", "start lateness p50", "p99", "misses",
                  "lowest achieved rate", "panics / restarts"], body) + [
        "", ("Defined by what they run (see each row's note in the JSON); the seed gives only a "
        "\"mean time\" of a 5 s workload, which is not reproducible.")]


def b_rt(R: list[Row]) -> list[str]:
    body = [
        *[[f"{m} monitoring, per node", cell(
            R, "ns", suite="sched", metric="budget_overhead_ns_per_node", monitor=m)]
          for m in ("budget+deadline+watchdog", "budget", "deadline", "watchdog")],
        ["mlockall of the process, once", cell(R, "ns", suite="sched", metric="mlockall_ns")],
        ["e-stop: trigger → the last of 10 nodes' safe state", cell(
            R, "ns", suite="sched", metric="estop_ns")],
        ["watchdog: (hang start + 10 ms timeout) → safe state", cell(
            R, "ns", suite="sched", metric="watchdog_detect_ns")],
        ["1 kHz RT node start lateness p99", cell(
            R, "ns", "p99", suite="sched", message="rt-floor-nerve",
            metric="start_lateness_ns")],
        [("the same loop spinning 200 µs before each deadline, as nerve's lane does, p99 "
          "(same core, same run)"), cell(R, "ns", "p99", suite="sched", message="rt-floor-spin",
                                         metric="start_lateness_ns")],
        ["nerve p99 / the spinning loop's p99 (median of rounds; target ≤ 1.2)", cell(
            R, "x", suite="sched", metric="ratio_p99_vs_spin")],
        ["nerve p99 / the spinning loop's p99, worst round", cell(
            R, "x", "max", suite="sched", metric="ratio_p99_vs_spin")],
        ["a bare clock_nanosleep loop (cyclictest-style, no spin) p99, for reference", cell(
            R, "ns", "p99", suite="sched", message="rt-floor-cyclictest",
            metric="start_lateness_ns")],
    ]
    return table(["figure", "p50 (unless said)"], body)


def b_rtresults(R: list[Row]) -> list[str]:
    body = []
    for r in rows_where(R, suite="sched", message="mixed-rates", metric="start_lateness_ns"):
        if "error" in r:
            body.append(["n/a: " + str(r["error"])[:90], "", "", "", "", ""])
            continue
        body.append([f"{r.get('rate_hz')} Hz", fmt(r.get("achieved_hz"), "hz"),
                     fmt(r.get("p50"), "ns"), fmt(r.get("p99"), "ns"), fmt(r.get("max"), "ns"),
                     str(r.get("misses", ""))])
    return table(["node", "achieved", "start lateness p50", "p99", "max", "misses"], body) + [
        "", ("1 kHz and 500 Hz on SCHED_FIFO lanes of cpu 1, 100 Hz and 10 Hz on the compute "
        "pool, the other core kept busy by a spinning thread.")]


def b_routes(R: list[Row]) -> list[str]:
    body = []
    for transport in ("same-thread", "cross-thread", "cross-process"):
        for topo in ("1:1", "3:1", "1:3", "3:3"):
            f = ipc(R, transport=transport, topology=topo, payload_bytes=16, message="bytes")
            body.append([transport, topo, cell(R, "ns", system="nerve", **f),
                         cell(R, "ns", system="iceoryx2", **f),
                         beaten(value(R, system="nerve", **{**f, "metric":
                                                            "ratio_p50_vs_iceoryx2"}))])
    return table(["route", "publishers:subscribers", "nerve p50", "iceoryx2 p50",
                  "nerve/iceoryx2 (per round)"], body) + ["", "16 B, busy-poll, one-way."]


def b_pytick(R: list[Row]) -> list[str]:
    body = []
    for c in ["empty tick", "tick + send(dict)", "tick + send + recv"]:
        f = {"suite": "python", "table": "node_tick", "message": c, "metric": "tick_cpu_ns"}
        body.append([c, cell(R, "ns", system="nerve", **f), cell(R, "ns", system="horus", **f),
                     beaten(value(R, system="nerve", **{**f, "metric":
                                                        "ratio_tick_cpu_ns_vs_horus"}))])
    return table(["body", "nerve CPU per tick", "HORUS CPU per tick",
                  "nerve/HORUS (per round)"], body) + [
        "", ("One Python node at 1 kHz on each system's scheduler; the process's CPU time per "
        "tick (waits, wake-ups, GIL, call and body).")]


def b_pygeneric(R: list[Row]) -> list[str]:
    body = []
    for c in ["empty dict", "CmdVel-like", "IMU-like", "LaserScan 360 rays", "10 detections"]:
        f = {"suite": "python", "table": "generic_size", "message": c,
             "metric": "encoded_bytes"}
        body.append([c, cell(R, "n", system="nerve", **f), cell(R, "n", system="horus", **f)])
    return table(["payload", "nerve bytes", "MessagePack (HORUS's codec) bytes"], body) + [
        "", "nerve's dict topics are not limited to 4 KB: larger dicts travel as chunks."]


def b_pysendrecv(R: list[Row]) -> list[str]:
    return b_ffi(R)


def b_link(R: list[Row]) -> list[str]:
    f = ipc(R, system="nerve", payload_bytes=16, message="bytes")
    rtt = value(R, **f)
    body = [
        ["1:1 one-way p50 (round trip / 2)", cell(R, "ns", **f)],
        ["1:1 round trip p50", fmt(2 * rtt, "ns") if rtt else "–"],
        ["1:1 one-way p90 / p99", f"{cell(R, 'ns', 'p90', **f)} / {cell(R, 'ns', 'p99', **f)}"],
        ["1:1 msg/s (16 B)", cell(R, "rate", **{**f, "metric": "msgs_per_s"})],
        ["1:1 16 KB msg/s", cell(R, "rate", **ipc(R, system="nerve", payload_bytes=16384,
                                                  metric="msgs_per_s"))],
        ["3:3 one-way p50 (16 B)", cell(R, "ns", **{**f, "topology": "3:3"})],
    ]
    return table(["figure", "nerve"], body) + [
        "", "p95 is not computed (the suite keeps p90 and p99)."]


def b_logger(R: list[Row]) -> list[str]:
    body = []
    for b in (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192):
        f = {"suite": "log", "payload_bytes": b, "metric": "log_call_ns"}
        body.append([str(b), cell(R, "ns", "mean", system="nerve", **f),
                     cell(R, "ns", system="nerve", **f),
                     cell(R, "ns", system="tracing-subscriber", **f),
                     cell(R, "ns", system="python-logging", **f),
                     cell(R, "x", suite="log", payload_bytes=b, system="nerve",
                          metric="ratio_vs_tracing_file")])
    return table(["bytes", "nerve mean", "nerve p50", "tracing-subscriber (file) p50",
                  "Python logging (file) p50", "nerve/tracing (per round)"], body)


def verdict(R: list[Row], suite: str, key: dict[str, Any], system: str) -> str:
    """nerve/this for one channel row: the per-round ratio row the suite wrote for that peer
    (`local`: every peer; `network`: raw Zenoh), '–' for nerve itself or a peer without one."""
    if system.startswith("nerve"):
        return "–"
    nerve = {**key, "system": "nerve"}
    if suite == "network":
        if system != "zenoh":
            return "–"
        return beaten(value(R, "max", **nerve, metric="target_latency_vs_zenoh"))
    return cell(R, "x", **nerve, metric=f"ratio_mean_vs_{system}")


def b_channel(suite: str) -> Callable[[list[Row]], list[str]]:
    """AimRT's channel grid from the `local` (one host) or `network` (two namespaces) rows."""
    def build(R: list[Row]) -> list[str]:
        body = []
        for r in rows_where(R, suite=suite, mode="channel", metric="latency_us",
                            round=lambda x: x in (0, None)):
            key = {"suite": suite, "mode": "channel", "system": r["system"],
                   "payload_bytes": r["payload_bytes"], "topology": r["topology"],
                   "message": r["message"]}
            body.append([r["system"], str(r["payload_bytes"]), r["topology"], r["message"],
                         cell(R, "us", "mean", metric="latency_us", **key),
                         cell(R, "us", "max", metric="latency_us", **key),
                         cell(R, "pct", metric="loss_rate", **key),
                         cell(R, "pct", metric="cpu_pct_sender", **key),
                         cell(R, "pct", metric="cpu_pct_receiver", **key),
                         verdict(R, suite, key, r["system"])])
        where = ("one host (every process in one network namespace; nerve on shared memory, "
                 "no bridge)" if suite == "local" else
                 "two network namespaces on one machine (one clock); nerve/this is computed "
                 "per round against raw Zenoh only (`target_latency_vs_zenoh`: the worst "
                 "round's ratio of the means)")
        return table(["system", "bytes", "topics", "rate", "avg", "max", "loss", "CPU sender",
                      "CPU receiver", "nerve/this (mean, per round)"], body) + [
            "", (f"{where}; fixed rate. Loss is a fraction (0–1) shown as %. 2 cores here; "
            "AimRT pinned 3.")]
    return build


def b_rpc(R: list[Row]) -> list[str]:
    body = []
    # One table row per measured row: the key holds every field that tells rows apart, so no
    # cell is the median of two different measurements (the topic ping-pong beside the service
    # has its own table in the rpc section and is left out here).
    for r in rows_where(R, suite="rpc", metric="rtt_ns", what=lambda w: w is None):
        key = {k: r.get(k) for k in ("system", "api", "transport", "payload_bytes",
                                     "topology", "variant", "server", "parallelism", "what")}
        body.append([r["system"], r.get("api", ""), r.get("transport", ""),
                     str(r.get("payload_bytes")), str(r.get("parallelism", "")),
                     cell(R, "ns", "mean", suite="rpc", metric="rtt_ns", **key)
                     if "error" not in r else "n/a: " + str(r["error"])[:60],
                     cell(R, "ns", suite="rpc", metric="rtt_ns", **key),
                     cell(R, "ns", "max", suite="rpc", metric="rtt_ns", **key),
                     cell(R, "rate", suite="rpc", metric="qps", **key)])
    return table(["system", "api", "transport", "bytes", "parallel", "avg", "p50", "max",
                  "calls/s"], body) + ["", ("Closed loop: each caller calls again on its "
                                           "answer.")]


def b_netrpc(suite: str) -> Callable[[list[Row]], list[str]]:
    """AimRT's RPC stress and fixed-frequency tables from `local` or `network` rows."""
    def build(R: list[Row]) -> list[str]:
        body = []
        for r in rows_where(R, suite=suite, mode=lambda m: str(m).startswith("rpc"),
                            metric="rtt_us", round=lambda x: x in (0, None)):
            key = {"suite": suite, "system": r["system"], "mode": r["mode"],
                   "payload_bytes": r["payload_bytes"], "topology": r["topology"],
                   "message": r["message"]}
            body.append([r["system"], r["mode"], r["message"], str(r["payload_bytes"]),
                         r["topology"], cell(R, "us", "mean", metric="rtt_us", **key),
                         cell(R, "us", "max", metric="rtt_us", **key),
                         cell(R, "rate", metric="qps", **key),
                         cell(R, "pct", metric="cpu_pct_sender", **key),
                         cell(R, "pct", metric="cpu_pct_receiver", **key)])
        return table(["system", "mode", "rate", "bytes", "callers", "avg", "max", "calls/s",
                      "CPU server", "CPU client"], body)
    return build


def b_multi(R: list[Row]) -> list[str]:
    return b_channel("network")(R) + [""] + b_netrpc("network")(R) + [
        "", "Two network namespaces on one machine."]


def b_local_rpc(R: list[Row]) -> list[str]:
    return b_rpc(R) + ["", "Fixed frequency and stress, every process on one host:", ""] + \
        b_netrpc("local")(R)


def b_sleep(R: list[Row]) -> list[str]:
    body = []
    for ms in (1, 5, 10, 50, 100):
        f = {"suite": "sched", "metric": "sleep_overhead_ns", "sleep_ms": ms}
        py = {"suite": "python", "table": "sleep", "metric": "sleep_overhead_ns"}
        body.append([f"{ms} ms"] + [
            cell(R, "ns", "mean", message=m, **f) for m in
            ("sleep-thread", "sleep-callback", "sleep-coroutine", "sleep-tokio")] + [
            cell(R, "ns", "mean", system=sy, message=f"{ms} ms {w}", **py)
            for sy, w in (("nerve", "callback"), ("nerve", "coroutine"), ("ros2", "thread"),
                          ("ros2", "callback"), ("ros2", "coroutine"))])
    return table(["duration", "Rust std::thread::sleep", "Rust scheduler callback",
                  "Rust aio coroutine", "Rust tokio::time::sleep", "Python nerve node callback",
                  "Python plain asyncio.sleep (no nerve code)", "rclpy time.sleep",
                  "rclpy timer callback", "rclpy coroutine (timer future)"], body) + [
        "", ("Mean of measured − requested (Python callbacks: a timer at 1/d Hz, each call's "
        "start − its planned start as nerve's scheduler and rclpy's TimerInfo stamp them). "
        "The seed's rclcpp column has no wheel here; rclpy "
        "(PyPI) stands in for ROS 2, on the better of its two executors per row (rows' "
        "`executor`). nerve's Python "
        "API has no sleep of its own: its coroutine column is plain asyncio, to which nerve "
        "adds nothing; rclpy's coroutine awaits a future that a one-shot timer completes.")]


def b_pubsub(R: list[Row]) -> list[str]:
    body = []
    for m in ("pubsub-callback", "pubsub-coroutine", "pubsub-blocking"):
        f = {"suite": "sched", "message": m, "metric": "one_way_ns"}
        body.append(["Rust " + m.removeprefix("pubsub-"), cell(R, "ns", "mean", **f),
                     cell(R, "ns", "min", **f), cell(R, "ns", "max", **f)])
    for sy, m, label in (("nerve", "blocking", "Python nerve recv"),
                         ("nerve", "coroutine", "Python nerve await recv_async"),
                         ("ros2", "callback", "rclpy subscription callback"),
                         ("ros2", "coroutine", "rclpy async subscription callback")):
        f = {"suite": "python", "table": "pubsub", "system": sy, "message": m,
             "metric": "one_way_ns"}
        body.append([label, cell(R, "ns", "mean", **f), cell(R, "ns", "min", **f),
                     cell(R, "ns", "max", **f)])
    return table(["method", "mean", "min", "max"], body) + [
        "", ("Rust: published every 1 ms from another thread. Python: published and received in "
        "one thread; nerve's coroutine is its async API (`recv_async`), rclpy's an `async` "
        "callback its executor awaits (the better of EventsExecutor and SingleThreadedExecutor "
        "per row; Fast DDS's large-message profile: rows' `executor`, `dds_profile`).")]


def b_service(R: list[Row]) -> list[str]:
    body = []
    for m in ("service-blocking", "service-coroutine"):
        f = {"suite": "sched", "message": m, "metric": "rtt_ns"}
        body.append(["Rust " + m.removeprefix("service-"), cell(R, "ns", "mean", **f),
                     cell(R, "ns", "min", **f), cell(R, "ns", "max", **f)])
    for sy, m, label in (("nerve", "callback", "Python nerve call (blocking)"),
                         ("nerve", "coroutine", "Python nerve await call_async"),
                         ("ros2", "callback", "rclpy call_async + spin"),
                         ("ros2", "coroutine", "rclpy task awaiting call_async")):
        f = {"suite": "python", "table": "service", "system": sy, "message": m,
             "metric": "rtt_ns"}
        body.append([label, cell(R, "ns", "mean", **f), cell(R, "ns", "min", **f),
                     cell(R, "ns", "max", **f)])
    return table(["method", "mean", "min", "max"], body) + [
        "", ("Python: client and server in one process; nerve's coroutine is its async API "
        "(`call_async`), rclpy's an executor task awaiting `call_async` (its better executor per "
        "row: `executor`).")]


def b_tasks(repeats: int) -> Callable[[list[Row]], list[str]]:
    def build(R: list[Row]) -> list[str]:
        body = []
        for n in (100, 500, 1000, 5000):
            for ms in (1, 10, 100):
                f = {"suite": "sched", "metric": "tasks_wall_ns", "tasks": n, "sleep_ms": ms,
                     "repeats": repeats}
                a = cell(R, "ns", message="async-sleep", **f)
                b = cell(R, "ns", message="async-sleep-tokio-timer", **f)
                py = {"suite": "python", "table": "tasks",
                      "message": f"{n} tasks {ms} ms x{repeats}", "metric": "tasks_wall_ns"}
                c = cell(R, "ns", system="nerve", **py)
                d = cell(R, "ns", system="ros2", **py)
                if a == "–" and b == "–":
                    continue
                body.append([str(n), f"{ms} ms", a, b, c, d])
        return table(["tasks", "sleep", "nerve aio::sleep", "tokio::time::sleep",
                      "Python plain asyncio (no nerve code)", "rclpy coroutine tasks"], body) + [
            "", ("Wall time of all N tasks. nerve's Python API has no sleep: the Python column "
            "is plain asyncio (nerve adds nothing to it). rclpy: N tasks on its "
            "SingleThreadedExecutor (its EventsExecutor did not finish 1000 such tasks here), "
            "each awaiting a future that a one-shot timer completes.")]
    return build


def b_wrapyfi(R: list[Row]) -> list[str]:
    mws = [("nerve", "nerve"), ("zenoh", "Zenoh"), ("zeromq", "ZeroMQ"), ("ros2", "ROS 2")]
    body = []
    for fw in ("numpy", "pandas", "pil", "torch", "jax", "tensorflow", "paddle", "mxnet"):
        cells = []
        for mw, _ in mws:
            f = {"suite": "python", "table": "wrapyfi", "message": f"{fw} {mw}",
                 "metric": "one_way_ns"}
            cells += [cell(R, "ns", **f), cell(R, "ns", "p99", **f)]
        for mw, _ in mws[1:]:
            cells.append(cell(R, "x", suite="python", table="wrapyfi", message=f"{fw} nerve",
                              metric=f"ratio_one_way_ns_vs_{mw}"))
        body.append([fw] + cells)
    head = ["framework"] + [f"{n} {s}" for _, n in mws for s in ("p50", "p99")]
    out = table(head + [f"nerve/{n}" for _, n in mws[1:]], body) + [
        "", ("200×200 tensors of ones (PIL: an 8-bit image), published at 100 Hz, blocking "
        "receive in another process; from the publisher's stamp to the receiver holding the "
        "framework's object again. Every middleware's listener runs at once and the publisher "
        "alternates between them in rounds; nerve/peer: per round (each round's median), "
        "median over rounds. ROS 2: rclpy, the same bytes as Zenoh and ZeroMQ in a reliable "
        "`std_msgs/UInt8MultiArray`. Box plots: the `python` section "
        "(`wrapyfi_boxplot.png`)."), ""]
    body = []
    for s in ["Tensor-200x200", "Tensor-200x200-loan", "Tensor-200x200-msgpack",
              "Tensor-200x200-torch"]:
        f = {"suite": "python", "scenario": s, "mode": "blocking", "metric": "one_way_ns"}
        body.append([s, cell(R, "ns", system="nerve", **f),
                     cell(R, "ns", "p99", system="nerve", **f)])
    return out + ["nerve's own tensor paths, ping-pong one-way:", ""] + table(
        ["tensor (float32 200×200)", "nerve p50", "nerve p99"], body)


# What each seed table gets: a builder, or why it is not reproduced (and what stands in).
Spec = tuple[str, str, Callable[[list[Row]], list[str]] | None, str]
SPECS: list[Spec] = [
    ("h-exec", "Executive summary: latency and throughput per message type", b_exec, ""),
    ("h-detailed", "Detailed results per type, PointCloud 100 / 1K / 10K", b_exec,
     "The same rows as the executive summary (N:N mean, 1:1 median, throughput)."),
    ("h-mixed", "Mixed workload (CmdVel 100 Hz + IMU 100 Hz + BatteryState 1 Hz)", b_mixed,
     ""),
    ("h-ros2", "Comparison with ROS 2 (small / medium / large)", b_ros2, ""),
    ("h-size", "Latency by message size", b_size, ""),
    ("h-ffi", "FFI overhead (Rust vs Python; nerve adds C and C++)", b_ffi, ""),
    ("h-pyipc", "Python IPC latency", b_pyipc, ""),
    ("h-image", "Image zero-copy: to_numpy vs np.copy", b_zerocopy, ""),
    ("h-overhead", "Overhead attribution", b_overhead, ""),
    ("h-nodescale", "Node scaling", b_nodescale, ""),
    ("h-topicscale", "Topic scaling", b_topicscale, ""),
    ("h-topology", "IPC latency by topology and message size", b_topology, ""),
    ("h-apps", "Real-world applications", b_apps, ""),
    ("h-throughput", "Throughput comparison", b_throughput, ""),
    ("h-schedclasses", "Scheduler workload classes", b_schedclasses, ""),
    ("h-schedscale", "Scheduler scalability", b_nodescale, "Same rows as node scaling."),
    ("h-rt", "RT performance characteristics", b_rt, ""),
    ("h-safety", "Safety-critical configuration", b_rt,
     ("Each monitor alone and the three together, paired runs with and without on the same "
       "lane; the one-off mlockall time.")),
    ("h-rtresults", "Real-time test results (mixed RT and normal nodes)", b_rtresults, ""),
    ("h-routes", "All-routes latency and latency by topology", b_routes, ""),
    ("h-pysendrecv", "Python message send/recv latency (one process)", b_pysendrecv, ""),
    ("h-pyzerocopy", "Python zero-copy: images, point clouds, depth, DLPack", b_zerocopy, ""),
    ("h-pytick", "Python node tick overhead", b_pytick, ""),
    ("h-pygeneric", "Generic message sizes", b_pygeneric, ""),
    ("p-link", "Link (SPSC) and Hub (MPMC) cross-core figures", b_link,
     ("Their validation (6.2 M messages, no corruption) is nerve's `soak` suite: every byte of "
       "every message checked while publishers are killed with SIGKILL; its rows are in the "
       "`soak` section.")),
    ("p-legacy", "Legacy message type benchmarks (Hub)", b_exec, ("Same rows as the executive "
      "summary.")),
    ("p-sample", "Sample output (CmdVel, LaserScan)", b_exec, ("Same rows as the executive "
      "summary.")),
    ("p-ros2", "Comparison with ROS 2", b_ros2, ""),
    ("a-logger", "Logger performance (average latency vs log size)", b_logger, ""),
    ("a-channel", "Channel backends, single machine (1 kHz; size, topics)",
     b_channel("local"), ""),
    ("a-rpc", "RPC backends, single machine (latency, QPS, parallelism)", b_local_rpc,
     "gRPC, HTTP and MQTT are not nerve peers (docs/benchmarking.md)."),
    ("a-multi", "Multi-machine channel and RPC", b_multi, ""),
    ("r-sleep", "Sleep overhead", b_sleep, ""),
    ("r-pubsub", "Pub/sub latency (callback vs coroutine)", b_pubsub, ""),
    ("r-service", "Service call latency (callback vs coroutine)", b_service, ""),
    ("r-tasks1", "Concurrent tasks, single fire", b_tasks(1), ""),
    ("r-tasks3", "Concurrent tasks, repeated fire", b_tasks(3), ""),
    ("w-fig1", "Wrapyfi Fig. 1: 200×200 tensors across frameworks and middlewares",
     b_wrapyfi,
     ("NumPy, pandas, PIL, PyTorch, JAX, TensorFlow, PaddlePaddle and MXNet over nerve, "
      "Zenoh, ZeroMQ and ROS 2 (`benches/python/wrapyfi.py`). Not reproduced: GPU tensors (no "
      "GPU on this machine); MXNet over ROS 2 (its venv pins numpy < 1.24, rclpy's wheels "
      "need numpy 2).")),
]


def reflow(text: str) -> str:
    """The seeds' one-cell-per-line tables (AimRT's) as rows: cells joined until the number
    of cells of the `---|---|` line."""
    out: list[str] = []
    cells: list[str] = []
    width = 0
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("---|"):
            width = s.count("|")
            if cells:
                out.append("| " + " | ".join(cells[:width]) + " |")
            out.append("|" + "---|" * width)
            cells = []
            continue
        if s.endswith("|") and not s.startswith("|"):
            cells.append(s[:-1].strip())
            if width and len(cells) == width:
                out.append("| " + " | ".join(cells) + " |")
                cells = []
            continue
        if cells:
            out.append("| " + " | ".join(cells) + " |")
            cells = []
        out.append(line)
    if cells:
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def section(R: list[Row]) -> list[str]:
    """The "seed tables" part of benchmarks.md."""
    out = ["## The seeds' tables, reproduced", "",
           ("Each published table of `../shared/seeds/` beside nerve's table of the same shape "
            "from this run. Peers in nerve's tables were measured here, in interleaved rounds; "
            "ratios are per round. The seed's own figures (folded) were taken on another "
            "machine and are never divided by nerve's."), ""]
    by_seed: dict[str, list[Spec]] = {}
    for spec in SPECS:
        by_seed.setdefault(FIGURES[spec[0]]["seed"], []).append(spec)
    for seed, specs in by_seed.items():
        out += [f"### {seed}", ""]
        for key, title, build, why in specs:
            fig = FIGURES[key]
            out += [f"#### {title}", ""]
            if why:
                out += [why, ""]
            if build is not None:
                try:
                    out += build(R)
                except Exception as e:  # noqa: BLE001 — a broken builder must not hide others
                    out += [f"(table not built: {type(e).__name__}: {e})"]
                out.append("")
            out += [("<details><summary>The seed's published figures (their machine, lines "
                    f"{fig['lines']})</summary>"), "", reflow(fig["text"]), "", "</details>", ""]
    return out
