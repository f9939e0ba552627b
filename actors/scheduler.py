"""Scheduler: a full run every `every` seconds."""

from __future__ import annotations

import trio

from memactors.bus.actor import LoopActor
from memactors.bus.bus import Bus
from memactors.events.trigger import TriggerFired


class Scheduler(LoopActor):
    """Publishes `TriggerFired("schedule", full=True)` every `every` seconds of trio time."""

    name = "scheduler"
    publishes = (TriggerFired,)

    def __init__(self, bus: Bus, *, every: float) -> None:
        super().__init__(bus)
        self._every = every

    async def run_loop(self) -> None:
        while True:
            await trio.sleep(self._every)
            await self.bus.publish(TriggerFired(kind="schedule", full=True))
