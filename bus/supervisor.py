"""Supervise actors: one nursery, a restart policy per child, a restart budget."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import trio

from memactors.bus.actor import Actor
from memactors.bus.bus import Bus

log = logging.getLogger(__name__)


class Restart(StrEnum):
    """When a child is started again.

    PERMANENT: after a crash, and after it returns while the bus is open.
    TRANSIENT: after a crash only.
    TEMPORARY: never.
    """

    PERMANENT = "permanent"
    TRANSIENT = "transient"
    TEMPORARY = "temporary"


@dataclass(frozen=True)
class ChildSpec:
    """How to make one supervised actor; `factory` builds a fresh instance per (re)start."""

    name: str
    factory: Callable[[Bus], Actor]
    restart: Restart = Restart.PERMANENT


class SupervisorGaveUp(RuntimeError):
    """A child crashed more than `max_restarts` times within `within_seconds`."""


def root_cause(exc: BaseException) -> BaseException:
    """The first leaf of (possibly nested) exception groups: what actually went wrong."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """`Type: first line` of the root cause, for one-line logs and messages."""
    cause = root_cause(exc)
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[0]}" if lines else type(cause).__name__


class Supervisor:
    """Runs every child in one nursery; restarts crashed children within a budget.

    Each child's inbox is subscribed once, before `run` reports started,
    so no event published after that is missed, and a restarted child
    resumes on the same inbox (only the event it crashed on is lost, and
    its run has been told through `RunFailed`). Exceeding the budget
    raises `SupervisorGaveUp`, which cancels every child. `run` returns
    when every child has returned, i.e. after `bus.close()` and drain.
    With `backoff` > 0 the n-th crash within the window waits
    `backoff * 2**(n-1)` seconds (at most `max_backoff`) before the restart,
    so a child that fails at once on start cannot spin through its budget.
    """

    def __init__(
        self,
        bus: Bus,
        children: Sequence[ChildSpec],
        *,
        max_restarts: int = 3,
        within_seconds: float = 5.0,
        backoff: float = 0.0,
        max_backoff: float = 30.0,
    ) -> None:
        self.bus = bus
        self.children = tuple(children)
        self.max_restarts = max_restarts
        self.within_seconds = within_seconds
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.restarts: dict[str, int] = {spec.name: 0 for spec in self.children}

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        inboxes = []
        for spec in self.children:
            probe = spec.factory(self.bus)
            self.bus.declare_publisher(spec.name, probe.publishes)
            inboxes.append((spec, self.bus.subscribe(spec.name, probe.subscribes), probe))
        async with trio.open_nursery() as nursery:
            for spec, inbox, first in inboxes:
                nursery.start_soon(self._keep, spec, inbox, first, name=f"actor:{spec.name}")
            task_status.started()

    async def _keep(self, spec: ChildSpec, inbox: trio.MemoryReceiveChannel, actor: Actor) -> None:
        crashes: deque[float] = deque()
        while True:
            delay = 0.0
            try:
                await actor.serve(inbox)
            except Exception as exc:
                log.error("actor %s crashed: %s", spec.name, describe(exc))
                if spec.restart is Restart.TEMPORARY:
                    return
                now = trio.current_time()
                while crashes and now - crashes[0] > self.within_seconds:
                    crashes.popleft()
                if len(crashes) >= self.max_restarts:
                    raise SupervisorGaveUp(
                        f"actor {spec.name} crashed {len(crashes) + 1} times within "
                        f"{self.within_seconds:g} s; last: {describe(exc)}"
                    ) from exc
                crashes.append(now)
                if self.backoff > 0:
                    delay = min(self.max_backoff, self.backoff * 2 ** (len(crashes) - 1))
            else:
                if spec.restart is not Restart.PERMANENT or self.bus.closed:
                    return
            self.restarts[spec.name] += 1
            if delay:
                log.info("restarting actor %s in %.3g s", spec.name, delay)
                await trio.sleep(delay)  # its inbox keeps what arrives meanwhile (bounded: publishers wait)
            else:
                log.info("restarting actor %s", spec.name)
            actor = spec.factory(self.bus)
