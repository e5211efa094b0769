"""Message types declared in Python, and messages as dicts.

A class declared with :func:`message` gets the exact layout and fingerprint that Rust's
``#[derive(Message)]`` gives the same definition, so a Python node and a Rust node share the
type with no code generation::

    @nerve.message("demo/WheelCmd")
    class WheelCmd:
        stamp_ns: nerve.u64
        speed: nerve.f64 = 0.5           # a default
        gains: Annotated[NDArray[np.float64], nerve.array("f64", 3)]
        frame: Annotated[str, nerve.text(32)]
        pose: nerve.Pose                 # any message class nests

is the Python twin of::

    #[derive(Clone, Copy, Message)]
    #[message(name = "demo/WheelCmd")]
    #[repr(C)]
    struct WheelCmd { stamp_ns: u64, speed: f64, gains: [f64; 3],
                      #[field(text)] frame: [u8; 32], pose: Pose }

Fields are laid out as ``#[repr(C)]`` lays them out; where Rust would add hidden padding the
declaration is refused, naming the field and the ``_pad`` field to add (as the derive refuses
it). Two disagreeing definitions of one topic fail with ``TypeMismatch`` naming the first field
that differs.

:func:`to_dict` turns any message into a dict (numeric arrays stay zero-copy numpy views) and
:func:`from_dict` makes one from a dict (JSON, YAML), naming any field that does not exist.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar, dataclass_transform

import numpy as np

from . import _nerve
from ._nerve import Struct
from .msgs import CHUNKED, STRUCTS, _Chunked, _dtype, _dtype_of

__all__ = [
    "array", "bool_", "f32", "f64", "from_dict", "from_description", "i8", "i16", "i32", "i64",
    "message", "text", "to_dict", "u8", "u16", "u32", "u64",
]


class Kind:
    """The layout of a field, for ``Annotated[...]`` (``nerve.text(32)``, ``nerve.array``)."""

    __slots__ = ("spec",)

    def __init__(self, spec: Any) -> None:
        self.spec = spec

    def __repr__(self) -> str:
        return f"nerve.Kind({self.spec!r})"


u8 = Annotated[int, Kind("u8")]
u16 = Annotated[int, Kind("u16")]
u32 = Annotated[int, Kind("u32")]
u64 = Annotated[int, Kind("u64")]
i8 = Annotated[int, Kind("i8")]
i16 = Annotated[int, Kind("i16")]
i32 = Annotated[int, Kind("i32")]
i64 = Annotated[int, Kind("i64")]
f32 = Annotated[float, Kind("f32")]
f64 = Annotated[float, Kind("f64")]
# Rust's derive has no `bool` field (bool is not Pod): a flag is a u8 (0 or 1) on both sides.
bool_ = Annotated[int, Kind("u8")]

_PRIMS = ("u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "bool")


def text(n: int) -> Kind:
    """NUL-padded UTF-8 in ``n`` bytes (at most ``n - 1`` of text): ``#[field(text)] [u8; n]``."""
    return Kind(f"text[{_positive(n)}]")


def array(elem: Any, n: int) -> Kind:
    """``n`` values of ``elem``: a number kind (``"f64"`` or ``nerve.f64``) or a message class."""
    n = _positive(n)
    spec = _field_spec("array element", elem)
    if isinstance(spec, str):
        return Kind(f"{spec}[{n}]")
    return Kind((spec, n))


def _positive(n: Any) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"a length is an int > 0, got {n!r}")
    return n


def _field_spec(where: str, t: Any) -> Any:
    """What ``_nerve.declare`` takes for a field annotated ``t``."""
    if isinstance(t, Kind):
        return t.spec
    if isinstance(t, str) and t in _PRIMS:
        return t
    if typing.get_origin(t) is Annotated:
        for meta in t.__metadata__:
            if isinstance(meta, Kind):
                return meta.spec
    if isinstance(t, type) and issubclass(t, Struct):
        doc = getattr(t, "_nerve_doc_", None)
        if doc is not None:
            return doc
    raise TypeError(
        f"{where}: {t!r} has no nerve layout: use nerve.u8 … nerve.u64, nerve.i8 … nerve.i64, "
        "nerve.f32, nerve.f64, nerve.bool_, a message class, or Annotated[..., "
        "nerve.text(n)] / Annotated[..., nerve.array(kind, n)]"
    )


T = TypeVar("T")

# The classes declared in this process by stored type (see ``Topic.join``).
DECLARED: dict[tuple[Any, ...], type[Any]] = {}


@dataclass_transform(kw_only_default=True)
def message(name: str | None = None, *, elem: Any = None,
            ros2: str = "") -> Callable[[type[T]], type[T]]:
    """Declares a message type from a class's annotated fields (see the module's doc).

    ``name``: the type name (``"demo/WheelCmd"``), the same as the Rust definition's
    ``#[message(name = …)]``; without one the class is a plain struct other messages nest (as a
    Rust struct without a name). ``elem``: the element type of a chunked message (a number kind
    or a message class); the class's fields are then the header. ``ros2``: the ROS 2 message it
    corresponds to, for tools.
    """

    def make(cls: type[T]) -> type[T]:
        hints = typing.get_type_hints(cls, include_extras=True)
        own = inspect.get_annotations(cls)  # this class's own, in order (any Python)
        fields = [(f, _field_spec(f"{cls.__name__}.{f}", hints[f])) for f in own]
        defaults = {f: cls.__dict__[f] for f in own if f in cls.__dict__}
        kind = "chunked" if elem is not None else "fixed" if name else "struct"
        elem_spec = None if elem is None else _field_spec(f"{cls.__name__} element", elem)
        if isinstance(elem_spec, tuple):
            raise TypeError(f"{cls.__name__}: a chunked message's element is one number kind or "
                            "one message class, not an array of them (declare a struct "
                            "holding the array)")
        doc = _nerve.declare(name or cls.__name__, kind, fields, elem_spec,
                             (cls.__doc__ or "").strip(), ros2)
        made = from_description(doc, cls.__name__, defaults)
        if made in STRUCTS.values() or made in CHUNKED.values():
            # The same definition as a standard type: its class, as it is.
            if defaults:
                raise TypeError(f"{cls.__name__} is the standard {made.__name__}: its "
                                "defaults are the standard ones, drop the class's defaults")
            return made  # type: ignore[return-value]
        made.__module__ = cls.__module__
        made.__qualname__ = cls.__qualname__
        if cls.__doc__:
            made.__doc__ = cls.__doc__
        stored = getattr(made, "_nerve_type_", None)
        if stored is not None:
            # `Topic.join` in this process gives this class.
            DECLARED[tuple(stored)] = made
        return made  # type: ignore[return-value]

    return make


