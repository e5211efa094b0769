"""Hostile use from Python: nothing a Python program does with nerve may crash it, hang it,
corrupt a message, or let a Rust panic through (pyo3's ``PanicException`` is a
``BaseException``: ``except Exception`` would not catch it)."""

import asyncio
import math
import re
import threading
import time
from pathlib import Path

import nerve
import numpy as np
import pytest
from nerve import _nerve

SRC = Path(__file__).resolve().parents[1] / "src"


# ---------------------------------------------------------------------------------------------
# No panic crosses to Python


def test_a_panic_is_an_internal_error_naming_the_operation():
    with pytest.raises(nerve.InternalError) as e:
        _nerve._panic_for_tests("boom")
    msg = str(e.value)
    assert "internal error in _panic_for_tests: boom" in msg and "report" in msg
    assert isinstance(e.value, nerve.NerveError) and isinstance(e.value, Exception)


def _rust_source_without_literals(text: str) -> str:
    """The source with comments removed and string/char literals blanked (so braces inside
    them do not count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and text[i - 1].isalnum()):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.index('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = end + 1 + len(hashes)
        elif c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            m = re.match(r"'(\\.|[^\\'])'", text[i:i + 4])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _block(text: str, open_at: int) -> str:
    """The text between the brace at ``open_at`` and its match."""
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:j]
    raise AssertionError("unbalanced braces")


def _entry_points() -> list[tuple[str, str]]:
    """Every function Python can call in the native module: ``("file: Type.fn", body)`` for
    each ``fn`` in a ``#[pymethods]`` block and each ``#[pyfunction]``."""
    found = []
    for path in sorted(SRC.rglob("*.rs")):
        text = _rust_source_without_literals(path.read_text())
        name = path.relative_to(SRC)
        for m in re.finditer(r"#\[pymethods\]\s*impl\s+(\w+)[^{]*\{", text):
            block = _block(text, m.end() - 1)
            depth, k = 0, 0
            while k < len(block):
                if block[k] == "{":
                    depth += 1
                elif block[k] == "}":
                    depth -= 1
                elif depth == 0 and (f := re.match(r"fn\s+(\w+)", block[k:])) and (
                        k == 0 or not block[k - 1].isalnum()):
                    brace = block.index("{", k)
                    found.append((f"{name}: {m.group(1)}.{f.group(1)}", _block(block, brace)))
                    k = brace + len(_block(block, brace)) + 2
                    continue
                k += 1
        for m in re.finditer(r"#\[pyfunction\][^{;]*?\bfn\s+(\w+)[^{]*\{", text):
            found.append((f"{name}: {m.group(1)}", _block(text, m.end() - 1)))
    return found


def test_every_entry_point_of_the_native_module_is_guarded():
    # One mechanism for every entry point: the body is one `guard("Class.method", || ...)`
    # (errors.rs), which turns a panic into nerve.InternalError. Only empty bodies
    # (`__releasebuffer__`) run no code that could panic.
    entries = _entry_points()
    assert len(entries) > 80, sorted(entries)  # the scan found the module's methods
    unguarded = [k for k, body in entries
                 if body.strip() and not body.strip().startswith("guard(")]
    assert not unguarded, f"entry points whose body is not one guard(...) call: {unguarded}"


# ---------------------------------------------------------------------------------------------
# Arguments are checked where they enter

FOREVER = (None, math.inf, 1e300, 1e19, 2**64, 10**400)  # huge finite values mean forever
NEGATIVE = (-1, -1e-9, -math.inf, -(10**400))
BAD_SECONDS = "must be a number of seconds >= 0 (None or math.inf: forever)"


def _publish_later(pub, delay=0.1):
    t = threading.Timer(delay, lambda: pub.send(nerve.CmdVel(stamp_ns=7)))
    t.start()
    return t


@pytest.mark.parametrize("timeout", FOREVER)
def test_recv_with_an_endless_timeout_waits_for_the_message(domain, timeout):
    t = nerve.Topic("h/forever", nerve.CmdVel)
    p, s = t.publisher(), t.subscriber()
    timer = _publish_later(p)
    t0 = time.monotonic()
    assert s.recv(timeout=timeout).stamp_ns == 7
    assert time.monotonic() - t0 >= 0.05  # it waited for the message
    timer.join()
    timer = _publish_later(p)
    assert s.recv_deadline(timeout).stamp_ns == 7
    timer.join()


