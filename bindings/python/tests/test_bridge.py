"""The Zenoh bridge from Python: one runs in this process (its own publishers are exported),
another host's bridge (`nerve bridge zenoh` on its own shared memory) brings the topic in,
and both sides' status names the other."""

import json
import os
import socket
import subprocess
import time

import nerve
import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_bridge_in_this_process_exports_its_topics(domain, nerve_cli, tmp_path):
    port = free_port()
    other_env = {**os.environ, "NERVE_SHM_DIR": str(tmp_path / "shm"), "RUST_LOG": "warn"}
    (tmp_path / "shm").mkdir()
    with nerve.bridge.ZenohBridge(listen=[f"tcp/127.0.0.1:{port}"], multicast=False,
                                  host="pyhost") as b:
        other = subprocess.Popen(
            [nerve_cli, "bridge", "zenoh", "--connect", f"tcp/127.0.0.1:{port}",
             "--no-multicast", "--host", "other", "--stats-every", "0"],
            env=other_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            pub = nerve.Topic("py/cmd", nerve.CmdVel).publisher()
            deadline = time.monotonic() + 15
            while "py/cmd" not in subprocess.run(
                    [nerve_cli, "topic", "list"], env=other_env, capture_output=True,
                    text=True).stdout:
                assert time.monotonic() < deadline, "the other host never imported py/cmd"
                time.sleep(0.1)
            echo = subprocess.Popen(
                [nerve_cli, "topic", "echo", "py/cmd", "--once", "--json", "--timeout", "10"],
                env=other_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            while echo.poll() is None:
                pub.send(nerve.CmdVel(stamp_ns=7, linear=0.5, angular=-0.25))
                time.sleep(0.05)
            out, err = echo.communicate()
            assert echo.returncode == 0, err
            assert json.loads(out)["linear"] == 0.5
            s = b.status()
            assert "other" in [h for _, h in s["hosts"]], s
            (cmd,) = [t for t in s["stats"] if t["topic"] == "py/cmd"]
            assert cmd["exported"] and not cmd["imported"] and cmd["sent"] > 0, cmd
            here = nerve.bridge.status()
            assert here is not None and here["bridge"] == b.id
        finally:
            other.terminate()
            other.communicate(timeout=20)
    assert nerve.bridge.status() is None, "a closed bridge's status is gone"


def test_a_wrong_configuration_is_a_clear_error(domain, tmp_path):
    bad = tmp_path / "bridge.json5"
    bad.write_text("{ domian: 1 }")
    with pytest.raises(ValueError, match="domian: unknown key"):
        nerve.bridge.ZenohBridge(bad)
    with pytest.raises(ValueError, match="mode"):
        nerve.bridge.ZenohBridge(mode="teleport")
