"""Services and parameters from Python: in one process, across processes, under 4 threads."""

import asyncio
import os
import signal
import subprocess
import threading
import time

import nerve
import numpy as np
import pytest
from conftest import run_python

SERVER = """
import sys, time, nerve
svc = nerve.Service(sys.argv[1], domain=int(sys.argv[2]))
def handle(req):
    if req.get("sleep"):
        time.sleep(req["sleep"])
    return {"pid_echo": req["x"] * 2, "who": "subprocess"}
server = svc.server(handle, workers=2)
print("ready", flush=True)
time.sleep(60)
"""


def test_call_in_one_process(domain):
    svc = nerve.Service("math/add", domain=domain)
    with svc.server(lambda req: {"sum": req["a"] + req["b"]}):
        client = svc.client()
        assert client.wait_for_server(1.0)
        assert client.call({"a": 2, "b": 3}, timeout=1.0) == {"sum": 5}
        arr = np.arange(6, dtype=np.float32).reshape(2, 3)
        echo = nerve.Service("echo", domain=domain)
        with echo.server(lambda req: req):
            got = echo.client().call({"a": arr, "s": "x", "b": b"\x00\x01"})
            np.testing.assert_array_equal(got["a"], arr)
            assert got["s"] == "x" and got["b"] == b"\x00\x01"


def test_call_async(domain):
    svc = nerve.Service("async/double", domain=domain)
    with svc.server(lambda x: x * 2, workers=2):
        client = svc.client()

        async def main():
            return await asyncio.gather(*(client.call_async(i) for i in range(8)))

        assert asyncio.run(main()) == [i * 2 for i in range(8)]


def test_pairing_with_4_threads(domain):
    svc = nerve.Service("pairing", domain=domain)
    with svc.server(lambda req: {"id": req["id"], "sq": req["id"] ** 2}, workers=4) as server:
        client = svc.client()
        errors: list[str] = []

        def worker(t: int) -> None:
            for i in range(200):
                n = t * 1000 + i
                r = client.call({"id": n}, timeout=2.0)
                if r != {"id": n, "sq": n * n}:
                    errors.append(f"{n} -> {r}")

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert server.stats()["handled"] == 800


def test_absent_server_is_no_server_quickly(domain):
    client = nerve.Service("nobody/home", domain=domain).client()
    t0 = time.monotonic()
    with pytest.raises(nerve.NoServer, match="no live server"):
        client.call({"a": 1}, timeout=5.0)
    assert time.monotonic() - t0 < 0.5
    assert issubclass(nerve.NoServer, nerve.CallError)
    assert issubclass(nerve.CallError, nerve.NerveError)


def test_closed_server_is_no_server(domain):
    svc = nerve.Service("closing", domain=domain)
    server = svc.server(lambda x: x)
    client = svc.client()
    assert client.call(1) == 1
    server.close()
    with pytest.raises(nerve.NoServer):
        client.call(1, timeout=1.0)


def test_handler_exception_reaches_the_caller(domain):
    def handler(req):
        raise ValueError(f"cannot plan to {req['goal']}")

    svc = nerve.Service("arm/plan", domain=domain)
    with svc.server(handler):
        with pytest.raises(nerve.HandlerError, match=r"ValueError: cannot plan to \[1, 2\]"):
            svc.client().call({"goal": [1, 2]})
        # the server keeps serving after a failure
        with pytest.raises(nerve.HandlerError):
            svc.client().call({"goal": [3]})


def test_slow_handler_times_out(domain):
    svc = nerve.Service("slow", domain=domain)
    with svc.server(lambda x: time.sleep(0.3) or x):
        t0 = time.monotonic()
        with pytest.raises(nerve.CallTimeout, match="no response within"):
            svc.client().call(1, timeout=0.05)
        assert time.monotonic() - t0 < 0.25


def test_second_server_is_already_served(domain):
    svc = nerve.Service("single", domain=domain)
    with svc.server(lambda x: x):
        with pytest.raises(nerve.AlreadyServed, match="already served"):
            svc.server(lambda x: x)


def _start_server(name: str, domain: int):
    peer = run_python(SERVER, name, str(domain))
    line = peer.stdout.readline() if peer.stdout else ""
    assert line.strip() == "ready", peer.stderr.read() if peer.stderr else ""
    return peer