@pytest.mark.parametrize("timeout", NEGATIVE + (math.nan,))
def test_recv_refuses_a_negative_or_nan_timeout_even_with_a_message_waiting(domain, timeout):
    t = nerve.Topic("h/neg", nerve.CmdVel)
    p, s = t.publisher(), t.subscriber()
    p.send(nerve.CmdVel())
    with pytest.raises(ValueError, match=re.escape("timeout " + BAD_SECONDS)):
        s.recv(timeout=timeout)
    with pytest.raises(ValueError, match=re.escape("timeout " + BAD_SECONDS)):
        s.recv_deadline(timeout)
    with pytest.raises(TypeError, match="timeout must be a number of seconds or None, got str"):
        s.recv(timeout="1")
    assert s.try_recv() is not None  # nothing was consumed by the refused calls


def test_set_spin_clamps_and_refuses(domain):
    t = nerve.Topic("h/spin", nerve.CmdVel)
    p, s = t.publisher(), t.subscriber()
    for seconds in FOREVER + (0, 1e-6):
        s.set_spin(seconds)
    s.set_spin(0.0001)
    for seconds in NEGATIVE + (math.nan,):
        with pytest.raises(ValueError, match=re.escape("seconds " + BAD_SECONDS)):
            s.set_spin(seconds)
    p.send(nerve.CmdVel(stamp_ns=3))
    assert s.recv(timeout=1).stamp_ns == 3


def test_a_spin_of_forever_still_ends_at_the_timeout(domain):
    s = nerve.Topic("h/spin_forever", nerve.CmdVel).subscriber()
    s.set_spin(math.inf)
    start = time.monotonic()
    assert s.recv(timeout=0.02) is None  # nothing is sent: the timeout ends the spin
    took = time.monotonic() - start
    assert 0.02 <= took < 2, f"a 20 ms receive with a spin of forever took {took:.3f} s"


def test_service_timeouts(domain):
    svc = nerve.Service("h/svc", domain=domain)
    with svc.server(lambda req: req + 1):
        c = svc.client()
        for timeout in FOREVER:
            assert c.wait_for_server(timeout)
            assert c.call(1, timeout=timeout) == 2
        for timeout in NEGATIVE + (math.nan,):
            with pytest.raises(ValueError, match=re.escape("timeout " + BAD_SECONDS)):
                c.call(1, timeout=timeout)
            with pytest.raises(ValueError, match=re.escape("timeout " + BAD_SECONDS)):
                c.wait_for_server(timeout)
            with pytest.raises(ValueError, match=re.escape("timeout " + BAD_SECONDS)):
                asyncio.run(c.call_async(1, timeout=timeout))
        assert asyncio.run(c.call_async(1, timeout=math.inf)) == 2


def test_parameter_and_action_timeouts(domain):
    params = nerve.Parameters("h_node", domain=domain)
    params.declare("speed", 1.5)
    params.serve()
    try:
        pc = nerve.ParamClient("h_node", domain=domain)
        assert pc.get("speed", timeout=1e300) == 1.5
        pc.set("speed", 2.5, timeout=math.inf)
        assert [p["value"] for p in pc.list(timeout=None)] == [2.5]
        for call in (lambda: pc.get("speed", timeout=-1), lambda: pc.list(timeout=math.nan),
                     lambda: pc.set("speed", 1.0, timeout=-math.inf)):
            with pytest.raises(ValueError, match=re.escape("timeout " + BAD_SECONDS)):
                call()
    finally:
        params.close()
    server = nerve.ActionServer("h/act", lambda ctx, goal: goal * 2, domain=domain)
    try:
        client = nerve.ActionClient("h/act", domain=domain)
        assert client.wait_for_server(1e300)
        goal = client.send_goal(21, timeout=math.inf)
        assert goal.wait(timeout=None)["result"] == 42
        for call in (lambda: client.wait_for_server(-1), lambda: client.send_goal(1, timeout=-1),
                     lambda: goal.wait(timeout=math.nan), lambda: goal.cancel(timeout=-1e-9)):
            with pytest.raises(ValueError, match=re.escape("timeout " + BAD_SECONDS)):
                call()
    finally:
        server.close()


