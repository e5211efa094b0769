#!/usr/bin/env python3
"""Cross-process service round trip from Python: nerve services, ROS 2 (rclpy) services and
Zenoh queryables, one system per interpreter.

The client process pins itself to core 0 and starts its server process (the same interpreter,
this file with ``--server``) pinned to core 1. The server echoes every request; the client
times each call with ``time.perf_counter_ns`` (round trip, ``rtt_ns``) and checks the echo: the
same length and the call's sequence number in its first bytes, so a response can never be
taken for another call's.

Systems (each in its own venv, like ``pingpong.py``'s):
  * ``nerve``: ``nerve.Service`` server and client (MessagePack ``bin`` of the payload);
  * ``ros2``: rclpy service ``rcl_interfaces/srv/GetParameters`` on Fast DDS (the only service
    type shipped with rclpy from PyPI that carries free data both ways): the request is one
    name of N ASCII characters, the response one ``string_value`` of the same N characters.
    Its ``byte[]`` fields would be Python lists of 1-byte ``bytes``, far slower, so strings are
    the fair choice. Client and server spin an ``EventsExecutor`` (``PYBENCH_VARIANT=single``:
    the default ``SingleThreadedExecutor``), Fast DDS with the large-message profile
    (``ros2_env.py``);
  * ``zenoh``: a queryable answering with the query's payload, the client ``Session.get`` with
    no consolidation (the first reply ends the call); two peers on loopback TCP.

``--serve``: one JSON command per line on stdin (``{"payload": N, "parallelism": P, "max_s": ..,
"warmup": ..}``), one JSON line back per command with the round-trip samples of that round
(``nerve-bench rpc`` drives it in alternating rounds); the first line out is ``{"hello": ..}`` or
``{"fatal": ..}``. Parallelism P > 1: rclpy keeps P calls in flight on its executor (a
completion sends the next call); nerve and Zenoh run P caller threads, each with its own client
(their calls wait without the GIL).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from pingpong import ECHO_CORE, PING_CORE, err_text, pin  # noqa: E402

FILL = bytes(65 + i % 26 for i in range(1 << 16))  # 'ABC…Z' repeated: ASCII for ROS strings


def request_bytes(seq: int, n: int) -> bytes:
    """``n`` bytes: the 16-digit sequence number, then filler."""
    return b"%016d" % seq + FILL[: max(0, n - 16)]


def echoed(seq: int, n: int, got) -> bool:
    return len(got) == n and got[:16] == b"%016d" % seq


# ---------------------------------------------------------------------------------------------
# Systems: a server (`serve()` blocks, echoing) and a client (`call(seq) -> bool`)


def service_name(tag: str) -> str:
    return f"rpcbench_{tag}/echo"


class Nerve:
    """``PYBENCH_VARIANT=rust-server:<domain>``: call the Rust echo servers of
    ``nerve-bench rpc`` (``bench/echo<N>`` in that domain) instead of a Python server."""

    def __init__(self, role: str, tag: str) -> None:
        import logging

        import nerve

        # The Rust echo servers size their request topics for the payload; a Python client asks
        # for the default limit and nerve warns (once per topic) that it got less.
        logging.getLogger("nerve_transport").setLevel(logging.ERROR)
        self.nerve = nerve
        self.version = getattr(nerve, "__version__", "")
        variant = os.environ.get("PYBENCH_VARIANT", "")
        rust = variant.startswith("rust-server:")
        self.rust_domain = int(variant.split(":")[1]) if rust else None
        self.domain = int(tag) % 1_000_000 + 5_000_000 if tag else 0
        self.svc = nerve.Service(service_name(tag), domain=self.domain)
        self.clients: dict = {}
        server = "Rust echo server" if self.rust_domain is not None else "Python server"
        self.variant = f"nerve.Service client, {server} (MessagePack bin)"
        # Not like for like, and why: nerve's services spin before they sleep (the default
        # ServiceConfig::spin, which nerve's Python API does not let a caller change).
        self.fields = {"wait": "client and server spin up to 50 µs for a frame, then sleep "
                               "(nerve's default ServiceConfig::spin; not settable from "
                               "Python); rclpy and Zenoh sleep at once"}

    @property
    def own_server(self) -> bool:
        return self.rust_domain is None

    def serve(self) -> None:
        self.server = self.svc.server(lambda req: req)
        print("ready", flush=True)
        threading.Event().wait()

    def connect(self, timeout: float) -> None:
        if self.own_server and not self.svc.client().wait_for_server(timeout):
            raise RuntimeError("nerve: the server never came up")

    def call(self, seq: int, n: int, timeout: float) -> bool:
        # One client per calling thread (and per Rust echo service), as the Rust rows do.
        key = (threading.get_ident(), None if self.own_server else n)
        client = self.clients.get(key)
        if client is None:
            if self.own_server:
                client = self.svc.client()
            else:
                client = self.nerve.Service(f"bench/echo{n}", domain=self.rust_domain).client()
            if not client.wait_for_server(timeout):
                raise RuntimeError(f"nerve: no server for {n} B")
            self.clients[key] = client
        return echoed(seq, n, client.call(request_bytes(seq, n), timeout=timeout))


class Ros2:
    def __init__(self, role: str, tag: str) -> None:
        sys_ros2 = importlib.import_module("sys_ros2")
        from rcl_interfaces.msg import ParameterType, ParameterValue
        from rcl_interfaces.srv import GetParameters

        self.version = sys_ros2.VERSION
        self.ctx = sys_ros2.Context("rpc" + role)
        self.srv_type, self.value_type = GetParameters, ParameterValue
        self.string_type = ParameterType.PARAMETER_STRING
        self.name = "/" + service_name(tag)
        self.variant = f"rcl_interfaces/srv/GetParameters, N-char strings, {self.ctx.exec_name}"
        self.fields = {**self.ctx.fields, "wait": "executor wait set (sleeps)"}

    def serve(self) -> None:
        def echo(req, resp):
            resp.values = [self.value_type(type=self.string_type, string_value=req.names[0])]
            return resp

        self.service = self.ctx.node.create_service(self.srv_type, self.name, echo)
        print("ready", flush=True)
        while True:
            self.ctx.executor.spin_once(timeout_sec=1.0)

    def connect(self, timeout: float) -> None:
        self.client = self.ctx.node.create_client(self.srv_type, self.name)
        end = time.perf_counter() + timeout
        while not self.client.service_is_ready():
            if time.perf_counter() > end:
                raise RuntimeError("ros2: the service never matched (discovery)")
            self.ctx.executor.spin_once(timeout_sec=0.01)

    def call(self, seq: int, n: int, timeout: float) -> bool:
        req = self.srv_type.Request()
        req.names = [request_bytes(seq, n).decode("ascii")]
        fut = self.client.call_async(req)
        self.ctx.executor.spin_until_future_complete(fut, timeout_sec=timeout)
        if not fut.done():
            self.client.remove_pending_request(fut)
            return False
        values = fut.result().values
        return len(values) == 1 and echoed(seq, n, values[0].string_value.encode("ascii"))


    def parallel(self, seq: int, n: int, parallelism: int, max_s: float,
                 timeout: float) -> tuple[list[int], int, int]:
        """``parallelism`` calls in flight from this thread's executor: each completion (a
        callback inside ``spin_once``) records its round trip and sends the next call."""
        now = time.perf_counter_ns
        end = now() + int(max_s * 1e9)
        out: list[int] = []
        errors = [0]
        inflight = [0]
        next_seq = [seq]

        def send() -> None:
            s = next_seq[0]
            next_seq[0] += 1
            req = self.srv_type.Request()
            req.names = [request_bytes(s, n).decode("ascii")]
            t0 = now()
            inflight[0] += 1
            self.client.call_async(req).add_done_callback(lambda f: done(f, s, t0))

        def done(fut, s: int, t0: int) -> None:
            t1 = now()
            inflight[0] -= 1
            values = fut.result().values
            if len(values) == 1 and echoed(s, n, values[0].string_value.encode("ascii")):
                out.append(t1 - t0)
            else:
                errors[0] += 1
            if t1 < end:
                send()

        for _ in range(parallelism):
            send()
        give_up = end + int(timeout * 1e9)
        while inflight[0] and now() < give_up:
            self.ctx.executor.spin_once(timeout_sec=0.1)
        errors[0] += inflight[0]
        return out, errors[0], next_seq[0]


class Zenoh:
    def __init__(self, role: str, tag: str) -> None:
        import zenoh

        sys_zenoh = importlib.import_module("sys_zenoh")
        self.zenoh = zenoh
        self.version = sys_zenoh.VERSION
        # The client listens (like pingpong's ping), the server connects to it.
        self.ctx = sys_zenoh.Context("ping" if role == "client" else "echo")
        self.key = service_name(tag)
        self.variant = "queryable + Session.get (no consolidation), peers on tcp loopback"
        self.fields = {"wait": "blocking reply channel (sleeps)"}

    def serve(self) -> None:
        queryable = self.ctx.session.declare_queryable(self.key)
        print("ready", flush=True)
        while True:
            q = queryable.recv()
            q.reply(q.key_expr, q.payload)
            q.drop()

    def connect(self, timeout: float) -> None:
        end = time.perf_counter() + timeout
        while not self.call(0, 16, 0.2):
            if time.perf_counter() > end:
                raise RuntimeError("zenoh: no answer from the queryable (peers not connected)")

    def call(self, seq: int, n: int, timeout: float) -> bool:
        replies = self.ctx.session.get(
            self.key, payload=request_bytes(seq, n), timeout=timeout,
            consolidation=self.zenoh.ConsolidationMode.NONE,
        )
        for r in replies:
            return r.ok is not None and echoed(seq, n, r.ok.payload.to_bytes())
        return False


SYSTEMS = {"nerve": Nerve, "ros2": Ros2, "zenoh": Zenoh}


# ---------------------------------------------------------------------------------------------


def server_main(system: str, tag: str) -> None:
    pin(ECHO_CORE)

    def parent_gone() -> None:
        sys.stdin.read()  # EOF: the client process closed the pipe or died
        os._exit(0)

    threading.Thread(target=parent_gone, daemon=True).start()
    SYSTEMS[system]("server", tag).serve()


class Client:
    def __init__(self, system: str) -> None:
        pin(PING_CORE)
        self.tag = str(os.getpid())
        os.environ["PYBENCH_TAG"] = self.tag  # inherited by the server (zenoh's port)
        self.sys = SYSTEMS[system]("client", self.tag)
        self.server = None
        if getattr(self.sys, "own_server", True):
            self.server = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--system", system, "--server",
                 "--tag", self.tag],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )
            line = self.server.stdout.readline().strip()
            if line != "ready":
                rc = self.server.poll()
                raise RuntimeError(f"server process did not start (rc={rc}): {line}")
        self.sys.connect(15.0)
        self.seq = 1

    def round(self, payload: int, max_s: float, warmup: int, timeout_s: float,
              min_samples: int = 3, parallelism: int = 1) -> dict:
        if parallelism > 1:
            return self.parallel_round(payload, max_s, warmup, timeout_s, parallelism)
        call = self.sys.call
        seq = self.seq
        w_end = time.perf_counter() + max_s
        for i in range(warmup):
            if i >= 3 and time.perf_counter() > w_end:
                break
            if not call(seq, payload, timeout_s):
                raise RuntimeError(f"warm-up: lost or wrong answer to call {seq}")
            seq += 1
        out = []
        errors = 0
        now = time.perf_counter_ns
        start = now()
        end_ns = start + int(max_s * 1e9)
        while True:
            t0 = now()
            if t0 > end_ns and len(out) >= min_samples:
                break
            ok = call(seq, payload, timeout_s)
            t1 = now()
            seq += 1
            if ok:
                out.append(t1 - t0)
            else:
                errors += 1
                if errors > 100:
                    break
        self.seq = seq
        return {"samples_ns": out, "calls": len(out) + errors, "errors": errors,
                "elapsed_s": (now() - start) / 1e9, "payload_bytes": payload,
                "variant": self.sys.variant, "fields": self.sys.fields}

    def parallel_round(self, payload: int, max_s: float, warmup: int, timeout_s: float,
                       parallelism: int) -> dict:
        """``parallelism`` callers at once: calls in flight on rclpy's executor, threads (each
        with its own client) for the others, whose calls wait without the GIL."""
        now = time.perf_counter_ns
        start = now()
        if hasattr(self.sys, "parallel"):
            out, errors, self.seq = self.sys.parallel(self.seq, payload, parallelism, max_s,
                                                      timeout_s)
            return {"samples_ns": out, "calls": len(out) + errors, "errors": errors,
                    "elapsed_s": (now() - start) / 1e9, "payload_bytes": payload,
                    "variant": self.sys.variant, "fields": self.sys.fields}
        results: list = [None] * parallelism
        barrier = threading.Barrier(parallelism)
        base = self.seq

        def caller(i: int) -> None:
            call = self.sys.call
            seq = base + (i << 32)
            samples: list[int] = []
            errors = 0
            try:
                for _ in range(max(3, warmup // parallelism)):
                    call(seq, payload, timeout_s)
                    seq += 1
            finally:
                barrier.wait()
            t_start = now()
            end = t_start + int(max_s * 1e9)
            while now() < end:
                t0 = now()
                ok = call(seq, payload, timeout_s)
                t1 = now()
                seq += 1
                if ok:
                    samples.append(t1 - t0)
                else:
                    errors += 1
            results[i] = (samples, errors, (now() - t_start) / 1e9)

        threads = [threading.Thread(target=caller, args=(i,)) for i in range(parallelism)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.seq = base + (parallelism << 32)
        done = [r for r in results if r is not None]
        if len(done) < parallelism:
            raise RuntimeError(f"{parallelism - len(done)} caller thread(s) failed")
        out = [x for r in done for x in r[0]]
        errors = sum(r[1] for r in done)
        return {"samples_ns": out, "calls": len(out) + errors, "errors": errors,
                "elapsed_s": max(r[2] for r in done), "payload_bytes": payload,
                "variant": self.sys.variant, "fields": self.sys.fields}

    def close(self) -> None:
        if self.server is None:
            return
        try:
            self.server.stdin.close()
            self.server.wait(timeout=5)
        except Exception:  # noqa: BLE001
            self.server.kill()


def serve(system: str) -> None:
    try:
        client = Client(system)
    except Exception as e:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        print(json.dumps({"fatal": err_text(e)}), flush=True)
        return
    print(json.dumps({"hello": system, "python": sys.version.split()[0],
                      "version": client.sys.version, "fields": client.sys.fields}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        if cmd.get("quit"):
            break
        try:
            res = client.round(int(cmd["payload"]), float(cmd.get("max_s", 0.25)),
                               int(cmd.get("warmup", 50)), float(cmd.get("timeout_s", 5.0)),
                               parallelism=int(cmd.get("parallelism", 1)))
        except Exception as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            res = {"error": err_text(e)}
            if client.server is not None and client.server.poll() is not None:
                print(json.dumps({"fatal": "server process died: " + err_text(e)}), flush=True)
                return
        print(json.dumps(res), flush=True)
    client.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--system", required=True, choices=sorted(SYSTEMS))
    ap.add_argument("--variant", default="", help="ros2: events|single")
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--server", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tag", default="", help=argparse.SUPPRESS)
    ap.add_argument("--payload", type=int, default=512, help="one round, without --serve")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--parallelism", type=int, default=1)
    a = ap.parse_args()
    if a.variant:
        os.environ["PYBENCH_VARIANT"] = a.variant  # inherited by the server process
    if a.server:
        server_main(a.system, a.tag)
    elif a.serve:
        serve(a.system)
    else:
        c = Client(a.system)
        try:
            r = c.round(a.payload, a.seconds, 100, 5.0, parallelism=a.parallelism)
        finally:
            c.close()
        s = sorted(r.pop("samples_ns"))
        r.update(n=len(s), p50=s[len(s) // 2] if s else None, min=s[0] if s else None)
        print(json.dumps(r))


if __name__ == "__main__":
    main()
