"""How every ROS 2 (rclpy) process of nerve's benchmarks is configured, in one place: Fast DDS
with the large-message / shared-memory profile next to this file, and rclpy's fastest executor.

Call ``configure()`` before ``import rclpy``. It points ``FASTDDS_DEFAULT_PROFILES_FILE`` at
``fastdds_large_messages.xml`` (a 16 MiB shared-memory segment, 4 MiB messages: with Fast
DDS's default 512 KiB segment a 921 KB frame goes over UDP, ~12 ms a hop here instead of
~2 ms), unless the caller named a profile already. Only the participant's transports come
from the file: ``RMW_FASTRTPS_USE_QOS_FROM_XML`` stays unset, so publishers and subscriptions
keep the QoS the program asks rclpy for. ``fields()`` is what a row says about it."""

from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "fastdds_large_messages.xml")


def configure(*, udp_only: bool = False) -> None:
    """Before ``import rclpy``: Fast DDS as rmw, with the large-message profile.
    ``udp_only``: builtin UDPv4 transport and no profile (two hosts that happen to share a
    kernel, which must not meet in shared memory)."""
    os.environ.setdefault("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
    if udp_only:
        os.environ.setdefault("FASTDDS_BUILTIN_TRANSPORTS", "UDPv4")
        return
    if not (os.environ.get("FASTDDS_DEFAULT_PROFILES_FILE")
            or os.environ.get("FASTRTPS_DEFAULT_PROFILES_FILE")):
        os.environ["FASTDDS_DEFAULT_PROFILES_FILE"] = PROFILE


def profile() -> str:
    """The Fast DDS configuration this process runs with, for the rows."""
    f = (os.environ.get("FASTDDS_DEFAULT_PROFILES_FILE")
         or os.environ.get("FASTRTPS_DEFAULT_PROFILES_FILE"))
    builtin = os.environ.get("FASTDDS_BUILTIN_TRANSPORTS")
    if f:
        name = os.path.basename(f)
        if os.path.abspath(f) == PROFILE:
            name += " (SHM segment 16 MiB, messages 4 MiB)"
        return name + (f", builtin {builtin}" if builtin else "")
    return f"Fast DDS default, builtin {builtin}" if builtin else "Fast DDS default"


def executor(kind: str = "events"):  # noqa: ANN201 (rclpy's types)
    """``(executor, name)``: ``events`` is rclpy's ``EventsExecutor`` where this rclpy has
    it (else the ``SingleThreadedExecutor``), ``single`` the ``SingleThreadedExecutor``."""
    if kind != "single":
        try:
            from rclpy.experimental import EventsExecutor

            return EventsExecutor(), "EventsExecutor"
        except ImportError:
            pass
    from rclpy.executors import SingleThreadedExecutor

    return SingleThreadedExecutor(), "SingleThreadedExecutor"


def fields(executor_name: str) -> dict:
    """The row fields that say how this ROS 2 peer ran."""
    return {"dds_profile": profile(), "executor": executor_name}
