import asyncio
import time

import nerve
import numpy as np
import pytest
from conftest import recv_n, run_python


def wait_subscriber(name: str, timeout: float = 10.0) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if any(t["name"] == name and t["subscribers"] > 0 for t in nerve.topics()):
            return
        time.sleep(0.01)
    raise AssertionError(f"no subscriber on {name}")


def test_fixed_messages_round_trip_in_process(domain):
    msgs = [
        nerve.CmdVel(stamp_ns=1, linear=0.5, angular=-0.25),
        nerve.Twist(linear=nerve.Vector3(x=1.0), angular=nerve.Vector3(z=2.0)),
        nerve.Pose(position=nerve.Vector3(x=1, y=2, z=3)),
        nerve.Pose2D(x=1.0, y=2.0, theta=0.5),
        nerve.Imu(orientation_covariance=[float(i) for i in range(9)]),
        nerve.Odometry(child_frame_id="base_link", pose_covariance=[1.0] * 36),
        nerve.BatteryState(voltage=12.5, percentage=0.8, present=1),
        nerve.Header(stamp_ns=5, seq=2, frame_id="map"),
        nerve.Clock(sim_ns=10, real_time_factor=1.0),
        nerve.Heartbeat(node_id_hash=1, seq=2, stamp_ns=3, pid=4, state=2),
        nerve.Quaternion(x=0.0, y=0.0, z=0.0, w=1.0),
        nerve.Vector3(x=1, y=2, z=3),
    ]
    for m in msgs:
        t = nerve.Topic(f"fixed/{type(m).__name__}", type(m))
        p, s = t.publisher(), t.subscriber()
        p.send(m)
        got = s.try_recv()
        assert got == m and type(got) is type(m), (got, m)
        assert repr(got).startswith(type(m).__name__ + "(")
        assert s.try_recv() is None
        assert s.stats() == nerve.SubscriberStats(1, 0, 0)


def test_message_fields_and_defaults():
    assert nerve.Quaternion().w == 1.0 and nerve.Pose().orientation.w == 1.0
    imu = nerve.Imu()
    imu.header.seq = 7  # nested fields are mutable in place
    assert imu.header.seq == 7 and imu.orientation.w == 1.0
    assert len(bytes(nerve.CmdVel())) == 16 and len(bytes(nerve.Odometry())) == 760
    o = nerve.Odometry(child_frame_id="base")
    assert o.child_frame_id == "base"
    with pytest.raises(ValueError, match="never truncated"):
        o.child_frame_id = "x" * 32
    with pytest.raises(TypeError, match='no field "linaer"; its fields: stamp_ns, linear'):
        nerve.CmdVel(linaer=1.0)
    # Values in field order, keywords after them for later fields.
    m = nerve.CmdVel(3, 0.5, angular=0.25)
    assert (m.stamp_ns, m.linear, m.angular) == (3, 0.5, 0.25)
    assert nerve.CmdVel(3, 0.5, 0.25) == m and nerve.CmdVel(3) == nerve.CmdVel(stamp_ns=3)
    assert nerve.Imu(nerve.Header(seq=4)).header.seq == 4  # a nested message by position
    with pytest.raises(TypeError, match=r"at most 3 positional arguments \(its fields in "
                       r"order: stamp_ns, linear, angular\), got 4"):
        nerve.CmdVel(1, 0.5, 0.1, 9)
    with pytest.raises(TypeError, match='field "stamp_ns" both by position and by keyword'):
        nerve.CmdVel(1, stamp_ns=2)
    with pytest.raises(TypeError, match="CmdVel.linear"):
        nerve.CmdVel(1, "fast")
    with pytest.raises(AttributeError):
        nerve.CmdVel().linaer = 1.0
    cov = o.pose_covariance
    cov[0] = 3.0
    assert o.pose_covariance[0] == 3.0  # numpy view of the array field, no copy
    assert np.shares_memory(o.pose_covariance, np.frombuffer(o, np.uint8))
    o.pose_covariance = range(36)
    assert list(o.pose_covariance[:3]) == [0.0, 1.0, 2.0]


def test_message_field_errors_change_nothing():
    m = nerve.CmdVel(stamp_ns=5, linear=0.5)
    with pytest.raises(OverflowError, match="CmdVel.stamp_ns"):
        m.stamp_ns = -1
    with pytest.raises(TypeError, match="CmdVel.stamp_ns"):
        m.stamp_ns = 1.5
    with pytest.raises(TypeError, match="CmdVel.linear"):
        m.linear = "fast"
    with pytest.raises(TypeError, match="cannot be deleted"):
        del m.linear
    assert m == nerve.CmdVel(stamp_ns=5, linear=0.5)
    cam = nerve.CameraInfo()
    with pytest.raises(ValueError, match="CameraInfo.k: takes 9 values, got 2"):
        cam.k = [1.0, 2.0]
    with pytest.raises(TypeError, match="CameraInfo.k"):
        cam.k = [1.0] * 8 + ["x"]
    assert not cam.k.any()  # a bad element leaves the field unchanged
    imu = nerve.Imu()
    with pytest.raises(TypeError, match="Imu.orientation is a Quaternion, got a Vector3"):
        imu.orientation = nerve.Vector3()
    with pytest.raises(TypeError, match="not a nerve message class"):
        nerve.Topic("t/x", nerve.CmdVel)._raw.publisher(int)
    with pytest.raises(TypeError, match="base of nerve's message classes"):
        nerve.Struct()


