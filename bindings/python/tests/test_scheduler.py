"""Python nodes on nerve's Rust scheduler: rates, lifecycle, failure and miss policies, the
e-stop, statistics, and the GIL released between ticks."""

from __future__ import annotations

import threading
import time

import nerve
import pytest


class Counter(nerve.Node):
    def __init__(self) -> None:
        self.ticks: list[int] = []
        self.calls: list[str] = []

    def init(self, ctx: nerve.TickContext) -> None:
        self.calls.append("init")

    def tick(self, ctx: nerve.TickContext) -> None:
        self.ticks.append(ctx.tick)
        assert 0 <= ctx.planned <= ctx.now + 1e-3

    def shutdown(self, ctx: nerve.TickContext) -> None:
        self.calls.append("shutdown")


def stats_of(s: nerve.Scheduler, name: str) -> dict:
    return next(x for x in s.stats() if x["name"] == name)


def test_a_python_node_ticks_at_its_rate_with_its_lifecycle(domain: int) -> None:
    s = nerve.Scheduler()
    c = Counter()
    s.add(c, rate=200.0)
    assert s.run(0.5) == "elapsed"
    assert c.calls == ["init", "shutdown"]
    # Ticks are numbered from 0, in order, none skipped; ~100 in 0.5 s at 200 Hz.
    assert c.ticks == list(range(len(c.ticks)))
    assert 80 <= len(c.ticks) <= 102, len(c.ticks)
    st = stats_of(s, "Counter")
    assert st["ticks"] == len(c.ticks) and st["panics"] == 0
    assert 160 <= st["achieved_hz"] <= 210, st


def test_an_exception_follows_the_nodes_failure_policy(domain: int) -> None:
    class Flaky(nerve.Node):
        def __init__(self) -> None:
            self.n = 0
            self.inits = 0

        def init(self, ctx: nerve.TickContext) -> None:
            self.inits += 1

        def tick(self, ctx: nerve.TickContext) -> None:
            self.n += 1
            if self.n % 10 == 0:
                raise ValueError(f"tick {self.n} refused")

    # skip: counted, the node goes on
    s = nerve.Scheduler()
    f = Flaky()
    s.add(f, rate=200.0, on_error="skip")
    assert s.run(0.3) == "elapsed"
    assert stats_of(s, "Flaky")["panics"] == f.n // 10 >= 4
    # restart: init again, up to max, then fatal
    s = nerve.Scheduler()
    f = Flaky()
    s.add(f, rate=500.0, on_error=("restart", 2, 0.001))
    with pytest.raises(nerve.SchedulerError, match=r'node "Flaky" panicked: ValueError: tick 30 '
                                                   r"refused"):
        s.run(2.0)
    assert f.inits == 3 and stats_of(s, "Flaky")["restarts"] == 2
    # fatal (the default): the run stops at once, naming the node, the exception and its line
    s = nerve.Scheduler()
    s.add(Flaky(), rate=500.0)
    t0 = time.perf_counter()
    with pytest.raises(nerve.SchedulerError, match=r"ValueError: tick 10 refused \(File .*"
                                                   r"test_scheduler.py"):
        s.run(5.0)
    assert time.perf_counter() - t0 < 2.0


def test_deadline_misses_are_counted_and_can_stop_the_run(domain: int) -> None:
    class Slow(nerve.Node):
        def tick(self, ctx: nerve.TickContext) -> None:
            if ctx.tick % 5 == 4:
                time.sleep(0.02)

    s = nerve.Scheduler()
    s.add(Slow(), rate=50.0, deadline=0.005)
    s.run(0.5)
    st = stats_of(s, "Slow")
    assert st["misses"] >= 3, st
    assert st["lateness_max_ns"] > 0
    s = nerve.Scheduler()
    s.add(Slow(), rate=50.0, deadline=0.005, on_miss="stop")
    with pytest.raises(nerve.SchedulerError, match='node "Slow" missed its deadline'):
        s.run(2.0)


def test_a_budget_overrun_is_enforced(domain: int) -> None:
    class Heavy(nerve.Node):
        def tick(self, ctx: nerve.TickContext) -> None:
            time.sleep(0.004)

    s = nerve.Scheduler()
    s.add(Heavy(), rate=50.0, budget=0.001)  # within its deadline (one period), over budget
    s.run(0.3)
    st = stats_of(s, "Heavy")
    assert st["budget_overruns"] >= 10 and st["misses"] == 0, st
    s = nerve.Scheduler()
    s.add(Heavy(), rate=50.0, budget=0.001, on_budget="stop")
    with pytest.raises(nerve.SchedulerError, match=r'node "Heavy" used .* over its budget of 1ms'):
        s.run(2.0)


def test_the_gil_is_released_between_ticks(domain: int) -> None:
    """A Python thread keeps running while the scheduler runs a 100 Hz Python node."""
    progress = 0
    stop = threading.Event()

    def background() -> None:
        nonlocal progress
        while not stop.is_set():
            progress += 1
            time.sleep(0.001)

    t = threading.Thread(target=background)
    t.start()
    s = nerve.Scheduler()
    c = Counter()
    s.add(c, rate=100.0)
    before = progress
    s.run(0.5)
    during = progress - before
    stop.set()
    t.join()
    assert during >= 100, during  # ~1 ms sleeps for 0.5 s: it was never starved
    assert len(c.ticks) >= 40