def test_cross_process_server(domain):
    peer = _start_server("xproc/double", domain)
    try:
        client = nerve.Service("xproc/double", domain=domain).client()
        assert client.wait_for_server(5.0)
        for i in range(50):
            assert client.call({"x": i}, timeout=2.0) == {"pid_echo": 2 * i, "who": "subprocess"}
    finally:
        peer.kill()
        peer.wait()


def test_server_killed_mid_call_is_server_died(domain):
    peer = _start_server("xproc/dies", domain)
    client = nerve.Service("xproc/dies", domain=domain).client()
    assert client.wait_for_server(5.0)
    threading.Timer(0.1, lambda: os.kill(peer.pid, signal.SIGKILL)).start()
    t0 = time.monotonic()
    try:
        with pytest.raises(nerve.ServerDied, match="died or stopped"):
            client.call({"x": 1, "sleep": 5.0}, timeout=3.0)
        assert time.monotonic() - t0 < 1.0
    finally:
        peer.wait()


def test_parameters_declare_get_set_and_range(domain):
    p = nerve.Parameters("arm", domain=domain)
    assert p.declare("speed", 0.5, min=0.0, max=2.0, description="m/s") == 0.5
    assert p.declare("joints", 6, min=1, max=12) == 6
    assert p.declare("name", "ur5", read_only=True) == "ur5"
    assert p.declare("gains", [1.0, 2.0]) == [1.0, 2.0]
    assert p.declare("enabled", True) is True
    p.set("speed", 1)  # int is accepted for a float parameter
    assert p.get("speed") == 1.0
    assert p.get("missing") is None
    with pytest.raises(nerve.ParamError, match=r"'speed' = 3.5 is out of range \[0, 2\]"):
        p.set("speed", 3.5)
    with pytest.raises(nerve.ParamError, match="out of range"):
        p.set("joints", 13)
    with pytest.raises(nerve.ParamError, match="declared as"):
        p.set("joints", "many")
    with pytest.raises(nerve.ParamError, match="read-only"):
        p.set("name", "ur10")
    with pytest.raises(nerve.ParamError, match="no parameter 'nope'"):
        p.set("nope", 1)
    assert p.get("speed") == 1.0
    names = {i["name"]: i for i in p.list()}
    assert names["speed"]["description"] == "m/s" and names["speed"]["max"] == 2.0


def test_on_change_can_reject(domain):
    p = nerve.Parameters("cam", domain=domain)
    p.declare("fps", 30, min=1, max=120)
    seen = []

    def cb(name, value):
        seen.append((name, value))
        if value == 13:
            return "13 fps is unlucky"
        if value == 17:
            raise RuntimeError("no primes above 13")
        return None

    p.on_change(cb)
    p.set("fps", 60)
    with pytest.raises(nerve.ParamError, match="rejected: 13 fps is unlucky"):
        p.set("fps", 13)
    with pytest.raises(nerve.ParamError, match="RuntimeError: no primes above 13"):
        p.set("fps", 17)
    assert p.get("fps") == 60
    assert seen == [("fps", 60), ("fps", 13), ("fps", 17)]


def test_yaml_round_trip(domain, tmp_path):
    p = nerve.Parameters("base", domain=domain)
    p.declare("max_speed", 1.5, min=0.0, max=3.0)
    p.declare("wheels", 4)
    p.declare("frame", "base_link")
    p.declare("ids", [1, 2, 3])
    p.set("max_speed", 2.5)
    text = p.dump_yaml()
    path = tmp_path / "params.yaml"
    path.write_text(text)
    q = nerve.Parameters("base", domain=domain)
    assert q.load_yaml(path) == 4
    assert q.declare("max_speed", 1.5, min=0.0, max=3.0) == 2.5
    assert q.declare("wheels", 0) == 4
    assert q.declare("frame", "") == "base_link"
    assert q.declare("ids", [0]) == [1, 2, 3]
    assert q.dump_yaml() == text
    # ROS 2 shape, and a bad value in a file is refused with the parameter named
    path.write_text("base:\n  ros__parameters:\n    max_speed: 9.0\n")
    with pytest.raises(nerve.ParamError, match="out of range"):
        q.load_yaml(path)