def test_spin_checks_its_rate_and_duration():
    with pytest.raises(ValueError, match="duration " + re.escape(BAD_SECONDS)):
        nerve.spin(lambda: False, duration=-1)
    with pytest.raises(ValueError, match="duration " + re.escape(BAD_SECONDS)):
        nerve.spin(lambda: False, duration=math.nan)
    for rate in (0, -5, math.nan, math.inf):
        with pytest.raises(ValueError, match="rate_hz must be a finite number"):
            nerve.spin(lambda: False, rate_hz=rate)
    with pytest.raises(TypeError, match="rate_hz must be a number, got str"):
        nerve.spin(lambda: False, rate_hz="fast")
    assert nerve.spin(lambda: False, duration=math.inf).ticks == 0  # ends on False
    assert nerve.spin(lambda: False, rate_hz=1e-300).ticks == 0


@pytest.mark.parametrize(("arg", "value", "expect"), [
    ("depth", 0, "depth must be an integer from 1 to 1048576, got 0"),
    ("depth", -1, "depth must be an integer from 1 to 1048576, got -1"),
    ("depth", 2**32, "depth must be an integer from 1 to 1048576, got 4294967296"),
    ("depth", 2**200, "depth must be an integer from 1 to 1048576"),
    ("max_message_bytes", -1, "max_message_bytes must be an integer from 0 to 140737488355328"),
    ("max_message_bytes", 2**64 - 1, "max_message_bytes must be an integer from 0 to"),
    ("chunks", 0, "chunks must be an integer from 1 to 4294967295, got 0"),
    ("chunks", -3, "chunks must be an integer from 1 to 4294967295, got -3"),
    ("max_endpoints", 0, "max_endpoints must be an integer from 1 to 4294967295, got 0"),
    ("domain", -1, "domain must be an integer from 0 to 4294967295, got -1"),
])
def test_topic_sizes_out_of_range_are_invalid_config(domain, arg, value, expect):
    with pytest.raises(nerve.InvalidConfig, match=re.escape(f"topic 'h/cfg': {expect}")) as e:
        nerve.Topic("h/cfg", nerve.Image, **{arg: value})
    assert isinstance(e.value, ValueError) and isinstance(e.value, nerve.OpenError)


def test_the_ring_limit_is_named_and_is_the_one_checked(domain):
    assert nerve.MAX_DEPTH == 1 << 20 and nerve.DEFAULT_DEPTH == 16
    with pytest.raises(nerve.InvalidConfig, match=f"from 1 to {nerve.MAX_DEPTH}"):
        nerve.Topic("h/deeper", nerve.CmdVel, depth=nerve.MAX_DEPTH + 1)


def test_topic_sizes_must_be_ints(domain):
    for arg in ("depth", "max_message_bytes", "chunks", "max_endpoints", "domain"):
        with pytest.raises(TypeError, match=f"{arg} must be an int, got float"):
            nerve.Topic("h/cfg", nerve.Image, **{arg: 8.0})
    t = nerve.Topic("h/cfg", nerve.Image, depth=np.int64(8), chunks=np.uint32(40))
    assert t.depth == 8  # numpy integers are integers


def test_history_out_of_range(domain):
    t = nerve.Topic("h/hist", nerve.CmdVel, depth=4)
    with pytest.raises(ValueError, match="history must be an integer from 0 to 18446744073709551615"
                                         ", got -1"):
        t.subscriber(history=-1)
    t.subscriber(history=2**64 - 1)  # more than the ring holds: the whole ring


def test_loan_on_a_topic_without_chunks_is_a_type_error(domain):
    p = nerve.Topic("h/fixed", nerve.CmdVel).publisher()
    msg = "topic 'h/fixed' carries CmdVel, a fixed-size message: publish it with send()"
    for loan in (lambda: p.loan(3), lambda: p.loan_image(2, 2), lambda: p.loan_points(2)):
        with pytest.raises(TypeError, match=re.escape(msg)):
            loan()
    d = nerve.Topic("h/dict", dict).publisher()
    with pytest.raises(TypeError, match="topic 'h/dict' carries MessagePack values: publish "
                                        r"them with send\(\)"):
        d.loan(3)
    scan = nerve.Topic("h/scan", nerve.LaserScan, depth=1, chunks=2).publisher()
    with pytest.raises(ValueError, match="n must be an integer >= 0, got -1"):
        scan.loan(-1)
    with pytest.raises(TypeError, match="n must be an int, got float"):
        scan.loan(1.5)
    with pytest.raises(TypeError, match="'h/scan' carries LaserScan, not points"):
        scan.loan_points(3)
    a, b = scan.loan(3), scan.loan(3)  # none of the refused loans took one of the two chunks
    a.discard()
    b.discard()


