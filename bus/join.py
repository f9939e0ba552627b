"""Join several events of one run before acting on them."""

from __future__ import annotations

from collections.abc import Sequence

from memactors.bus.bus import Bus
from memactors.events.pipeline import RunEvent


class RunJoin:
    """Collects the events of each run until a complete set has arrived.

    `required` types are always awaited; `if_published` types only when
    some running actor declared it publishes them. That is how a later
    stage (say a supersession judge) slots in before an existing one
    without changing it.
    """

    def __init__(
        self,
        bus: Bus,
        required: Sequence[type[RunEvent]],
        if_published: Sequence[type[RunEvent]] = (),
    ) -> None:
        self._bus = bus
        self._required = tuple(required)
        self._if_published = tuple(if_published)
        self._pending: dict[str, dict[type[RunEvent], RunEvent]] = {}

    def add(self, event: RunEvent) -> dict[type[RunEvent], RunEvent] | None:
        """Record `event`; return the run's events by type once the set is complete."""
        slot = next(t for t in self._required + self._if_published if isinstance(event, t))
        got = self._pending.setdefault(event.run_id, {})
        got[slot] = event
        wanted = self._required + tuple(t for t in self._if_published if self._bus.has_publisher(t))
        if all(t in got for t in wanted):
            return self._pending.pop(event.run_id)
        return None

    def discard(self, run_id: str) -> None:
        """Forget a run (it failed or was abandoned)."""
        self._pending.pop(run_id, None)

    @property
    def pending_runs(self) -> int:
        return len(self._pending)
