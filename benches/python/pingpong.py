#!/usr/bin/env python3
"""Cross-process ping-pong between two Python processes, one system at a time.

The ping process pins itself to core 0 and starts its echo process (the same interpreter, this
file with ``--echo``) pinned to core 1. Per round, ping tells echo the scenario over a pipe; echo
opens (or reuses) its endpoints and echoes every message back until a stop message; ping times
each round trip with ``time.perf_counter_ns`` and reports one-way = RTT / 2.

Systems live in ``sys_<name>.py`` next to this file (``nerve``, ``horus``, ``iceoryx2``,
``zenoh``, ``ros2``); each runs in its own interpreter (``benches/python/.venvs/<name>``).

Two ways to run it:
  * ``--serve``: read one JSON command per line on stdin (``{"scenario": .., "mode": ..,
    "samples": .., "warmup": ..}``), answer one JSON line per command with the raw one-way
    samples of that round (``nerve-bench python`` drives the systems this way, in alternating
    rounds);
  * ``--scenario S --mode M --samples N``: one round, print one result row (contract fields) as
    JSON on stdout.

Scenarios: CmdVel, Pose2D (the sequence number in ``x``), Imu, dict-v, dict-xyz, dict-small,
dict-1k, Image-640x480, Image-1920x1080; nerve only: Custom
(a type declared in Python), Tensor-200x200 and Tensor-4096x4096 float32 (sent from a numpy
array: one copy into the loan; ``-torch``: from a torch tensor; ``-loan``: written in place in
the loan, no copy), and Tensor-200x200-msgpack (the same array as MessagePack bytes).
Checks (what the receiver reads): typed messages and dicts carry the sequence number in a field
(stamp / "seq") that the receiver compares; images also carry it in the stamp, and the receiver
compares the first and the last byte of pixel data with a byte made from the sequence number
(``check_ends``; the sender wrote them in this message's memory). Until 2026-11-28 the check
compared 64 bytes at each end through numpy slices and a reshape, which cost more than a
whole CmdVel hop of nerve's in Python and measured the check more than the hop.

Each adapter's ``Endpoint`` may bind ``send``/``recv`` per scenario when it is made (nerve and
HORUS do for their sub-microsecond rows), so that the timed loop runs the system's calls and
not a chain of scenario tests; each system builds its messages with its fastest constructor
(positional values for nerve's and HORUS's CmdVel). An ``Endpoint`` may set ``fields``, extra
row fields that say how it ran (nerve: ``wait``; ROS 2: ``dds_profile`` and ``executor``,
from ``ros2_env.py``); each round's answer carries them.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if __name__ == "__main__":
    # The adapters `from pingpong import ...`: make that this very module, not a second copy
    # (else `except Unsupported` would not catch theirs).
    sys.modules.setdefault("pingpong", sys.modules["__main__"])

SCENARIOS = ["CmdVel", "Pose2D", "Imu", "dict-v", "dict-xyz", "dict-small", "dict-1k",
             "Image-640x480", "Image-1920x1080",
             "Custom", "Tensor-200x200", "Tensor-200x200-loan", "Tensor-200x200-msgpack",
             "Tensor-200x200-torch", "Tensor-4096x4096", "Tensor-4096x4096-loan",
             "Tensor-4096x4096-torch"]
# nerve's own paths (the Wrapyfi seed's tensors, a type declared in Python): the peers are
# compared on the Image and dict rows.
NERVE_ONLY = {s for s in SCENARIOS if s == "Custom" or s.startswith("Tensor")}
STOP = (1 << 62) + 7  # a sequence number that tells echo to stop
PING_CORE, ECHO_CORE = 0, 1


def pin(core: int) -> None:
    """Pins this process to `core`. Not limited to the inherited mask: the echo process is
    started by the ping process, which has already pinned itself to the other core."""
    try:
        if core < (os.cpu_count() or 1):
            os.sched_setaffinity(0, {core})
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# Payload helpers shared by the systems


def image_dims(scenario: str) -> tuple[int, int]:
    w, h = scenario.split("-")[1].split("x")
    return int(w), int(h)


def small_dict(seq: int) -> dict:
    return {"x": 1.0, "y": 2.0, "cmd": "go", "seq": seq}


_RANGES = [0.5 + 0.01 * i for i in range(108)]


def big_dict(seq: int) -> dict:
    """About 1 KB as MessagePack (108 float64 ranges)."""
    return {"seq": seq, "frame": "lidar", "angle_min": -1.57, "ranges": _RANGES}


def make_dict(scenario: str, seq: int) -> dict:
    """HORUS's Python dict shapes (one key, three keys, four keys, ~1 KB), each with "seq"."""
    if scenario == "dict-v":
        return {"v": 1.0, "seq": seq}
    if scenario == "dict-xyz":
        return {"x": 1.0, "y": 2.0, "z": 3.0, "seq": seq}
    return small_dict(seq) if scenario == "dict-small" else big_dict(seq)


