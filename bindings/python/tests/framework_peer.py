"""One side of a framework's tensor over nerve, run by `test_frameworks.py` in the interpreter
that has the framework (nerve's `.venv`, or the frameworks' venvs of
`benches/python/setup_peers.sh frameworks`).

    framework_peer.py send FRAMEWORK TOPIC    imports it, says `PEER {"ready": ...}`, waits for
                                              `go` on stdin, sends the tensor COUNT times
    framework_peer.py recv FRAMEWORK TOPIC    subscribes, says ready, receives COUNT tensors as
                                              FRAMEWORK objects and says what each one is

The tensor is the Wrapyfi table's 200×200 float32 one (PIL: an 8-bit image), with distinct
values instead of ones, so that a transposed or shifted copy does not pass. A receiver also
writes to what it got where the framework allows it, and says whether a plain subscriber of
the same message still reads what was sent (the received chunk is shared memory).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np

SHAPE = (200, 200)
COUNT = 3
FRAMEWORKS = ("numpy", "pandas", "pil", "torch", "jax", "tensorflow", "paddle", "mxnet")
MODULE = {"pil": "PIL.Image", "tensorflow": "tensorflow", "mxnet": "mxnet"}
# nerve's own `recv(as_=...)`; the others are made from the received numpy view.
AS = ("numpy", "pandas", "pil", "torch", "jax", "tensorflow")


def open_topic(name: str) -> Any:
    """The test's tensor topic (the test opens it first, each side then the same way)."""
    import nerve
    return nerve.Topic(name, nerve.Tensor, max_message_bytes=1 << 20, depth=8, chunks=16)


def expected(fw: str) -> np.ndarray:
    n = SHAPE[0] * SHAPE[1]
    if fw == "pil":
        return (np.arange(n) % 251).astype(np.uint8).reshape(SHAPE)
    return np.arange(n, dtype=np.float32).reshape(SHAPE)


def make(fw: str) -> Any:
    """The tensor, made by the framework itself."""
    n = SHAPE[0] * SHAPE[1]
    if fw == "numpy":
        return expected(fw)
    if fw == "pandas":
        import pandas as pd
        return pd.DataFrame(expected(fw))
    if fw == "pil":
        from PIL import Image
        return Image.fromarray(expected(fw))
    if fw == "torch":
        import torch
        return torch.arange(n, dtype=torch.float32).reshape(SHAPE)
    if fw == "jax":
        import jax.numpy as jnp
        return jnp.arange(n, dtype=jnp.float32).reshape(SHAPE)
    if fw == "tensorflow":
        import tensorflow as tf
        return tf.reshape(tf.range(n, dtype=tf.float32), SHAPE)
    if fw == "paddle":
        import paddle
        return paddle.arange(n, dtype="float32").reshape(list(SHAPE))
    if fw == "mxnet":
        import mxnet as mx
        return mx.nd.arange(n, dtype="float32").reshape(SHAPE)
    raise ValueError(fw)


def received(fw: str, sub: Any) -> Any:
    if fw in AS:
        return sub.recv(timeout=30, as_=fw)
    m = sub.recv(timeout=30)
    if m is None:
        return None
    if fw == "paddle":
        import paddle
        return paddle.to_tensor(m.data)
    import mxnet as mx
    return mx.nd.array(m.data, dtype=m.data.dtype)


