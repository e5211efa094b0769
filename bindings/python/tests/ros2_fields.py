"""What the ROS 2 bridge tests compare of an Imu, for an rclpy one (in ros2_peer.py, ROS 2's
Python) and a nerve one (in the tests, nerve's): the same names on both sides."""

from __future__ import annotations

from typing import Any


def imu_fields(m: Any) -> dict[str, Any]:
    """Every field of an Imu but its header, as plain numbers."""
    def v3(v: Any, names: str = "xyz") -> list[float]:
        return [float(getattr(v, n)) for n in names]

    return {
        "orientation": v3(m.orientation, "xyzw"),
        "orientation_covariance": [float(x) for x in m.orientation_covariance],
        "angular_velocity": v3(m.angular_velocity),
        "angular_velocity_covariance": [float(x) for x in m.angular_velocity_covariance],
        "linear_acceleration": v3(m.linear_acceleration),
        "linear_acceleration_covariance": [float(x) for x in m.linear_acceleration_covariance],
    }
