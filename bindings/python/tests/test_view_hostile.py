"""`nerve view` against pages that are not its own, in a real browser (Debian's Chromium driven
by Playwright): a page of another origin that posts to `/api/estop` (a CORS "simple request",
`text/plain`, and one with a guessed token), and a DNS-rebinding page (`evil.example` resolved
to 127.0.0.1) that loads the view's address under its own name. None trips the e-stop or reads
the robot."""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no Chromium (Debian's `chromium`, installed by bindings/python/dev.sh where "
                "apt-get may install it)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright is installed by bindings/python/dev.sh")

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP evil.example 127.0.0.1"]

EVIL = """<!doctype html><html><body><script>
window.results = {};
const view = "http://127.0.0.1:%d";
fetch(view + "/api/estop", {method: "POST", mode: "no-cors",
                            headers: {"Content-Type": "text/plain"}, body: "trip"})
  .then(r => { results.simple = "sent " + r.type; })
  .catch(e => { results.simple = "failed " + e; });
fetch(view + "/api/estop", {method: "POST", headers: {"X-Nerve-Token": "0".repeat(32)}})
  .then(r => { results.guessed = "status " + r.status; })
  .catch(e => { results.guessed = "failed " + e; });
fetch(view + "/api/state")
  .then(r => r.text()).then(t => { results.read = t.slice(0, 80); })
  .catch(e => { results.read = "failed " + e; });
</script></body></html>"""


def _state(port: int) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/state",
                                 headers={"Host": f"127.0.0.1:{port}"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read())


def test_pages_of_other_origins_cannot_trip_the_estop_or_read_the_robot(
        domain: int, nerve_cli: str, tmp_path: Path) -> None:
    env = {**os.environ, "NERVE_DOMAIN": str(domain)}
    view = subprocess.Popen([nerve_cli, "view", "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert view.stdout is not None
    line = view.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert m, (line, view.poll())
    port = int(m.group(1))

    page_bytes = (EVIL % port).encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the base class's name)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page_bytes)

        def log_message(self, *args: object) -> None:
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{evil.server_port}/")
            page.wait_for_function(
                "window.results.simple && window.results.guessed && window.results.read",
                timeout=15000)
            results = page.evaluate("window.results")
            # The simple request goes out (opaque to the page); the server refuses it. The
            # others: the browser's preflight or the server's 403 stop them, and the page
            # reads nothing.
            assert results["guessed"].startswith("failed") or results["guessed"] == "status 403", \
                results
            assert "snapshot" not in results["read"] and '"topics"' not in results["read"], results

            # DNS rebinding: the view's address under a name the attacker controls.
            rebound = page.goto(f"http://evil.example:{port}/")
            assert rebound is not None and rebound.status == 421, rebound and rebound.status
            assert "nerve-token" not in page.content()
            got = page.evaluate("fetch('/api/state').then(r => r.status)")
            assert got == 421, got
            browser.close()
        state = _state(port)
        assert state["estop"] is None, state["estop"]
    finally:
        evil.shutdown()
        view.send_signal(signal.SIGINT)
        _, err = view.communicate(timeout=20)
    assert view.returncode == 0, err
