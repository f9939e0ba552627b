"""Notes watcher: a change to any memory ref becomes a trigger."""

from __future__ import annotations

from memactors.actors.ports import ChangeFeed
from memactors.bus.actor import LoopActor
from memactors.bus.bus import Bus
from memactors.events.trigger import TriggerFired


class NotesWatcher(LoopActor):
    """Publishes `TriggerFired("notes")` for each batch of changes the feed reports."""

    name = "notes-watcher"
    publishes = (TriggerFired,)

    def __init__(self, bus: Bus, feed: ChangeFeed) -> None:
        super().__init__(bus)
        self._feed = feed

    async def run_loop(self) -> None:
        async for _ in self._feed.changes():
            await self.bus.publish(TriggerFired(kind="notes"))
