"""`nerve view --foxglove` as the Foxglove app sees it: a client speaking the Foxglove WebSocket
protocol (`websockets`, subprotocol `foxglove.sdk.v1`) subscribes to an Image, an Imu and a
PointCloud published from Python and decodes them from the schemas the server advertises —
the image and the cloud as Foxglove's schemas (`protobuf`, from the advertised descriptor),
the Imu as ROS 2 (the reference decoder of `mcap-ros2-support`), and with `--ros2-schemas`
all three as ROS 2; reads the log as `foxglove.Log` and a declared type as JSON; calls a
service; gets and sets a parameter; and reads the graph."""

import asyncio
import base64
import json
import logging
import re
import signal
import struct
import subprocess
import time
from typing import Annotated, Any

import nerve
import numpy as np
import pytest

WHY = "installed by bindings/python/dev.sh"
websockets = pytest.importorskip("websockets", reason=f"websockets is {WHY}")
mcap_ros2 = pytest.importorskip("mcap_ros2._dynamic", reason=f"mcap-ros2-support is {WHY}")
descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2",
                                     reason=f"protobuf is {WHY}")
from google.protobuf import descriptor_pool, message_factory  # noqa: E402

SUBPROTOCOL = "foxglove.sdk.v1"


@nerve.message("fgtest/Gripper")
class Gripper:
    """Declared only here: shown in Foxglove as JSON with a schema from its description."""

    stamp_ns: nerve.u64
    width: nerve.f64
    closed: nerve.bool_
    _pad: Annotated[bytes, nerve.array("u8", 7)]


