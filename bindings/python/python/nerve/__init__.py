"""nerve: robotics middleware with messages at memory speed, from Python.

>>> import nerve
>>> topic = nerve.Topic("robot/cmd_vel", nerve.CmdVel, depth=8)
>>> pub, sub = topic.publisher(), topic.subscriber()
>>> pub.send(nerve.CmdVel(stamp_ns=1, linear=0.5, angular=0.1))
>>> sub.recv(timeout=1.0).linear
0.5
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from . import _nerve, codec, custom, frameworks, msgs
from . import bag as bag  # recordings: nerve.bag.Reader, nerve.bag.Writer
from . import bridge as bridge  # other machines: nerve.bridge.ZenohBridge, nerve.bridge.status
from ._nerve import (
    DEFAULT_DEPTH,
    MAX_DEPTH,
    Busy,
    Corrupt,
    Decode,
    Encode,
    Full,
    InternalError,
    InvalidConfig,
    InvalidName,
    Io,
    NerveError,
    NoSpace,
    NotFound,
    OpenCorrupt,
    OpenError,
    OpenNoSpace,
    PoolExhausted,
    QosMismatch,
    RecvCorrupt,
    RecvError,
    Scheduler,
    SchedulerError,
    SendCorrupt,
    SendError,
    SendNoSpace,
    TickContext,
    Timeout,
    TooLarge,
    TooManyEndpoints,
    TypeMismatch,
    default_domain,
    trigger_remote_estop,
)
from .custom import (
    array,
    bool_,
    f32,
    f64,
    from_dict,
    i8,
    i16,
    i32,
    i64,
    message,
    text,
    to_dict,
    u8,
    u16,
    u32,
    u64,
)
from .msgs import *  # noqa: F403 (every message class, built from the Rust schemas)
from .msgs import (
    _POINT_FORMATS,
    CHUNKED,
    ENCODINGS,
    MESSAGE_TYPES,
    STRUCTS,
    DepthImage,
    DepthImageHeader,
    Image,
    ImageHeader,
    PointCloud,
    PointCloudHeader,
    Struct,
    Tensor,
    TensorHeader,
    _array,
    _Chunked,
    _count,
    _itemsize,
    sizeof,
)
from .rpc import (
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
    Service,
    ServiceClient,
    ServiceServer,
    UnknownGoal,
)

__all__ = [
    "ActionClient", "ActionError", "ActionServer", "GoalContext", "GoalHandle",
    "GoalRejected", "GoalTimeout", "UnknownGoal",
    "AlreadyServed", "BadRequest", "CallError", "CallTimeout", "HandlerError", "NoServer",
    "ParamClient", "ParamError", "Parameters", "ServeError", "ServerDied", "Service",
    "ServiceClient", "ServiceServer",
    "Busy", "Corrupt", "Decode", "Encode", "Full", "InternalError", "InvalidConfig",
    "InvalidName", "Io", "Loan", "Msgpack", "NerveError", "NoSpace", "NotFound", "OpenCorrupt",
    "OpenError", "OpenNoSpace", "PoolExhausted", "Publisher", "QosMismatch", "RecvCorrupt",
    "RecvError", "SendCorrupt", "SendError", "SendNoSpace", "SpinStats", "Subscriber",
    "SubscriberStats", "Timeout", "TooLarge", "TooManyEndpoints", "Topic", "TypeMismatch",
    "DEFAULT_DEPTH", "MAX_DEPTH", "codec", "default_domain", "msgs", "spin", "topics",
    "LogHandler", "Node", "Scheduler", "SchedulerError", "TickContext", "trigger_remote_estop",
]
__all__ += msgs.__all__
__all__ += [
    "array", "bool_", "custom", "f32", "f64", "from_dict", "i8", "i16", "i32", "i64", "message",
    "text", "to_dict", "u8", "u16", "u32", "u64",
]



class Msgpack:
    """Marker: a topic of any MessagePack-able value (``Topic(name, dict)`` is the same)."""


# ---------------------------------------------------------------------------------------------
# Topics and endpoints

_FIXED, _CHUNK, _SERIALIZED = 1, 2, 3


class SubscriberStats(NamedTuple):
    """Counters of one subscriber: messages received; lost (overwritten before they were
    read); dropped; corrupt (slots with damaged content, skipped)."""

    received: int
    lost: int
    dropped: int
    corrupt: int = 0


def _resolve(type_: Any) -> tuple[tuple[str, int, int, int, int, int], int, Any]:
    if type_ in (dict, Msgpack, "msgpack") or type_ is Any:
        return MESSAGE_TYPES["Msgpack"][0], _SERIALIZED, None
    if isinstance(type_, type) and issubclass(type_, Struct) and getattr(
            type_, "_nerve_type_", None):
        return type_._nerve_type_, _FIXED, type_
    if isinstance(type_, type) and issubclass(type_, _Chunked) and type_._nerve_type_:
        return type_._nerve_type_, _CHUNK, type_
    raise TypeError(
        f"{type_!r} is not a nerve message type: use a message class (nerve.CmdVel, "
        "nerve.Image, ...), dict or 'msgpack'"
    )


_JOINED: dict[tuple[Any, ...], type[Any]] = {}


def _class_of(raw: Any) -> Any:
    """The message class of a joined topic (see ``Topic.join``)."""
    stored = tuple(raw.stored_type)
    if stored == tuple(MESSAGE_TYPES["Msgpack"][0]):
        return dict
    for name, (st, _header, elem) in MESSAGE_TYPES.items():
        if tuple(st) == stored:
            return CHUNKED[name] if elem else STRUCTS[name]
    known = custom.DECLARED.get(stored) or _JOINED.get(stored)
    if known is not None:
        return known
    doc = raw.description
    if doc is None:
        raise TypeError(
            f"topic '{raw.name}' carries {stored[0]} without a type description (its creator "
            "gave none): open it with its message class"
        )
    cls = _JOINED[stored] = custom.from_description(doc, stored[0].rsplit("/", 1)[-1])
    return cls


class Topic:
    """A named channel of messages of one type, within or across processes.

    Options left unset adopt the existing topic's settings; set ones must match (else
    ``QosMismatch``).
    """

    def __init__(self, name: str, type: Any, *, depth: int | None = None,
                 reliable: bool = False, latest_only: bool = False,
                 domain: int | None = None, in_process: bool = False,
                 max_message_bytes: int | None = None, chunks: int | None = None,
                 max_endpoints: int | None = None) -> None:
        stored, self._kind, self._cls = _resolve(type)
        if reliable and latest_only:
            raise ValueError("a topic is reliable or latest_only, not both")
        rel = "reliable" if reliable else "latest_only" if latest_only else None
        # Sizes out of range raise InvalidConfig (a ValueError too) naming the argument.
        self._raw = _nerve.Topic(name, stored, depth=depth, reliability=rel, domain=domain,
                                 in_process=in_process, max_message_bytes=max_message_bytes,
                                 chunks=chunks, max_endpoints=max_endpoints,
                                 description=getattr(self._cls, "_nerve_doc_", None))
        self.type = type

    @classmethod
    def join(cls, name: str, *, domain: int | None = None) -> Topic:
        """Opens the existing topic ``name`` as it is (type, QoS, sizes), with the message
        class its type gives: a standard class, ``dict`` for MessagePack, or a class made from
        the description the topic carries (a type this program never declared). Raises
        ``NotFound`` when there is no such topic; for tools and for nodes written without the
        type."""
        raw = _nerve.Topic.join(name, domain)
        type_ = _class_of(raw)
        t = cls.__new__(cls)
        _stored, t._kind, t._cls = _resolve(type_)
        t._raw = raw  # the topic joined, kept: never a second open that could create one
        t.type = type_
        return t

    @property
    def name(self) -> str:
        return str(self._raw.name)

    @property
    def depth(self) -> int:
        return int(self._raw.depth)

    @property
    def reliability(self) -> str:
        return str(self._raw.reliability)

    @property
    def path(self) -> str:
        """The /dev/shm file, or ``"heap"`` for in-process topics."""
        return str(self._raw.path)

    def publisher(self) -> Publisher:
        return Publisher(self)

    def subscriber(self, *, history: int = 0, as_: str | None = None) -> Subscriber:
        """A subscriber; ``as_`` hands every message to a framework (``"torch"``, ``"jax"``,
        ``"numpy"``, ``"pandas"``, ``"pil"``, ``"tensorflow"``, ``"dict"``) without a copy
        where it can share memory."""
        return Subscriber(self, history, as_)

    def __repr__(self) -> str:
        t = self._raw.type_name
        return f"Topic({self.name!r}, {t}, depth={self.depth}, {self.reliability})"


#: A chunk being filled (``Publisher.loan_image``, ``loan_tensor``, ``loan``, ``loan_points``):
#: write ``header`` fields and ``data`` in place, then ``send()``; see its docstring.
Loan = _nerve.Loan


# Tensor element type codes by the dtype (or dtype name) a caller gave.
_TENSOR_CODES: dict[Any, int] = {}


class Publisher:
    """Publishes messages on a topic."""

    def __init__(self, topic: Topic) -> None:
        self._topic = topic
        self._kind = topic._kind
        self._cls = topic._cls
        self._raw = topic._raw.publisher(topic._cls if topic._kind == _FIXED else None)
        if self._kind == _FIXED:
            # Fixed messages: `send` is the Rust method itself (one Python frame less per send).
            self.send = self._raw.send  # type: ignore[method-assign]

    @property
    def topic(self) -> str:
        return str(self._raw.topic)

    def send(self, msg: Any) -> None:
        """Fixed messages: one memcpy. Dynamic data: MessagePack. Chunked messages (e.g. a
        received Image): copied into a fresh chunk (use ``loan`` to avoid the copy)."""
        if self._kind == _FIXED:
            self._raw.send(msg)
        elif self._kind == _SERIALIZED:
            self._raw.send_serialized(codec.packb(msg))
        else:
            if not isinstance(msg, self._cls):
                self._send_array(msg)
                return
            if self._cls is Tensor and not msg.data.flags.c_contiguous:
                # A strided view: sent C-contiguous, its header made anew from the data.
                h = msg.header.header
                self.send_tensor(msg.data, stamp_ns=h.stamp_ns, frame_id=h.frame_id)
                return
            data = np.ascontiguousarray(msg.data)
            loan = self._loan_bytes(data.nbytes, msg.header)
            # As bytes: the message's array may view them with another dtype or shape.
            np.copyto(loan.data.reshape(-1).view(np.uint8), data.reshape(-1).view(np.uint8))
            loan.send()

    def _send_array(self, obj: Any) -> None:
        """``send`` of a framework's array on a Tensor or Image topic: one copy into a loan."""
        cls = self._cls
        if cls is not Tensor and not issubclass(cls, Image):
            raise TypeError(f"topic '{self.topic}' carries {cls.__name__}, not "
                            f"{type(obj).__name__}")
        if cls is Tensor:
            self.send_tensor(obj)
            return
        arr = frameworks.to_numpy(obj)
        if arr.ndim not in (2, 3):
            raise TypeError(f"topic '{self.topic}' carries images: an array of shape "
                            f"{arr.shape} is not (height, width[, channels])")
        mode = getattr(obj, "mode", None) if type(obj).__module__.startswith("PIL") else None
        loan = self.loan_image(arr.shape[1], arr.shape[0], frameworks.image_encoding(arr, mode))
        try:
            np.copyto(loan.data, arr.reshape(loan.data.shape), casting="same_kind")
        except BaseException:
            loan.discard()
            raise
        loan.send()

    def send_tensor(self, obj: Any, *, stamp_ns: int = 0, frame_id: str = "") -> None:
        """Sends ``obj`` (a numpy array, a DLPack tensor of torch/jax/tf, a pandas frame, a
        PIL image, ...) as a Tensor: one copy of its elements into a loaned chunk, in Rust
        (``send(obj)`` on a Tensor topic does the same)."""
        if self._cls is not Tensor:
            raise TypeError(f"topic '{self.topic}' carries {self._cls.__name__}, not tensors")
        arr = frameworks.to_numpy(obj)
        code = _TENSOR_CODES.get(arr.dtype)
        if code is None:
            code = _TENSOR_CODES[arr.dtype] = frameworks.tensor_code(arr.dtype)
        if arr.ndim > 8:
            raise ValueError(f"a tensor has at most 8 dimensions, got shape {arr.shape}")
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        self._raw.send_tensor(arr, arr.shape, code, stamp_ns, frame_id)

    def loan_tensor(self, shape: Any, dtype: Any = "float32", *, stamp_ns: int = 0,
                    frame_id: str = "") -> Loan:
        """Loans a chunk for a C-contiguous tensor; ``loan.data`` is a writable numpy array of
        ``shape`` and ``dtype`` in shared memory (fill it in place, then ``send()``)."""
        self._check_chunked()
        if self._cls is not Tensor:
            raise TypeError(f"topic '{self.topic}' carries {self._cls.__name__}, not tensors")
        dims = shape if isinstance(shape, tuple | list) else (shape,)
        if len(dims) > 8:
            raise ValueError(f"a tensor has at most 8 dimensions, got shape {tuple(dims)}")
        code = _TENSOR_CODES.get(dtype)
        if code is None:
            code = _TENSOR_CODES[dtype] = frameworks.tensor_code(dtype)
        for d in dims:
            _count("shape", d)
        return self._raw.loan_tensor(TensorHeader, dims, code, stamp_ns, frame_id)

    def _check_chunked(self) -> None:
        """Loans are for chunked messages: a clear TypeError on any other topic."""
        if self._kind == _FIXED:
            raise TypeError(
                f"topic '{self.topic}' carries {self._cls.__name__}, a fixed-size message: "
                "publish it with send(); loan() is for chunked messages (Image, PointCloud, ...)")
        if self._kind == _SERIALIZED:
            raise TypeError(
                f"topic '{self.topic}' carries MessagePack values: publish them with send(); "
                "loan() is for chunked messages (Image, PointCloud, ...)")

    def _loan_bytes(self, n_bytes: int, header: Any | None = None) -> Loan:
        self._check_chunked()
        cls = self._cls
        raw = self._raw.loan(cls._header_size, n_bytes)
        h = raw.header_as(cls._header_cls)  # zeroed by the loan
        if header is not None:
            memoryview(h)[:] = memoryview(header)
        raw._attach(h, cls._view(raw, raw.data_offset, n_bytes, h, False))
        return raw

    def loan(self, n: int, header: Any | None = None) -> Loan:
        """Loans a chunk for ``n`` payload elements (bytes for Image/DepthImage/PointCloud,
        ranges for LaserScan, joints for JointState)."""
        self._check_chunked()
        return self._loan_bytes(_count("n", n) * _itemsize(self._cls._dtype), header)

    def loan_image(self, width: int, height: int, encoding: str = "rgb8", *,
                   stamp_ns: int = 0, frame_id: str = "", depth_scale: float = 1.0) -> Loan:
        """Loans a chunk for an image; ``loan.data`` is ``(height, width[, channels])``.
        One Rust call writes the header and makes the header view and the pixel array."""
        cls = self._cls
        try:
            code = ENCODINGS[encoding][0]
        except (KeyError, TypeError):
            code = None
        # The checks of a wrong call come after the common case: one Python frame per loan.
        if code is not None:
            if cls is Image:
                return self._raw.loan_image(ImageHeader, width, height, code, stamp_ns,
                                            frame_id)
            if cls is DepthImage:
                return self._raw.loan_image(DepthImageHeader, width, height, code, stamp_ns,
                                            frame_id, depth_scale)
        self._check_chunked()
        if code is None:
            raise ValueError(f"unknown encoding {encoding!r}: use one of {list(ENCODINGS)}")
        raise TypeError(f"topic '{self.topic}' carries {cls.__name__}, not images")

    def loan_points(self, n: int, format: str = "xyz") -> Loan:
        """Loans a chunk for ``n`` points (``xyz``, ``xyzi`` or ``xyzrgb``)."""
        self._check_chunked()
        if self._cls is not PointCloud:
            raise TypeError(f"topic '{self.topic}' carries {self._cls.__name__}, not points")
        try:
            code, pcls = _POINT_FORMATS[format]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown point format {format!r}: use one of {list(_POINT_FORMATS)}") from None
        n = _count("n", n)
        if n > 0xFFFF_FFFF:
            raise ValueError(f"n must be an integer from 0 to {0xFFFF_FFFF}, got {n}")
        h = PointCloudHeader(width=n, height=1, format=code, point_step=sizeof(pcls))
        return self._loan_bytes(n * sizeof(pcls), h)


