import gc
import os
import signal
import subprocess
import sys
import time

import nerve
import numpy as np
import pytest
from conftest import run_python


def ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def test_loan_and_fill_is_received_without_a_copy(domain):
    t = nerve.Topic("zc/img", nerve.Image)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan_image(640, 480, "rgb8", stamp_ns=9, frame_id="cam")
    assert loan.data.shape == (480, 640, 3) and loan.data.flags.writeable
    loan.data[:] = 7
    loan.data[10, 20] = (1, 2, 3)
    loan_ptr = ptr(loan.data)
    loan.send()
    assert not loan.data.flags.writeable, "sent: subscribers read it from now on"
    with pytest.raises(RuntimeError, match="already sent"):
        loan.send()
    img = s.try_recv()
    assert isinstance(img, nerve.Image)
    assert (img.width, img.height, img.encoding) == (640, 480, "rgb8")
    assert img.header.header.frame_id == "cam" and img.header.header.stamp_ns == 9
    assert ptr(img.data) == loan_ptr, "the subscriber reads the chunk the publisher wrote"
    assert np.shares_memory(img.data, loan.data)
    assert tuple(img.data[10, 20]) == (1, 2, 3) and img.data[0, 0, 0] == 7
    assert not img.data.flags.writeable
    with pytest.raises(ValueError):
        img.data[0, 0, 0] = 1
    # The header is a read-only view of the chunk too; .copy() gives a writable one.
    assert img.header.readonly
    with pytest.raises(TypeError, match="ImageHeader.width: this message is read-only"):
        img.header.width = 1
    with pytest.raises(TypeError, match="read-only"):
        img.header.header.stamp_ns = 1
    mine = img.header.copy()
    mine.width = 1
    assert mine.width == 1 and img.width == 640 and not mine.readonly
    # DLPack (CPU) view of the same memory.
    assert img.__dlpack_device__() == (1, 0)
    d = np.from_dlpack(img)
    assert ptr(d) == loan_ptr


def test_a_loan_in_a_with_block_is_sent_at_its_end_or_discarded_if_it_raised(domain):
    t = nerve.Topic("zc/with", nerve.Image)
    p, s = t.publisher(), t.subscriber()
    assert isinstance(p.loan_image(2, 2, "mono8"), nerve.Loan)
    with p.loan_image(4, 2, "mono8", stamp_ns=3) as loan:
        loan.data[:] = 5
        loan.header.header.frame_id = "cam"  # the header view, made when first asked for
    assert not loan.active
    img = s.try_recv()
    assert (img.header.header.stamp_ns, img.header.header.frame_id) == (3, "cam")
    assert img.data.tolist() == [[5] * 4] * 2
    with pytest.raises(ValueError, match="the camera failed"):
        with p.loan_image(4, 2, "mono8") as loan:
            loan.data[:] = 6
            raise ValueError("the camera failed")
    assert not loan.active and s.try_recv() is None, "discarded: nothing was sent"
    with p.loan_image(4, 2, "mono8") as loan:
        loan.discard()  # ended in the block: the block's end does nothing more
    assert s.try_recv() is None
    # Bare bytes of a chunked type other than an image: header and data too.
    scan = nerve.Topic("zc/with-scan", nerve.LaserScan)
    sp, ss = scan.publisher(), scan.subscriber()
    with sp.loan(3) as loan:
        loan.header.range_max = 9.5
        loan.data[:] = (1.0, 2.0, 3.0)
    got = ss.try_recv()
    assert got.header.range_max == 9.5 and got.ranges.tolist() == [1.0, 2.0, 3.0]


def test_a_recycled_chunk_starts_with_a_clean_header(domain):
    # Two chunks: every loan after the second reuses a chunk that carried an earlier header.
    t = nerve.Topic("zc/recycle", nerve.Image, depth=1, chunks=2)
    p, s = t.publisher(), t.subscriber()
    for i in range(6):
        frame = "cam" if i == 0 else ""
        loan = p.loan_image(4 + i, 2, "mono8", stamp_ns=i, frame_id=frame)
        assert loan.data.shape == (2, 4 + i)
        loan.send()
        img = s.try_recv()
        assert img.header.header.frame_id == frame, f"message {i} kept a stale frame_id"
        assert (img.width, img.height, img.header.header.stamp_ns) == (4 + i, 2, i)
        del img


def test_cross_process_loan_is_seen_in_place(domain):
    child = run_python(
        """
import nerve, time
t = nerve.Topic("zc/x", nerve.Image)
p = t.publisher()
end = time.time() + 10
while not any(x["name"] == "zc/x" and x["subscribers"] for x in nerve.topics()):
    assert time.time() < end
    time.sleep(0.01)
loan = p.loan_image(1920, 1080, "mono8")
loan.data[:] = 0
loan.data[1079, 1919] = 255
loan.send()
"""
    )
    s = nerve.Topic("zc/x", nerve.Image).subscriber()
    img = s.recv(timeout=10)
    assert img.data.shape == (1080, 1920) and img.data[1079, 1919] == 255
    assert child.wait(10) == 0, child.stderr.read()