_PATTERNS = [bytes([v]) * 64 for v in range(251)]


def pattern(seq: int) -> bytes:
    """The 64-byte pattern written at both ends of an image for sequence ``seq``."""
    return _PATTERNS[seq % 251]


def check_byte(seq: int) -> int:
    """The byte written at both ends of an image's pixels for sequence ``seq``."""
    return seq % 251


# The first and the last pixel byte of an (height, width, channels) array, for ``write_ends``
# and ``check_ends`` (no flat view made per message: a reshape costs as much as the check).
FIRST_3D, LAST_3D = (0, 0, 0), (-1, -1, -1)


def write_ends(a, seq: int, first=0, last=-1) -> None:
    """Writes ``check_byte(seq)`` at the first and the last pixel byte of ``a`` (a flat
    array, memoryview or bytearray; an N-d array with ``first``/``last`` index tuples)."""
    v = seq % 251
    a[first] = v
    a[last] = v


def check_ends(a, seq: int, first=0, last=-1) -> None:
    """Reads the first and the last pixel byte of received image data (as ``write_ends``)
    and compares them with ``check_byte(seq)``: the receiver reads the payload's first and
    last cache lines, written by the sender for this very message."""
    v = seq % 251
    if a[first] != v or a[last] != v:
        raise RuntimeError(f"image pixel check failed for seq {seq}")


class Unsupported(Exception):
    """The system's Python API cannot do this scenario/mode (becomes a row with `error`)."""


# ---------------------------------------------------------------------------------------------
# Echo side


def echo_main(system: str) -> None:
    pin(ECHO_CORE)
    mod = importlib.import_module(f"sys_{system}")
    ctx = mod.Context("echo")
    cache: dict = {}
    out = sys.stdout
    for line in sys.stdin:
        cmd = json.loads(line)
        key = (cmd["scenario"], cmd["mode"])
        try:
            ep = cache.get(key)
            if ep is None:
                ep = mod.Endpoint(ctx, cmd["scenario"], cmd["mode"], "echo", cmd["tag"])
                cache[key] = ep
            out.write("ready\n")
            out.flush()
        except Exception as e:  # noqa: BLE001
            out.write("error " + json.dumps(f"{type(e).__name__}: {e}") + "\n")
            out.flush()
            continue
        idle = float(cmd.get("idle_s", 10.0))
        try:
            while True:
                seq = ep.recv(idle)
                if seq is None or seq == STOP:
                    break
                ep.send(seq)
            out.write("done\n")
        except Exception as e:  # noqa: BLE001
            out.write("error " + json.dumps(f"echo: {type(e).__name__}: {e}") + "\n")
        out.flush()
    ctx.close()


# ---------------------------------------------------------------------------------------------
# Ping side


class Ping:
    def __init__(self, system: str) -> None:
        pin(PING_CORE)
        self.system = system
        os.environ["PYBENCH_TAG"] = str(os.getpid())  # inherited by the echo process
        self.mod = importlib.import_module(f"sys_{system}")
        self.ctx = self.mod.Context("ping")
        self.cache: dict = {}
        self.echo = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--system", system, "--echo"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )
        self.tag = f"{os.getpid()}"

    def _echo_line(self) -> str:
        line = self.echo.stdout.readline()
        if not line:
            raise RuntimeError(f"echo process exited (rc={self.echo.poll()})")
        return line.strip()

    def round(self, scenario: str, mode: str, samples: int, warmup: int,
              timeout_s: float = 5.0, max_s: float = 1e9, min_samples: int = 3) -> dict:
        key = (scenario, mode)
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario}")
        if scenario in NERVE_ONLY and self.system != "nerve":
            raise Unsupported(f"{scenario} measures nerve's own tensor and declared-type paths")
        check = getattr(self.mod, "check_supported", None)
        if check:
            check(scenario, mode)
        self.echo.stdin.write(json.dumps({"scenario": scenario, "mode": mode,
                                          "tag": self.tag}) + "\n")
        self.echo.stdin.flush()
        ep = self.cache.get(key)
        if ep is None:
            ep = self.mod.Endpoint(self.ctx, scenario, mode, "ping", self.tag)
            self.cache[key] = ep
        line = self._echo_line()
        if line != "ready":
            raise RuntimeError(line[6:] if line.startswith("error ") else line)
        t_setup = time.perf_counter()
        if hasattr(ep, "wait_ready"):
            ep.wait_ready(15.0)
        try:
            base = getattr(ep, "next_seq", 1)
            # Warm-up; also waits out discovery (resends until the first answer).
            seq = base
            got_first = False
            deadline = time.perf_counter() + 15.0
            wait = timeout_s if hasattr(ep, "wait_ready") else 0.05
            while not got_first:
                ep.send(seq)
                r = ep.recv(wait)
                wait = min(2 * wait, timeout_s)
                while r is not None and r != seq:
                    r = ep.recv(0.05)
                if r == seq:
                    got_first = True
                elif time.perf_counter() > deadline:
                    raise RuntimeError("no answer from echo within 15 s (discovery/connection)")
                seq += 1
            w_end = time.perf_counter() + max_s
            for i in range(warmup):
                if i >= 3 and time.perf_counter() > w_end:
                    break
                ep.send(seq)
                r = ep.recv(timeout_s)
                while r is not None and r < seq:  # late answers to discovery resends
                    r = ep.recv(timeout_s)
                if r != seq:
                    raise RuntimeError(f"warm-up: lost or wrong answer to {seq} (got {r})")
                seq += 1
            out = []
            now = time.perf_counter_ns
            send, recv = ep.send, ep.recv
            end_ns = now() + int(max_s * 1e9)
            for i in range(samples):
                t0 = now()
                if t0 > end_ns and i >= min_samples:
                    break
                send(seq)
                r = recv(timeout_s)
                t1 = now()
                if r != seq:
                    raise RuntimeError(f"lost or wrong answer to {seq} (got {r})")
                out.append((t1 - t0) / 2)
                seq += 1
            ep.next_seq = seq
        finally:
            ep.send(STOP)
            ep.next_seq = getattr(ep, "next_seq", 1) + 1_000_000
        line = self._echo_line()
        if line != "done":
            raise RuntimeError(line[6:] if line.startswith("error ") else line)
        return {"samples_ns": out, "message": ep.message, "payload_bytes": ep.payload_bytes,
                "variant": getattr(ep, "variant", ""), "check": ep.check,
                "fields": getattr(ep, "fields", {}),
                "round_s": round(time.perf_counter() - t_setup, 3)}

    def close(self) -> None:
        try:
            self.echo.stdin.close()
            self.echo.wait(timeout=5)
        except Exception:  # noqa: BLE001
            self.echo.kill()
        self.ctx.close()