class Subscriber:
    """Receives messages from a topic. Iterate it (``for msg in sub``, ``async for msg in
    sub``) or call ``try_recv`` / ``recv`` / ``await recv_async()``."""

    def __init__(self, topic: Topic, history: int = 0, as_: str | None = None) -> None:
        if as_ is not None and as_ not in frameworks.AS:
            raise ValueError(f"as_={as_!r}: use one of {', '.join(frameworks.AS)}")
        self._as = as_
        self._topic = topic
        self._kind = topic._kind
        self._cls = topic._cls
        kind, cls = topic._kind, topic._cls
        if kind == _FIXED:
            self._raw = topic._raw.subscriber(cls, history)
        elif kind == _CHUNK:
            # Received chunks become `cls` instances in Rust (images wholly there).
            laid = issubclass(cls, Image) or cls is Tensor
            self._raw = topic._raw.subscriber(None, history, cls,
                                              cls._header_cls if laid else None, cls is Tensor)
        else:
            self._raw = topic._raw.subscriber(None, history)
        self._pending: list[Any] = []
        # The wait of the last async receive (it runs in an executor thread).
        self._inflight: asyncio.Future[Any] | None = None
        if self._kind != _SERIALIZED and as_ is None:
            # Fixed and chunked messages are made in Rust: `try_recv` is the Rust method itself
            # while nothing is pending (an async receive cancelled mid-wait stashes its message
            # in `_pending` and removes this shortcut, see `_stash`).
            self.try_recv = self._raw.try_recv  # type: ignore[method-assign]

    @property
    def topic(self) -> str:
        return str(self._raw.topic)

    def _convert(self, m: Any, as_: str | None = None) -> Any:
        if m is None:
            return m
        if self._kind == _SERIALIZED:
            m = codec.unpackb(m if isinstance(m, bytes) else _array(m, m.data_offset,
                                                                        (m.data_len,), "u1"))
        as_ = as_ or self._as
        return m if as_ is None else frameworks.convert(m, as_)

    def try_recv(self) -> Any | None:
        """The next message, or None if there is none. Never blocks."""
        if self._pending:
            return self._convert(self._pending.pop(0))
        return self._convert(self._raw.try_recv())

    def recv(self, timeout: float | None = None, *, as_: str | None = None) -> Any | None:
        """Waits up to ``timeout`` seconds (None or ``math.inf``: forever) with the GIL
        released; None on timeout. Ctrl-C raises KeyboardInterrupt within ~50 ms. A negative
        or NaN timeout raises ValueError. ``as_``: as ``Topic.subscriber``'s, for this
        message."""
        if as_ is not None and as_ not in frameworks.AS:
            raise ValueError(f"as_={as_!r}: use one of {', '.join(frameworks.AS)}")
        if self._pending:
            return self._convert(self._pending.pop(0), as_)
        return self._convert(self._raw.recv(timeout), as_)

    def recv_deadline(self, timeout: float | None) -> Any:
        """Like ``recv``, but a timeout raises ``nerve.Timeout``."""
        if self._pending:
            return self._convert(self._pending.pop(0))
        return self._convert(self._raw.recv_deadline(timeout))

    async def recv_async(self) -> Any:
        """Waits for the next message without blocking the event loop. Cancelling it (a
        timeout, ``asyncio.wait`` in a select) loses no message: one that arrives meanwhile
        is returned by the next receive."""
        stale = self._inflight
        loop = asyncio.get_running_loop()
        if stale is not None and not stale.done() and stale.get_loop() is loop:
            # A cancelled receive's wait still runs in its thread (at most 50 ms) and holds the
            # subscriber: let it end (without cancelling it); its message, if any, is in
            # `_pending` by then (`_stash` was registered before our wait's callback).
            await asyncio.wait({stale})
        if self._pending:
            return self._convert(self._pending.pop(0))
        m = self._raw.try_recv()
        if m is not None:
            return self._convert(m)
        while True:
            fut = loop.run_in_executor(None, self._raw.recv, 0.05)
            self._inflight = fut
            try:
                m = await asyncio.shield(fut)
            except asyncio.CancelledError:
                # The wait in the thread may still return a message: keep it for the next
                # receive instead of losing it.
                fut.add_done_callback(self._stash)
                raise
            if m is not None:
                return self._convert(m)

    def _stash(self, fut: asyncio.Future[Any]) -> None:
        if not fut.cancelled() and fut.exception() is None and fut.result() is not None:
            self.__dict__.pop("try_recv", None)
            self._pending.append(fut.result())  # converted when it is taken

    def __aiter__(self) -> AsyncIterator[Any]:
        return self

    async def __anext__(self) -> Any:
        return await self.recv_async()

    def __iter__(self) -> Iterator[Any]:
        while True:
            yield self.recv()

    def stats(self) -> SubscriberStats:
        """Received / lost / dropped / corrupt counters."""
        return SubscriberStats(*self._raw.stats())

    def set_spin(self, seconds: float | None) -> None:
        """How long a blocking receive spins at most before sleeping (default 20 µs; None or
        ``math.inf``: it never sleeps). While messages come later than twice this after a
        wait starts (a 100 Hz topic), the spin halves with each of them down to none, and
        comes back whole with the first message that comes sooner."""
        self._raw.set_spin(seconds)


