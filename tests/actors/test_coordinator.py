"""When the daemon runs, driven by trio's autojump clock instead of real sleeps."""

from __future__ import annotations

import trio
import trio.testing

from memactors.actors.coordinator import Coordinator
from memactors.adapters.system.clock import FixedClock
from memactors.bus.bus import Bus
from memactors.bus.supervisor import ChildSpec, Supervisor
from memactors.events.pipeline import RunCompleted, RunRequested
from memactors.events.report import RunReport
from memactors.events.trigger import Drained, DrainRequested, InboxConsumed, TriggerFired
from tests.conftest import NOW


class World:
    """A bus with a coordinator and a pretend pipeline that takes `run_seconds` per run."""

    def __init__(self, run_seconds: float = 3.0, processed=lambda: 0) -> None:
        self.processed = processed
        self.bus = Bus()
        self.requests = self.bus.subscribe("test-requests", (RunRequested,))
        self.consumed = self.bus.subscribe("test-consumed", (InboxConsumed, Drained))
        self.run_seconds = run_seconds
        self.started: list[tuple[float, RunRequested]] = []

    async def pipeline(self) -> None:
        async for request in self.requests:
            self.started.append((trio.current_time(), request))
            await trio.sleep(self.run_seconds)
            report = RunReport(run_id=request.run_id, trigger=request.trigger, started_at=NOW, phase="completed",
                               memories_processed=self.processed())
            await self.bus.publish(RunCompleted(run_id=request.run_id, report=report))

    async def start(self, nursery: trio.Nursery, **options: float) -> None:
        supervisor = Supervisor(self.bus, [ChildSpec("coordinator", lambda bus: Coordinator(
            bus, FixedClock(NOW), **options))])
        await nursery.start(supervisor.run)
        nursery.start_soon(self.pipeline)


async def test_stop_events_are_coalesced_until_the_session_goes_quiet(autojump_clock: trio.testing.MockClock) -> None:
    world = World()
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=2, quiet=300)
        for _ in range(5):  # five agent turns, a minute apart
            await world.bus.publish(TriggerFired(kind="stop"))
            await trio.sleep(60)
        assert world.started == []
        await trio.sleep(300)
        assert [r.trigger for _, r in world.started] == ["stop"]
        assert 240 + 300 - 1 <= world.started[0][0] <= 240 + 300 + 1
        nursery.cancel_scope.cancel()


async def test_session_end_runs_soon_and_takes_pending_stops_along(autojump_clock: trio.testing.MockClock) -> None:
    world = World()
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=2, quiet=300)
        await world.bus.publish(TriggerFired(kind="stop", inbox_paths=("a",)))
        await trio.sleep(10)
        await world.bus.publish(TriggerFired(kind="session-end", inbox_paths=("b",)))
        await trio.sleep(20)
        assert [r.trigger for _, r in world.started] == ["session-end+stop"]
        assert (await world.consumed.receive()).inbox_paths == ("a", "b")
        nursery.cancel_scope.cancel()


async def test_a_burst_of_500_captures_makes_a_bounded_number_of_runs(autojump_clock: trio.testing.MockClock) -> None:
    world = World(run_seconds=3)
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=2, max_delay=30)
        for _ in range(500):  # 500 captures in 10 seconds
            await world.bus.publish(TriggerFired(kind="notes"))
            await trio.sleep(0.02)
        await trio.sleep(60)
        assert 1 <= len(world.started) <= 3
        last_start = world.started[-1][0]
        assert last_start >= 10  # the burst's end was covered by a run
        nursery.cancel_scope.cancel()


async def test_triggers_during_a_run_make_exactly_one_follow_up(autojump_clock: trio.testing.MockClock) -> None:
    world = World(run_seconds=20)
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=2)
        await world.bus.publish(TriggerFired(kind="commit"))
        await trio.sleep(5)
        for _ in range(10):
            await world.bus.publish(TriggerFired(kind="notes"))
        await trio.sleep(100)
        assert [r.trigger for _, r in world.started] == ["commit", "notes"]
        assert world.started[1][0] >= world.started[0][0] + 20
        nursery.cancel_scope.cancel()


async def test_a_drain_waits_for_the_run_in_flight_and_starts_nothing_more(autojump_clock: trio.testing.MockClock) -> None:
    world = World(run_seconds=20)
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=2)
        await world.bus.publish(TriggerFired(kind="schedule", full=True))
        await trio.sleep(5)
        await world.bus.publish(TriggerFired(kind="notes"))
        await world.bus.publish(DrainRequested())
        drained = await world.consumed.receive()
        assert isinstance(drained, Drained) and trio.current_time() >= 22
        await trio.sleep(100)
        assert len(world.started) == 1 and world.started[0][1].full
        nursery.cancel_scope.cancel()


class GrowingStore:
    """A MemoryCounter adapter for the test: the count the test says."""

    def __init__(self) -> None:
        self.memories = 100

    def count(self) -> int:
        return self.memories


