"""`nerve launch` starting a Rust node (the `nerve` binary publishing), a Python node on nerve's
scheduler (with a namespace, a remap and parameters, inline and from a file) and a C++ node
(nerve.hpp): what each publishes arrives under its resolved name; Ctrl-C stops them all and
leaves no process and no segment."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nerve
import pytest

NODE = '''
import nerve

params = nerve.Parameters("planner")
speed = params.declare("max_speed", 1.0)
turn = params.declare("turn", 0.0)


class Planner(nerve.Node):
    def init(self, ctx):
        self.pub = nerve.Topic("cmd_vel", nerve.CmdVel).publisher()

    def tick(self, ctx):
        self.pub.send(nerve.CmdVel(stamp_ns=ctx.tick, linear=speed, angular=turn))

    def shutdown(self, ctx):
        print("planner shut down", flush=True)


s = nerve.Scheduler(handle_signals=True)
s.add(Planner(), rate=50.0)
print("planner running", flush=True)
print("stopped:", s.run(), flush=True)
'''


REPO = Path(__file__).resolve().parents[3]


def _cpp_node(tmp_path: Path) -> Path | None:
    """bindings/c/tests/c/launched.cpp, built against the static C library (None: no C++)."""
    cxx = os.environ.get("CXX", "c++")
    if shutil.which(cxx) is None:
        return None
    subprocess.run(["cargo", "build", "-j", "2", "--release", "-p", "nerve-c"], cwd=REPO,
                   check=True)
    c = REPO / "bindings" / "c"
    exe = tmp_path / "launched_cpp"
    subprocess.run([cxx, "-std=c++17", "-O2", "-I", str(c / "include"),
                    str(c / "tests/c/launched.cpp"), str(REPO / "target/release/libnerve_c.a"),
                    "-lpthread", "-ldl", "-lm", "-o", str(exe)], check=True)
    return exe


def test_rust_python_and_cpp_nodes_launched_together(domain: int, nerve_cli: str,
                                                     tmp_path: Path) -> None:
    cpp = _cpp_node(tmp_path)
    if cpp is None:
        pytest.skip("no C++ compiler to build the C++ node with")
    (tmp_path / "planner_node.py").write_text(NODE)
    (tmp_path / "planner.yaml").write_text("planner:\n  ros__parameters:\n    turn: 0.25\n")
    (tmp_path / "robot.yaml").write_text(textwrap.dedent(f"""
        nodes:
          - name: planner
            python: planner_node
            namespace: r1
            remap: {{cmd_vel: /base/cmd_vel}}
            params: {{max_speed: 2.5}}
            params_files: [planner.yaml]
            env: {{PYTHONPATH: "{tmp_path}"}}
          - name: talker
            exec: {nerve_cli}
            args: [topic, pub, chatter, CmdVel, "{{linear: 0.5}}", -r, "50"]
            namespace: r1
          - name: base
            exec: {cpp}
            namespace: r2
            remap: {{cmd_vel: wheels}}
    """))
    env = {**os.environ, "NERVE_PYTHON": sys.executable, "NERVE_DOMAIN": str(domain)}
    launch = subprocess.Popen([nerve_cli, "launch", str(tmp_path / "robot.yaml")], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        wanted = {"base/cmd_vel", "r1/chatter", "r2/wheels"}
        while not wanted <= {t["name"] for t in nerve.topics(domain)}:
            assert time.monotonic() < deadline, f"launched topics: {nerve.topics(domain)}"
            assert launch.poll() is None, launch.communicate()
            time.sleep(0.05)
        got = {}
        for name, fields in (("base/cmd_vel", (2.5, 0.25)), ("r1/chatter", (0.5, 0.0)),
                             ("r2/wheels", (0.75, -0.5))):
            sub = nerve.Topic(name, nerve.CmdVel).subscriber()
            m = sub.recv(10.0)
            assert m is not None, name
            got[name] = (m.linear, m.angular)
            assert got[name] == fields, (name, got)  # Python: inline and file parameters
            del sub, m  # let go of the topic: the launch's clean-up may remove it
    finally:
        launch.send_signal(signal.SIGINT)
        out, err = launch.communicate(timeout=20)
    assert launch.returncode == 0, err
    assert "[r1/planner] planner running" in out, out
    assert "[r1/planner] planner shut down" in out, out  # its scheduler ran shutdown
    assert "[r1/planner] stopped: signal 2" in out, out
    assert "[r2/base] cpp node stopped" in out, out
    # Before stopping, the launch prints what each node's scheduler achieved.
    stats = [x for x in err.splitlines() if x.startswith("[launch]   r1/planner")]
    assert stats and "Planner" in stats[0], err
    pids = [int(x.split("(pid ")[1].split(")")[0]) for x in err.splitlines() if "(pid " in x]
    assert len(pids) == 3, err
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists(), f"process {pid} outlived the launch"
    assert not [t for t in nerve.topics(domain) if t["name"] in wanted], nerve.topics(domain)