# ---------------------------------------------------------------------------------------------
# Loans and samples are used once


def _ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def test_after_send_a_loan_is_frozen_and_the_message_unchanged(domain):
    t = nerve.Topic("h/img", nerve.Image)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan_image(8, 4, "mono8", stamp_ns=5, frame_id="cam")
    loan.data[:] = 7
    zero_copy = _ptr(loan.data)
    loan.send()
    img = s.try_recv()
    assert _ptr(img.data) == zero_copy  # no view was left to close: sent without a copy
    sent = img.data.tobytes()
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        loan.data[0, 0] = 1
    with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True"):
        loan.data.flags.writeable = True
    with pytest.raises(TypeError, match="ImageHeader.width: this loan was already sent or "
                                        "discarded, its header is frozen"):
        loan.header.width = 1
    with pytest.raises(TypeError, match="Header.stamp_ns: this loan was already sent"):
        loan.header.header.stamp_ns = 1
    with pytest.raises(TypeError, match="Header.frame_id: this loan was already sent"):
        loan.header.header.frame_id = "x"
    with pytest.raises(TypeError, match="cannot modify read-only memory"):
        memoryview(loan.header)[0] = 1
    assert loan.header.readonly and not loan.active
    with pytest.raises(BufferError, match="this loan was already sent or discarded"):
        memoryview(loan)
    for view in (lambda: loan.array(0, (4,), "u1"), loan.image_array,
                 lambda: loan.header_as(nerve.ImageHeader)):
        with pytest.raises(RuntimeError, match="this loan was already sent or discarded"):
            view()
    with pytest.raises(RuntimeError, match="already sent"):
        loan.send()
    loan.discard()  # nothing left to discard: no error
    assert img.data.tobytes() == sent
    assert (img.header.width, img.header.header.stamp_ns) == (8, 5)
    assert img.header.header.frame_id == "cam"


def test_a_view_made_before_send_cannot_change_what_was_sent(domain):
    # A slice of loan.data keeps its own WRITEABLE flag: nerve cannot make it read-only, so
    # send() sees it and sends a copy; writing through the slice changes nothing received.
    t = nerve.Topic("h/slice", nerve.LaserScan)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan(64)
    loan.data[:] = np.arange(64)
    head, tail = loan.data[:8], loan.data.reshape(8, 8)[4:]
    raw = memoryview(loan)  # a buffer of the loan itself
    with pytest.warns(RuntimeWarning, match=r"topic 'h/slice': 3 view\(s\) of this loan .* "
                                            "nerve sent a copy"):
        loan.send()
    scan = s.try_recv()
    assert not np.shares_memory(scan.ranges, loan.data)
    head[:] = -1
    tail[:] = -2
    raw[-4:] = b"\xff" * 4
    np.testing.assert_array_equal(scan.ranges, np.arange(64, dtype=np.float32))
    # Without such views, a send is zero-copy again.
    del head, tail, raw
    loan = p.loan(64)
    zero_copy = _ptr(loan.data)
    loan.send()
    assert _ptr(s.try_recv().ranges) == zero_copy


def test_a_discarded_chunk_is_not_reused_while_viewed(domain):
    # Two chunks; a view of a discarded loan keeps its chunk out of the pool, so writing
    # through it can never reach a later message (it did: the chunk went back at once).
    t = nerve.Topic("h/discard", nerve.LaserScan, depth=1, chunks=2)
    p, s = t.publisher(), t.subscriber()
    first = p.loan(16)
    kept = first.data[:]  # a view nerve cannot close
    first.discard()
    with pytest.raises(ValueError, match="read-only"):
        first.data[0] = 1  # the loan's own array is closed
    later = p.loan(16)
    later.data[:] = 7
    later.send()
    held = s.try_recv()
    expected = held.ranges.tobytes()
    kept[:] = 123.0
    assert held.ranges.tobytes() == expected  # intact, byte for byte
    with pytest.raises(nerve.PoolExhausted, match="h/discard"):
        p.loan(16)  # one chunk held by the subscriber's message, one by `kept`
    del kept, first
    p.loan(16).discard()  # the last view gone, the chunk is back