def test_param_client_remote(domain):
    p = nerve.Parameters("gripper", domain=domain)
    p.declare("force", 10.0, min=0.0, max=40.0)
    p.on_change(lambda name, v: "too gentle" if v == 0.5 else None)
    p.serve()
    try:
        c = nerve.ParamClient("gripper", domain=domain)
        assert c.get("force") == 10.0
        c.set("force", 20.0)
        assert p.get("force") == 20.0
        with pytest.raises(nerve.ParamError, match="out of range"):
            c.set("force", 50.0)
        with pytest.raises(nerve.ParamError, match="too gentle"):
            c.set("force", 0.5)
        with pytest.raises(nerve.ParamError, match="no parameter 'grip'"):
            c.get("grip")
        assert [i["name"] for i in c.list()] == ["force"]
    finally:
        p.close()
    with pytest.raises(nerve.NoServer):
        nerve.ParamClient("gripper", domain=domain).get("force", timeout=0.5)


def test_python_client_rust_server(domain, py_peer):
    """A dict with a Rust struct's field names is that struct on the Rust side."""
    peer = subprocess.Popen([str(py_peer), "serve", "interop/plan"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert peer.stdout is not None and peer.stdout.readline().strip() == "ready"
        client = nerve.Service("interop/plan").client()
        got = client.call({"goal": [1.5, 2.0], "tag": "py"}, timeout=2.0)
        assert got == {"points": [[0.0, 0.0], [1.5, 2.0]], "tag": "rust:py"}
        with pytest.raises(nerve.HandlerError, match="refusing to plan"):
            client.call({"goal": [0.0, 0.0], "tag": "fail"}, timeout=2.0)
        with pytest.raises(nerve.BadRequest, match="cannot decode the request"):
            client.call({"wrong": 1}, timeout=2.0)
    finally:
        peer.kill()
        peer.wait()


def test_rust_client_python_server(domain, py_peer):
    def plan(req):
        return {"points": [[0.0, 0.0], req["goal"]], "tag": f"py:{req['tag']}"}

    with nerve.Service("interop/plan2").server(plan):
        out = subprocess.run([str(py_peer), "call", "interop/plan2", "5"], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == [f"py:{i}" for i in range(5)]


def _move(ctx, goal):
    for i in range(goal["steps"]):
        if ctx.cancel_requested():
            return {"reached": i}
        ctx.feedback({"step": i})
        time.sleep(goal.get("dt", 0.0))
    if goal.get("explode"):
        raise RuntimeError("motor fault")
    return {"reached": goal["steps"]}


def _accept(goal):
    return "too far" if goal["steps"] > 100 else None


def test_action_result_feedback_and_several_goals(domain):
    server = nerve.ActionServer("arm/move", _move, accept=_accept, domain=domain)
    try:
        client = nerve.ActionClient("arm/move", domain=domain)
        assert client.wait_for_server(2.0)
        handles = [client.send_goal({"steps": n, "dt": 0.01}) for n in (3, 5, 7)]
        results = [h.wait(timeout=5.0) for h in handles]
        assert [r["status"] for r in results] == ["succeeded"] * 3
        assert [r["result"] for r in results] == [{"reached": n} for n in (3, 5, 7)]
        assert handles[0].status() == "succeeded"
        time.sleep(0.05)
        assert {"step": 0} in handles[1].feedback()
        assert server.status(handles[0].goal_id) == "succeeded"
    finally:
        server.close()


def test_action_reject_cancel_and_abort(domain):
    server = nerve.ActionServer("arm/move2", _move, accept=_accept, domain=domain)
    try:
        client = nerve.ActionClient("arm/move2", domain=domain)
        assert client.wait_for_server(2.0)
        with pytest.raises(nerve.GoalRejected, match="too far"):
            client.send_goal({"steps": 1000})
        h = client.send_goal({"steps": 1000 // 20, "dt": 0.05})
        time.sleep(0.15)
        h.cancel()
        r = h.wait(timeout=5.0)
        assert r["status"] == "canceled"
        assert r["result"]["reached"] < 50
        bad = client.send_goal({"steps": 1, "explode": True}).wait(timeout=5.0)
        assert bad["status"] == "aborted" and "RuntimeError: motor fault" in bad["message"]
        slow = client.send_goal({"steps": 40, "dt": 0.05})
        with pytest.raises(nerve.GoalTimeout, match="did not finish within"):
            slow.wait(timeout=0.1)
        slow.cancel()  # a running execution outlives close(): end it before the test ends
        assert slow.wait(timeout=5.0)["status"] == "canceled"
    finally:
        server.close()
    with pytest.raises(nerve.NoServer):
        nerve.ActionClient("arm/move2", domain=domain).send_goal({"steps": 1}, timeout=0.5)
