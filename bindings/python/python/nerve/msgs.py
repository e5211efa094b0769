"""Every standard message as a Python class, built at import from the Rust schemas
(``_nerve.struct_classes()``, ``_nerve.message_types()``): no list of types is kept here.

Every fixed message (and every chunk header and element) is a class deriving from
:class:`Struct` holding the exact bytes of its Rust ``#[repr(C)]`` struct: sending is one
memcpy, receiving one allocation and memcpy. Construction takes keywords
(``CmdVel(stamp_ns=1, linear=0.5)``) or values in field order (``CmdVel(1, 0.5, 0.1)``, a
little faster: no keyword dict); fields left out keep Rust's defaults (zeroes, identity
rotations). Nested fields are views that write through (``imu.header.seq = 3``); array fields
read as numpy views and accept any sequence of the right length; arrays of structs read as
tuples of views; text fields (``frame_id``) read and write as ``str``. Messages compare equal
by bytes, pickle, and export their bytes through the buffer protocol (``bytes(msg)``,
``memoryview(msg)``); ``cls.dtype`` (or ``nerve.msgs.dtype_of(cls)`` for a type with a field
named ``dtype``) is the numpy structured dtype of the layout
(``np.frombuffer(buf, nerve.PointXYZ.dtype)``).

Every chunked message (a header and any number of elements in one shared chunk) is a
:class:`_Chunked` subclass whose ``data`` is a numpy view of the elements; a few add views of
their own (``Image`` by its encoding, ``PointCloud`` by its point format).

The typed stubs (``msgs.pyi``) are generated from the same classes by ``gen_stubs.py`` and
checked in the test command.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import _nerve
from ._nerve import Struct

STRUCTS: dict[str, type[Struct]] = dict(_nerve.struct_classes())
globals().update(STRUCTS)

_DTYPE_CODES = {
    "bool": "?", "u8": "<u1", "u16": "<u2", "u32": "<u4", "u64": "<u8", "i8": "<i1",
    "i16": "<i2", "i32": "<i4", "i64": "<i8", "f32": "<f4", "f64": "<f8",
}


def _dtype(kind: str) -> Any:
    if "[" in kind:
        base, n = kind[:-1].split("[")
        if base == "text":
            return f"S{n}"
        return (_dtype(base), (int(n),))
    if kind in _DTYPE_CODES:
        return _DTYPE_CODES[kind]
    return _dtype_of(STRUCTS[kind])


_LAYOUT_DTYPES: dict[type, np.dtype[Any]] = {}


def _dtype_of(cls: Any) -> Any:
    """The numpy structured dtype of a message class's layout, also set as ``cls.dtype``
    unless the class has a field of that name (``TensorHeader.dtype``)."""
    known = _LAYOUT_DTYPES.get(cls)
    if known is not None:
        return known
    spec = cls._nerve_spec_
    names, formats, offsets = [], [], []
    default = None
    for f, off, kind in spec.fields:
        base = kind.split("[")[0]
        if base in _DTYPE_CODES or base == "text":
            fmt = _dtype(kind)
        else:
            # A nested struct, or an array of them: the class of the default's value.
            default = cls() if default is None else default
            v = getattr(default, f)
            fmt = (_dtype_of(type(v[0])), (len(v),)) if isinstance(v, tuple) else _dtype_of(
                type(v))
        names.append(f)
        formats.append(fmt)
        offsets.append(off)
    dt = _LAYOUT_DTYPES[cls] = np.dtype(
        {"names": names, "formats": formats, "offsets": offsets, "itemsize": spec.size}
    )
    if "dtype" not in names:
        # `np.dtype(cls)` works too: numpy takes the `dtype` attribute of any object.
        cls.dtype = dt
    return dt


dtype_of = _dtype_of


for _cls in STRUCTS.values():
    _dtype_of(_cls)


def sizeof(msg: Any) -> int:
    """The size in bytes of a message class or message (as it crosses the ring)."""
    cls = msg if isinstance(msg, type) else type(msg)
    return int(cls._nerve_spec_.size)


# name: (stored type, header class name, element kind)
MESSAGE_TYPES: dict[str, tuple[tuple[str, int, int, int, int, int], str | None, str | None]] = {
    name: (stored, header, elem) for name, stored, header, elem in _nerve.message_types()
}
for _name, (_stored, _header, _elem) in MESSAGE_TYPES.items():
    if _header == _name:
        STRUCTS[_name]._nerve_type_ = _stored  # type: ignore[attr-defined]

PointXYZ = STRUCTS["PointXYZ"]
PointXYZI = STRUCTS["PointXYZI"]
PointXYZRGB = STRUCTS["PointXYZRGB"]
ImageHeader = STRUCTS["ImageHeader"]
DepthImageHeader = STRUCTS["DepthImageHeader"]
PointCloudHeader = STRUCTS["PointCloudHeader"]
LaserScanHeader = STRUCTS["LaserScanHeader"]
JointStateHeader = STRUCTS["JointStateHeader"]
JointSample = STRUCTS["JointSample"]


# Zero-copy views of chunks


def _array(owner: Any, offset: int, shape: tuple[int, ...], dtype: Any,
           strides: tuple[int, ...] | None = None, readonly: bool = True) -> np.ndarray:
    """A numpy array over ``shape`` items ``offset`` bytes into ``owner`` (a loan or a received
    sample, from its header's start; it stays alive as the array's base). No copy; made in Rust
    through numpy's C API, bounds checked against the chunk. Writable exactly when the owner
    is: a loan's arrays are, a received sample's are not (``readonly`` states the caller's
    expectation)."""
    if not isinstance(dtype, str):
        dtype = np.dtype(dtype)
    return owner.array(offset, shape, dtype, strides)


_ITEMSIZES: dict[Any, int] = {}


def _count(name: str, n: Any) -> int:
    """``n`` as a count of elements: an int >= 0, else TypeError/ValueError naming it."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(n).__name__}") from None
    if n < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {n}")
    return n