def from_description(doc: bytes, class_name: str,
                     defaults: dict[str, Any] | None = None) -> type[Any]:
    """The message class of a description (a topic's, or ``_nerve.declare``'s): a
    :class:`Struct` subclass for a fixed message, a chunked class for a chunked one."""
    cls, elem = _nerve.classes_from_doc(doc, class_name, defaults)
    _dtype_of(cls)
    if isinstance(elem, type):
        _dtype_of(elem)
    stored = _stored_of(cls)
    if elem is None:
        if stored is not None:
            cls._nerve_type_ = stored  # type: ignore[attr-defined]
        return cls
    header = cls
    chunked: type[_Chunked] = type(class_name, (_Chunked,), {
        "__slots__": (), "__module__": __name__, "_type_name": class_name,
        "_header_cls": header, "_header_size": header._nerve_spec_.size,  # type: ignore
        "_dtype": _dtype_of(elem) if isinstance(elem, type) else _dtype(elem),
        "_elem_cls": elem if isinstance(elem, type) else None,
        "__doc__": f"The chunked message {class_name}: a {class_name} header and any number "
                   "of elements (``data``).",
    })
    chunked._nerve_type_ = stored
    chunked._nerve_doc_ = doc  # type: ignore[attr-defined]
    return chunked


def _stored_of(cls: type[Any]) -> tuple[str, int, int, int, int, int] | None:
    """The stored type of a class built from a description (None for a plain struct)."""
    return _nerve.stored_type_of(cls._nerve_doc_)  # type: ignore[no-any-return]


def to_dict(msg: Any) -> dict[str, Any]:
    """A message as a dict of its fields (padding left out): nested messages as dicts, arrays
    of messages as lists of dicts, text as ``str``, numeric arrays as numpy views of the
    message's own bytes (no copy; ``.tolist()`` them for JSON); a chunked message's elements
    under ``"data"`` (a view of shared memory)."""
    if isinstance(msg, _Chunked):
        d = to_dict(msg.header)
        d["data"] = msg.data
        return d
    if not isinstance(msg, Struct):
        raise TypeError(f"to_dict takes a nerve message, got {type(msg).__name__}")
    out: dict[str, Any] = {}
    for name, _offset, _kind in type(msg)._nerve_spec_.fields:  # type: ignore[attr-defined]
        if name.startswith("_pad"):
            continue
        v = getattr(msg, name)
        if isinstance(v, Struct):
            v = to_dict(v)
        elif isinstance(v, tuple):
            v = [to_dict(x) for x in v]
        out[name] = v
    return out


def from_dict(cls: type[T], d: dict[str, Any]) -> T:
    """A message of class ``cls`` from a dict (fields left out keep their defaults; nested
    messages from dicts). A field the class does not have raises ``TypeError`` naming it and
    listing the fields there are; a value of the wrong type or range raises as setting the
    field would."""
    if isinstance(cls, type) and issubclass(cls, _Chunked):
        if not isinstance(d, dict):
            raise TypeError(f"{cls.__name__}: a dict of fields expected, got {type(d).__name__}")
        header = from_dict(cls._header_cls, {k: v for k, v in d.items() if k != "data"})
        data = d.get("data", [])
        if isinstance(data, bytes | bytearray | memoryview):
            array = np.frombuffer(data, dtype="u1").view(cls._dtype)
        elif cls._elem_cls is not None and not isinstance(data, np.ndarray):
            raw = b"".join(bytes(from_dict(cls._elem_cls, item)) for item in data)
            array = np.frombuffer(raw, dtype=cls._dtype)
        else:
            array = np.asarray(data, dtype=cls._dtype)
        return cls(header, array)  # type: ignore[return-value]
    msg = cls()
    _fill(msg, d, cls.__name__)
    return msg


def _fill(msg: Any, d: Any, where: str) -> None:
    if not isinstance(d, dict):
        raise TypeError(f"{where}: a dict of fields expected, got {type(d).__name__}")
    names = [f for f, _o, _k in type(msg)._nerve_spec_.fields]
    for key, value in d.items():
        if key not in names:
            raise TypeError(f"{where} has no field {key!r}; its fields: {', '.join(names)}")
        current = getattr(msg, key)
        if isinstance(current, Struct) and isinstance(value, dict):
            _fill(current, value, f"{where}.{key}")  # a view: writes through
        elif isinstance(current, tuple) and isinstance(value, list | tuple) and all(
                isinstance(v, dict) for v in value):
            if len(value) != len(current):
                raise ValueError(f"{where}.{key} takes {len(current)} items, got {len(value)}")
            for i, (view, item) in enumerate(zip(current, value, strict=True)):
                _fill(view, item, f"{where}.{key}[{i}]")
        else:
            setattr(msg, key, value)