def topics(domain: int | None = None) -> list[dict[str, Any]]:
    """Topics of ``domain`` (default ``$NERVE_DOMAIN`` or 0): name, type, endpoints, ...; other
    processes' in-process topics too (``path`` ``"heap"``, ``owner`` their pid). ``kind`` says
    what the topic is to nerve (``"user"``, or one of nerve's own: ``"log"``, ``"estop"``,
    ``"node_record"``, ``"service_frame"``, ...); ``plumbing`` whether tools leave it out."""
    return list(_nerve.topics(domain))


# ---------------------------------------------------------------------------------------------
# Nodes


class Node:
    """A node for nerve's scheduler (:class:`Scheduler`): override ``tick``, and ``init``,
    ``shutdown`` and ``on_safe_state`` when needed; each gets a :class:`TickContext`. The
    scheduler (Rust) calls them with the GIL and releases it between ticks; an exception in
    ``tick`` is the node's failure, handled by its ``on_error`` policy.

    >>> class Blink(nerve.Node):
    ...     def tick(self, ctx):
    ...         self.on = ctx.tick % 2 == 0
    >>> s = nerve.Scheduler()
    >>> s.add(Blink(), rate=50.0, deadline=0.01)
    >>> s.run(0.1)
    'elapsed'
    """

    #: The node's name in statistics and errors (default: the class name).
    name: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__

    def init(self, ctx: TickContext) -> None:
        """Once before the first tick (and again after a restart)."""

    def tick(self, ctx: TickContext) -> None:
        """Each tick."""
        raise NotImplementedError(f"{type(self).__name__} must define tick(self, ctx)")

    def shutdown(self, ctx: TickContext) -> None:
        """Once when the run ends."""

    def on_safe_state(self, ctx: TickContext) -> None:
        """Once when the e-stop triggers (or a miss policy asks): stop actuators here."""