def err_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}".strip()


def serve(system: str) -> None:
    try:
        ping = Ping(system)
    except Exception as e:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        print(json.dumps({"fatal": err_text(e)}), flush=True)
        return
    now = time.perf_counter_ns
    timer = []
    for _ in range(10000):
        t0 = now()
        timer.append(now() - t0)
    print(json.dumps({"hello": system, "python": sys.version.split()[0],
                      "version": getattr(ping.mod, "VERSION", ""),
                      "timer_overhead_ns": timer}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        if cmd.get("quit"):
            break
        try:
            res = ping.round(cmd["scenario"], cmd["mode"], int(cmd["samples"]),
                             int(cmd.get("warmup", 100)), float(cmd.get("timeout_s", 5.0)),
                             float(cmd.get("max_s", 1e9)), int(cmd.get("min_samples", 3)))
        except Unsupported as e:
            res = {"error": str(e), "unsupported": True}
        except Exception as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            res = {"error": err_text(e)}
            # The echo may be stuck mid-round: restart the pair's state for the next command.
            if ping.echo.poll() is not None:
                print(json.dumps({"fatal": "echo process died: " + err_text(e)}), flush=True)
                return
        print(json.dumps(res), flush=True)
    ping.close()


def percentiles(v: list[float]) -> dict:
    s = sorted(v)
    n = len(s)

    def p(q: float) -> float:
        import math

        return s[min(n, max(1, math.ceil(q * n / 100 - 1e-9))) - 1]

    return {"min": s[0], "p50": p(50), "p90": p(90), "p99": p(99), "p999": p(99.9),
            "max": s[-1], "n": n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--system", required=True)
    ap.add_argument("--echo", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--variant", default="", help="system variant (ros2: events|single)")
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--scenario", default="CmdVel", choices=SCENARIOS)
    ap.add_argument("--mode", default="poll", choices=["poll", "blocking"])
    ap.add_argument("--samples", type=int, default=5000)
    ap.add_argument("--warmup", type=int, default=200)
    a = ap.parse_args()
    if a.variant:
        os.environ["PYBENCH_VARIANT"] = a.variant  # inherited by the echo process
    if a.echo:
        echo_main(a.system)
    elif a.serve:
        serve(a.system)
    else:
        ping = Ping(a.system)
        row = {"suite": "python", "system": a.system, "api": "python",
               "transport": "cross-process", "topology": "1:1", "mode": a.mode,
               "metric": "one_way_ns"}
        try:
            r = ping.round(a.scenario, a.mode, a.samples, a.warmup)
            row.update(message=r["message"], payload_bytes=r["payload_bytes"],
                       **percentiles(r["samples_ns"]), variant=r["variant"], check=r["check"],
                       **r["fields"])
        except Exception as e:  # noqa: BLE001
            row.update(message=a.scenario, payload_bytes=0, error=err_text(e))
        finally:
            ping.close()
        print(json.dumps(row))


if __name__ == "__main__":
    main()
