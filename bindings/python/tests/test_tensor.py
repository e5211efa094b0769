"""Tensors of every framework: loaned in shared memory, received as read-only views exported
through DLPack and the buffer protocol, sent from numpy, pandas, PIL, JAX and PyTorch without a
serialization step; a 4096×4096 tensor crosses processes with no copy."""

import subprocess
import sys

import nerve
import numpy as np
import pytest

MB = 1 << 20


def tensor_topic(name: str, max_bytes: int = MB) -> nerve.Topic:
    return nerve.Topic(name, nerve.Tensor, max_message_bytes=max_bytes, depth=4)


def test_a_loaned_tensor_is_received_as_a_read_only_view(domain):
    t = tensor_topic("tensor/loan")
    pub, sub = t.publisher(), t.subscriber()
    with pub.loan_tensor((3, 4), "float32", stamp_ns=5, frame_id="cam") as loan:
        assert loan.data.shape == (3, 4) and loan.data.flags.writeable
        loan.data[:] = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = sub.recv(timeout=1)
    assert isinstance(m, nerve.Tensor)
    assert (m.shape, m.dtype, m.header.header.frame_id) == ((3, 4), np.float32, "cam")
    assert not m.data.flags.writeable
    with pytest.raises(ValueError):
        m.data[0, 0] = 1.0
    # DLPack, __array__ and the buffer protocol share the received memory.
    for view in (np.from_dlpack(m), np.asarray(m), np.asarray(memoryview(m.data))):
        assert np.shares_memory(view, m.data)
        assert view.tolist() == np.arange(12).reshape(3, 4).tolist()
    assert memoryview(m.data).readonly


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "uint16", "int16", "uint32",
                                   "int32", "uint64", "int64", "float16", "float32", "float64",
                                   "complex64", "complex128"])
def test_every_element_type_round_trips(domain, dtype):
    t = tensor_topic(f"tensor/{dtype}")
    pub, sub = t.publisher(), t.subscriber()
    a = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    pub.send(a)
    m = sub.recv(timeout=1)
    assert m.dtype == np.dtype(dtype) and m.shape == (2, 3, 4)
    assert np.array_equal(m.data, a)


def test_shapes_strides_and_refusals(domain):
    t = tensor_topic("tensor/shapes")
    pub, sub = t.publisher(), t.subscriber()
    pub.send(np.arange(20, dtype=np.int32).reshape(4, 5)[:, ::2])  # not contiguous
    assert sub.recv(timeout=1).data.tolist() == [[0, 2, 4], [5, 7, 9], [10, 12, 14],
                                                 [15, 17, 19]]
    pub.send(np.float64(2.5))  # a scalar: 0 dimensions
    m = sub.recv(timeout=1)
    assert m.shape == () and m.data[()] == 2.5
    pub.send(np.zeros((0, 3), np.float32))
    assert sub.recv(timeout=1).shape == (0, 3)
    with pytest.raises(ValueError, match="at most 8 dimensions"):
        pub.loan_tensor((1,) * 9)
    with pytest.raises(TypeError, match="not <U1|not str"):
        pub.send(np.array(["a"]))
    with pytest.raises(TypeError, match="little-endian"):
        pub.send(np.arange(3, dtype=">f4"))
    with pytest.raises(TypeError, match="carries CmdVel"):
        nerve.Topic("tensor/cmd", nerve.CmdVel).publisher().loan_tensor((2,))
    assert sub.try_recv() is None, "nothing half-sent"


def test_pandas_and_pil_travel_as_tensors_and_images(domain):
    pd = pytest.importorskip("pandas", reason="pandas is installed by bindings/python/dev.sh")
    image_mod = pytest.importorskip("PIL.Image",
                                    reason="pillow is installed by bindings/python/dev.sh")
    t = tensor_topic("tensor/frames")
    pub, sub = t.publisher(), t.subscriber()
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [4.0, 5.0, 6.0]})
    pub.send(df)
    back = sub.recv(timeout=1, as_="pandas")
    assert isinstance(back, pd.DataFrame) and back.to_numpy().tolist() == df.to_numpy().tolist()
    pub.send(pd.Series([1, 2, 3], dtype="int64"))
    s = sub.recv(timeout=1, as_="pandas")
    assert isinstance(s, pd.Series) and s.tolist() == [1, 2, 3]
    img = image_mod.new("RGB", (4, 2), (10, 20, 30))
    pub.send(img)
    assert sub.recv(timeout=1).shape == (2, 4, 3)
    images = nerve.Topic("tensor/images", nerve.Image, max_message_bytes=MB)
    ipub, isub = images.publisher(), images.subscriber(as_="pil")
    ipub.send(img)
    got = isub.recv(timeout=1)
    assert (got.size, got.mode, got.getpixel((3, 1))) == ((4, 2), "RGB", (10, 20, 30))
    ipub.send(np.full((2, 3), 7, np.uint8))
    assert nerve.frameworks.image_encoding(np.zeros((2, 3), np.uint8)) == "mono8"
    assert isub.recv(timeout=1).getpixel((0, 0)) == 7
    with pytest.raises(TypeError, match="mode 'CMYK' has no Image encoding"):
        ipub.send(image_mod.new("CMYK", (2, 2)))