class LogHandler(logging.Handler):
    """A :mod:`logging` handler publishing on the domain's log topic (``nerve log`` shows the
    records with every other process's): ``logging.getLogger().addHandler(
    nerve.LogHandler("planner"))``. Key/values go in ``extra={"fields": {...}}``. Publishing
    never blocks on the topic; what cannot go is dropped and counted (``dropped``)."""

    def __init__(self, node: str, level: int = logging.NOTSET, *,
                 domain: int | None = None) -> None:
        super().__init__(level)
        self._logger = _nerve.Logger(node, domain=domain)
        self._logger.level = 0  # the handler's own level filters

    @property
    def dropped(self) -> int:
        return int(self._logger.dropped)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            n = record.levelno
            level = 0 if n < 10 else 1 if n < 20 else 2 if n < 30 else 3 if n < 40 else 4
            fields = getattr(record, "fields", None) or {}
            self._logger.log(level, record.filename, record.lineno, record.getMessage(),
                             [(str(k), str(v)) for k, v in fields.items()])
        except Exception:
            self.handleError(record)


class SpinStats(NamedTuple):
    """What ``spin`` did."""

    ticks: int
    overruns: int


def _sleep_until(t: float) -> None:
    """Sleeps until ``perf_counter() >= t``, however far away (``time.sleep`` refuses more
    than a few hundred years at once)."""
    while (left := t - time.perf_counter()) > 0:
        time.sleep(min(left, 3600.0))


