#!/usr/bin/env python3
"""rclcpp_async's tables in Python, for one system per run: nerve's Python API or rclpy.

    async_tables.py <nerve|ros2> <quick 0|1>

Prints one line ``inproc <JSON>`` in the format of ``inproc.py`` (``nerve-bench python`` runs
both in alternating rounds, nerve's interpreter then the ros2 peer's, and pools the samples).
Each case's ``fields`` say what ran (``python_api``); a case with ``ratio: false`` gets no nerve /
rclpy ratio row (it runs no nerve code, so there is nothing of nerve's to compare):

* ``sleep``: measured − requested sleep at 1, 5, 10, 50, 100 ms, in both interpreters:
  ``thread`` (``time.sleep``); ``callback`` (a timer at 1/d Hz, each call's start − its
  planned start as the system stamps them, the first dropped: nerve, a Python node on
  ``nerve.Scheduler``, ``ctx.now − ctx.planned``; rclpy, ``create_timer``, TimerInfo's
  ``actual_call_time − expected_call_time``);
  ``coroutine`` (nerve's interpreter: plain ``asyncio.sleep``, no nerve code: nerve's Python
  API has no sleep of its own and adds nothing to asyncio's; rclpy: an executor task awaiting
  a future that a one-shot timer completes, rclpy's way to sleep in a coroutine);
* ``pubsub``: publish-to-receive in one process and thread, a stamp in the message: nerve's
  blocking ``recv`` and ``await recv_async()`` (nerve's async API); rclpy's subscription
  callback, and an ``async`` subscription callback (a coroutine its executor runs);
* ``service``: a round trip in one process: nerve's ``call`` and ``await call_async()``;
  rclpy's ``call_async`` + ``spin_until_future_complete`` (callback style) and an executor
  task awaiting ``call_async`` (coroutine);
* ``tasks``: N tasks sleeping d, once and three times: plain asyncio in nerve's interpreter
  (no nerve code, as above); rclpy coroutine tasks on its executor, each awaiting a one-shot
  timer's future per sleep.

rclpy runs with Fast DDS's large-message profile and its fastest executor (``ros2_env.py``);
every rclpy case's ``fields`` name them.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

SLEEPS_MS = [1, 5, 10, 50, 100]
NO_NERVE = "plain asyncio, no nerve code (nerve's Python API has no sleep; it adds nothing)"


def case(table: str, name: str, metric: str, samples: list[float], note: str = "",
         **fields: object) -> dict:
    c = {"table": table, "case": name, "metric": metric, "payload_bytes": 0,
         "samples_ns": samples, "note": note}
    if "ratio" in fields:
        c["ratio"] = fields.pop("ratio")
    if fields:
        c["fields"] = fields
    return c


def thread_sleeps(n: int) -> list[dict]:
    out = []
    for ms in SLEEPS_MS:
        d = ms / 1e3
        v = []
        for _ in range(n):
            t = time.perf_counter_ns()
            time.sleep(d)
            v.append(time.perf_counter_ns() - t - ms * 1_000_000)
        out.append(case("sleep", f"{ms} ms thread", "sleep_overhead_ns", v, "time.sleep",
                        python_api="time.sleep (no nerve or rclpy code)", ratio=False))
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
                 "asyncio.sleep in asyncio's loop", python_api=NO_NERVE, ratio=False)
            for ms in SLEEPS_MS]


def task_grid(quick: bool) -> list[tuple[int, int, int]]:
    """(tasks, ms, repeats) of the tasks table."""
    return [(n, ms, repeats) for n in (100, 500, 1000, 5000) for ms in (1, 10, 100)
            if not (quick and ms == 100 and n != 5000) for repeats in (1, 3)]


def asyncio_tasks(quick: bool) -> list[dict]:
    out = []
    for n, ms, repeats in task_grid(quick):
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
                        "asyncio.gather of N tasks, each sleeping d (repeats times)",
                        python_api=NO_NERVE, ratio=False))
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
                        "a Python node on nerve.Scheduler at 1/d Hz: tick start - planned start",
                        python_api="nerve.Scheduler"))
    out += asyncio_sleeps(n)

    count = 50 if quick else 100
    t = nerve.Topic(f"bench/async/{os.getpid()}", nerve.CmdVel, in_process=True, depth=16)
    pub, sub = t.publisher(), t.subscriber()
    v = []
    for _ in range(count + 10):
        pub.send(nerve.CmdVel(stamp_ns=time.perf_counter_ns()))
        m = sub.recv(1.0)
        v.append(time.perf_counter_ns() - m.stamp_ns)
    out.append(case("pubsub", "blocking", "one_way_ns", v[10:], "sub.recv() after pub.send()",
                    python_api="nerve Subscriber.recv"))

    async def coro() -> list[float]:
        v = []
        for _ in range(count + 10):
            pub.send(nerve.CmdVel(stamp_ns=time.perf_counter_ns()))
            m = await sub.recv_async()
            v.append(time.perf_counter_ns() - m.stamp_ns)
        return v[10:]

    out.append(case("pubsub", "coroutine", "one_way_ns", asyncio.run(coro()),
                    "await sub.recv_async() after pub.send(), in asyncio's loop",
                    python_api="nerve Subscriber.recv_async (nerve's async API)"))

    svc = nerve.rpc.Service(f"bench/async-svc/{os.getpid()}")
    server = svc.server(lambda r: r)
    client = svc.client()
    v = []
    for i in range(count + 10):
        t0 = time.perf_counter_ns()
        client.call(i)
        v.append(time.perf_counter_ns() - t0)
    out.append(case("service", "callback", "rtt_ns", v[10:],
                    "client.call() (blocking: nerve's Python client has no callback form)",
                    python_api="nerve ServiceClient.call"))

    async def calls() -> list[float]:
        v = []
        for i in range(count + 10):
            t0 = time.perf_counter_ns()
            await client.call_async(i)
            v.append(time.perf_counter_ns() - t0)
        return v[10:]

    out.append(case("service", "coroutine", "rtt_ns", asyncio.run(calls()),
                    "await client.call_async(), in asyncio's loop",
                    python_api="nerve ServiceClient.call_async (nerve's async API)"))
    server.close()
    out += asyncio_tasks(quick)
    return out


def rclpy_sleep(node, fut_cls):  # noqa: ANN001, ANN201
    """rclpy's coroutine sleep on ``node``: await a future that a one-shot timer completes
    (made as ``Client.call_async`` makes its futures); the timer is destroyed after the wait,
    not in its own callback."""

    async def sleep(d: float) -> None:
        fut = fut_cls()

        def fire() -> None:
            timer.cancel()
            if not fut.done():
                fut.set_result(None)

        timer = node.create_timer(d, fire)
        try:
            await fut
        finally:
            node.destroy_timer(timer)

    return sleep


def lateness_into(late: list[float], timer_info: type):  # noqa: ANN201
    """A timer callback that appends each call's lateness (rclpy's own stamps) to ``late``.
    Its one parameter is annotated with the class itself (not a string): that is how the
    SingleThreadedExecutor knows to pass a TimerInfo (EventsExecutor passes one to any
    callback of one parameter)."""

    def on_tick(info) -> None:  # noqa: ANN001
        late.append(float(info.actual_call_time.nanoseconds
                          - info.expected_call_time.nanoseconds))

    on_tick.__annotations__ = {"info": timer_info, "return": None}
    return on_tick


def rclpy_single_ops(ex, node, tag: str, quick: bool) -> dict:  # noqa: ANN001
    """The sleep, pubsub and service cases on one executor: {(table, case): (samples, note,
    api)}, or an error text in place of the samples."""
    from rclpy.task import Future
    from rclpy.timer import TimerInfo
    from std_msgs.msg import UInt64
    from std_srvs.srv import SetBool

    n = 3 if quick else 10
    out: dict = {}
    sleep = rclpy_sleep(node, Future)

    def run_task(coro_fn, timeout: float):  # noqa: ANN001, ANN202
        task = ex.create_task(coro_fn)
        ex.spin_until_future_complete(task, timeout_sec=timeout)
        if not task.done():
            raise RuntimeError(f"an rclpy task did not finish within {timeout} s")
        return task.result()

    for ms in SLEEPS_MS:
        # The same statistic as nerve's node: a timer at 1/d Hz, each call's start - its
        # planned start as rclpy itself stamps them (TimerInfo), the first call dropped.
        late: list[float] = []
        timer = node.create_timer(ms / 1e3, lateness_into(late, TimerInfo))
        end = time.perf_counter() + 5 + (n + 1) * ms / 1e3
        while len(late) < n + 1 and time.perf_counter() < end:
            ex.spin_once(timeout_sec=0.2)
        node.destroy_timer(timer)
        out[("sleep", f"{ms} ms callback")] = (
            late[1:] if len(late) > 1 else f"{len(late)} timer calls in {5 + n * ms / 1e3} s",
            "rclpy timer at 1/d Hz: TimerInfo actual_call_time - expected_call_time",
            "rclpy Node.create_timer")

        async def naps(ms: int = ms) -> list[float]:
            v = []
            for _ in range(n):
                t = time.perf_counter_ns()
                await sleep(ms / 1e3)
                v.append(time.perf_counter_ns() - t - ms * 1_000_000)
            return v

        try:
            v = run_task(naps, 5 + n * ms / 1e3)
        except RuntimeError as e:
            v = str(e)
        out[("sleep", f"{ms} ms coroutine")] = (
            v, "an executor task awaiting a future a one-shot timer completes",
            "rclpy coroutine task + create_timer")

    count = 50 if quick else 100
    got: list[int] = []
    agot: list[int] = []

    async def on_async(m: UInt64) -> None:
        agot.append(time.perf_counter_ns() - m.data)

    pub = node.create_publisher(UInt64, f"bench_async_topic_{tag}", 10)
    node.create_subscription(UInt64, f"bench_async_topic_{tag}",
                             lambda m: got.append(time.perf_counter_ns() - m.data), 10)
    apub = node.create_publisher(UInt64, f"bench_async_coro_{tag}", 10)
    node.create_subscription(UInt64, f"bench_async_coro_{tag}", on_async, 10)
    for p, sink, name, note, api in (
            (pub, got, "callback", "subscription callback, spun", "rclpy subscription"),
            (apub, agot, "coroutine", "an async subscription callback (a coroutine the "
             "executor awaits), spun", "rclpy async subscription callback")):
        end = time.perf_counter() + 5
        while p.get_subscription_count() < 1 and time.perf_counter() < end:
            ex.spin_once(timeout_sec=0.01)
        for _ in range(count + 10):
            before = len(sink)
            p.publish(UInt64(data=time.perf_counter_ns()))
            end = time.perf_counter() + 2
            while len(sink) == before and time.perf_counter() < end:
                ex.spin_once(timeout_sec=0.1)
        v = ([float(x) for x in sink[10:]] if len(sink) >= count + 10 else
             f"{len(sink)} of {count + 10} messages reached the {note}")
        out[("pubsub", name)] = (v, note, api)

    node.create_service(SetBool, f"bench_async_srv_{tag}", lambda req, resp: resp)
    cli = node.create_client(SetBool, f"bench_async_srv_{tag}")
    cli.wait_for_service(timeout_sec=5)
    v = []
    for _ in range(count + 10):
        t0 = time.perf_counter_ns()
        fut = cli.call_async(SetBool.Request(data=True))
        ex.spin_until_future_complete(fut, timeout_sec=2)
        v.append(time.perf_counter_ns() - t0)
    out[("service", "callback")] = (v[10:], "call_async + spin_until_future_complete",
                                    "rclpy Client.call_async")

    async def one() -> int:
        t0 = time.perf_counter_ns()
        await cli.call_async(SetBool.Request(data=True))
        return time.perf_counter_ns() - t0

    try:
        v = [float(run_task(one, 2)) for _ in range(count + 10)][10:]
    except RuntimeError as e:
        v = str(e)
    out[("service", "coroutine")] = (v, "an executor task awaiting call_async",
                                     "rclpy coroutine task + call_async")
    return out


def ros2_cases(quick: bool) -> list[dict]:
    import ros2_env

    ros2_env.configure()
    import rclpy
    from rclpy.task import Future

    n = 3 if quick else 10
    out = thread_sleeps(n)
    rclpy.init()
    # Both executors, each with a node of its own; per case the one with the lower mean is
    # reported (the tables' statistic), the other's mean in the note.
    runs = {}
    for kind in ("events", "single"):
        node = rclpy.create_node(f"bench_async_{kind}_{os.getpid()}")
        ex, name = ros2_env.executor(kind)
        ex.add_node(node)
        runs[name] = (ex, node, rclpy_single_ops(ex, node, kind, quick))
    metric = {"sleep": "sleep_overhead_ns", "pubsub": "one_way_ns", "service": "rtt_ns"}
    keys = list(next(iter(runs.values()))[2])
    for key in keys:
        table, name = key
        means = {ex_name: sum(r[2][key][0]) / len(r[2][key][0]) for ex_name, r in runs.items()
                 if not isinstance(r[2][key][0], str) and r[2][key][0]}
        if not means:
            why = "; ".join(f"{e}: {r[2][key][0]}" for e, r in runs.items())
            out.append({"table": table, "case": name, "metric": metric[table],
                        "payload_bytes": 0, "error": why,
                        "fields": ros2_env.fields("none ran it")})
            continue
        best = min(means, key=means.get)
        v, note, api = runs[best][2][key]
        other = "; ".join(f"{e} mean {m / 1e3:.1f} µs" for e, m in means.items() if e != best)
        fails = "; ".join(f"{e}: {r[2][key][0]}" for e, r in runs.items()
                          if isinstance(r[2][key][0], str))
        note = f"{note}; the better executor's ({best}; {other or fails})"
        out.append(case(table, name, metric[table], v, note, python_api=api,
                        **ros2_env.fields(best)))

    # Tasks: the SingleThreadedExecutor. EventsExecutor (rclpy 9) here did not finish 1000
    # tasks of three 100 ms timer sleeps in 30 s, nor resume a task awaiting another task.
    ex, node, _ = runs["SingleThreadedExecutor"]
    sleep = rclpy_sleep(node, Future)
    for n_, ms, repeats in task_grid(quick):
        left = [0]

        async def nap(ms: int = ms, repeats: int = repeats, left: list[int] = left) -> None:
            for _ in range(repeats):
                await sleep(ms / 1e3)
            left[0] -= 1

        walls = []
        label = f"{n_} tasks {ms} ms x{repeats}"
        for _ in range(2 if quick else 5):
            left[0] = n_
            t = time.perf_counter_ns()
            for _ in range(n_):
                ex.create_task(nap)
            end = time.perf_counter() + 30 + repeats * ms / 1e3
            while left[0] and time.perf_counter() < end:
                ex.spin_once(timeout_sec=0.1)
            if left[0]:
                break
            walls.append(time.perf_counter_ns() - t)
        if left[0]:
            out.append({"table": "tasks", "case": label, "metric": "tasks_wall_ns",
                        "payload_bytes": 0, "fields": ros2_env.fields("SingleThreadedExecutor"),
                        "error": f"{left[0]} of {n_} tasks unfinished after 30 s"})
            continue
        out.append(case("tasks", label, "tasks_wall_ns", walls,
                        "N executor tasks, each awaiting a one-shot timer's future d (repeats "
                        "times), until the last is done; SingleThreadedExecutor: EventsExecutor "
                        "here did not finish 1000 tasks x3 of 100 ms in 30 s",
                        python_api="rclpy coroutine tasks + create_timer",
                        **ros2_env.fields("SingleThreadedExecutor")))
    for ex, node, _ in runs.values():
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
