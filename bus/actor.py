"""The actor base class: an inbox, a handler, and nothing shared."""

from __future__ import annotations

import logging
from typing import ClassVar

import trio

from memactors.bus.bus import Bus
from memactors.events.pipeline import Event, RunEvent, RunFailed

log = logging.getLogger(__name__)


class Actor:
    """Owns its state, reads its inbox, publishes events; never calls another actor.

    Subclasses set `subscribes` (what lands in the inbox) and `publishes`
    (declared so joins know what to wait for) and implement `handle`.
    If `handle` raises on a run event, the actor first publishes
    `RunFailed` for that run (with `needs_user` when the exception says
    so through a true `needs_user` attribute), then the exception
    propagates so the supervisor can restart a fresh instance on the same
    inbox.
    """

    name: ClassVar[str] = "actor"
    subscribes: ClassVar[tuple[type[Event], ...]] = ()
    publishes: ClassVar[tuple[type[Event], ...]] = ()

    def __init__(self, bus: Bus) -> None:
        self.bus = bus

    async def handle(self, event: Event) -> None:
        raise NotImplementedError

    async def serve(self, inbox: trio.MemoryReceiveChannel[Event]) -> None:
        """Handle events until the inbox ends (the bus closed and the queue drained)."""
        async for event in inbox:
            try:
                await self.handle(event)
            except Exception as exc:
                if isinstance(event, RunEvent) and not isinstance(event, RunFailed):
                    needs_user = str(exc).strip().splitlines()[0] if getattr(exc, "needs_user", False) else None
                    await self.bus.publish(
                        RunFailed(run_id=event.run_id, actor=self.name, error=_describe(exc), needs_user=needs_user)
                    )
                raise


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class LoopActor(Actor):
    """An actor that also runs a loop of its own (watching, scheduling) beside its inbox.

    The loop is cancelled when the inbox ends (the bus closed). A loop that
    raises crashes the actor like a failing handler does.
    """

    async def run_loop(self) -> None:
        raise NotImplementedError

    async def handle(self, event: Event) -> None:
        """Loop actors that subscribe to nothing never get here."""

    async def serve(self, inbox: trio.MemoryReceiveChannel[Event]) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.run_loop)
            await super().serve(inbox)
            nursery.cancel_scope.cancel()