def spin(node: Any, *, rate_hz: float = 100.0, duration: float | None = None) -> SpinStats:
    """Runs ``node.tick()`` (or ``node()`` for a function) at ``rate_hz`` until Ctrl-C,
    ``duration`` seconds, or a tick returning ``False``. Calls ``node.setup()`` first and
    ``node.shutdown()`` last when they exist. A tick that overruns its period is counted and
    the schedule restarts from now (no burst of catch-up ticks). ``duration`` None or
    ``math.inf``: until Ctrl-C or a tick returning ``False``."""
    try:
        rate = float(rate_hz)
    except (TypeError, ValueError):
        raise TypeError(f"rate_hz must be a number, got {type(rate_hz).__name__}") from None
    if not 0 < rate < math.inf:
        raise ValueError(f"rate_hz must be a finite number of ticks per second > 0, got "
                         f"{rate_hz!r}")
    seconds = _nerve._seconds("duration", duration)  # ValueError if negative or NaN
    tick: Callable[[], Any] = node.tick if hasattr(node, "tick") else node
    period = 1.0 / rate
    ticks = overruns = 0
    start = time.perf_counter()
    end = None if seconds == math.inf else start + seconds
    if hasattr(node, "setup"):
        node.setup()
    try:
        next_t = start
        while True:
            if tick() is False:
                break
            ticks += 1
            next_t += period
            now = time.perf_counter()
            if end is not None and now >= end:
                break
            if next_t > now:
                _sleep_until(min(next_t, end if end is not None else next_t))
            else:
                overruns += 1
                next_t = now
    except KeyboardInterrupt:
        pass
    finally:
        if hasattr(node, "shutdown"):
            node.shutdown()
    return SpinStats(ticks, overruns)
