"""Every framework of the Wrapyfi table (`benches/python/wrapyfi.py`) sends its 200×200 tensor
over nerve to another process, which receives it as that framework's object: type, shape,
element type and values checked by the framework there, and a write to the object never
reaching the shared chunk another subscriber reads. Both sides are `framework_peer.py`.

Where each framework is: numpy, pandas, PIL and JAX in nerve's `.venv`, PyTorch there too
through torch's cache (`benches/python/setup_peers.sh torch`), TensorFlow and PaddlePaddle in
the frameworks' venv and MXNet (numpy < 1.24) in its own (`setup_peers.sh frameworks`); all
installed by `bindings/python/dev.sh setup`, the heavy ones once per machine under
~/.cache/nerve/peers. A framework whose wheels did not install skips with pip's reason (under
CI, a failure unless ci/allowed-skips.txt lists it).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import nerve
import pytest
from conftest import REPO
from framework_peer import COUNT, FRAMEWORKS, SHAPE, open_topic

HERE = Path(__file__).resolve().parent
VENVS = REPO / "benches" / "python" / ".venvs"
# The venv of each framework that is not in nerve's own (setup_peers.sh frameworks).
VENV = {"tensorflow": "frameworks", "paddle": "frameworks", "mxnet": "mxnet"}


def interpreter(fw: str) -> str:
    return str(VENVS / VENV[fw] / "bin" / "python") if fw in VENV else sys.executable


def install_reason(fw: str) -> str:
    """What the installer said of `fw` (pip's reason), or where to look."""
    if fw not in VENV and fw != "torch":
        return "bindings/python/dev.sh setup installs it into .venv"
    peer = "torch" if fw == "torch" else "frameworks"
    missing = VENVS / "frameworks.missing"
    lines = missing.read_text().splitlines() if missing.exists() else []
    said = [x for x in lines if x.startswith(f"{fw}:")]
    log = VENVS / "torch.log"
    if fw == "torch" and log.exists():
        said += [x for x in log.read_text().splitlines() if "ERROR" in x][-1:]
    return (f"{said[-1]}; " if said else "") + (
        f"benches/python/setup_peers.sh {peer} installs it (bindings/python/dev.sh setup runs it)")


class Peer:
    """One side, its `PEER {json}` lines read by a thread, its stderr in a file."""

    def __init__(self, exe: str, role: str, fw: str, name: str, env: dict[str, str],
                 log: Path) -> None:
        self.log = log
        self.p = subprocess.Popen([exe, str(HERE / "framework_peer.py"), role, fw, name],
                                  env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(log, "w"), text=True)
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            if line.startswith("PEER "):
                self.lines.put(json.loads(line.removeprefix("PEER ")))
        self.lines.put(None)

    def next(self, what: str, timeout: float = 120.0) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
            happened = f"it ended (exit {self.p.wait(10)})" if line is None else ""
        except queue.Empty:
            line, happened = None, f"nothing within {timeout:g} s"
        if line is None:
            pytest.fail(f"{what}: {happened}; its stderr: {self.log.read_text()[-3000:]}")
        return line

    def go(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


@pytest.mark.parametrize("fw", FRAMEWORKS)
def test_a_frameworks_tensor_arrives_in_another_process_as_that_frameworks_object(
        domain, tmp_path, fw):
    exe = interpreter(fw)
    if not Path(exe).exists():
        pytest.skip(f"{fw}: {exe} is missing; {install_reason(fw)}")
    # nerve for every interpreter: this package (its compiled module inside), alone on the
    # path, so that no other venv's packages come with it.
    (tmp_path / "path").mkdir()
    (tmp_path / "path" / "nerve").symlink_to(Path(nerve.__file__).parent)
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "path"), PYTHONUNBUFFERED="1")
    name = f"frameworks/{fw}"
    topic = open_topic(name)  # made here; each side opens it the same way
    recv = Peer(exe, "recv", fw, name, env, tmp_path / "recv.log")
    send = Peer(exe, "send", fw, name, env, tmp_path / "send.log")
    try:
        for side in (recv, send):
            said = side.next(f"the {fw} side starting")
            if "missing" in said:
                pytest.skip(f"{fw} does not import in {exe} ({said['missing']}); "
                            f"{install_reason(fw)}")
        send.go()
        assert send.next(f"the {fw} sender") == {"sent": COUNT}
        got = [recv.next(f"the {fw} receiver, message {i}") for i in range(COUNT)]
    finally:
        recv.close()
        send.close()
    del topic
    for i, g in enumerate(got):
        assert g.get("got") == i, g
        assert g["type_ok"], f"{fw}: received a {g['type']}"
        assert tuple(g["shape"]) == SHAPE, f"{fw}: shape {g['shape']}"
        assert g["dtype_ok"], f"{fw}: elements of {g['dtype']}"
        assert g["values_ok"], f"{fw}: the values differ from what was sent"
        # The received chunk is shared: a write to the framework's object (refused, or made
        # on its own copy) never changes what another subscriber reads.
        assert g["kept"], f"{fw}: a write to the received object ({g['write']}) reached the chunk"
