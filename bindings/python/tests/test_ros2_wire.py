"""nerve's standard types in ROS 2's wire form, the layer a ROS 2 bridge on rclpy stands on:
`Ros2Reader` turns a topic's messages into the CDR bytes ROS 2 publishes, `Ros2Writer`
publishes CDR bytes as nerve messages. Checked against the reference CDR codec of
`mcap-ros2-support` in both directions (its encoder's bytes become nerve messages; nerve's
bytes decode field by field), for a fixed type (Imu) and a chunked one (Image), and hostile
bytes are refused with the topic named and nothing sent."""

from __future__ import annotations

import nerve
import numpy as np
import pytest

dynamic = pytest.importorskip("mcap_ros2._dynamic",
                              reason="mcap-ros2-support is installed by bindings/python/dev.sh")
_nerve = nerve._nerve


def codecs(reader: _nerve.Ros2Reader) -> tuple:
    name, text = reader.ros2_type, reader.schema
    return dynamic.generate_dynamic(name, text)[name], dynamic.serialize_dynamic(name, text)[name]


def test_the_table_names_every_standard_type_with_a_ros2_form() -> None:
    table = dict(_nerve.ros2_types())
    assert table["nerve/Imu"] == "sensor_msgs/msg/Imu"
    assert table["nerve/Image"] == "sensor_msgs/msg/Image"
    assert table["nerve/PointCloud2"] == "sensor_msgs/msg/PointCloud2"
    assert "nerve/Heartbeat" not in table  # nerve's own, with no ROS 2 counterpart


def test_imu_both_ways_against_the_reference_codec(domain: int) -> None:
    pub = nerve.Topic("w/imu", nerve.Imu).publisher()
    reader = _nerve.Ros2Reader("w/imu", domain=domain)
    decode, encode = codecs(reader)
    imu = nerve.Imu()
    imu.header.stamp_ns = 1_700_000_000_123_456_789
    imu.angular_velocity.z = 0.25
    imu.linear_acceleration.x = -9.81
    imu.orientation.w = 1.0
    pub.send(imu)
    cdr = reader.recv(2.0)
    assert cdr is not None
    ros = decode(cdr)
    assert (ros.header.stamp.sec, ros.header.stamp.nanosec) == (1_700_000_000, 123_456_789)
    assert ros.angular_velocity.z == 0.25 and ros.linear_acceleration.x == pytest.approx(-9.81)
    assert ros.orientation.w == 1.0
    assert reader.recv(0.05) is None  # nothing more

    # The reference encoder's bytes, published into nerve.
    writer = _nerve.Ros2Writer("w/imu_in", "sensor_msgs/msg/Imu", domain=domain)
    sub = nerve.Topic("w/imu_in", nerve.Imu).subscriber()
    ros.angular_velocity.x = 3.5
    writer.send(encode(ros))
    got = sub.recv(2.0)
    assert got is not None
    assert got.header.stamp_ns == 1_700_000_000_123_456_789
    assert (got.angular_velocity.x, got.angular_velocity.z) == (3.5, 0.25)
    assert got.orientation.w == 1.0


def test_an_image_both_ways_with_its_bytes(domain: int) -> None:
    pub = nerve.Topic("w/cam", nerve.Image).publisher()
    reader = _nerve.Ros2Reader("w/cam", domain=domain, history=0)
    decode, encode = codecs(reader)
    pixels = (np.arange(480 * 640 * 3) % 251).astype(np.uint8).reshape(480, 640, 3)
    loan = pub.loan_image(640, 480, "rgb8", stamp_ns=42, frame_id="cam")
    loan.data[:] = pixels
    loan.send()
    cdr = reader.recv(2.0)
    assert cdr is not None
    ros = decode(cdr)
    assert (ros.width, ros.height, ros.encoding, ros.step) == (640, 480, "rgb8", 1920)
    assert ros.header.frame_id == "cam"
    assert bytes(ros.data) == pixels.tobytes()

    writer = _nerve.Ros2Writer("w/cam_in", "Image", domain=domain)
    sub = nerve.Topic("w/cam_in", nerve.Image).subscriber()
    writer.send(encode(ros))
    img = sub.recv(2.0)
    assert img is not None
    assert img.header.width == 640 and img.header.height == 480
    assert np.array_equal(np.asarray(img.data).reshape(480, 640, 3), pixels)


def test_hostile_bytes_and_wrong_types_are_refused(domain: int) -> None:
    writer = _nerve.Ros2Writer("w/h", "Imu", domain=domain)
    sub = nerve.Topic("w/h", nerve.Imu).subscriber()
    for junk in [b"", b"\x00\x01\x00\x00", b"\xff" * 7, b"\x00\x01\x00\x00" + b"\x01" * 20]:
        with pytest.raises(nerve.Encode, match="w/h"):
            writer.send(junk)
    assert sub.try_recv() is None  # nothing was sent
    with pytest.raises(TypeError, match="carries nerve/Imu, not nerve/Image"):
        _nerve.Ros2Writer("w/h", "Image", domain=domain)
    with pytest.raises(ValueError, match="no standard type 'Nope'"):
        _nerve.Ros2Writer("w/x", "Nope", domain=domain)
    hb = nerve.Topic("w/hb", nerve.Heartbeat).publisher()
    with pytest.raises(TypeError, match="no ROS 2 form"):
        _nerve.Ros2Reader("w/hb", domain=domain)
    del hb
    with pytest.raises(nerve.NotFound):
        _nerve.Ros2Reader("w/absent", domain=domain)
