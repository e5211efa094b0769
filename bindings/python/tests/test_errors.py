import logging

import nerve
import pytest


def test_exception_hierarchy_mirrors_rust():
    for cls in (nerve.InvalidName, nerve.TypeMismatch, nerve.QosMismatch, nerve.OpenCorrupt,
                nerve.TooManyEndpoints, nerve.InvalidConfig, nerve.Io, nerve.OpenNoSpace,
                nerve.Busy):
        assert issubclass(cls, nerve.OpenError) and issubclass(cls, nerve.NerveError)
    for cls in (nerve.Full, nerve.TooLarge, nerve.PoolExhausted, nerve.Encode):
        assert issubclass(cls, nerve.SendError)
    for cls in (nerve.Timeout, nerve.Decode):
        assert issubclass(cls, nerve.RecvError)
    # Rust's three `Corrupt` variants: each its operation's error, all caught as nerve.Corrupt
    # (which is no OpenError itself: a damaged ring found by recv is not an open failure).
    for cls, op in ((nerve.OpenCorrupt, nerve.OpenError), (nerve.SendCorrupt, nerve.SendError),
                    (nerve.RecvCorrupt, nerve.RecvError)):
        assert issubclass(cls, nerve.Corrupt) and issubclass(cls, op)
    assert not issubclass(nerve.Corrupt, nerve.OpenError)
    # A full /dev/shm, found by open or by a loan: caught as nerve.NoSpace either way.
    for cls, op in ((nerve.OpenNoSpace, nerve.OpenError), (nerve.SendNoSpace, nerve.SendError)):
        assert issubclass(cls, nerve.NoSpace) and issubclass(cls, op)
    assert issubclass(nerve.InvalidConfig, ValueError)
    assert nerve.TypeMismatch.__name__ == "TypeMismatch"


def test_open_errors(domain):
    with pytest.raises(nerve.InvalidName, match="invalid topic name"):
        nerve.Topic("/bad name", nerve.CmdVel)
    t = nerve.Topic("e/t", nerve.CmdVel, depth=8)
    keep = t.subscriber()  # an endpoint keeps the segment
    with pytest.raises(nerve.TypeMismatch, match=r"'e/t' carries nerve/CmdVel.*nerve/Imu"):
        nerve.Topic("e/t", nerve.Imu)
    with pytest.raises(nerve.QosMismatch, match="e/t"):
        nerve.Topic("e/t", nerve.CmdVel, depth=32)
    with pytest.raises(nerve.QosMismatch):
        nerve.Topic("e/t", nerve.CmdVel, reliable=True)
    with pytest.raises(TypeError, match="not a nerve message type"):
        nerve.Topic("e/u", int)
    del keep


def test_send_and_recv_errors(domain):
    t = nerve.Topic("e/rel", nerve.CmdVel, depth=1, reliable=True)
    p, s = t.publisher(), t.subscriber()
    p.send(nerve.CmdVel())
    with pytest.raises(nerve.Full, match="'e/rel' is full"):
        p.send(nerve.CmdVel())
    with pytest.raises(TypeError, match="carries CmdVel"):
        p.send(nerve.Clock())
    assert s.try_recv() is not None
    with pytest.raises(nerve.Timeout, match="e/rel"):
        s.recv_deadline(0.05)
    assert s.recv(timeout=0.01) is None
    img = nerve.Topic("e/img", nerve.Image, max_message_bytes=1000)
    with pytest.raises(nerve.TooLarge, match="exceeds the limit"):
        img.publisher().loan_image(100, 100, "rgb8")
    d = nerve.Topic("e/d", dict).publisher()
    with pytest.raises(TypeError, match="cannot send a object"):
        d.send({"x": object()})


def test_image_loans_reject_bad_arguments_and_take_no_chunk(domain):
    # Depth 1 and two chunks, one of them held: the refused loans below must not take the
    # last one.
    t = nerve.Topic("e/limg", nerve.Image, depth=1, chunks=2)
    p = t.publisher()
    held = p.loan_image(4, 4, "rgb8")
    with pytest.raises(ValueError, match="unknown encoding 'rgb9'"):
        p.loan_image(4, 4, "rgb9")
    with pytest.raises(ValueError, match="'e/limg': frame_id"):
        p.loan_image(4, 4, "rgb8", frame_id="x" * 200)
    with pytest.raises(OverflowError):
        p.loan_image(4, 4, "rgb8", stamp_ns=-1)
    with pytest.raises(TypeError, match="'e/lpc' carries PointCloud, not images"):
        nerve.Topic("e/lpc", nerve.PointCloud).publisher().loan_image(4, 4)
    d = nerve.Topic("e/ldepth", nerve.DepthImage).publisher()
    with pytest.raises(ValueError, match="'e/ldepth': rgb8 is not a depth encoding"):
        d.loan_image(4, 4, "rgb8")
    # None of the refused loans kept the topic's last chunk.
    p.loan_image(4, 4, "rgb8").discard()
    held.discard()


def test_an_image_header_that_overstates_its_pixels_is_refused_on_receive(domain):
    # A publisher writes a header claiming more pixels than the chunk holds: the subscriber
    # raises (naming the sizes) instead of exposing memory past the chunk.
    t = nerve.Topic("e/lie", nerve.Image)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan(16)
    loan.header.width, loan.header.height, loan.header.step = 1000, 1000, 3000
    loan.header.encoding = 1  # rgb8
    loan.send()
    with pytest.raises(ValueError, match="does not fit"):
        s.try_recv()
    # The next honest image arrives.
    p.loan_image(2, 2, "rgb8", stamp_ns=5).send()
    assert s.try_recv().header.header.stamp_ns == 5


def test_rust_logs_reach_python_logging(domain, caplog):
    caplog.set_level(logging.DEBUG)
    t = nerve.Topic("e/log", nerve.Image, max_message_bytes=1000)
    keep = t.subscriber()
    nerve.Topic("e/log", nerve.Image, max_message_bytes=10_000)
    assert any("smaller chunks" in r.getMessage() for r in caplog.records), caplog.records
    del keep
