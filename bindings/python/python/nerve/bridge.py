"""Other machines through Zenoh, from Python: run the bridge in this process, or read what
the bridge running on this host sees (whichever process runs it, ``nerve bridge zenoh``
included).

    with nerve.bridge.ZenohBridge(listen=["tcp/0.0.0.0:7447"]) as b:
        ...  # this host's topics, services and nodes are seen by the other hosts
        print(b.status()["hosts"])
    nerve.bridge.status()  # None when no bridge runs here

``config`` is the JSON5 file ``nerve bridge zenoh --config`` takes (domain, host, export,
import, and Zenoh's own settings: TLS, access control, mode); the keyword arguments
override it.
"""

from __future__ import annotations

import json
from os import PathLike
from typing import Any

from . import _nerve


class ZenohBridge:
    """A bridge running in this process until :meth:`close` (or the end of a ``with``)."""

    def __init__(self, config: str | PathLike[str] | None = None, *, domain: int | None = None,
                 listen: list[str] | None = None, connect: list[str] | None = None,
                 mode: str | None = None, multicast: bool = True, host: str | None = None,
                 export: list[str] | None = None, imports: list[str] | None = None) -> None:
        path = None if config is None else str(config)
        self._bridge = _nerve.ZenohBridge(path, domain, listen, connect, mode, multicast, host,
                                          export, imports)

    @property
    def id(self) -> str:
        """The bridge's Zenoh id."""
        return self._bridge.id

    def status(self) -> dict[str, Any]:
        """What it sees: ``hosts`` (id, name), remote ``topics`` and ``nodes`` with their host,
        and per-topic counters in ``stats`` (exported, imported, sent, received, lost, rejected,
        dropped, missed)."""
        return json.loads(self._bridge.status_json())

    def close(self) -> None:
        """Stops it (other hosts stop importing from it)."""
        self._bridge.close()

    def __enter__(self) -> ZenohBridge:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def status(domain: int | None = None) -> dict[str, Any] | None:
    """What the bridge running on this host sees (see :meth:`ZenohBridge.status`), or None when
    none runs in ``domain``."""
    text = _nerve.bridge_status_json(domain)
    return None if text is None else json.loads(text)