def test_view_outlives_subscriber_and_release_frees_the_chunk(domain):
    t = nerve.Topic("zc/scan", nerve.LaserScan, depth=1, chunks=2)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan(360)
    loan.data[:] = np.arange(360, dtype=np.float32)
    loan.header.range_max = 30.0
    loan.send()
    del loan  # a sent loan keeps its chunk while it (or a view of it) lives
    ranges = s.try_recv().ranges
    del s, t
    gc.collect()
    assert ranges[359] == 359.0  # still pinned by the view
    p.loan(1).send()  # replaces the ring's reference: only the view pins the first chunk
    with pytest.raises(nerve.PoolExhausted, match="zc/scan"):
        p.loan(1)
    del ranges
    gc.collect()
    p.loan(1).discard()  # releasing the view freed its chunk


def test_point_cloud_and_depth_views(domain):
    t = nerve.Topic("zc/pc", nerve.PointCloud)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan_points(1000, "xyzi")
    loan.data["x"] = np.arange(1000)
    loan.data["intensity"] = 2.0
    loan.send()
    pc = s.try_recv()
    assert pc.data.shape == (1000,) and pc.data["x"][999] == 999.0
    assert pc.data["intensity"].sum() == 2000.0
    d = nerve.Topic("zc/depth", nerve.DepthImage)
    dp, ds = d.publisher(), d.subscriber()
    loan = dp.loan_image(64, 48, "16UC1", depth_scale=0.001)
    loan.data[:] = 1500
    loan.send()
    img = ds.try_recv()
    assert img.data.dtype == np.uint16 and img.data.shape == (48, 64)
    assert img.header.depth_scale == pytest.approx(0.001)
    # A received message can be re-published (copied into a fresh chunk).
    e = nerve.Topic("zc/depth2", nerve.DepthImage)
    ep, es = e.publisher(), e.subscriber()
    ep.send(img)
    assert es.try_recv() == img


def test_dicts_of_a_megabyte_and_numpy(domain):
    t = nerve.Topic("dyn/d", dict)
    p, s = t.publisher(), t.subscriber()
    big = {"blob": b"x" * (1 << 20), "text": "é" * 1000, "n": [1, 2.5, None, True]}
    p.send(big)
    assert s.recv(timeout=1) == big
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    p.send({"a": arr, "s": np.int64(5)})
    got = s.try_recv()
    assert isinstance(got["a"], np.ndarray) and got["a"].dtype == np.float32
    np.testing.assert_array_equal(got["a"], arr)
    assert got["s"] == 5
    small = nerve.Topic("dyn/small", "msgpack", max_message_bytes=1024)
    with pytest.raises(nerve.TooLarge, match="dyn/small"):
        small.publisher().send({"x": b"0" * 4096})


def test_optional_encoders_where_installed(domain):
    t = nerve.Topic("dyn/opt", dict)
    p, s = t.publisher(), t.subscriber()
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.5, 2.5]})
    p.send(df)
    pd.testing.assert_frame_equal(s.try_recv(), df)


def test_ctrl_c_interrupts_a_blocking_recv_promptly(domain):
    child = subprocess.Popen(
        [sys.executable, "-c", """
import nerve, signal, sys
# Python's own Ctrl-C handler, even when started with SIGINT ignored (a background job of a
# shell without job control passes that on, and Python then installs none).
signal.signal(signal.SIGINT, signal.default_int_handler)
s = nerve.Topic("sig/x", nerve.CmdVel).subscriber()
print("ready", flush=True)
try:
    s.recv()
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
"""],
        stdout=subprocess.PIPE, text=True,
    )
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.2)
    t0 = time.monotonic()
    os.kill(child.pid, signal.SIGINT)
    assert child.wait(5) == 3
    assert time.monotonic() - t0 < 0.5
    assert "interrupted" in child.stdout.read()


def test_a_sent_loans_views_never_show_a_later_message(domain):
    # Depth 1, three chunks: without the pin, the sent chunk would be handed to the next
    # loans while `view` still points at it.
    t = nerve.Topic("zc/pinned", nerve.LaserScan, depth=1, chunks=3)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan(360)
    loan.data[:] = 7.0
    loan.send()
    view = loan.data  # taken after send: read-only, on the sent chunk
    assert s.try_recv().ranges[0] == 7.0
    for i in range(8):
        later = p.loan(360)
        later.data[:] = float(i)
        later.send()
        assert s.try_recv().ranges[0] == float(i)
    assert not view.flags.writeable
    assert (view == 7.0).all()  # still the message it was loaned for
    # Three chunks: the ring's, the pinned one, one free.
    first = p.loan(360)
    with pytest.raises(nerve.PoolExhausted, match="zc/pinned"):
        p.loan(360)
    first.discard()
    del first, view, loan
    gc.collect()
    # The pin went with the last view: two chunks free beside the ring's.
    a, b = p.loan(360), p.loan(360)
    a.discard()
    b.discard()
