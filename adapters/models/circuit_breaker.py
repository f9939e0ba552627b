"""A circuit breaker for one LLM provider, in trio time.

After `threshold` consecutive failed requests the breaker opens for
`cooldown` seconds: requests in flight are cancelled and new ones refused,
so a dead provider costs a few failures, not one per question. A failure
that no retry can fix (no key, not logged in, the command missing) opens
it at once.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import trio

from memactors.actors.ports import LLMUnavailable

log = logging.getLogger(__name__)


class CircuitBreaker:
    """Counts consecutive failures of one provider; `guard()` wraps each request in flight.

    Not thread-safe: one trio run uses it. `refuse_if_open` raises LLMUnavailable
    (requests=0) while open; `guard` yields a cancel scope that opening cancels.
    """

    def __init__(self, provider: str, *, threshold: int = 5, cooldown: float = 30.0) -> None:
        self.provider = provider
        self.threshold = threshold
        self.cooldown = cooldown
        self.failures = 0
        self.reason = ""
        self._open_until = -1.0
        self._in_flight: set[trio.CancelScope] = set()

    def refuse_if_open(self) -> None:
        if trio.current_time() < self._open_until:
            why = self.reason or f"circuit open after {self.failures} failed requests"
            raise LLMUnavailable(f"{self.provider}: {why}")

    def failed(self, *, fatal: str | None = None) -> None:
        """One more request without an answer. `fatal` (why no retry can help) opens the breaker at once."""
        self.failures += 1
        if fatal is not None:
            self.reason = fatal
            self._open(fatal, quietly=True)
        elif self.failures >= self.threshold and trio.current_time() >= self._open_until:
            self.reason = ""
            self._open(f"{self.failures} requests failed in a row")

    def succeeded(self) -> None:
        self.failures = 0
        self.reason = ""

    def _open(self, why: str, *, quietly: bool = False) -> None:
        self._open_until = trio.current_time() + self.cooldown
        # a fatal reason reaches the user through every fallback it causes; a storm of failures is news
        log.log(logging.INFO if quietly else logging.WARNING, "%s: %s; no more requests for %.0f s",
                self.provider, why, self.cooldown)
        for scope in self._in_flight:
            scope.cancel()

    @contextlib.contextmanager
    def guard(self) -> Iterator[trio.CancelScope]:
        """A scope for one request in flight: opening the breaker cancels it (check `cancelled_caught`)."""
        with trio.CancelScope() as scope:
            self._in_flight.add(scope)
            try:
                yield scope
            finally:
                self._in_flight.discard(scope)