def test_jax_arrays_travel_both_ways(domain):
    jnp = pytest.importorskip(
        "jax.numpy", reason="jax (CPU wheel from PyPI) is installed by bindings/python/dev.sh "
        "when the registry has it")
    t = tensor_topic("tensor/jax")
    pub, sub = t.publisher(), t.subscriber()
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    pub.send(x)
    got = sub.recv(timeout=1, as_="jax")
    assert bool((got == x).all())


def test_torch_tensors_travel_both_ways(domain):
    torch = pytest.importorskip(
        "torch", reason="PyTorch is installed once per machine by bindings/python/dev.sh setup "
        "(benches/python/setup_peers.sh torch: PyPI's wheel, cached under ~/.cache/nerve)")
    t = tensor_topic("tensor/torch")
    pub, sub = t.publisher(), t.subscriber()
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    pub.send(x)
    got = sub.recv(timeout=1, as_="torch")
    assert torch.equal(got, x)


RECEIVER = """
import sys, numpy as np, nerve
t = nerve.Topic.join("tensor/big")
sub = t.subscriber()
print("ready", flush=True)
m = sub.recv(timeout=20)
a = m.data
start, end = a.ctypes.data, a.ctypes.data + a.nbytes
with open("/proc/self/maps") as f:
    regions = [line.split() for line in f if t.path in line]
inside = any(int(r[0].split("-")[0], 16) <= start and end <= int(r[0].split("-")[1], 16)
             for r in regions)
expected = np.arange(4096 * 4096, dtype=np.float32).reshape(4096, 4096)
print(inside, bool(np.array_equal(a, expected)), a.shape, flush=True)
"""


def test_a_4096x4096_tensor_crosses_processes_without_a_copy(domain):
    n = 4096 * 4096 * 4
    t = tensor_topic("tensor/big", max_bytes=n + 4096)
    pub = t.publisher()
    child = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready", child.stderr.read() if child.stderr else ""
    with pub.loan_tensor((4096, 4096), "float32") as loan:
        np.copyto(loan.data.reshape(-1), np.arange(4096 * 4096, dtype=np.float32))
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    # The receiver's array lies inside its mapping of the topic's segment, and every byte is
    # what was written.
    assert out.strip() == "True True (4096, 4096)", out + err


def test_a_received_strided_tensor_is_sent_on_as_its_values(domain):
    t = tensor_topic("tensor/strided")
    pub, sub = t.publisher(), t.subscriber()
    pub.send(np.arange(12, dtype=np.float32).reshape(3, 4))
    m = sub.recv(timeout=1)
    transposed = nerve.Tensor(m.header, m.data.T, m._sample)  # a strided view of the chunk
    pub.send(transposed)
    again = sub.recv(timeout=1)
    assert again.shape == (4, 3)
    assert again.data.tolist() == np.arange(12).reshape(3, 4).T.tolist()


def test_a_garbage_tensor_header_is_an_error_naming_the_topic_never_a_crash(domain):
    t = tensor_topic("tensor/garbage")
    sub = t.subscriber()
    raw_pub = t._raw.publisher()
    rng = np.random.default_rng(7)
    errors = 0
    for i in range(200):
        loan = raw_pub.loan(nerve.sizeof(nerve.TensorHeader), 64)
        header = rng.integers(0, 256, nerve.sizeof(nerve.TensorHeader), dtype=np.uint8)
        if i % 2:
            # A believable header whose shape lies about the payload's size.
            h = nerve.TensorHeader(dtype=12, ndim=2, shape=[4096, 4096, 0, 0, 0, 0, 0, 0],
                                   device_type=1)
            header = np.frombuffer(bytes(h), np.uint8)
        memoryview(loan)[: len(header)] = header.tobytes()
        loan.send()
        try:
            m = sub.recv(timeout=1)
            assert m.data.nbytes <= 64  # whatever it read lies inside the chunk
        except ValueError as e:
            errors += 1
            assert "tensor/garbage" in str(e), e
    assert errors > 100