def start_view(nerve_cli: str, *extra: str) -> tuple[subprocess.Popen, int]:
    view = subprocess.Popen([nerve_cli, "view", "--foxglove", "--port", "0", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert view.stdout is not None
    line = view.stdout.readline()
    m = re.search(r"ws://127\.0\.0\.1:(\d+)", line)
    assert m, (line, view.stderr.read() if view.poll() is not None else "")
    return view, int(m.group(1))


class Client:
    """The Foxglove app's side of the protocol, enough for a test."""

    def __init__(self, ws: Any):
        self.ws = ws
        self.channels: dict[str, dict] = {}
        self.services: dict[str, dict] = {}
        self.server_info: dict = {}
        self.pending: list[Any] = []

    async def recv(self, timeout: float) -> Any:
        if self.pending:
            return self.pending.pop(0)
        m = await asyncio.wait_for(self.ws.recv(), timeout)
        if isinstance(m, str):
            j = json.loads(m)
            if j["op"] == "serverInfo":
                self.server_info = j
            elif j["op"] == "advertise":
                for c in j["channels"]:
                    self.channels[c["topic"]] = c
            elif j["op"] == "unadvertise":
                gone = set(j["channelIds"])
                self.channels = {t: c for t, c in self.channels.items() if c["id"] not in gone}
            elif j["op"] == "advertiseServices":
                for s in j["services"]:
                    self.services[s["name"]] = s
            return j
        return m

    async def until(self, cond: Any, what: str, timeout: float = 10.0) -> Any:
        """Reads messages until `cond(message)` holds; returns that message."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                m = await self.recv(max(0.05, deadline - time.monotonic()))
            except TimeoutError:
                break
            if cond(m):
                return m
        raise AssertionError(f"no {what} within {timeout} s; channels {list(self.channels)}")

    async def send(self, j: dict) -> None:
        await self.ws.send(json.dumps(j))


def ros2_decoder(channel: dict) -> Any:
    assert channel["encoding"] == "cdr" and channel["schemaEncoding"] == "ros2msg", channel
    types = mcap_ros2.generate_dynamic(channel["schemaName"], channel["schema"])
    return types[channel["schemaName"]]


def protobuf_class(channel: dict) -> Any:
    fds = descriptor_pb2.FileDescriptorSet.FromString(base64.b64decode(channel["schema"]))
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(channel["schemaName"]))


@pytest.mark.parametrize("schemas", ["foxglove", "ros2"])
def test_foxglove_client_sees_topics_services_parameters_and_the_graph(domain, nerve_cli,
                                                                       schemas):
    # The robot: standard types, a declared type, the log, a service and parameters, all
    # from this process.
    imu_pub = nerve.Topic("fg/imu", nerve.Imu).publisher()
    image_pub = nerve.Topic("fg/camera", nerve.Image).publisher()
    cloud_pub = nerve.Topic("fg/cloud", nerve.PointCloud).publisher()
    gripper_pub = nerve.Topic("fg/gripper", Gripper).publisher()
    log = logging.getLogger("fgtest")
    log.setLevel(logging.INFO)
    handler = nerve.LogHandler("fg_node", domain=domain)
    log.addHandler(handler)
    server = nerve.Service("fg/add").server(lambda req: {"sum": req["a"] + req["b"]})
    params = nerve.Parameters("fg_node")
    params.declare("gain", 1.5)
    params.declare("mode", "auto")
    params.serve()
    log.warning("first record")

    def publish(i: int) -> None:
        imu = nerve.Imu()
        imu.header.stamp_ns = 1_700_000_000_000_000_000 + i
        imu.angular_velocity.z = 0.25
        imu.linear_acceleration.x = -9.81
        imu_pub.send(imu)
        loan = image_pub.loan_image(6, 4, "mono8", stamp_ns=42, frame_id="cam")
        loan.data[:] = np.arange(24, dtype=np.uint8).reshape(4, 6)
        loan.send()
        pts = cloud_pub.loan_points(100, "xyzi")
        pts.data["x"] = np.arange(100)
        pts.data["intensity"] = 2.0
        pts.send()
        gripper_pub.send(Gripper(stamp_ns=i, width=0.07, closed=1))
        log.info("tick %d", i, extra={"fields": {"speed": 0.5}})

    view, port = start_view(nerve_cli, *(["--ros2-schemas"] if schemas == "ros2" else []))
    results: dict[str, Any] = {}

    async def session() -> None:
        async with websockets.connect(f"ws://127.0.0.1:{port}", subprotocols=[SUBPROTOCOL],
                                      max_size=None) as ws:
            c = Client(ws)
            await c.until(lambda m: c.server_info != {}, "serverInfo")
            wanted = {"fg/imu", "fg/camera", "fg/cloud", "fg/gripper", "nerve/log"}
            await c.until(lambda m: wanted <= set(c.channels), "advertise of every topic")
            await c.until(lambda m: "fg/add" in c.services, "advertiseServices")
            results["caps"] = c.server_info["capabilities"]
            results["channels"] = dict(c.channels)
            subs = {}
            for i, topic in enumerate(sorted(wanted)):
                subs[i + 1] = topic
            await c.send({"op": "subscribe", "subscriptions": [
                {"id": sid, "channelId": c.channels[t]["id"]} for sid, t in subs.items()]})
            got: dict[str, bytes] = {}
            deadline = time.monotonic() + 15
            i = 0
            while set(got) != wanted and time.monotonic() < deadline:
                publish(i)
                i += 1
                try:
                    m = await c.recv(0.1)
                except TimeoutError:
                    continue
                # MessageData: 0x01, subscription id (u32), log time (u64), payload.
                if isinstance(m, bytes) and m[0] == 1:
                    sid = struct.unpack_from("<I", m, 1)[0]
                    got.setdefault(subs[sid], m[13:])
            results["got"] = got

            # A service call: 0x02, service id, call id, encoding, payload.
            sid = c.services["fg/add"]["id"]
            enc = b"json"
            payload = json.dumps({"a": 2, "b": 40}).encode()
            await ws.send(struct.pack("<BIII", 2, sid, 7, len(enc)) + enc + payload)
            reply = await c.until(
                lambda m: (isinstance(m, bytes) and m[0] == 3)
                or (isinstance(m, dict) and m.get("op") == "serviceCallFailure"),
                "service reply")
            assert isinstance(reply, bytes), reply
            _, rsid, call, n = struct.unpack_from("<BIII", reply, 0)
            results["call"] = (rsid == sid, call, reply[13:13 + n], json.loads(reply[13 + n:]))
            # A call with a bad request is answered with the reason.
            await ws.send(struct.pack("<BIII", 2, sid, 8, len(enc)) + enc + b"{not json")
            results["bad_call"] = await c.until(
                lambda m: isinstance(m, dict) and m.get("op") == "serviceCallFailure",
                "serviceCallFailure")
            # Every other malformed call is answered with an error too: an unknown service, an
            # encoding the view does not speak, a request of the wrong shape.
            malformed = {
                9: struct.pack("<BIII", 2, 999_999, 9, len(enc)) + enc + b"{}",
                10: struct.pack("<BIII", 2, sid, 10, 4) + b"cbor" + b"\xa0",
                11: struct.pack("<BIII", 2, sid, 11, len(enc)) + enc + b'{"a": "two"}',
            }
            for call_id, frame in malformed.items():
                await ws.send(frame)
                failure = await c.until(
                    lambda m, i=call_id: isinstance(m, dict)
                    and m.get("op") == "serviceCallFailure" and m.get("callId") == i,
                    f"the failure of malformed call {call_id}")
                assert failure["message"], failure

            # Parameters: read all, set one, read it back.
            await c.send({"op": "getParameters", "parameterNames": [], "id": "g1"})
            results["params"] = await c.until(
                lambda m: isinstance(m, dict) and m.get("id") == "g1", "parameterValues")
            await c.send({"op": "setParameters", "id": "s1", "parameters": [
                {"name": "fg_node.gain", "value": 2.5, "type": "float64"}]})
            results["set"] = await c.until(
                lambda m: isinstance(m, dict) and m.get("id") == "s1", "set parameterValues")

            # The graph: who publishes and serves what.
            await c.send({"op": "subscribeConnectionGraph"})
            results["graph"] = await c.until(
                lambda m: isinstance(m, dict) and m.get("op") == "connectionGraphUpdate"
                and any(t["name"] == "fg/imu" for t in m.get("publishedTopics", [])),
                "connectionGraphUpdate")

    try:
        asyncio.run(session())
        assert params.get("gain") == 2.5
    finally:
        view.send_signal(signal.SIGINT)
        out, err = view.communicate(timeout=20)
        log.removeHandler(handler)
        params.close()
        server.close()
    assert view.returncode == 0, err

    ch = results["channels"]
    assert "Parameters" in " ".join(results["caps"]) or "parameters" in results["caps"]
    assert ch["fg/imu"]["schemaName"] == "sensor_msgs/msg/Imu"
    assert ch["nerve/log"]["schemaName"] == "foxglove.Log"
    assert ch["fg/gripper"]["encoding"] == "json"
    schema = json.loads(ch["fg/gripper"]["schema"])
    assert schema["properties"]["width"]["type"][0] == "number", schema
    assert schema["properties"]["stamp_ns"]["type"] == "integer", schema
    assert "_pad" not in schema["properties"]

    got = results["got"]
    imu = ros2_decoder(ch["fg/imu"])(got["fg/imu"])
    assert imu.angular_velocity.z == 0.25 and imu.linear_acceleration.x == pytest.approx(-9.81)
    assert imu.header.stamp.sec == 1_700_000_000
    if schemas == "ros2":
        assert ch["fg/camera"]["schemaName"] == "sensor_msgs/msg/Image"
        assert ch["fg/cloud"]["schemaName"] == "sensor_msgs/msg/PointCloud2"
        image = ros2_decoder(ch["fg/camera"])(got["fg/camera"])
        assert image.header.frame_id == "cam"
        cloud = ros2_decoder(ch["fg/cloud"])(got["fg/cloud"])
        assert cloud.width * cloud.height == 100
        step, data = cloud.point_step, bytes(cloud.data)
    else:
        assert ch["fg/camera"]["schemaName"] == "foxglove.RawImage"
        assert ch["fg/cloud"]["schemaName"] == "foxglove.PointCloud"
        image = protobuf_class(ch["fg/camera"]).FromString(got["fg/camera"])
        assert image.frame_id == "cam" and image.step == 6
        cloud = protobuf_class(ch["fg/cloud"]).FromString(got["fg/cloud"])
        step, data = cloud.point_stride, bytes(cloud.data)
        assert [f.type for f in cloud.fields][:4] == [7, 7, 7, 7]  # FLOAT32
    assert (image.width, image.height, image.encoding) == (6, 4, "mono8")
    assert list(image.data) == list(range(24))
    assert [f.name for f in cloud.fields][:4] == ["x", "y", "z", "intensity"]
    assert len(data) == 100 * step
    xs = np.frombuffer(data, dtype=np.float32).reshape(100, -1)[:, 0]
    assert list(xs) == list(range(100))
    gripper = json.loads(got["fg/gripper"])
    assert gripper["width"] == pytest.approx(0.07) and gripper["closed"] == 1
    record = protobuf_class(ch["nerve/log"]).FromString(got["nerve/log"])
    assert record.name == "fg_node" and record.message, record
    assert record.file.endswith("test_foxglove.py") and record.line > 0

    same_service, call_id, encoding, response = results["call"]
    assert same_service and call_id == 7 and encoding == b"json" and response == {"sum": 42}
    assert "fg/add" in results["bad_call"]["message"], results["bad_call"]

    values = {p["name"]: p["value"] for p in results["params"]["parameters"]}
    assert values["fg_node.gain"] == 1.5 and values["fg_node.mode"] == "auto", values
    assert results["set"]["parameters"] == [
        {"name": "fg_node.gain", "value": 2.5, "type": "float64"}], results["set"]

    graph = results["graph"]
    pubs = {t["name"]: t["publisherIds"] for t in graph["publishedTopics"]}
    assert pubs["fg/imu"], graph
    served = {s["name"]: s["providerIds"] for s in graph["advertisedServices"]}
    assert served["fg/add"], graph
    # At exit, what was sent per topic.
    assert re.search(r"fg/imu\s+sensor_msgs/msg/Imu\s+[1-9]", out), out


def test_view_refuses_a_port_in_use(domain, nerve_cli):
    first, port = start_view(nerve_cli)
    try:
        second = subprocess.run([nerve_cli, "view", "--foxglove", "--port", str(port)],
                                capture_output=True, text=True, timeout=20)
        assert second.returncode != 0
        assert f"127.0.0.1:{port}" in second.stderr and "--port" in second.stderr, second.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=20)


def test_the_page_refuses_a_port_in_use_and_a_bad_host(domain: int, nerve_cli: str) -> None:
    first = subprocess.Popen([nerve_cli, "view", "--port", "0"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout is not None
        m = re.search(r":(\d+)/", first.stdout.readline())
        assert m
        second = subprocess.run([nerve_cli, "view", "--port", m.group(1)],
                                capture_output=True, text=True, timeout=20)
        assert second.returncode != 0 and "--port" in second.stderr, second.stderr
        bad = subprocess.run([nerve_cli, "view", "--host", "localhost:80"],
                             capture_output=True, text=True, timeout=20)
        assert bad.returncode == 2 or "not an IP address" in bad.stderr, bad.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=20)


def test_a_client_sending_garbage_is_dropped_and_others_are_served(domain, nerve_cli):
    imu_pub = nerve.Topic("fg/imu2", nerve.Imu).publisher()
    view, port = start_view(nerve_cli)

    async def session() -> None:
        async with websockets.connect(f"ws://127.0.0.1:{port}", subprotocols=[SUBPROTOCOL],
                                      max_size=None) as bad:
            for junk in [b"\xff" * 64, "not json", json.dumps({"op": "subscribe"}),
                         json.dumps({"op": "subscribe", "subscriptions": [
                             {"id": 1, "channelId": 999999}]})]:
                try:
                    await bad.send(junk)
                except websockets.ConnectionClosed:
                    break
        async with websockets.connect(f"ws://127.0.0.1:{port}", subprotocols=[SUBPROTOCOL],
                                      max_size=None) as ws:
            c = Client(ws)
            await c.until(lambda m: "fg/imu2" in c.channels, "advertise")
            await c.send({"op": "subscribe", "subscriptions": [
                {"id": 1, "channelId": c.channels["fg/imu2"]["id"]}]})
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                imu_pub.send(nerve.Imu())
                try:
                    m = await c.recv(0.1)
                except TimeoutError:
                    continue
                if isinstance(m, bytes) and m[0] == 1:
                    return
            raise AssertionError("no message after a bad client")

    try:
        asyncio.run(session())
    finally:
        view.send_signal(signal.SIGINT)
        _, err = view.communicate(timeout=20)
    assert view.returncode == 0, err
