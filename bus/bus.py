"""Route events by type to subscribers over bounded trio memory channels."""

from __future__ import annotations

import logging
from collections.abc import Iterable

import trio

from memactors.events.pipeline import Event

log = logging.getLogger(__name__)


class Bus:
    """A typed publish/subscribe hub.

    Guarantees:
    - Every subscriber has its own bounded inbox (`capacity` events);
      `publish` waits while an inbox is full (backpressure, no unbounded
      buffer) and delivers in publication order per subscriber.
    - Routing is by `isinstance`: subscribing to a base class receives
      every subclass.
    - An event nobody subscribed to is dropped.
    - After `close()`, inboxes yield what is already queued and then end;
      `publish` becomes a no-op that returns False. If a publisher is
      cancelled while waiting on a full inbox, the event may have reached
      some subscribers and not others.
    """

    def __init__(self, capacity: int = 64) -> None:
        self._capacity = capacity
        self._subscribers: list[tuple[str, tuple[type[Event], ...], trio.MemorySendChannel[Event]]] = []
        self._publishers: dict[type[Event], set[str]] = {}
        self._closed = False

    def subscribe(self, name: str, types: Iterable[type[Event]]) -> trio.MemoryReceiveChannel[Event]:
        """A new inbox receiving every future event that is an instance of one of `types`."""
        if self._closed:
            raise trio.ClosedResourceError("bus is closed")
        send, receive = trio.open_memory_channel[Event](self._capacity)
        self._subscribers.append((name, tuple(types), send))
        return receive

    def declare_publisher(self, name: str, types: Iterable[type[Event]]) -> None:
        """Record that `name` may publish `types` (lets joins know what to wait for)."""
        for event_type in types:
            self._publishers.setdefault(event_type, set()).add(name)

    def has_publisher(self, event_type: type[Event]) -> bool:
        """True when some running actor declared that it publishes `event_type`."""
        return bool(self._publishers.get(event_type))

    @property
    def closed(self) -> bool:
        return self._closed

    async def publish(self, event: Event) -> bool:
        """Deliver `event` to every matching inbox; False if the bus is closed."""
        if self._closed:
            log.debug("bus closed, dropped %s", type(event).__name__)
            return False
        for name, types, send in list(self._subscribers):
            if isinstance(event, types):
                try:
                    await send.send(event)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    log.debug("inbox of %s is gone, dropped %s", name, type(event).__name__)
        return True

    def close(self) -> None:
        """Stop accepting events; subscribers drain what is queued, then their inboxes end."""
        self._closed = True
        for _, _, send in self._subscribers:
            send.close()