def test_message_views_copies_and_pickle():
    import copy
    import pickle

    imu = nerve.Imu()
    h = imu.header  # a view: writes go to imu, and it keeps imu's bytes alive
    del imu
    h.stamp_ns = 9
    imu2 = nerve.Imu(header=nerve.Header(stamp_ns=3, frame_id="imu_link"))
    c = copy.copy(imu2)
    c.header.stamp_ns = 4
    assert imu2.header.stamp_ns == 3 and c.header.stamp_ns == 4
    assert pickle.loads(pickle.dumps(imu2)) == imu2
    assert nerve.Imu.from_bytes(imu2.to_bytes()) == imu2
    with pytest.raises(ValueError, match="Imu is 344 bytes, got 3"):
        nerve.Imu.from_bytes(b"abc")
    assert nerve.sizeof(nerve.Imu) == 344 == nerve.Imu.dtype.itemsize
    assert np.dtype(nerve.PointXYZ).names == ("x", "y", "z")
    assert "w=1.0" in repr(nerve.Quaternion())


def test_cross_process_python_to_python(domain):
    # Subscribe first; reliable, so 100 messages through a 64-deep ring lose nothing even if
    # this process is slow to read (best effort would count them as lost, by design).
    sub = nerve.Topic("xp/cmd", nerve.CmdVel, depth=64, reliable=True).subscriber()
    child = run_python(
        """
import nerve, sys, time
t = nerve.Topic("xp/cmd", nerve.CmdVel, depth=64, reliable=True)
p = t.publisher()
end = time.time() + 10
while not any(x["name"] == "xp/cmd" and x["subscribers"] for x in nerve.topics()):
    assert time.time() < end
    time.sleep(0.01)
for i in range(100):
    p.send(nerve.CmdVel(stamp_ns=i, linear=i * 0.5))
"""
    )
    got = recv_n(sub, 100, child)
    assert [m.stamp_ns for m in got] == list(range(100))
    assert got[10].linear == 5.0
    assert child.wait(10) == 0, child.stderr.read()


def test_cross_process_rust_to_python(domain, py_peer):
    sub = nerve.Topic("rp/cmd", nerve.CmdVel, depth=64).subscriber()
    import subprocess

    peer = subprocess.Popen(
        [str(py_peer), "publish", "rp/cmd", "50"], stderr=subprocess.PIPE, text=True
    )
    got = recv_n(sub, 50, peer)
    assert [m.stamp_ns for m in got] == list(range(50))
    assert got[4].linear == 2.0 and got[4].angular == -1.0
    assert peer.wait(10) == 0


def test_cross_process_python_to_rust_and_back(domain, py_peer):
    import subprocess

    back = nerve.Topic("pr/out", nerve.CmdVel, depth=64)
    sub = back.subscriber()
    out = nerve.Topic("pr/in", nerve.CmdVel, depth=64)
    pub = out.publisher()
    peer = subprocess.Popen([str(py_peer), "echo", "pr/in", "pr/out", "20"],
                            stdout=subprocess.PIPE, text=True)
    assert peer.stdout.readline().strip() == "ready"
    for i in range(20):
        pub.send(nerve.CmdVel(stamp_ns=i, linear=1.5))
        m = sub.recv(timeout=10)
        assert m is not None and m.stamp_ns == i + 1000 and m.linear == 1.5
    assert peer.wait(10) == 0


def test_async_receive(domain):
    t = nerve.Topic("async/cmd", nerve.CmdVel, depth=64)
    p, s = t.publisher(), t.subscriber()

    async def main():
        async def later():
            await asyncio.sleep(0.05)
            for i in range(3):
                p.send(nerve.CmdVel(stamp_ns=i))

        task = asyncio.create_task(later())
        first = await asyncio.wait_for(s.recv_async(), 5)
        rest = []
        async for m in s:
            rest.append(m.stamp_ns)
            if len(rest) == 2:
                break
        await task
        return first.stamp_ns, rest

    assert asyncio.run(main()) == (0, [1, 2])


def test_latest_only_history_and_topics(domain):
    t = nerve.Topic("q/latest", nerve.CmdVel, latest_only=True)
    p = t.publisher()
    s = t.subscriber()
    for i in range(5):
        p.send(nerve.CmdVel(stamp_ns=i))
    assert s.try_recv().stamp_ns == 4
    assert s.stats().lost == 4
    h = nerve.Topic("q/hist", nerve.CmdVel, depth=8)
    hp = h.publisher()
    for i in range(3):
        hp.send(nerve.CmdVel(stamp_ns=i))
    late = h.subscriber(history=2)
    assert [late.try_recv().stamp_ns for _ in range(2)] == [1, 2]
    names = {x["name"]: x for x in nerve.topics()}
    assert names["q/hist"]["type_name"] == "nerve/CmdVel"
    assert names["q/hist"]["publishers"] == 1
    # What each topic is to nerve, from the one classifier (nerve::plumbing::TopicKind).
    assert (names["q/hist"]["kind"], names["q/hist"]["plumbing"]) == ("user", False)
    svc = nerve.Service("q/svc")
    with svc.server(lambda req: req):
        kinds = {x["name"]: (x["kind"], x["plumbing"]) for x in nerve.topics()}
    assert kinds["q/svc/request"] == ("service_frame", True)
    assert kinds["q/svc/server"] == ("server_record", True)


def test_spin_runs_a_node_at_its_rate():
    class Node:
        def __init__(self):
            self.n = 0
            self.down = False

        def tick(self):
            self.n += 1
            return self.n < 10

        def shutdown(self):
            self.down = True

    node = Node()
    st = nerve.spin(node, rate_hz=200)
    assert node.n == 10 and node.down and st.ticks == 9
    calls = []
    t0 = time.perf_counter()
    nerve.spin(lambda: calls.append(1), rate_hz=100, duration=0.2)
    assert 0.18 < time.perf_counter() - t0 < 0.5 and 15 <= len(calls) <= 22