def describe(fw: str, got: Any) -> dict[str, Any]:
    """What `got` is, as its framework says: its type, shape, element type and values."""
    want = make(fw)
    kind = f"{type(got).__module__}.{type(got).__qualname__}"
    if fw == "numpy":
        return {"type": kind, "type_ok": isinstance(got, np.ndarray), "shape": got.shape,
                "dtype": str(got.dtype), "dtype_ok": got.dtype == np.float32,
                "values_ok": bool(np.array_equal(got, want))}
    if fw == "pandas":
        import pandas as pd
        return {"type": kind, "type_ok": isinstance(got, pd.DataFrame), "shape": got.shape,
                "dtype": str(set(got.dtypes)), "dtype_ok": all(d == np.float32 for d in got.dtypes),
                "values_ok": bool(got.equals(want))}
    if fw == "pil":
        from PIL import Image
        return {"type": kind, "type_ok": isinstance(got, Image.Image),
                "shape": got.size[::-1], "dtype": got.mode, "dtype_ok": got.mode == "L",
                "values_ok": bool(np.array_equal(np.asarray(got), expected(fw)))}
    if fw == "torch":
        import torch
        return {"type": kind, "type_ok": isinstance(got, torch.Tensor),
                "shape": tuple(got.shape), "dtype": str(got.dtype),
                "dtype_ok": got.dtype == torch.float32, "values_ok": torch.equal(got, want)}
    if fw == "jax":
        import jax
        import jax.numpy as jnp
        return {"type": kind, "type_ok": isinstance(got, jax.Array), "shape": got.shape,
                "dtype": str(got.dtype), "dtype_ok": got.dtype == jnp.float32,
                "values_ok": bool(jnp.array_equal(got, want))}
    if fw == "tensorflow":
        import tensorflow as tf
        return {"type": kind, "type_ok": isinstance(got, tf.Tensor),
                "shape": tuple(got.shape), "dtype": got.dtype.name,
                "dtype_ok": got.dtype == tf.float32,
                "values_ok": bool(tf.reduce_all(tf.equal(got, want)))}
    if fw == "paddle":
        import paddle
        return {"type": kind, "type_ok": isinstance(got, paddle.Tensor),
                "shape": tuple(got.shape), "dtype": str(got.dtype),
                "dtype_ok": got.dtype == paddle.float32,
                "values_ok": bool(paddle.equal_all(got, want))}
    import mxnet as mx
    return {"type": kind, "type_ok": isinstance(got, mx.nd.NDArray), "shape": got.shape,
            "dtype": np.dtype(got.dtype).name, "dtype_ok": got.dtype == np.float32,
            "values_ok": bool((got == want).asnumpy().all())}


def write_to(fw: str, got: Any) -> str:
    """Writes to `got` in place where its framework allows: what happened."""
    try:
        if fw == "numpy":
            got[0, 0] = -1
        elif fw == "pandas":
            got.iloc[0, 0] = -1
        elif fw == "pil":
            got.putpixel((0, 0), 250)
        elif fw == "torch":
            got.add_(1)
        elif fw == "paddle":
            got.add_(got)
        elif fw == "mxnet":
            got[:] += 1
        else:
            return "immutable"  # jax and tensorflow arrays
    except (ValueError, TypeError, RuntimeError) as e:
        return f"refused ({type(e).__name__})"
    return "written"


def say(**fields: Any) -> None:
    print("PEER " + json.dumps(fields, default=str), flush=True)


def main() -> int:
    role, fw, name = sys.argv[1:4]
    try:
        __import__(MODULE.get(fw, fw))
    except Exception as e:  # noqa: BLE001 — any failure to import is the framework missing
        say(missing=f"{type(e).__name__}: {e}")
        return 3
    topic = open_topic(name)
    if role == "send":
        obj = make(fw)
        pub = topic.publisher()
        say(ready=True)
        if sys.stdin.readline().strip() != "go":
            return 1
        for _ in range(COUNT):
            pub.send(obj)
        say(sent=COUNT)
        return 0
    sub, plain = topic.subscriber(), topic.subscriber()
    say(ready=True)
    for i in range(COUNT):
        got = received(fw, sub)
        view = plain.recv(timeout=30)
        if got is None or view is None:
            say(error=f"message {i}: nothing within 30 s")
            return 1
        facts = describe(fw, got)
        facts["write"] = write_to(fw, got)
        facts["kept"] = bool(np.array_equal(view.data, expected(fw)))
        say(got=i, **facts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
