"""Standard messages as native classes built from the Rust layouts (``_nerve.struct_classes()``).

Every fixed message is a class deriving from :class:`Struct` holding the exact bytes of its
Rust ``#[repr(C)]`` struct: sending is one memcpy, receiving one allocation and memcpy.
Construction takes keywords (``CmdVel(stamp_ns=1, linear=0.5)``); fields left out keep Rust's
defaults (zeroes, identity rotations). Nested fields are views that write through
(``imu.header.seq = 3``); array fields read as numpy views and accept any sequence of the right
length; frame names (``frame_id``, ``child_frame_id``) read and write as ``str``. Messages
compare equal by bytes, pickle, and export their bytes through the buffer protocol
(``bytes(msg)``, ``memoryview(msg)``); ``cls.dtype`` is the numpy structured dtype of the
layout (``np.frombuffer(buf, nerve.PointXYZ.dtype)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _nerve
from ._nerve import Struct

STRUCTS: dict[str, type[Struct]] = dict(_nerve.struct_classes())

_DTYPE_CODES = {
    "u8": "<u1", "u16": "<u2", "u32": "<u4", "u64": "<u8", "i8": "<i1", "i16": "<i2",
    "i32": "<i4", "i64": "<i8", "f32": "<f4", "f64": "<f8",
}


def _dtype(kind: str) -> Any:
    if "[" in kind:
        base, n = kind[:-1].split("[")
        return (_dtype(base), (int(n),))
    if kind in _DTYPE_CODES:
        return _DTYPE_CODES[kind]
    return STRUCTS[kind].dtype  # type: ignore[attr-defined]


for _cls in STRUCTS.values():
    _spec = _cls._nerve_spec_  # type: ignore[attr-defined]
    _names, _formats, _offsets = [], [], []
    for _f, _off, _kind in _spec.fields:
        _names.append(_f)
        _formats.append(_dtype(_kind))
        _offsets.append(_off)
    # `np.dtype(cls)` works too: numpy takes the `dtype` attribute of any object.
    _cls.dtype = np.dtype(  # type: ignore[attr-defined]
        {"names": _names, "formats": _formats, "offsets": _offsets, "itemsize": _spec.size}
    )


def sizeof(msg: Any) -> int:
    """The size in bytes of a message class or message (as it crosses the ring)."""
    cls = msg if isinstance(msg, type) else type(msg)
    return int(cls._nerve_spec_.size)


MESSAGE_TYPES: dict[str, tuple[tuple[str, int, int, int, int, int], str | None, str | None]] = {
    name: (stored, header, elem) for name, stored, header, elem in _nerve.message_types()
}
for _name, (_stored, _header, _elem) in MESSAGE_TYPES.items():
    if _header == _name:
        STRUCTS[_name]._nerve_type_ = _stored

Time = STRUCTS["Time"]
Header = STRUCTS["Header"]
CmdVel = STRUCTS["CmdVel"]
Clock = STRUCTS["Clock"]
Heartbeat = STRUCTS["Heartbeat"]
Vector3 = STRUCTS["Vector3"]
Quaternion = STRUCTS["Quaternion"]
Twist = STRUCTS["Twist"]
Pose2D = STRUCTS["Pose2D"]
Pose = STRUCTS["Pose"]
Transform = STRUCTS["Transform"]
TransformStamped = STRUCTS["TransformStamped"]
Odometry = STRUCTS["Odometry"]
Imu = STRUCTS["Imu"]
BatteryState = STRUCTS["BatteryState"]
CameraInfo = STRUCTS["CameraInfo"]
JointSample = STRUCTS["JointSample"]
PointXYZ = STRUCTS["PointXYZ"]
PointXYZI = STRUCTS["PointXYZI"]
PointXYZRGB = STRUCTS["PointXYZRGB"]
JointStateHeader = STRUCTS["JointStateHeader"]
LaserScanHeader = STRUCTS["LaserScanHeader"]
ImageHeader = STRUCTS["ImageHeader"]
DepthImageHeader = STRUCTS["DepthImageHeader"]
PointCloudHeader = STRUCTS["PointCloudHeader"]
