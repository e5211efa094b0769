"""Arrays of every framework in and out of nerve's messages, without a serialization step.

Out (``subscriber.recv(as_=...)``): a received message's data is a read-only numpy view of
shared memory; ``as_`` hands it to a framework through DLPack or the buffer protocol (no copy
where the framework can share host memory read-only): ``"numpy"``, ``"torch"``, ``"jax"``,
``"tensorflow"``, ``"pandas"``, ``"pil"``, or ``"dict"`` (``nerve.to_dict``). PyTorch gets a
copy: it has no read-only tensors (``torch.from_dlpack(msg)`` shares the chunk, writable, for
a program that never writes to it).

In (``publisher.send(obj)`` on a Tensor or Image topic): numpy arrays, anything exporting
``__dlpack__`` (PyTorch, JAX, TensorFlow, PaddlePaddle, CuPy tensors on the host), MXNet
NDArrays, pandas DataFrames and Series, PIL images and anything ``numpy.asarray`` takes become
a numpy view (no copy), which is copied once into the loaned chunk.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

AS = ("numpy", "torch", "jax", "tensorflow", "pandas", "pil", "dict")

# Tensor element type codes (nerve_msgs::DType) ↔ numpy dtypes. bfloat16 has no numpy dtype:
# its elements read as raw uint16.
DTYPE_OF_CODE: dict[int, str] = {
    1: "|b1", 2: "|u1", 3: "|i1", 4: "<u2", 5: "<i2", 6: "<u4", 7: "<i4", 8: "<u8", 9: "<i8",
    10: "<f2", 11: "<u2", 12: "<f4", 13: "<f8", 14: "<c8", 15: "<c16",
}
CODE_OF_DTYPE: dict[str, int] = {v: k for k, v in DTYPE_OF_CODE.items() if k != 11}


def tensor_code(dtype: Any) -> int:
    """The Tensor element type code of a numpy dtype (or anything ``np.dtype`` takes)."""
    dt = np.dtype(dtype)
    if dt.name == "bfloat16":  # ml_dtypes' bfloat16, used by JAX and TensorFlow
        return 11
    code = CODE_OF_DTYPE.get(dt.newbyteorder("<").str if dt.byteorder == ">" else dt.str)
    if code is None or dt.byteorder == ">":
        raise TypeError(
            f"a tensor holds bool, (u)int8…64, float16/32/64, bfloat16 or complex64/128 in "
            f"little-endian order, not {dt}"
        )
    return code


class _Capsule:
    """A bare DLPack capsule (MXNet's ``to_dlpack_for_read()``) as the object
    ``np.from_dlpack`` takes."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # the host: only host arrays are wrapped


def to_numpy(obj: Any) -> np.ndarray:
    """A numpy view of ``obj``'s data without a copy where its framework allows one."""
    if isinstance(obj, np.ndarray):
        return obj
    top = type(obj).__module__.split(".", 1)[0]
    if top == "pandas":
        return np.asarray(obj.to_numpy())
    if top == "PIL":
        return np.asarray(obj)
    if top == "mxnet" and hasattr(obj, "asnumpy"):
        # An NDArray has no __dlpack__ (MXNet 1.9), and numpy.asarray makes an object array
        # of one-element NDArrays of it: its DLPack capsule (waiting for pending writes) on
        # the host, a copy from any other device.
        if getattr(obj.context, "device_type", "") == "cpu":
            return np.from_dlpack(_Capsule(obj.to_dlpack_for_read()))
        return np.asarray(obj.asnumpy())
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except (BufferError, RuntimeError, TypeError, ValueError):
            # A tensor that cannot be shared as it is (on a device, needing its gradient):
            # bring it to host memory the framework's way.
            for step in ("detach", "cpu"):
                if hasattr(obj, step):
                    obj = getattr(obj, step)()
            if hasattr(obj, "numpy"):
                return np.asarray(obj.numpy())
    return np.asarray(obj)


def image_encoding(arr: np.ndarray, mode: str | None = None) -> str:
    """The Image encoding of an array ``(height, width[, channels])`` (or of a PIL mode)."""
    by_mode = {"RGB": "rgb8", "RGBA": "rgba8", "L": "mono8", "I;16": "mono16"}
    if mode is not None:
        if mode not in by_mode:
            raise TypeError(f"a PIL image of mode {mode!r} has no Image encoding: convert it "
                            "to RGB, RGBA, L or I;16")
        return by_mode[mode]
    channels = 1 if arr.ndim == 2 else arr.shape[2] if arr.ndim == 3 else 0
    match (arr.dtype.str, channels):
        case ("|u1", 1):
            return "mono8"
        case ("|u1", 3):
            return "rgb8"
        case ("|u1", 4):
            return "rgba8"
        case ("<u2", 1):
            return "mono16"
        case ("<f4", 1):
            return "32FC1"
    raise TypeError(f"an array of {arr.dtype} and shape {arr.shape} is not an image: use "
                    "(height, width) or (height, width, 3|4) of uint8, or (height, width) of "
                    "uint16 or float32")


def convert(msg: Any, as_: str) -> Any:
    """``msg`` (a received message) as framework ``as_`` sees it."""
    if as_ == "dict":
        if isinstance(msg, dict):
            return msg  # a MessagePack topic's value already is one
        from .custom import to_dict

        return to_dict(msg)
    arr = msg.data if hasattr(msg, "_sample") else np.asarray(msg)
    if as_ == "numpy":
        return arr
    if as_ == "torch":
        torch = importlib.import_module("torch")
        # A copy, never a writable tensor over memory other subscribers read: torch has no
        # read-only tensors, and its DLPack import takes the read-only flag of DLPack 1.x
        # without keeping to it (torch 2.15: `add_()` on the shared tensor changed what every
        # subscriber of the chunk read).
        return torch.from_numpy(arr.copy())
    if as_ == "jax":
        jnp = importlib.import_module("jax.numpy")
        try:
            return jnp.from_dlpack(arr)
        except BufferError:
            # JAX asks for DLPack 0.x, which cannot say "read-only": one copy.
            return jnp.asarray(arr)
    if as_ == "tensorflow":
        tf = importlib.import_module("tensorflow")
        try:
            return tf.experimental.dlpack.from_dlpack(arr.__dlpack__(max_version=(1, 0)))
        except Exception:  # noqa: BLE001 — TensorFlow's own errors (InvalidArgumentError for
            # a versioned capsule, TF 2.21) are none of Python's: any refusal means a copy.
            return tf.convert_to_tensor(arr)  # a copy: TensorFlow cannot hold a read-only view
    if as_ == "pandas":
        pd = importlib.import_module("pandas")
        return pd.Series(arr, copy=False) if arr.ndim == 1 else pd.DataFrame(arr, copy=False)
    if as_ == "pil":
        return importlib.import_module("PIL.Image").fromarray(arr)
    raise ValueError(f"as_={as_!r}: use one of {', '.join(AS)}")
