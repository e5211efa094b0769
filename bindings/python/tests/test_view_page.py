"""`nerve view`'s page in a real browser (Debian's Chromium driven by Playwright): with a launch
running — a Python node on the scheduler obeying the e-stop, a listener, and the `nerve`
binary publishing — the page loads, shows the live graph with its processes and topics, the
rates, the nodes' statistics and the log; its E-STOP button trips the e-stop, which the
Python node's `on_safe_state` sees. A screenshot is saved (NERVE_SCREENSHOTS, default the
test's temporary directory)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no Chromium (Debian's `chromium`, installed by bindings/python/dev.sh where "
                "apt-get may install it)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright is installed by bindings/python/dev.sh")

NODE = '''
import logging
import time

import nerve

log = logging.getLogger("motor")
log.setLevel(logging.INFO)
log.addHandler(nerve.LogHandler("motor"))


class Motor(nerve.Node):
    def init(self, ctx):
        self.pub = nerve.Topic("wheels", nerve.CmdVel).publisher()
        log.info("motor ready")

    def tick(self, ctx):
        self.pub.send(nerve.CmdVel(stamp_ns=time.monotonic_ns(), linear=0.5, angular=0.0))

    def on_safe_state(self, ctx):
        log.warning("motor in safe state")
        print("motor safe state", flush=True)


class Listener(nerve.Node):
    def init(self, ctx):
        self.sub = nerve.Topic("talk", nerve.CmdVel).subscriber()

    def tick(self, ctx):
        while self.sub.try_recv() is not None:
            pass


s = nerve.Scheduler(estop_topic=True, handle_signals=True)
s.add(Motor(), name="motor", rate=50.0)
s.add(Listener(), name="listener", rate=20.0)
print("motor running", flush=True)
s.run()
'''

# Flags a root user needs in a sandbox with no network (see the Playwright notes of the
# machine this runs on: background networking makes Chromium retry refused connections).
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_the_page_shows_a_running_launch_and_trips_the_estop(domain: int, nerve_cli: str,
                                                              tmp_path: Path) -> None:
    (tmp_path / "motor_node.py").write_text(NODE)
    (tmp_path / "robot.yaml").write_text(textwrap.dedent(f"""
        nodes:
          - name: motor
            python: motor_node
            env: {{PYTHONPATH: "{tmp_path}"}}
          - name: talker
            exec: {nerve_cli}
            args: [topic, pub, talk, CmdVel, "{{linear: 0.25}}", -r, "20"]
    """))
    env = {**os.environ, "NERVE_PYTHON": sys.executable, "NERVE_DOMAIN": str(domain)}
    launch = subprocess.Popen([nerve_cli, "launch", str(tmp_path / "robot.yaml")], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    view = subprocess.Popen([nerve_cli, "view", "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    shots = Path(os.environ.get("NERVE_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    try:
        assert view.stdout is not None
        line = view.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, (line, view.poll())
        url = m.group(0)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            expect = sync_api.expect
            expect(page.locator("#status")).to_have_text("live", timeout=15000)
            # The graph: both topics between their processes, and the rate beside each.
            graph = page.locator("#graph")
            expect(graph.locator('g.topic[data-name="wheels"]')).to_be_visible(timeout=20000)
            expect(graph.locator('g.topic[data-name="talk"]')).to_be_visible(timeout=20000)
            expect(graph.locator('g.proc[data-name*="motor"]').first).to_be_visible()
            wheels = page.locator('#topics tr[data-key="wheels"]')
            expect(wheels.locator("td.rate")).to_have_text(re.compile(r"^(4[5-9]|5[0-5])\.\d Hz$"),
                                                           timeout=20000)
            talk = page.locator('#topics tr[data-key="talk"]')
            expect(talk.locator("td.rate")).to_have_text(re.compile(r"^(1[5-9]|2[0-5])\.\d Hz$"),
                                                         timeout=20000)
            expect(page.locator('#nodes tr[data-key="motor"]')).to_contain_text("running")
            expect(page.locator("#log")).to_contain_text("motor ready", timeout=20000)
            page.screenshot(path=str(shots / "nerve-view.png"), full_page=True)

            # The e-stop: the button trips every scheduler obeying nerve/estop.
            expect(page.locator("#estop-state")).to_have_text("e-stop: not tripped")
            page.click("#estop-button")
            expect(page.locator("#estop-state")).to_contain_text(
                "TRIPPED", timeout=10000)
            expect(page.locator("#estop-state")).to_contain_text(
                "e-stop button (nerve view)", timeout=10000)
            expect(page.locator("#log")).to_contain_text("motor in safe state", timeout=10000)
            page.screenshot(path=str(shots / "nerve-view-estop.png"), full_page=True)
            browser.close()
    finally:
        view.send_signal(signal.SIGINT)
        _, view_err = view.communicate(timeout=20)
        launch.send_signal(signal.SIGINT)
        out, err = launch.communicate(timeout=20)
    assert view.returncode == 0, view_err
    assert "[motor] motor safe state" in out, (out, err)
    assert (shots / "nerve-view.png").stat().st_size > 10_000

