"""Async nodes: subscriptions and timers on one asyncio event loop.

nerve adds one thing to asyncio: an awaitable receive. `await sub.recv_async()` (or
`async for msg in sub`) waits for the next message without blocking the event loop, so
nodes written as coroutines share one thread with timers, service calls and anything else
asyncio runs. Everything else is asyncio's own: `asyncio.sleep` for timers,
`asyncio.gather` to run nodes together, `asyncio.wait_for` for timeouts (a receive cancelled
by a timeout loses no message: one arriving meanwhile goes to the next receive).

Three nodes on one loop: a talker publishing on a 10 ms timer, a listener receiving, and a
heartbeat timer ticking beside them. Run it with:

    python examples/python/async_nodes/main.py
"""

import asyncio
import sys
from collections.abc import AsyncIterator

import nerve

COUNT = 20
TALK_PERIOD = 0.010
BEAT_PERIOD = 0.005


def check(ok: bool, what: str) -> None:
    """Stops the example with a non-zero exit code when `ok` is false."""
    if not ok:
        sys.exit(f"FAILED: {what}")


async def every(period: float) -> AsyncIterator[float]:
    """A timer: yields the planned time of each tick, on an absolute timeline (start +
    k * period), skipping the ticks missed while the loop was busy."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    k = 1
    while True:
        await asyncio.sleep(max(0.0, start + k * period - loop.time()))
        yield start + k * period
        k = max(k + 1, int((loop.time() - start) / period) + 1)


async def talker(pub: nerve.Publisher) -> list[nerve.Struct]:
    """A timer-driven node: publishes one command per tick."""
    sent: list[nerve.Struct] = []
    async for _ in every(TALK_PERIOD):
        msg = nerve.CmdVel(stamp_ns=len(sent), linear=0.1 * len(sent), angular=0.5)
        pub.send(msg)  # never blocks on a best-effort topic
        sent.append(msg)
        if len(sent) == COUNT:
            return sent
    return sent


async def listener(sub: nerve.Subscriber) -> list[nerve.Struct]:
    """A subscription-driven node: each `async for` step awaits sub.recv_async()."""
    got: list[nerve.Struct] = []
    async for msg in sub:
        got.append(msg)
        if len(got) == COUNT:
            break
    return got


async def heartbeat(stop: asyncio.Event) -> list[float]:
    """A second timer on the same loop, ticking until `stop` is set."""
    beats = []
    async for planned in every(BEAT_PERIOD):
        beats.append(planned)
        if stop.is_set():
            break
    return beats


async def main() -> None:
    topic = nerve.Topic("examples/async_nodes/cmd_vel", nerve.CmdVel, depth=64)
    sub, pub = topic.subscriber(), topic.publisher()

    # A receive with a timeout: nothing is published on this topic, so it times out.
    quiet = nerve.Topic("examples/async_nodes/quiet", nerve.CmdVel).subscriber()
    try:
        await asyncio.wait_for(quiet.recv_async(), timeout=0.05)
        check(False, "a message arrived on a topic nobody publishes")
    except TimeoutError:
        pass

    stop = asyncio.Event()

    async def listen_then_stop() -> list[nerve.Struct]:
        got = await listener(sub)
        stop.set()
        return got

    # The three nodes run together on this one thread; the whole run may take 30 s at most.
    sent, got, beats = await asyncio.wait_for(
        asyncio.gather(talker(pub), listen_then_stop(), heartbeat(stop)), timeout=30
    )

    check(got == sent, f"received {len(got)} messages, not the {len(sent)} sent")
    check(sub.stats().lost == 0, f"{sub.stats().lost} messages lost")
    # The heartbeat kept ticking while the listener waited (about 2 per talker period on an
    # idle machine; a busy loop skips the ticks it missed instead of bunching them up).
    check(len(beats) >= 3, f"only {len(beats)} heartbeats beside {COUNT} messages")
    for a, b in zip(beats, beats[1:], strict=False):
        periods = (b - a) / BEAT_PERIOD
        check(
            abs(periods - round(periods)) < 1e-6 and round(periods) >= 1,
            "heartbeats off the timeline",
        )

    print(
        f"talker sent {len(sent)}, listener received {len(got)}, heartbeat ticked "
        f"{len(beats)} times, one event loop"
    )
    print(
        f"ok: {COUNT} messages received with await (async for) beside a {BEAT_PERIOD * 1000:.0f}"
        f" ms timer on one asyncio loop, and a receive timed out by asyncio.wait_for"
    )


if __name__ == "__main__":
    asyncio.run(main())