def _itemsize(dtype: Any) -> int:
    """``np.dtype(dtype).itemsize``, cached (``np.dtype`` costs ~1 µs per call)."""
    try:
        return _ITEMSIZES[dtype]
    except KeyError:
        n = _ITEMSIZES[dtype] = np.dtype(dtype).itemsize
        return n


# name: (code, dtype, channels)
ENCODINGS: dict[str, tuple[int, str, int]] = {
    "rgb8": (1, "u1", 3), "bgr8": (2, "u1", 3), "rgba8": (3, "u1", 4), "bgra8": (4, "u1", 4),
    "mono8": (5, "u1", 1), "mono16": (6, "<u2", 1), "16UC1": (7, "<u2", 1), "32FC1": (8, "<f4", 1),
}
_ENCODING_BY_CODE = {code: (name, dt, ch) for name, (code, dt, ch) in ENCODINGS.items()}
_POINT_FORMATS = {"xyz": (1, PointXYZ), "xyzi": (2, PointXYZI), "xyzrgb": (3, PointXYZRGB)}
_POINT_BY_CODE = {code: cls for code, cls in _POINT_FORMATS.values()}


class _Chunked:
    """A chunked message (header + payload in one shared chunk), received in place."""

    _type_name: str = ""
    _header_cls: Any = None
    _header_size: int = 0
    _dtype: Any = "u1"
    # The element class when elements are structs (else None).
    _elem_cls: Any = None
    _nerve_type_: tuple[str, int, int, int, int, int] | None = None

    # `data` (the payload as a numpy array viewing shared memory, read-only when received) is
    # a slot, not a property: read in C, no Python frame per access.
    __slots__ = ("header", "_sample", "data")

    def __init__(self, header: Any, data: np.ndarray, sample: Any = None) -> None:
        self.header = header
        self.data = data
        self._sample = sample

    @classmethod
    def _from_sample(cls, sample: Any) -> Any:
        header = sample.header_as(cls._header_cls)  # a read-only view of the chunk's header
        return cls(header, cls._view(sample, sample.data_offset, sample.data_len, header, True),
                   sample)

    @classmethod
    def _view(cls, owner: Any, offset: int, nbytes: int, header: Any,
              readonly: bool) -> np.ndarray:
        return _array(owner, offset, (nbytes // _itemsize(cls._dtype),), cls._dtype,
                      readonly=readonly)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return self.data if dtype is None else self.data.astype(dtype)

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU

    def __repr__(self) -> str:
        d = self.data
        return f"{type(self).__name__}(header={self.header!r}, data=<{d.dtype} {d.shape}>)"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        o: _Chunked = other  # type: ignore[assignment]
        return self.header == o.header and np.array_equal(self.data, o.data)

    __hash__ = None  # type: ignore[assignment]


class Image(_Chunked):
    """A camera image; ``data`` is ``(height, width[, channels])`` in the encoding's dtype."""

    __slots__ = ()
    _type_name = "Image"
    _header_cls = ImageHeader

    @classmethod
    def _view(cls, owner: Any, offset: int, nbytes: int, header: Any,
              readonly: bool) -> np.ndarray:
        return owner.image_array()  # laid out in Rust from the chunk's header

    @property
    def width(self) -> int:
        return int(self.header.width)

    @property
    def height(self) -> int:
        return int(self.header.height)

    @property
    def encoding(self) -> str:
        return _ENCODING_BY_CODE.get(self.header.encoding, ("unknown",))[0]


class DepthImage(Image):
    """A depth image (16UC1 or 32FC1); ``data`` is ``(height, width)``."""

    __slots__ = ()
    _type_name = "DepthImage"
    _header_cls = DepthImageHeader


class PointCloud(_Chunked):
    """A point cloud; ``data`` is a structured array of points (x, y, z, ...)."""

    __slots__ = ()
    _type_name = "PointCloud"
    _header_cls = PointCloudHeader

    @classmethod
    def _view(cls, owner: Any, offset: int, nbytes: int, header: Any,
              readonly: bool) -> np.ndarray:
        pcls = _POINT_BY_CODE.get(header.format)
        if pcls is None or header.point_step != sizeof(pcls):
            return _array(owner, offset, (nbytes,), "u1", readonly=readonly)
        dt = _dtype_of(pcls)
        return _array(owner, offset, (nbytes // dt.itemsize,), dt, readonly=readonly)


class LaserScan(_Chunked):
    """A laser scan; ``ranges`` (= ``data``) is a float32 array in metres."""

    __slots__ = ()
    _type_name = "LaserScan"
    _header_cls = LaserScanHeader
    _dtype = "<f4"

    @property
    def ranges(self) -> np.ndarray:
        return self.data


class JointState(_Chunked):
    """Joint states; ``data`` is a structured array of (position, velocity, effort)."""

    __slots__ = ()
    _type_name = "JointState"
    _header_cls = JointStateHeader
    _dtype = _dtype_of(JointSample)


# The chunked classes with views of their own; every other chunked message gets a plain one.
class Tensor(_Chunked):
    """An n-dimensional array (``data``: a numpy array of the tensor's shape and dtype viewing
    shared memory, read-only when received). Exported without a copy through ``__dlpack__``
    (``torch.from_dlpack(t)``, ``jax.numpy.from_dlpack(t)``, ``np.from_dlpack(t)``),
    ``__array__`` and the buffer protocol of ``data`` (``memoryview(t.data)``)."""

    __slots__ = ()
    _type_name = "Tensor"
    _header_cls = STRUCTS["TensorHeader"]

    @classmethod
    def _view(cls, owner: Any, offset: int, nbytes: int, header: Any,
              readonly: bool) -> np.ndarray:
        return owner.tensor_array()  # laid out in Rust from the chunk's header

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.data.dtype


_SPECIAL: dict[str, type[_Chunked]] = {
    c._type_name: c for c in (Image, DepthImage, PointCloud, LaserScan, JointState, Tensor)
}
CHUNKED: dict[str, type[_Chunked]] = {}
for _name, (_stored, _header, _elem) in MESSAGE_TYPES.items():
    if _elem is None or _header is None:
        continue
    _c = _SPECIAL.get(_name)
    if _c is None:
        _hcls = STRUCTS[_header]
        _c = type(_name, (_Chunked,), {
            "__slots__": (), "__module__": __name__, "_type_name": _name,
            "_header_cls": _hcls, "_dtype": _dtype(_elem),
            "__doc__": f"The chunked message {_name}: a {_header} and any number of "
                       f"{_elem} elements (``data``).",
        })
        globals()[_name] = _c
    _c._nerve_type_ = _stored
    _c._header_size = sizeof(_c._header_cls)
    _c._elem_cls = STRUCTS.get(_elem)
    CHUNKED[_name] = _c

__all__ = sorted(
    ["Struct", "sizeof", "dtype_of", "ENCODINGS", "MESSAGE_TYPES", "STRUCTS", "CHUNKED",
     *STRUCTS, *CHUNKED]
)
