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


class Supervisor:
    """Runs every child in one nursery; restarts crashed children within a budget.

    Each child's inbox is subscribed once, before `run` reports started,
    so no event published after that is missed, and a restarted child
    resumes on the same inbox (only the event it crashed on is lost, and
    its run has been told through `RunFailed`). Exceeding the budget
    raises `SupervisorGaveUp`, which cancels every child. `run` returns
    when every child has returned, i.e. after `bus.close()` and drain.
    """

    def __init__(
        self,
        bus: Bus,
        children: Sequence[ChildSpec],
        *,
        max_restarts: int = 3,
        within_seconds: float = 5.0,
    ) -> None:
        self.bus = bus
        self.children = tuple(children)
        self.max_restarts = max_restarts
        self.within_seconds = within_seconds
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
            try:
                await actor.serve(inbox)
            except Exception as exc:
                log.error("actor %s crashed: %s: %s", spec.name, type(exc).__name__, exc)
                if spec.restart is Restart.TEMPORARY:
                    return
                now = trio.current_time()
                while crashes and now - crashes[0] > self.within_seconds:
                    crashes.popleft()
                if len(crashes) >= self.max_restarts:
                    raise SupervisorGaveUp(
                        f"actor {spec.name} crashed {len(crashes) + 1} times within "
                        f"{self.within_seconds:g} s"
                    ) from exc
                crashes.append(now)
            else:
                if spec.restart is not Restart.PERMANENT or self.bus.closed:
                    return
            self.restarts[spec.name] += 1
            log.info("restarting actor %s", spec.name)
            actor = spec.factory(self.bus)
