"""The `nerve` command against Python endpoints, run as a user runs it: a type declared only in
Python echoed, published and shown by the CLI; a Python service, action and node parameters
called from it; a type the topic does not carry refused with a clear error."""

import json
import os
import subprocess
import threading
import time
from typing import Annotated

import nerve


def run(cli: str, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "RUST_LOG": "warn"})
    if ok:
        assert out.returncode == 0, f"nerve {' '.join(args)}: {out.stderr}"
    return out


@nerve.message("clitest/Gripper")
class Gripper:
    """A gripper's state (declared only here)."""

    stamp_ns: nerve.u64
    width: nerve.f64
    force: nerve.f32
    closed: nerve.bool_
    _pad: Annotated[bytes, nerve.array("u8", 3)]


def test_the_cli_echoes_publishes_and_shows_a_type_declared_only_in_python(domain, nerve_cli):
    topic = nerve.Topic("py/gripper", Gripper)
    pub = topic.publisher()
    sub = topic.subscriber()
    stop = threading.Event()

    def publish() -> None:
        while not stop.is_set():
            pub.send(Gripper(stamp_ns=7, width=0.05, force=3.5, closed=1))
            time.sleep(0.01)

    t = threading.Thread(target=publish)
    t.start()
    try:
        out = run(nerve_cli, "topic", "echo", "/py/gripper", "--once", "--json", "--timeout", "5")
        assert json.loads(out.stdout) == {"stamp_ns": 7, "width": 0.05, "force": 3.5,
                                          "closed": 1}
    finally:
        stop.set()
        t.join()
    while sub.try_recv() is not None:
        pass
    run(nerve_cli, "topic", "pub", "py/gripper", "{width: 0.08, force: 12.5}", "--once")
    got = sub.recv(timeout=5)
    assert isinstance(got, Gripper)
    assert (got.width, got.force, got.stamp_ns) == (0.08, 12.5, 0)
    shown = run(nerve_cli, "interface", "show", "--topic", "py/gripper").stdout
    assert shown.startswith("clitest/Gripper") and "f64 width" in shown, shown
    assert run(nerve_cli, "topic", "type", "py/gripper").stdout.strip() == "clitest/Gripper"
    # A type the topic does not carry: one clear line, nothing sent.
    bad = run(nerve_cli, "topic", "pub", "py/gripper", "Imu", "{}", "--once", ok=False)
    assert bad.returncode == 1
    assert "topic 'py/gripper' carries clitest/Gripper, not nerve/Imu" in bad.stderr, bad.stderr
    bad = run(nerve_cli, "topic", "pub", "py/gripper", "{widht: 1}", "--once", ok=False)
    assert bad.returncode == 1 and "widht" in bad.stderr, bad.stderr
    assert sub.try_recv() is None


def test_the_cli_calls_python_services_actions_and_parameters(domain, nerve_cli):
    server = nerve.Service("py/add").server(lambda req: {"sum": req["a"] + req["b"]})
    params = nerve.Parameters("py_node")
    params.declare("speed", 1.5)
    params.serve()
    action = nerve.ActionServer("py/double", lambda ctx, goal: goal * 2)
    try:
        out = run(nerve_cli, "service", "call", "py/add", "{a: 2, b: 3}", "--json")
        assert json.loads(out.stdout) == {"sum": 5}
        listed = run(nerve_cli, "service", "list", "-t").stdout
        assert "py/add" in listed and "any Python value" in listed, listed
        bad = run(nerve_cli, "service", "call", "py/add", "{a: 2}", ok=False)
        assert bad.returncode == 1 and "py/add" in bad.stderr, bad.stderr
        assert run(nerve_cli, "param", "get", "py_node", "speed").stdout.strip() == "1.5"
        run(nerve_cli, "param", "set", "py_node", "speed", "2.25")
        assert params.get("speed") == 2.25
        bad = run(nerve_cli, "param", "set", "py_node", "speed", "fast", ok=False)
        assert bad.returncode == 1 and "speed" in bad.stderr, bad.stderr
        out = run(nerve_cli, "action", "send_goal", "py/double", "21").stdout
        assert "status: Succeeded" in out and "result:\n  42" in out, out
    finally:
        action.close()
        params.close()
        server.close()
    gone = run(nerve_cli, "service", "call", "py/add", "{a: 1, b: 1}", ok=False)
    assert gone.returncode == 1 and "py/add" in gone.stderr, gone.stderr