def test_a_loan_dropped_unsent_frees_its_chunk_after_its_views(domain):
    t = nerve.Topic("h/drop", nerve.LaserScan, depth=1, chunks=2)
    p = t.publisher()
    loan = p.loan(16)
    data, header = loan.data, loan.header
    del loan
    data[:] = 1  # still ours: the chunk is not back in the pool
    header.range_max = 2.0
    held = p.loan(16)
    with pytest.raises(nerve.PoolExhausted):
        p.loan(16)
    del data, header
    p.loan(16).discard()
    held.discard()


def test_received_views_are_read_only(domain):
    t = nerve.Topic("h/rx", nerve.Image)
    p, s = t.publisher(), t.subscriber()
    loan = p.loan_image(4, 4, "rgb8")
    loan.data[:] = 9
    loan.send()
    img = s.try_recv()
    with pytest.raises(ValueError, match="read-only"):
        img.data[0, 0, 0] = 1
    with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True"):
        img.data.flags.writeable = True
    with pytest.raises(ValueError, match="read-only"):
        img.data[1:][0, 0, 0] = 1  # views of it too
    with pytest.raises(TypeError, match="cannot modify read-only memory"):
        memoryview(img.data)[0, 0, 0] = 1
    with pytest.raises(TypeError, match="ImageHeader.width: this message is read-only"):
        img.header.width = 1
    with pytest.raises(TypeError, match="read-only"):
        memoryview(img.header)[0] = 1
    assert (img.data == 9).all()


def test_header_field_arrays_of_a_loan_close_with_it(domain):
    # No standard chunk header has array fields; a raw topic whose header is an Imu has.
    imu = nerve.Imu._nerve_spec_.size
    stored = ("test/ImuChunk", 2, imu, 8, 1, 0x1234)
    topic = _nerve.Topic("h/imuchunk", stored)
    loan = topic.publisher().loan(imu, 8)
    header = loan.header_as(nerve.Imu)
    cov = header.orientation_covariance
    cov[:] = 1.0
    part = cov[3:]  # a numpy view of it: counted
    with pytest.warns(RuntimeWarning, match=r"1 view\(s\)"):
        loan.send()
    with pytest.raises(ValueError, match="read-only"):
        cov[0] = 2.0
    with pytest.raises(ValueError, match="read-only"):
        header.orientation_covariance[0] = 2.0
    with pytest.raises(TypeError, match="this loan was already sent"):
        header.orientation_covariance = [0.0] * 9
    part[:] = 5.0  # writes the kept original, not the sent copy


# ---------------------------------------------------------------------------------------------
# Hostile arguments everywhere: only nerve's errors and Python's argument errors come out

HOSTILE = (None, -1, 0, 2**64, -(2**63) - 1, 10**400, math.nan, math.inf, -math.inf, 1e300,
           "x" * 100_000, "\x00", b"\xff" * 9, object(), [], (1, 2), {"a": 1}, True, 1.5)
ALLOWED = (nerve.NerveError, TypeError, ValueError, OverflowError)


def _attempt(what: str, fn, *args, **kwargs) -> None:
    try:
        fn(*args, **kwargs)
    except nerve.InternalError as e:  # a panic: a bug to fix at its root
        pytest.fail(f"{what}: {e}")
    except ALLOWED:
        pass


def _each_hostile(what: str, fn, valid: list, kwargs: dict | None = None) -> None:
    """Calls ``fn(*valid, **kwargs)`` with each hostile value in each place in turn."""
    kwargs = kwargs or {}
    for i in range(len(valid)):
        for h in HOSTILE:
            args = list(valid)
            args[i] = h
            _attempt(f"{what} arg {i} = {h!r:.40}", fn, *args, **kwargs)
    for k in kwargs:
        for h in HOSTILE:
            _attempt(f"{what} {k} = {h!r:.40}", fn, *valid, **{**kwargs, k: h})


