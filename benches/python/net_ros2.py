"""The ROS 2 side of ``nerve-bench network``: rclpy over Fast DDS between two network
namespaces, UDP only (no shared-memory shortcut: both hosts are on one machine), discovery by
static peers. Same protocol as the Rust roles (``benches/nerve-bench/src/network/roles.rs``):
``--spec JSON`` says what to do; ``READY`` once set up, start on a ``GO`` line on stdin,
``RESULT {json}`` at the end (count, expected, latencies_us, cpu_s, wall_s).

Channels: a publisher of ``std_msgs/UInt8MultiArray`` (send stamp and sequence in the first 16
bytes) at ``hz`` per topic, a subscriber computing receive time − send stamp. Services:
``rcl_interfaces/srv/GetParameters`` carrying a ``size``-character string both ways (the only
service type rclpy from PyPI ships that carries free data, as in ``rpc_pingpong.py``), called
in a closed loop (``hz`` 0) or at ``hz`` calls per second in all. Runs in the ros2 peer's venv
(``setup_peers.sh ros2``).

Fast DDS (``ros2_env.py``): between the two hosts, UDP only; on one host (the ``local`` suite:
the peer's address is this namespace's own), the large-message / shared-memory profile, as
nerve's processes there meet in shared memory. rclpy's fastest executor spins every role.
``RESULT`` also carries ``dds_profile`` and ``executor``."""

from __future__ import annotations

import json
import os
import resource
import socket
import sys
import threading
import time

import ros2_env


