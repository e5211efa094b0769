"""The async API in Python is asyncio's own plus nerve's awaitable receive.

Rust's ``aio`` module maps one to one onto what asyncio already has, so nerve adds nothing
but ``Subscriber.recv_async`` / ``async for``:

==========================  ========================================================
Rust (``nerve::exec::aio``)  Python
==========================  ========================================================
``sub.next().await``         ``await sub.recv_async()`` / ``async for msg in sub``
``sleep(d).await``           ``await asyncio.sleep(d)``
``interval(p)`` (stream)     an async generator over ``asyncio.sleep`` (below)
``select!``                  ``asyncio.wait(..., return_when=FIRST_COMPLETED)``
``join!``                    ``asyncio.gather(...)``
==========================  ========================================================
"""

import asyncio

import nerve


async def interval(period: float):
    """Ticks on an absolute timeline (start + k·period); missed ticks are skipped."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    k = 1
    while True:
        await asyncio.sleep(max(0.0, start + k * period - loop.time()))
        yield start + k * period
        k = max(k + 1, int((loop.time() - start) / period) + 1)


def test_subscription_timer_and_publisher_in_one_gather(domain):
    t = nerve.Topic("aio/cmd", nerve.CmdVel, depth=64)
    p, s = t.publisher(), t.subscriber()

    async def publish():
        n = 0
        async for _ in interval(0.01):
            p.send(nerve.CmdVel(stamp_ns=n))
            n += 1
            if n == 5:
                return n

    async def receive():
        got = []
        async for m in s:
            got.append(m.stamp_ns)
            if len(got) == 5:
                return got

    async def tick(stop: asyncio.Event):
        planned = []
        async for at in interval(0.005):
            planned.append(at)
            if stop.is_set():
                return planned

    async def main():
        stop = asyncio.Event()

        async def receive_then_stop():
            got = await receive()
            stop.set()
            return got

        return await asyncio.wait_for(
            asyncio.gather(publish(), receive_then_stop(), tick(stop)), 10
        )

    sent, got, planned = asyncio.run(main())
    assert sent == 5
    assert got == [0, 1, 2, 3, 4]
    # The timer ran beside the receive: ~50 ms of 5 ms ticks, each planned one period apart
    # (or a whole number of periods where the loop was busy).
    assert len(planned) >= 3
    for a, b in zip(planned, planned[1:], strict=False):
        k = (b - a) / 0.005
        assert abs(k - round(k)) < 1e-6 and round(k) >= 1


def test_select_between_a_message_and_a_timeout(domain):
    t = nerve.Topic("aio/select", nerve.CmdVel, depth=8)
    p, s = t.publisher(), t.subscriber()

    async def first_of(timeout: float):
        recv = asyncio.ensure_future(s.recv_async())
        timer = asyncio.ensure_future(asyncio.sleep(timeout))
        done, pending = await asyncio.wait({recv, timer}, return_when=asyncio.FIRST_COMPLETED)
        for f in pending:
            f.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        return recv.result().stamp_ns if recv in done else "timeout"

    async def main():
        nothing = await first_of(0.05)
        asyncio.get_running_loop().call_later(0.02, p.send, nerve.CmdVel(stamp_ns=7))
        message = await first_of(5.0)
        return nothing, message

    assert asyncio.run(main()) == ("timeout", 7)
    # The receive cancelled by the first timeout did not swallow a message.
    p.send(nerve.CmdVel(stamp_ns=8))
    assert s.recv(timeout=1.0).stamp_ns == 8
