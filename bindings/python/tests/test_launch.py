"""A Python node on nerve's scheduler, started by `nerve launch` with a namespace, a remap and
parameters (inline and from a file): what it publishes arrives under the remapped name with
the launched parameter's value; Ctrl-C stops it through its scheduler and leaves nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nerve

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


def test_a_python_node_launched_with_namespace_remap_and_parameters(domain: int, nerve_cli: str,
                                                                   tmp_path: Path) -> None:
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
    """))
    env = {**os.environ, "NERVE_PYTHON": sys.executable, "NERVE_DOMAIN": str(domain)}
    launch = subprocess.Popen([nerve_cli, "launch", str(tmp_path / "robot.yaml")], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while not any(t["name"] == "base/cmd_vel" for t in nerve.topics(domain)):
            assert time.monotonic() < deadline, "the launched node's topic did not appear"
            assert launch.poll() is None, launch.communicate()
            time.sleep(0.05)
        sub = nerve.Topic("base/cmd_vel", nerve.CmdVel).subscriber()
        m = sub.recv(10.0)
        assert m is not None
        assert (m.linear, m.angular) == (2.5, 0.25)  # inline and file parameters
        del sub, m  # this process lets go of the topic: the launch's clean-up may remove it
    finally:
        launch.send_signal(signal.SIGINT)
        out, err = launch.communicate(timeout=20)
    assert launch.returncode == 0, err
    assert "[r1/planner] planner running" in out, out
    assert "[r1/planner] planner shut down" in out, out  # its scheduler ran shutdown
    assert "[r1/planner] stopped: signal 2" in out, out
    assert not [t for t in nerve.topics(domain) if t["name"] == "base/cmd_vel"]