def own_address(ip: str) -> bool:
    """True when ``ip`` is an address of this network namespace (one host)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((ip, 0))
        return True
    except OSError:
        return False


SPEC = json.loads(sys.argv[sys.argv.index("--spec") + 1]) if "--spec" in sys.argv else {}
# Two hosts: UDP only (two namespaces of one machine would otherwise meet in shared memory).
# One host: the shared-memory profile, as every ROS 2 process of the benchmarks.
ONE_HOST = own_address(SPEC.get("peer", "127.0.0.1"))
ros2_env.configure(udp_only=not ONE_HOST)
os.environ.pop("ROS_LOCALHOST_ONLY", None)
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "SUBNET")

import rclpy  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from std_msgs.msg import UInt8MultiArray  # noqa: E402


def cpu_s() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def wait_for(word: str) -> None:
    for line in sys.stdin:
        if line.strip() == word:
            return
    raise SystemExit(f"stdin closed before {word}")


HOW: dict = {}


def result(**kw: object) -> None:
    print("RESULT " + json.dumps({**kw, **HOW}), flush=True)


def main() -> None:
    spec = SPEC
    os.environ["ROS_STATIC_PEERS"] = spec["peer"]
    rclpy.init()
    node = rclpy.create_node(f"netbench_{spec['role']}_{os.getpid()}")
    ex, name = ros2_env.executor()
    ex.add_node(node)
    HOW.update(ros2_env.fields(name))
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    topics = [f"net/t{k}" for k in range(spec["count"])]
    hz, secs, size = spec["hz"], spec["secs"], max(spec["size"], 16)
    if spec["role"] == "pub":
        pubs = [node.create_publisher(UInt8MultiArray, t, qos) for t in topics]
        deadline = time.monotonic() + 30
        while any(p.get_subscription_count() == 0 for p in pubs):
            if time.monotonic() > deadline:
                raise SystemExit("no subscriber matched")
            time.sleep(0.05)
        print("READY", flush=True)
        wait_for("GO")
        start = time.monotonic()
        warm = spec.get("warm", 0)
        n = warm + int(hz * secs)
        period = 1.0 / hz
        msg = UInt8MultiArray()
        payload = bytearray(size)
        # The clocks (CPU and wall) start when the warm-up ends, as in the Rust roles.
        c0, t0 = cpu_s(), start
        for i in range(n):
            if i == warm:
                c0, t0 = cpu_s(), time.monotonic()
            due = start + i * period
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            payload[0:8] = time.time_ns().to_bytes(8, "little")
            payload[8:16] = i.to_bytes(8, "little")
            msg.data = bytes(payload)
            for p in pubs:
                p.publish(msg)
        result(count=(n - warm) * len(pubs), expected=0, latencies_us=[], cpu_s=cpu_s() - c0,
               wall_s=time.monotonic() - t0)
    elif spec["role"] == "sub":
        lat: list[float] = []
        lock = threading.Lock()

        warm = spec.get("warm", 0)

        def on(msg: UInt8MultiArray) -> None:
            head = bytes(msg.data[0:16])
            stamp = int.from_bytes(head[0:8], "little")
            if int.from_bytes(head[8:16], "little") < warm:
                return
            with lock:
                lat.append((time.time_ns() - stamp) / 1e3)

        subs = [node.create_subscription(UInt8MultiArray, t, on, qos) for t in topics]
        print("READY", flush=True)
        print("CONNECTED", flush=True)
        wait_for("GO")
        warm_end = time.monotonic() + warm / hz
        while time.monotonic() < warm_end:
            ex.spin_once(timeout_sec=0.01)
        c0, t0 = cpu_s(), time.monotonic()
        expected = int(hz * secs) * len(subs)
        end = t0 + secs + 3
        while len(lat) < expected and time.monotonic() < end:
            ex.spin_once(timeout_sec=0.05)
        result(count=len(lat), expected=expected, latencies_us=lat, cpu_s=cpu_s() - c0,
               wall_s=time.monotonic() - t0)
    elif spec["role"] == "server":
        from rcl_interfaces.msg import ParameterType, ParameterValue
        from rcl_interfaces.srv import GetParameters

        def echo(req, resp):  # noqa: ANN001, ANN202
            resp.values = [ParameterValue(type=ParameterType.PARAMETER_STRING,
                                          string_value=req.names[0])]
            return resp

        node.create_service(GetParameters, "/net/echo", echo)
        stop = threading.Event()

        def spin() -> None:
            while not stop.is_set():
                ex.spin_once(timeout_sec=0.05)

        spinner = threading.Thread(target=spin)
        spinner.start()
        print("READY", flush=True)
        wait_for("GO")
        c0, t0 = cpu_s(), time.monotonic()
        wait_for("STOP")
        stop.set()
        spinner.join()
        result(count=0, expected=0, latencies_us=[], cpu_s=cpu_s() - c0,
               wall_s=time.monotonic() - t0)
    elif spec["role"] == "client":
        call_ros2(node, ex, spec)
    else:
        raise SystemExit(f"no ros2 {spec['role']} role")
    node.destroy_node()
    rclpy.shutdown()


def call_ros2(node: rclpy.node.Node, ex, spec: dict) -> None:  # noqa: ANN001
    """Calls ``/net/echo`` for ``secs``: one at a time (``hz`` 0), or paced at ``hz`` in all
    with the answers collected as they come."""
    from rcl_interfaces.srv import GetParameters

    client = node.create_client(GetParameters, "/net/echo")
    deadline = time.monotonic() + 30
    while not client.service_is_ready():
        if time.monotonic() > deadline:
            raise SystemExit("the service never matched")
        ex.spin_once(timeout_sec=0.05)
    req = GetParameters.Request()
    req.names = ["x" * max(spec["size"], 1)]
    warm = client.call_async(req)
    ex.spin_until_future_complete(warm, timeout_sec=10)
    print("READY", flush=True)
    wait_for("GO")
    c0, t0 = cpu_s(), time.monotonic()
    hz, secs = spec["hz"], spec["secs"]
    lat: list[float] = []
    if hz <= 0:
        end = t0 + secs
        while time.monotonic() < end:
            t = time.perf_counter()
            fut = client.call_async(req)
            ex.spin_until_future_complete(fut, timeout_sec=5)
            if fut.done():
                lat.append((time.perf_counter() - t) * 1e6)
    else:
        n = int(hz * secs)
        sent = 0
        while sent < n or (time.monotonic() < t0 + secs + 3 and len(lat) < n):
            now = time.monotonic()
            if sent < n and now >= t0 + sent / hz:
                t = time.perf_counter()
                client.call_async(req).add_done_callback(
                    lambda f, t=t: lat.append((time.perf_counter() - t) * 1e6))
                sent += 1
            ex.spin_once(timeout_sec=0.0005)
    result(count=len(lat), expected=int(hz * secs), latencies_us=lat, cpu_s=cpu_s() - c0,
           wall_s=time.monotonic() - t0)


if __name__ == "__main__":
    main()
