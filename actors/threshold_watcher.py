"""Threshold trigger: a run once N memories arrived since the last one, whatever the watcher saw."""

from __future__ import annotations

import logging

import trio

from memactors.actors.ports import MemoryCounter
from memactors.bus.actor import LoopActor
from memactors.bus.bus import Bus
from memactors.events.pipeline import Event, RunCompleted
from memactors.events.trigger import TriggerFired

log = logging.getLogger("memactors.daemon")


class ThresholdWatcher(LoopActor):
    """Counts memories every `interval` seconds; fires `TriggerFired("threshold")` once the count
    is `threshold` above what the last completed run processed (a backstop for file-system
    events a watcher can miss: network mounts, fetches into packed refs). A count that fails is
    logged once per streak and skipped: a backstop must not crash-loop on a broken store."""

    name = "threshold"
    subscribes = (RunCompleted,)
    publishes = (TriggerFired,)

    def __init__(self, bus: Bus, counter: MemoryCounter, *, threshold: int = 50, interval: float = 30.0) -> None:
        super().__init__(bus)
        self._counter = counter
        self._threshold = threshold
        self._interval = interval
        self._baseline: int | None = None
        self._fired = False
        self._failing = False

    async def run_loop(self) -> None:
        while True:
            await trio.sleep(self._interval)
            try:
                count = await trio.to_thread.run_sync(self._counter.count)
            except Exception as exc:  # noqa: BLE001 - whatever the store raises, the backstop waits
                if not self._failing:
                    log.warning("cannot count memories (%s: %s); will try again", type(exc).__name__, exc)
                self._failing = True
                continue
            self._failing = False
            if self._baseline is None:
                self._baseline = count
            elif not self._fired and count - self._baseline >= self._threshold:
                self._fired = True
                await self.bus.publish(TriggerFired(kind="threshold"))

    async def handle(self, event: Event) -> None:
        if isinstance(event, RunCompleted) and event.report.namespaces is None:
            self._baseline = event.report.memories_processed
            self._fired = False
