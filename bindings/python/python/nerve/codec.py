"""MessagePack for dynamic data (``Topic(name, dict)``), the same bytes as Rust's
``Msgpack<V>`` (named maps), plus extension types so values come back as the type sent:
numpy arrays always; pandas DataFrames, PIL images, torch and jax CPU tensors where installed.
"""

from __future__ import annotations

import threading
from typing import Any

import msgpack
import numpy as np

EXT_NDARRAY = 1
EXT_DATAFRAME = 2
EXT_PIL = 3
EXT_TORCH = 4
EXT_JAX = 5


def _array_payload(a: np.ndarray) -> bytes:
    if a.dtype.hasobject:
        raise TypeError("numpy arrays of Python objects cannot be sent; use a numeric dtype")
    a = np.ascontiguousarray(a)
    return msgpack.packb([a.dtype.str, list(a.shape), memoryview(a).cast("B")])


def _default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return msgpack.ExtType(EXT_NDARRAY, _array_payload(obj))
    if isinstance(obj, np.generic):
        return obj.item()
    top = type(obj).__module__.split(".", 1)[0]
    if top == "pandas" and type(obj).__name__ == "DataFrame":
        cols = [str(c) for c in obj.columns]
        body = {
            "columns": cols,
            "index": _array_payload(obj.index.to_numpy()),
            "data": [_array_payload(obj[c].to_numpy()) for c in obj.columns],
        }
        return msgpack.ExtType(EXT_DATAFRAME, msgpack.packb(body))
    if top == "PIL" and hasattr(obj, "tobytes") and hasattr(obj, "mode"):
        return msgpack.ExtType(EXT_PIL, msgpack.packb([obj.mode, list(obj.size), obj.tobytes()]))
    if top == "torch" and type(obj).__name__ == "Tensor":
        return msgpack.ExtType(EXT_TORCH, _array_payload(obj.detach().cpu().numpy()))
    if top in ("jax", "jaxlib"):
        return msgpack.ExtType(EXT_JAX, _array_payload(np.asarray(obj)))
    raise TypeError(f"cannot send a {type(obj).__name__} as MessagePack")


def _array(data: bytes) -> np.ndarray:
    dtype, shape, raw = msgpack.unpackb(data)
    return np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape)


def _ext_hook(code: int, data: bytes) -> Any:
    if code == EXT_NDARRAY:
        return _array(data)
    if code == EXT_DATAFRAME:
        import pandas as pd

        body = msgpack.unpackb(data)
        cols = {c: _array(d) for c, d in zip(body["columns"], body["data"], strict=True)}
        return pd.DataFrame(cols, index=_array(body["index"]))
    if code == EXT_PIL:
        from PIL import Image

        mode, size, raw = msgpack.unpackb(data)
        return Image.frombytes(mode, tuple(size), raw)
    if code == EXT_TORCH:
        import torch

        return torch.from_numpy(_array(data).copy())
    if code == EXT_JAX:
        import jax.numpy as jnp

        return jnp.asarray(_array(data))
    return msgpack.ExtType(code, data)


_local = threading.local()


def packb(value: Any) -> bytes:
    """Encodes ``value`` as MessagePack (string keys as str, bytes as bin)."""
    # One Packer per thread, reused: ``msgpack.packb`` builds a new Packer on every call, which
    # costs more than packing a small dict. (A Packer resets itself when packing fails.)
    try:
        packer = _local.packer
    except AttributeError:
        packer = _local.packer = msgpack.Packer(default=_default, use_bin_type=True)
    return packer.pack(value)


def unpackb(data: Any) -> Any:
    """Decodes MessagePack from any bytes-like object."""
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)
