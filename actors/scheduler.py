"""Scheduler: a full run every `every` seconds, or when a schedule says (a cron expression's next time),
skipped when nothing was captured since the last run."""

from __future__ import annotations

import logging
from collections.abc import Callable

import trio

from memactors.bus.actor import LoopActor
from memactors.bus.bus import Bus
from memactors.events.trigger import TriggerFired

log = logging.getLogger("memactors.daemon")


class Scheduler(LoopActor):
    """Publishes `TriggerFired("schedule", full=True)` every `every` seconds of trio time, or after each
    `next_delay()` seconds (the adapter's schedule); with `active`, only when it says something was captured
    since the last run (called in a worker thread: it reads the store). Cancelled while it waits, it
    publishes nothing."""

    name = "scheduler"
    publishes = (TriggerFired,)

    def __init__(self, bus: Bus, *, every: float | None = None, next_delay: Callable[[], float] | None = None,
                 active: Callable[[], bool] | None = None) -> None:
        super().__init__(bus)
        if (every is None) == (next_delay is None):
            raise ValueError("give the scheduler either every or next_delay")
        self._delay = next_delay if next_delay is not None else (lambda: every)
        self._active = active

    async def run_loop(self) -> None:
        while True:
            await trio.sleep(self._delay())
            if self._active is not None and not await trio.to_thread.run_sync(self._active):
                log.info("scheduled run skipped: nothing was captured since the last run")
                continue
            await self.bus.publish(TriggerFired(kind="schedule", full=True))