def test_hostile_arguments_to_topics_and_endpoints(domain):
    cmd = nerve.Topic("h/f/cmd", nerve.CmdVel)
    img = nerve.Topic("h/f/img", nerve.Image)
    dyn = nerve.Topic("h/f/dyn", dict)
    cp, ip, dp = cmd.publisher(), img.publisher(), dyn.publisher()
    cs, is_, ds = cmd.subscriber(), img.subscriber(), dyn.subscriber()

    def waiting():  # a message on each topic, so that no receive blocks
        cp.send(nerve.CmdVel())
        ip.loan_image(2, 2, "mono8").send()
        dp.send({"k": 1})

    opts = dict(depth=8, domain=domain, max_message_bytes=4096, chunks=40, max_endpoints=8)
    _each_hostile("Topic", nerve.Topic, ["h/f/new", nerve.Image], opts)
    _each_hostile("_nerve.Topic", _nerve.Topic, ["h/f/raw", ("t/T", 2, 64, 8, 1, 7)])
    # Stored types as no message class has them (sizes kept small: the transport allocates
    # what a type asks for).
    for stored in [("t/T", k, s, a, e, 7) for k in (0, 1, 2, 3, 99) for s in (0, 1, 3, 64)
                   for a in (0, 1, 3, 2**31) for e in (0, 1, 2**32 - 1)]:
        _attempt(f"_nerve.Topic {stored}", _nerve.Topic, "h/f/raw2", stored, in_process=True,
                 depth=2, max_message_bytes=64, chunks=4)
    _each_hostile("topics", nerve.topics, [domain])
    for sub in (cs, is_, ds):
        for name in ("recv", "recv_deadline", "set_spin"):
            for h in HOSTILE:
                waiting()
                _attempt(f"{name}({h!r:.40})", getattr(sub, name), h)
                sub.set_spin(0)
        waiting()
        sub.try_recv()
        sub.stats()
    for h in HOSTILE:
        _attempt(f"subscriber(history={h!r:.40})", cmd.subscriber, history=h)
        _attempt(f"send({h!r:.40})", cp.send, h)
        _attempt(f"send({h!r:.40})", ip.send, h)
        _attempt(f"send({h!r:.40})", dp.send, h)
    _each_hostile("loan", ip.loan, [4])
    _each_hostile("loan_image", ip.loan_image, [2, 2, "mono8"],
                  dict(stamp_ns=1, frame_id="f", depth_scale=1.0))
    pc = nerve.Topic("h/f/pc", nerve.PointCloud).publisher()
    _each_hostile("loan_points", pc.loan_points, [2, "xyz"])
    raw = ip._raw
    _each_hostile("_nerve.loan", raw.loan, [64, 16])
    _each_hostile("_nerve.loan_image", raw.loan_image,
                  [nerve.ImageHeader, 2, 2, 5, 0, "f", None])
    loan = raw.loan(64, 16)
    _each_hostile("Loan.array", loan.array, [64, (4,), "u1", None])
    _each_hostile("Loan.header_as", loan.header_as, [nerve.ImageHeader])
    loan.discard()
    waiting()
    sample = _nerve.Topic("h/f/img", nerve.Image._nerve_type_).subscriber(history=1).try_recv()
    assert sample is not None
    _each_hostile("Sample.array", sample.array, [64, (4,), "u1", None])
    _each_hostile("Sample.header_as", sample.header_as, [nerve.ImageHeader])
    loan = ip.loan_image(2, 2, "mono8")
    for h in HOSTILE:
        for field in ("width", "encoding"):
            _attempt(f"header.{field} = {h!r:.40}", setattr, loan.header, field, h)
        _attempt(f"frame_id = {h!r:.40}", setattr, loan.header.header, "frame_id", h)
    loan.discard()  # its header may now lie about its pixels (refused on receive, test_errors)
    for sub in (cs, is_, ds):  # every object is still usable
        while sub.try_recv() is not None:
            pass
    waiting()
    assert cs.try_recv() is not None and is_.try_recv() is not None and ds.try_recv() == {"k": 1}
    assert cs.stats().corrupt == 0


