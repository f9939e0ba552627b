"""Join several events of one run before acting on them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, TypeVar

from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.events.pipeline import Event, RunEvent, RunFailed

E = TypeVar("E", bound=RunEvent)


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


class Joined:
    """A run's joined events, by type."""

    def __init__(self, events: dict[type[RunEvent], RunEvent]) -> None:
        self._events = events

    def __getitem__(self, kind: type[E]) -> E:
        return self._events[kind]  # type: ignore[return-value]

    def get(self, kind: type[E]) -> E | None:
        return self._events.get(kind)  # type: ignore[return-value]


class JoiningActor(Actor):
    """An actor that acts once per run, when all the events it `joins` for that run have arrived.

    `joins` are always awaited, `joins_if_published` only while some actor
    publishes them. A `RunFailed` drops the run's partial set. Subclasses
    implement `handle_run`.
    """

    joins: ClassVar[tuple[type[RunEvent], ...]] = ()
    joins_if_published: ClassVar[tuple[type[RunEvent], ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.subscribes = (*cls.joins, *cls.joins_if_published, RunFailed)

    def __init__(self, bus: Bus) -> None:
        super().__init__(bus)
        self._join = RunJoin(bus, required=self.joins, if_published=self.joins_if_published)

    async def handle(self, event: Event) -> None:
        if isinstance(event, RunFailed):
            self._join.discard(event.run_id)
            return
        assert isinstance(event, RunEvent)
        ready = self._join.add(event)
        if ready is not None:
            await self.handle_run(Joined(ready))

    async def handle_run(self, events: Joined) -> None:
        raise NotImplementedError
