"""Recordings (MCAP files made by ``nerve record``, or by :class:`Writer`) read and written
without a running graph: typed messages, numpy arrays over the payloads.

    with nerve.bag.Writer("run.mcap") as w:
        w.write("imu", nerve.Imu(), log_time_ns=1_000)
    for m in nerve.bag.Reader("run.mcap"):
        print(m.topic, m.log_time_ns, m.message)

Standard messages recorded as their ROS 2 counterparts come back as nerve's classes (what
ROS 2 lacks, such as ``header.seq``, is zero); MessagePack topics as their values; a type
declared in another program as a class made from the description the file carries.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from os import PathLike
from typing import Any, NamedTuple

import numpy as np

from . import _nerve, codec, custom, msgs

_FIXED, _CHUNK = 1, 2


class BagMessage(NamedTuple):
    """One recorded message."""

    topic: str
    log_time_ns: int
    message: Any


def _class_for(stored: tuple[Any, ...], description: bytes | None) -> Any:
    if stored == tuple(msgs.MESSAGE_TYPES["Msgpack"][0]):
        return dict
    for name, (st, _header, elem) in msgs.MESSAGE_TYPES.items():
        if tuple(st) == stored:
            return msgs.CHUNKED[name] if elem else msgs.STRUCTS[name]
    known = custom.DECLARED.get(stored)
    if known is not None:
        return known
    if description is None:
        return None
    return custom.from_description(description, str(stored[0]).rsplit("/", 1)[-1])


class Reader:
    """Every message of a recording, in order (the file is read when opened)."""

    def __init__(self, path: str | PathLike[str]) -> None:
        self._raw = _nerve.BagReader(str(path))
        self._classes: dict[tuple[Any, ...], Any] = {}

    def __len__(self) -> int:
        return len(self._raw)

    def __iter__(self) -> Iterator[BagMessage]:
        for topic, stored, description, log_time, fixed, payload in self._raw:
            key = tuple(stored)
            if key not in self._classes:
                self._classes[key] = _class_for(key, description)
            yield BagMessage(topic, log_time, self._typed(self._classes[key], fixed, payload))

    @staticmethod
    def _typed(cls: Any, fixed: bytes, payload: bytes) -> Any:
        if cls is dict:
            return codec.unpackb(payload)
        if cls is None:
            return fixed + payload  # a type with no description: its bytes
        if issubclass(cls, msgs._Chunked):
            header = cls._header_cls.from_bytes(fixed)
            dtype = np.dtype(cls._elem_cls.dtype if cls._elem_cls is not None else cls._dtype)
            n = len(payload) // dtype.itemsize
            return cls(header, np.frombuffer(payload, dtype=dtype, count=n))
        return cls.from_bytes(fixed)


class Writer:
    """Writes a recording: standard messages as their ROS 2 counterparts (as ``nerve
    record`` does), other types in nerve's own encoding; ``close()`` (or leaving a ``with``
    block) completes the file."""

    def __init__(self, path: str | PathLike[str], *, compression: str = "zstd") -> None:
        self._raw = _nerve.BagWriter(str(path), compression)

    def write(self, topic: str, message: Any, *, log_time_ns: int | None = None) -> None:
        """Writes ``message`` (a message object, or a dict for a MessagePack topic) on
        ``topic``, at ``log_time_ns`` (default: now, ns since the Unix epoch)."""
        t = time.time_ns() if log_time_ns is None else log_time_ns
        if isinstance(message, dict):
            self._raw.write(topic, msgs.MESSAGE_TYPES["Msgpack"][0], None, t, b"",
                            codec.packb(message))
            return
        cls = type(message)
        stored = getattr(cls, "_nerve_type_", None)
        if stored is None:
            raise TypeError(f"{cls.__name__} is not a nerve message: write a message object "
                            "(nerve.Imu(), a @nerve.message class) or a dict")
        doc = getattr(cls, "_nerve_doc_", None)
        if isinstance(message, msgs._Chunked):
            data = np.ascontiguousarray(message.data)
            self._raw.write(topic, stored, doc, t, message.header.to_bytes(), data.tobytes())
        else:
            self._raw.write(topic, stored, doc, t, message.to_bytes(), b"")

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
