"""Scheduled runs by a cron expression in the user's time zone, skipped when nothing was captured."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest
import trio
import trio.testing

from memactors.actors.scheduler import Scheduler
from memactors.adapters.system.clock import FixedClock
from memactors.adapters.runtime.cron import BadSchedule, CronSchedule, captured_since_last_run
from memactors.bus.bus import Bus
from memactors.bus.supervisor import ChildSpec, Supervisor
from memactors.events.trigger import TriggerFired
from tests.conftest import Repo, git, run_cli


def test_the_next_run_is_read_in_the_users_time_zone_across_a_daylight_saving_change() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    # Saturday 28 March 2026, 12:00 in Berlin (UTC+1); clocks go forward that night
    clock = FixedClock(datetime(2026, 3, 28, 11, 0, tzinfo=timezone.utc))
    schedule = CronSchedule("0 3 * * *", berlin, clock)
    assert schedule.next_time() == datetime(2026, 3, 29, 3, 0, tzinfo=berlin)
    # 03:00 CEST is 01:00 UTC: 14 hours after 11:00 UTC
    assert schedule.delay() == 14 * 3600


@pytest.mark.parametrize("expression", ["0 3 * *", "61 3 * * *", "every day", "0 3 * * * *"])
def test_a_bad_expression_is_refused_with_an_example(expression: str) -> None:
    with pytest.raises(BadSchedule, match="0 3 \\* \\* \\*"):
        CronSchedule(expression, timezone.utc, FixedClock(datetime(2026, 1, 1, tzinfo=timezone.utc)))


def test_run_with_a_bad_schedule_exits_2_in_one_line(repo: Repo) -> None:
    repo.commit("base")
    done = run_cli("run", "--schedule", "0 3 * *", "--repo", str(repo.path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--schedule" in done.stderr and "Traceback" not in done.stderr


def test_captures_since_the_last_run_are_told_by_the_memory_refs(repo: Repo) -> None:
    repo.commit("base")
    repo.capture("decisions", "Use trio for the actors", "Structured concurrency.")

    def tips() -> dict[str, str]:
        refs = git(repo.path, "for-each-ref", "--format=%(refname) %(objectname)", "refs/notes/mem/").stdout
        return dict(line.split() for line in refs.splitlines())

    common = repo.path / ".git"
    assert captured_since_last_run(common, tips())  # no run yet
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    assert not captured_since_last_run(common, tips())
    repo.capture("learnings", "Retries must be idempotent", "Found in production.")
    assert captured_since_last_run(common, tips())


async def _fired_in(hours: float, active: bool) -> list[float]:
    bus = Bus()
    fired = bus.subscribe("test", (TriggerFired,))
    times: list[float] = []
    async with trio.open_nursery() as nursery:
        supervisor = Supervisor(bus, [ChildSpec("scheduler", lambda b: Scheduler(
            b, next_delay=lambda: 3600.0, active=lambda: active))])
        await nursery.start(supervisor.run)

        async def collect() -> None:
            async for event in fired:
                times.append(trio.current_time())

        nursery.start_soon(collect)
        await trio.sleep(hours * 3600 + 1)
        nursery.cancel_scope.cancel()
    return times


@pytest.fixture
def patient_clock() -> trio.testing.MockClock:
    """Trio's mock clock, jumping only once nothing has run for 50 ms: the scheduler asks whether anything was
    captured in a worker thread, which an instant jump would overtake."""
    return trio.testing.MockClock(autojump_threshold=0.05)


async def test_a_scheduled_run_fires_at_each_time_only_after_captures(patient_clock: trio.testing.MockClock) -> None:
    assert len(await _fired_in(3, active=True)) == 3
    assert await _fired_in(3, active=False) == []
