from __future__ import annotations

import pytest
import trio
import trio.testing

from memactors.bus.actor import Actor, LoopActor
from memactors.bus.bus import Bus
from memactors.bus.join import RunJoin
from memactors.bus.supervisor import ChildSpec, Restart, Supervisor, SupervisorGaveUp, root_cause
from memactors.events.pipeline import Event, RunEvent, RunFailed, SupersessionsJudged


class Ping(RunEvent):
    n: int = 0


class Pong(RunEvent):
    n: int = 0


async def test_events_route_by_type_including_subclasses() -> None:
    bus = Bus()
    pings = bus.subscribe("pings", (Ping,))
    runs = bus.subscribe("runs", (RunEvent,))
    await bus.publish(Ping(run_id="a"))
    await bus.publish(Pong(run_id="b"))
    assert pings.receive_nowait() == Ping(run_id="a")
    with pytest.raises(trio.WouldBlock):
        pings.receive_nowait()
    assert [runs.receive_nowait().run_id, runs.receive_nowait().run_id] == ["a", "b"]


async def test_publish_waits_while_an_inbox_is_full() -> None:
    bus = Bus(capacity=2)
    inbox = bus.subscribe("slow", (Ping,))
    await bus.publish(Ping(run_id="1"))
    await bus.publish(Ping(run_id="2"))
    with trio.move_on_after(0.2) as scope:
        await bus.publish(Ping(run_id="3"))
    assert scope.cancelled_caught
    assert inbox.receive_nowait().run_id == "1"


async def test_close_lets_subscribers_drain_then_ends_their_inbox() -> None:
    bus = Bus()
    inbox = bus.subscribe("s", (Ping,))
    await bus.publish(Ping(run_id="queued"))
    bus.close()
    assert await bus.publish(Ping(run_id="late")) is False
    assert [event.run_id async for event in inbox] == ["queued"]


class Flaky(Actor):
    name = "flaky"
    subscribes = (Ping,)
    publishes = (Pong,)

    async def handle(self, event: Event) -> None:
        assert isinstance(event, Ping)
        if event.n < 0:
            raise ValueError("bad ping")
        await self.bus.publish(Pong(run_id=event.run_id, n=event.n))


async def test_a_crashed_actor_reports_the_run_failed_and_is_restarted_on_the_same_inbox() -> None:
    bus = Bus()
    out = bus.subscribe("test", (Pong, RunFailed))
    supervisor = Supervisor(bus, [ChildSpec("flaky", Flaky)], max_restarts=3, within_seconds=60)
    async with trio.open_nursery() as nursery:
        await nursery.start(supervisor.run)
        await bus.publish(Ping(run_id="r1", n=-1))
        await bus.publish(Ping(run_id="r2", n=2))
        failed = await out.receive()
        pong = await out.receive()
        bus.close()
    assert isinstance(failed, RunFailed) and failed.run_id == "r1" and "bad ping" in failed.error
    assert pong == Pong(run_id="r2", n=2)
    assert supervisor.restarts["flaky"] == 1


async def test_the_supervisor_gives_up_when_the_restart_budget_is_spent() -> None:
    bus = Bus()
    supervisor = Supervisor(bus, [ChildSpec("flaky", Flaky)], max_restarts=2, within_seconds=60)
    with pytest.RaisesGroup(SupervisorGaveUp, flatten_subgroups=True, allow_unwrapped=True):
        async with trio.open_nursery() as nursery:
            await nursery.start(supervisor.run)
            for i in range(5):
                await bus.publish(Ping(run_id=f"r{i}", n=-1))
            await trio.sleep_forever()


async def test_a_temporary_child_is_not_restarted() -> None:
    bus = Bus()
    supervisor = Supervisor(bus, [ChildSpec("flaky", Flaky, Restart.TEMPORARY)])
    async with trio.open_nursery() as nursery:
        await nursery.start(supervisor.run)
        await bus.publish(Ping(run_id="r", n=-1))
        await trio.sleep(0.05)
        bus.close()
    assert supervisor.restarts["flaky"] == 0


def test_a_join_waits_for_optional_events_only_when_someone_publishes_them() -> None:
    bus = Bus()
    join = RunJoin(bus, required=(Ping,), if_published=(SupersessionsJudged,))
    assert join.add(Ping(run_id="a")) is not None
    bus.declare_publisher("judge", (SupersessionsJudged,))
    assert join.add(Ping(run_id="b")) is None
    done = join.add(SupersessionsJudged(run_id="b", superseded_by={}))
    assert done is not None and set(done) == {Ping, SupersessionsJudged}
    assert join.pending_runs == 0


class CannotStart(LoopActor):
    """Fails as soon as it starts, as a watcher of a deleted directory does."""

    name = "cannot-start"

    async def run_loop(self) -> None:
        raise FileNotFoundError("/gone/.git")


@pytest.mark.parametrize(("backoff", "gives_up_at"), [(0.0, 0.0), (1.0, 1 + 2 + 4)])
async def test_restarts_back_off_so_a_child_failing_at_start_cannot_spin(
        autojump_clock: trio.testing.MockClock, backoff: float, gives_up_at: float) -> None:
    bus = Bus()
    supervisor = Supervisor(bus, [ChildSpec("watcher", CannotStart)], max_restarts=3, within_seconds=60,
                            backoff=backoff)
    with pytest.RaisesGroup(SupervisorGaveUp, flatten_subgroups=True, allow_unwrapped=True) as caught:
        async with trio.open_nursery() as nursery:
            await nursery.start(supervisor.run)
            await trio.sleep_forever()
    assert trio.current_time() == gives_up_at and supervisor.restarts["watcher"] == 3
    message = str(root_cause(caught.value))
    assert "crashed 4 times" in message and "FileNotFoundError: /gone/.git" in message  # the cause, not a group