def test_hostile_arguments_to_messages():
    for cls in (nerve.CmdVel, nerve.Imu, nerve.Header, nerve.CameraInfo, nerve.ImageHeader):
        fields = [f[0] for f in cls._nerve_spec_.fields]
        for f in fields:
            for h in HOSTILE:
                _attempt(f"{cls.__name__}({f}={h!r:.40})", cls, **{f: h})
                m = cls()
                _attempt(f"{cls.__name__}.{f} = {h!r:.40}", setattr, m, f, h)
        for h in HOSTILE:
            _attempt(f"{cls.__name__}.from_bytes({h!r:.40})", cls.from_bytes, h)
            _attempt(f"{cls.__name__}({h!r:.40})", cls, h)
            _attempt(f"{cls.__name__} == {h!r:.40}", lambda c=cls, h=h: c() == h)
    for h in HOSTILE:
        _attempt(f"spin(rate_hz={h!r:.40})", nerve.spin, lambda: False, rate_hz=h)
        _attempt(f"spin(duration={h!r:.40})", nerve.spin, lambda: False, duration=h)
        _attempt(f"_seconds({h!r:.40})", _nerve._seconds, "t", h)


def test_hostile_arguments_to_services_parameters_and_actions(domain):
    svc = nerve.Service("h/f/svc", domain=domain)
    with svc.server(lambda req: req):
        client = svc.client()
        for h in HOSTILE:
            _attempt(f"call({h!r:.40})", client.call, h)
            _attempt(f"call(timeout={h!r:.40})", client.call, 1, timeout=h)
            _attempt(f"wait_for_server({h!r:.40})", client.wait_for_server, h)
            _attempt(f"raw call({h!r:.40})", client._raw.call, h, 1.0)
            _attempt(f"Service({h!r:.40})", lambda h=h: nerve.Service(h, domain=domain).client())
            _attempt(f"Service(domain={h!r:.40})",
                     lambda h=h: nerve.Service("s", domain=h).client())
            _attempt(f"server(workers={h!r:.40})",
                     lambda h=h: nerve.Service("h/f/w", domain=domain).server(len,
                                                                              workers=h).close())
    params = nerve.Parameters("h_f_node", domain=domain)
    params.declare("x", 1)
    params.serve()
    try:
        pc = nerve.ParamClient("h_f_node", domain=domain)
        for i, h in enumerate(HOSTILE):
            _attempt(f"declare({h!r:.40})", params.declare, f"y{i}", h)
            _attempt(f"declare(name={h!r:.40})", params.declare, h, 1)
            _attempt(f"declare(min={h!r:.40})", params.declare, f"z{i}", 1.0, min=h)
            _attempt(f"declare(max={h!r:.40})", params.declare, f"w{i}", 1, max=h, min=h)
            _attempt(f"set({h!r:.40})", params.set, "x", h)
            _attempt(f"get({h!r:.40})", params.get, h)
            _attempt(f"load_yaml_str({h!r:.40})", params.load_yaml_str, h)
            _attempt(f"load_yaml({h!r:.40})", params.load_yaml, h)
            _attempt(f"remote get({h!r:.40})", pc.get, h)
            _attempt(f"remote set({h!r:.40})", pc.set, "x", h)
            _attempt(f"remote get(timeout={h!r:.40})", pc.get, "x", timeout=h)
            _attempt(f"remote list(timeout={h!r:.40})", pc.list, timeout=h)
    finally:
        params.close()
    server = nerve.ActionServer("h/f/act", lambda ctx, goal: goal, domain=domain)
    try:
        client = nerve.ActionClient("h/f/act", domain=domain)
        goal = client.send_goal(1)
        for h in HOSTILE:
            _attempt(f"send_goal({h!r:.40})", client.send_goal, h)
            _attempt(f"send_goal(timeout={h!r:.40})", client.send_goal, 1, timeout=h)
            _attempt(f"wait_for_server({h!r:.40})", client.wait_for_server, h)
            _attempt(f"wait(timeout={h!r:.40})", goal.wait, timeout=h)
            _attempt(f"cancel(timeout={h!r:.40})", goal.cancel, timeout=h)
            _attempt(f"status({h!r:.40})", server._raw.status if hasattr(server, "_raw")
                     else server.status, h)
    finally:
        server.close()