def test_the_estop_puts_every_node_in_its_safe_state(domain: int) -> None:
    class Bumper(nerve.Node):
        def tick(self, ctx: nerve.TickContext) -> None:
            if ctx.tick == 3:
                ctx.trigger_estop("bumper pressed")

    class Motor(nerve.Node):
        def __init__(self) -> None:
            self.safe = 0
            self.seen = False

        def tick(self, ctx: nerve.TickContext) -> None:
            self.seen = self.seen or ctx.estop_triggered

        def on_safe_state(self, ctx: nerve.TickContext) -> None:
            self.safe += 1

    s = nerve.Scheduler()
    m = Motor()
    s.add(Bumper(), rate=100.0)
    s.add(m, rate=100.0)
    s.run(0.3)
    assert m.safe == 1


def test_an_estop_triggered_from_outside_reaches_the_scheduler(domain: int) -> None:
    """`nerve.trigger_remote_estop` (Rust's `trigger_remote_estop`, C's `nerve_estop_trigger`)
    from another process: the scheduler on `nerve/estop` puts its node in its safe state."""
    import subprocess
    import sys

    code = f"import nerve; nerve.trigger_remote_estop('operator', domain={domain})"

    class Motor(nerve.Node):
        def __init__(self) -> None:
            self.safe = 0
            self.child: subprocess.Popen | None = None

        def tick(self, ctx: nerve.TickContext) -> None:
            if ctx.tick == 5:
                self.child = subprocess.Popen([sys.executable, "-c", code])

        def on_safe_state(self, ctx: nerve.TickContext) -> None:
            self.safe += 1

    s = nerve.Scheduler(domain=domain, estop_topic=True)
    m = Motor()
    s.add(m, rate=100.0)
    s.run(3.0)
    assert m.child is not None and m.child.wait(timeout=30) == 0
    assert m.safe == 1
    with pytest.raises(TypeError):
        nerve.trigger_remote_estop(3)  # type: ignore[arg-type]


def test_bad_arguments_are_refused_clearly(domain: int) -> None:
    s = nerve.Scheduler()
    with pytest.raises(TypeError, match="has none"):
        s.add(object())
    with pytest.raises(ValueError, match="rate: 0 is out of range; expected Hz"):
        s.add(Counter(), rate=0.0)
    # Absurd numbers are refused where they are given, never a panic in a conversion.
    with pytest.raises(ValueError, match="rate: 1e-300 is out of range"):
        s.add(Counter(), rate=1e-300)
    with pytest.raises(ValueError, match="deadline: 1e300 is out of range"):
        s.add(Counter(), name="d", rate=10.0, deadline=1e300)
    with pytest.raises(ValueError, match="on_error backoff: 1e300 is out of range"):
        s.add(Counter(), name="b", rate=10.0, on_error=("restart", 3, 1e300))
    s.add(Counter(), rate=10.0)
    with pytest.raises(ValueError, match='a node named "Counter" was added already'):
        s.add(Counter(), rate=10.0)
    s.add(Counter(), name="second", rate=10.0)
    with pytest.raises(ValueError, match="on_miss is"):
        s.add(Counter(), name="x", on_miss="explode")
    with pytest.raises(TypeError, match="on_error is"):
        s.add(Counter(), name="y", on_error=3)
    with pytest.raises(ValueError, match="deadline: -1 is out of range; expected seconds greater"):
        s.add(Counter(), name="z", deadline=-1.0)
    assert s.run(0.05) == "elapsed"
    assert {x["name"] for x in s.stats()} == {"Counter", "second"}
    with pytest.raises(RuntimeError, match="already ran"):
        s.run(0.05)


def test_stop_ends_a_run_from_another_thread(domain: int) -> None:
    s = nerve.Scheduler()
    c = Counter()
    s.add(c, rate=100.0)
    threading.Timer(0.2, s.stop).start()
    t0 = time.perf_counter()
    assert s.run() == "requested"  # no duration: only stop() ends it
    assert 0.15 < time.perf_counter() - t0 < 2.0
    assert c.calls == ["init", "shutdown"] and len(c.ticks) >= 10
    early = nerve.Scheduler()
    early.add(Counter(), rate=100.0)
    early.stop()
    assert early.run(5.0) == "requested"


def test_compute_spin_starts_ticks_on_time_and_bad_values_are_refused(domain: int) -> None:
    """With `compute_spin` the compute lane spins before each planned start instead of leaving
    the start to the kernel's wake-up: the median start lateness drops from tens of µs to a
    few. Measured in alternating runs of the same node; the spin's own figure is bounded, and
    the two medians compared (a host that wakes threads late makes the gap only wider)."""
    def median_lateness(spin: float | None) -> float:
        late: list[float] = []

        class Late(nerve.Node):
            def tick(self, ctx: nerve.TickContext) -> None:
                late.append(ctx.now - ctx.planned)

        s = nerve.Scheduler(compute_spin=spin)
        s.add(Late(), rate=200.0)
        s.run(0.3)
        late.sort()
        return late[len(late) // 2]

    plain, spun = [], []
    for _ in range(2):
        plain.append(median_lateness(None))
        spun.append(median_lateness(0.0002))
    assert min(spun) < 20e-6, spun
    assert min(spun) < min(plain), (spun, plain)
    with pytest.raises(ValueError, match="compute_spin: -0.001 is out of range; expected seconds"):
        nerve.Scheduler(compute_spin=-0.001)
    nerve.Scheduler(compute_spin=0)  # zero: no spin, the default
