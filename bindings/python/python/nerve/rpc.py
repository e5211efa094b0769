"""Services, actions and parameters, mirroring Rust's ``nerve::rpc``.

Requests and responses are any MessagePack value (dicts, lists, numbers, numpy arrays…),
encoded with :mod:`nerve.codec`: a dict whose keys are a Rust struct's field names is that
struct on the Rust side, so Python and Rust clients and servers interoperate.

>>> svc = nerve.Service("math/add")
>>> server = svc.server(lambda req: {"sum": req["a"] + req["b"]}, workers=2)
>>> svc.client().call({"a": 2, "b": 3}, timeout=1.0)
{'sum': 5}
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from . import _nerve, codec
from ._nerve import (
    ActionClient,
    ActionError,
    ActionServer,
    AlreadyServed,
    BadRequest,
    CallError,
    CallTimeout,
    GoalContext,
    GoalHandle,
    GoalRejected,
    GoalTimeout,
    HandlerError,
    NoServer,
    ParamClient,
    ParamError,
    Parameters,
    ServeError,
    ServerDied,
    UnknownGoal,
)

__all__ = [
    "ActionClient", "ActionError", "ActionServer", "GoalContext", "GoalHandle",
    "GoalRejected", "GoalTimeout", "UnknownGoal",
    "AlreadyServed", "BadRequest", "CallError", "CallTimeout", "HandlerError", "NoServer",
    "ParamClient", "ParamError", "Parameters", "ServeError", "ServerDied", "Service",
    "ServiceClient", "ServiceServer",
]


class ServiceServer:
    """A running server; stops on :meth:`close`, on leaving a ``with`` block, or when
    garbage-collected (callers then get :class:`NoServer`)."""

    def __init__(self, raw: _nerve.RawServiceServer) -> None:
        self._raw = raw

    @property
    def service(self) -> str:
        return self._raw.service

    def stats(self) -> dict[str, int]:
        """Requests ``handled``, ``failed``, ``expired`` (caller gave up) and ``undelivered``."""
        return self._raw.stats()

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> ServiceServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ServiceClient:
    """Calls a service; responses go only to this client. Thread-safe: calls from several
    threads are in flight together, each gets its own response."""

    def __init__(self, raw: _nerve.RawServiceClient) -> None:
        self._raw = raw

    @property
    def service(self) -> str:
        return self._raw.service

    def server_available(self) -> bool:
        return self._raw.server_available()

    def wait_for_server(self, timeout: float | None = 1.0) -> bool:
        """Waits (without the GIL) until a server is live; False after ``timeout`` seconds
        (None or ``math.inf``: no limit)."""
        return self._raw.wait_for_server(timeout)

    def call(self, request: Any, *, timeout: float | None = 1.0) -> Any:
        """Sends ``request`` and returns the decoded response, waiting without the GIL up to
        ``timeout`` seconds (None or ``math.inf``: no limit; negative or NaN: ValueError).

        Raises :class:`NoServer` (at once), :class:`ServerDied`, :class:`CallTimeout`,
        :class:`HandlerError` (the server's handler raised) or :class:`BadRequest`."""
        return codec.unpackb(self._raw.call(codec.packb(request), timeout))

    async def call_async(self, request: Any, *, timeout: float | None = 1.0) -> Any:
        """``await``-able :meth:`call` (runs on the loop's default thread executor)."""
        _nerve._seconds("timeout", timeout)  # a bad timeout raises here, not in the executor
        data = codec.packb(request)
        loop = asyncio.get_running_loop()
        resp = await loop.run_in_executor(None, self._raw.call, data, timeout)
        return codec.unpackb(resp)


class Service:
    """A service by name (``Service("arm/plan", domain=7)``); make servers and clients."""

    def __init__(self, name: str, *, domain: int | None = None) -> None:
        self.name = name
        self.domain = domain

    def server(self, handler: Callable[[Any], Any], *, workers: int = 1) -> ServiceServer:
        """Serves ``handler(request) -> response`` (run with the GIL on ``workers`` threads).
        An exception in the handler reaches the caller as :class:`HandlerError` with its
        type and message. Raises :class:`AlreadyServed` if another live server has it."""

        def raw(data: bytes) -> bytes:
            return codec.packb(handler(codec.unpackb(data)))

        return ServiceServer(
            _nerve.RawServiceServer(self.name, raw, workers=workers, domain=self.domain)
        )

    def client(self) -> ServiceClient:
        return ServiceClient(_nerve.RawServiceClient(self.name, domain=self.domain))