async def test_the_threshold_fires_once_per_n_new_memories() -> None:
    """Real (short) time: the counter runs in a worker thread, which an autojump clock would skip past."""
    from memactors.actors.threshold_watcher import ThresholdWatcher

    store = GrowingStore()
    world = World(run_seconds=0.01, processed=lambda: store.memories)
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=0.01)
        supervisor = Supervisor(world.bus, [ChildSpec("threshold", lambda bus: ThresholdWatcher(
            bus, store, threshold=50, interval=0.05))])
        await nursery.start(supervisor.run)
        await trio.sleep(0.3)  # baseline 100
        store.memories = 140
        await trio.sleep(0.3)
        assert world.started == []
        store.memories = 160
        with trio.fail_after(5):
            while not world.started:
                await trio.sleep(0.05)
        assert [r.trigger for _, r in world.started] == ["threshold"]
        await trio.sleep(0.3)
        assert len(world.started) == 1  # the run processed 160: that is the new baseline
        store.memories = 215
        await trio.sleep(0.6)
        assert len(world.started) == 2  # 55 more: once more, not every interval
        nursery.cancel_scope.cancel()


class FailingWorld(World):
    """A pretend pipeline whose runs fail (the disk is full) until `healthy` is set."""

    def __init__(self) -> None:
        super().__init__(run_seconds=1)
        self.healthy = False

    async def pipeline(self) -> None:
        from memactors.events.pipeline import RunFailed

        async for request in self.requests:
            self.started.append((trio.current_time(), request))
            await trio.sleep(self.run_seconds)
            if self.healthy:
                report = RunReport(run_id=request.run_id, trigger=request.trigger, started_at=NOW, phase="completed")
                await self.bus.publish(RunCompleted(run_id=request.run_id, report=report))
            else:
                await self.bus.publish(RunFailed(run_id=request.run_id, actor="persister",
                                                 error="OSError: No space left on device"))


async def test_failed_runs_are_retried_with_back_off_whatever_triggers_arrive(
        autojump_clock: trio.testing.MockClock) -> None:
    world = FailingWorld()
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=2, max_delay=3, retry_base=5, retry_max=40)
        await world.bus.publish(TriggerFired(kind="commit", inbox_paths=("hook",)))
        for _ in range(300):  # a capture every second for five minutes: no run may follow each one
            await world.bus.publish(TriggerFired(kind="notes"))
            await trio.sleep(1)
        starts = [t for t, _ in world.started]
        gaps = [round(b - a) for a, b in zip(starts, starts[1:])]
        assert gaps[:4] == [1 + 5, 1 + 10, 1 + 20, 1 + 40] and set(gaps[4:]) == {1 + 40}
        assert world.started[0][1].trigger == "commit+notes" and "retry" in world.started[1][1].trigger
        world.healthy = True
        await trio.sleep(60)
        assert (await world.consumed.receive()).inbox_paths == ("hook",)  # released by the run that completed
        recovered = len(world.started)
        await world.bus.publish(TriggerFired(kind="notes"))
        await trio.sleep(5)
        assert len(world.started) == recovered + 1
        assert world.started[-1][0] - world.started[-2][0] < 40  # success reset the back-off: debounce only
        nursery.cancel_scope.cancel()


class BrokenThenFixedCounter:
    """A MemoryCounter over a real path: a repository that does not exist yet, then does."""

    def __init__(self, path) -> None:
        from memactors.adapters.git.memory_counter import StoreCounter

        self.inner = StoreCounter(path, "refs/notes/mem")

    def count(self) -> int:
        return self.inner.count()


async def test_the_threshold_backstop_survives_a_store_it_cannot_read(tmp_path, git_env, caplog) -> None:
    """Real (short) time, as above: the counter runs in a worker thread."""
    import subprocess

    from memactors.actors.threshold_watcher import ThresholdWatcher
    from tests.conftest import Repo

    path = tmp_path / "later"
    world = World(run_seconds=0.01, processed=lambda: 0)
    async with trio.open_nursery() as nursery:
        await world.start(nursery, debounce=0.01)
        supervisor = Supervisor(world.bus, [ChildSpec("threshold", lambda bus: ThresholdWatcher(
            bus, BrokenThenFixedCounter(path), threshold=1, interval=0.05))])
        await nursery.start(supervisor.run)
        await trio.sleep(0.5)  # about ten failed counts
        assert supervisor.restarts["threshold"] == 0
        assert sum("cannot count memories" in r.getMessage() for r in caplog.records) == 1
        subprocess.run(["git", "init", "-q", str(path)], check=True)
        repo = Repo(path)
        repo.commit("initial")
        await trio.sleep(0.3)  # baseline 0
        repo.capture("decisions", "Counted once the store exists")
        with trio.fail_after(10):
            while not world.started:
                await trio.sleep(0.05)
        assert [r.trigger for _, r in world.started] == ["threshold"]
        nursery.cancel_scope.cancel()
