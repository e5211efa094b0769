#!/usr/bin/env python3
"""rclcpp_async's tables in Python, for one system per run: nerve's Python API or rclpy.

    async_tables.py <nerve|ros2> <quick 0|1>

Prints one line ``inproc <JSON>`` in the format of ``inproc.py`` (``nerve-bench python`` runs
both in alternating rounds, nerve's interpreter then the ros2 peer's, and pools the samples):

* ``sleep``: measured − requested sleep at 1, 5, 10, 50, 100 ms: ``time.sleep`` (thread),
  the system's timer callback (nerve: a Python node on ``nerve.Scheduler`` at 1/d Hz, its
  tick start − planned start; rclpy: a timer's first callback − creation − d on a
  ``SingleThreadedExecutor``), ``asyncio.sleep`` (coroutine; nerve's interpreter only);
* ``pubsub``: publish-to-receive in one process and thread, a stamp in the message: nerve's
  blocking ``recv`` and ``await recv_async()``; rclpy's subscription callback (spun);
* ``service``: a round trip in one process: nerve's ``call`` and ``await call_async()``;
  rclpy's ``call_async`` + ``spin_until_future_complete`` (callback style) and an ``async``
  task awaiting ``call_async`` (coroutine);
* ``tasks``: N asyncio tasks sleeping d, once and three times (nerve's interpreter; asyncio is
  what nerve's Python async API runs on).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

SLEEPS_MS = [1, 5, 10, 50, 100]


def case(table: str, name: str, metric: str, samples: list[float], note: str = "") -> dict:
    return {"table": table, "case": name, "metric": metric, "payload_bytes": 0,
            "samples_ns": samples, "note": note}


def thread_sleeps(n: int) -> list[dict]:
    out = []
    for ms in SLEEPS_MS:
        d = ms / 1e3
        v = []
        for _ in range(n):
            t = time.perf_counter_ns()
            time.sleep(d)
            v.append(time.perf_counter_ns() - t - ms * 1_000_000)
        out.append(case("sleep", f"{ms} ms thread", "sleep_overhead_ns", v, "time.sleep"))
    return out


def asyncio_sleeps(n: int) -> list[dict]:
    async def run(ms: int) -> list[float]:
        v = []
        for _ in range(n):
            t = time.perf_counter_ns()
            await asyncio.sleep(ms / 1e3)
            v.append(time.perf_counter_ns() - t - ms * 1_000_000)
        return v

    return [case("sleep", f"{ms} ms coroutine", "sleep_overhead_ns", asyncio.run(run(ms)),
                 "asyncio.sleep") for ms in SLEEPS_MS]


def asyncio_tasks(quick: bool) -> list[dict]:
    out = []
    for n in (100, 500, 1000, 5000):
        for ms in (1, 10, 100):
            if quick and ms == 100 and n != 5000:
                continue
            for repeats in (1, 3):
                async def run(n: int = n, ms: int = ms, repeats: int = repeats) -> None:
                    async def one() -> None:
                        for _ in range(repeats):
                            await asyncio.sleep(ms / 1e3)

                    await asyncio.gather(*(one() for _ in range(n)))

                walls = []
                for _ in range(2 if quick else 5):
                    t = time.perf_counter_ns()
                    asyncio.run(run())
                    walls.append(time.perf_counter_ns() - t)
                out.append(case("tasks", f"{n} tasks {ms} ms x{repeats}", "tasks_wall_ns", walls,
                                "asyncio.gather of N tasks, each sleeping d (repeats times)"))
    return out


# ---------------------------------------------------------------------------------------------


def nerve_cases(quick: bool) -> list[dict]:
    import nerve

    n = 3 if quick else 10
    out = thread_sleeps(n)
    for ms in SLEEPS_MS:
        late: list[float] = []

        class Late(nerve.Node):
            def tick(self, ctx: nerve.TickContext, late: list[float] = late) -> None:
                late.append((ctx.now - ctx.planned) * 1e9)

        s = nerve.Scheduler()
        s.add(Late(), rate=1000.0 / ms)
        s.run(ms / 1e3 * (n + 1) - ms / 2e3)
        out.append(case("sleep", f"{ms} ms callback", "sleep_overhead_ns", late[1:],
                        "a Python node on nerve.Scheduler at 1/d Hz: tick start - planned start"))
    out += asyncio_sleeps(n)

    count = 50 if quick else 100
    t = nerve.Topic(f"bench/async/{os.getpid()}", nerve.CmdVel, in_process=True, depth=16)
    pub, sub = t.publisher(), t.subscriber()
    v = []
    for _ in range(count + 10):
        pub.send(nerve.CmdVel(stamp_ns=time.perf_counter_ns()))
        m = sub.recv(1.0)
        v.append(time.perf_counter_ns() - m.stamp_ns)
    out.append(case("pubsub", "blocking", "one_way_ns", v[10:], "sub.recv() after pub.send()"))

    async def coro() -> list[float]:
        v = []
        for _ in range(count + 10):
            pub.send(nerve.CmdVel(stamp_ns=time.perf_counter_ns()))
            m = await sub.recv_async()
            v.append(time.perf_counter_ns() - m.stamp_ns)
        return v[10:]

    out.append(case("pubsub", "coroutine", "one_way_ns", asyncio.run(coro()),
                    "await sub.recv_async() after pub.send()"))

    svc = nerve.rpc.Service(f"bench/async-svc/{os.getpid()}")
    server = svc.server(lambda r: r)
    client = svc.client()
    v = []
    for i in range(count + 10):
        t0 = time.perf_counter_ns()
        client.call(i)
        v.append(time.perf_counter_ns() - t0)
    out.append(case("service", "callback", "rtt_ns", v[10:],
                    "client.call() (blocking: nerve's Python client has no callback form)"))

    async def calls() -> list[float]:
        v = []
        for i in range(count + 10):
            t0 = time.perf_counter_ns()
            await client.call_async(i)
            v.append(time.perf_counter_ns() - t0)
        return v[10:]

    out.append(case("service", "coroutine", "rtt_ns", asyncio.run(calls()),
                    "await client.call_async()"))
    server.close()
    out += asyncio_tasks(quick)
    return out


def ros2_cases(quick: bool) -> list[dict]:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from std_msgs.msg import UInt64
    from std_srvs.srv import SetBool

    n = 3 if quick else 10
    out = thread_sleeps(n)
    rclpy.init()
    node = rclpy.create_node(f"bench_async_{os.getpid()}")
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    for ms in SLEEPS_MS:
        v = []
        for _ in range(n):
            fired: list[int] = []
            t0 = time.perf_counter_ns()
            timer = node.create_timer(ms / 1e3, lambda f=fired: f.append(time.perf_counter_ns()))
            while not fired:
                ex.spin_once(timeout_sec=0.2)
            node.destroy_timer(timer)
            v.append(fired[0] - t0 - ms * 1_000_000)
        out.append(case("sleep", f"{ms} ms callback", "sleep_overhead_ns", v,
                        "rclpy timer (SingleThreadedExecutor): first callback - creation - d"))
    for ms in SLEEPS_MS:
        out.append({"table": "sleep", "case": f"{ms} ms coroutine",
                    "metric": "sleep_overhead_ns", "payload_bytes": 0,
                    "error": "rclpy has no coroutine sleep (asyncio's is in nerve's column)"})

    count = 50 if quick else 100
    got: list[int] = []
    pub = node.create_publisher(UInt64, "bench_async_topic", 10)
    node.create_subscription(UInt64, "bench_async_topic",
                             lambda m: got.append(time.perf_counter_ns() - m.data), 10)
    end = time.perf_counter() + 5
    while pub.get_subscription_count() < 1 and time.perf_counter() < end:
        ex.spin_once(timeout_sec=0.01)
    for _ in range(count + 10):
        before = len(got)
        pub.publish(UInt64(data=time.perf_counter_ns()))
        end = time.perf_counter() + 2
        while len(got) == before and time.perf_counter() < end:
            ex.spin_once(timeout_sec=0.1)
    out.append(case("pubsub", "callback", "one_way_ns", [float(x) for x in got[10:]],
                    "subscription callback, spun by a SingleThreadedExecutor"))
    out.append({"table": "pubsub", "case": "coroutine", "metric": "one_way_ns",
                "payload_bytes": 0, "error": "rclpy has no subscription stream to await"})

    node.create_service(SetBool, "bench_async_srv", lambda req, resp: resp)
    cli = node.create_client(SetBool, "bench_async_srv")
    cli.wait_for_service(timeout_sec=5)
    v = []
    for _ in range(count + 10):
        t0 = time.perf_counter_ns()
        fut = cli.call_async(SetBool.Request(data=True))
        ex.spin_until_future_complete(fut, timeout_sec=2)
        v.append(time.perf_counter_ns() - t0)
    out.append(case("service", "callback", "rtt_ns", v[10:],
                    "call_async + spin_until_future_complete"))

    async def one() -> int:
        t0 = time.perf_counter_ns()
        await cli.call_async(SetBool.Request(data=True))
        return time.perf_counter_ns() - t0

    v = []
    for _ in range(count + 10):
        task = ex.create_task(one)
        ex.spin_until_future_complete(task, timeout_sec=2)
        v.append(float(task.result()))
    out.append(case("service", "coroutine", "rtt_ns", v[10:],
                    "an executor task awaiting call_async"))
    for n_ in (100, 500, 1000, 5000):
        for ms in (1, 10, 100):
            for repeats in (1, 3):
                out.append({"table": "tasks", "case": f"{n_} tasks {ms} ms x{repeats}",
                            "metric": "tasks_wall_ns", "payload_bytes": 0,
                            "error": "asyncio's tasks are in nerve's column (rclpy has none)"})
    ex.shutdown()
    node.destroy_node()
    rclpy.shutdown()
    return out


def main() -> int:
    from tables_main import run

    return run({"nerve": nerve_cases, "ros2": ros2_cases},
               {"nerve": "nerve", "ros2": "ros-rclpy"})


if __name__ == "__main__":
    sys.exit(main())
