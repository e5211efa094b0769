"""Real-time control: a loop at a fixed rate, reading a sensor topic and publishing commands.

A controller wakes every 10 ms on an absolute timeline (start + k * period, so one late tick
does not delay the ones after it), reads the newest IMU sample, computes a velocity command
and publishes it. It measures how late each wake-up was and reports the distribution: that is
what a control loop must watch (a late command acts on an old state).

The sensor topic is `latest_only`: a subscriber always gets the newest sample and never a
backlog, which is what a controller wants; the older samples it skipped are counted as lost.
The command topic keeps every message, and the "robot" side checks that it received each
command the controller sent, computed from a genuine sensor sample.

For a simple loop without lateness figures, `nerve.spin(node, rate_hz=100)` runs
`node.tick()` at a fixed rate and counts overruns. Run it with:

    python examples/python/realtime_control/main.py
"""

import statistics
import sys
import threading
import time

import nerve

RATE_HZ = 100
TICKS = 100  # one second of control
SENSOR_HZ = 400
GAIN = 0.5


def check(ok: bool, what: str) -> None:
    """Stops the example with a non-zero exit code when `ok` is false."""
    if not ok:
        sys.exit(f"FAILED: {what}")


def yaw_rate(seq: int) -> float:
    """What the simulated gyro measures at sample `seq`, rad/s: a triangle wave of steps
    that float32 (the message's field type) holds exactly, so it can be checked with ==."""
    return (seq % 64 - 32) / 32


def sensor(topic: nerve.Topic, stop: threading.Event) -> None:
    """A simulated IMU driver publishing at SENSOR_HZ until `stop` is set."""
    pub = topic.publisher()
    seq = 0
    while not stop.is_set():
        imu = nerve.Imu()
        imu.header.seq = seq  # nested messages are edited in place
        imu.header.stamp_ns = time.monotonic_ns()
        imu.header.frame_id = "imu"
        imu.angular_velocity.z = yaw_rate(seq)
        pub.send(imu)
        seq += 1
        time.sleep(1 / SENSOR_HZ)


def main() -> None:
    imu_topic = nerve.Topic("examples/realtime_control/imu", nerve.Imu, latest_only=True)
    cmd_topic = nerve.Topic("examples/realtime_control/cmd_vel", nerve.CmdVel, depth=256)
    imu_in = imu_topic.subscriber()
    robot = cmd_topic.subscriber()  # the motor driver's side, checked at the end
    cmd_out = cmd_topic.publisher()

    stop = threading.Event()
    driver = threading.Thread(target=sensor, args=(imu_topic, stop))
    driver.start()
    # Wait for the sensor before starting the clock (recv_deadline raises nerve.Timeout,
    # naming the topic, if nothing comes).
    first = imu_in.recv_deadline(5.0)

    period_ns = 1_000_000_000 // RATE_HZ
    latest = first
    sent = []  # (IMU seq used, command)
    lateness_ns: list[int] = []
    start = time.monotonic_ns()
    for k in range(1, TICKS + 1):
        wake_at = start + k * period_ns
        remaining = wake_at - time.monotonic_ns()
        if remaining > 0:
            time.sleep(remaining / 1e9)
        lateness_ns.append(time.monotonic_ns() - wake_at)

        # Read: try_recv() never blocks; None means no sample arrived since the last tick,
        # so the controller keeps using the previous one.
        imu = imu_in.try_recv()
        if imu is not None:
            latest = imu
        # Compute and publish: damp the measured yaw rate.
        z = latest.angular_velocity.z
        check(z == yaw_rate(latest.header.seq), f"IMU sample {latest.header.seq} is corrupt")
        cmd = nerve.CmdVel(stamp_ns=time.monotonic_ns(), linear=0.3, angular=-GAIN * z)
        cmd_out.send(cmd)
        sent.append((latest.header.seq, cmd))

    stop.set()
    driver.join()

    # The robot's side: every command arrived, in order, unchanged.
    received = []
    while (msg := robot.try_recv()) is not None:
        received.append(msg)
    check(received == [c for _, c in sent], f"robot got {len(received)} of {TICKS} commands")
    seqs = [s for s, _ in sent]
    check(seqs == sorted(seqs), "the controller went back to an older IMU sample")
    fresh = len(set(seqs))
    check(fresh >= TICKS // 4, f"only {fresh} distinct IMU samples used in {TICKS} ticks")

    late_us = sorted(n / 1000 for n in lateness_ns)
    p50 = statistics.median(late_us)
    p99 = late_us[int(0.99 * (len(late_us) - 1))]
    overruns = sum(1 for n in lateness_ns if n > period_ns)
    print(
        f"{TICKS} ticks at {RATE_HZ} Hz; wake-up lateness p50 {p50:.0f} us, "
        f"p99 {p99:.0f} us, max {late_us[-1]:.0f} us; {overruns} ticks a period late"
    )
    print(
        f"IMU: {imu_in.stats().received} samples read, {imu_in.stats().lost} skipped "
        "(latest_only keeps only the newest)"
    )
    print(
        f"ok: {TICKS} CmdVel commands at {RATE_HZ} Hz computed from {fresh} IMU samples, "
        f"all received by the robot; lateness p50 {p50:.0f} us, max {late_us[-1]:.0f} us"
    )


if __name__ == "__main__":
    main()
