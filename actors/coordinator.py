"""Coordinator: turns triggers into runs — debounced, coalesced, one at a time."""

from __future__ import annotations

import logging
import math

import trio

from memactors.actors.ports import Clock, RunGate
from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.events.pipeline import Event, RunCompleted, RunFailed, RunRequested, new_run_id
from memactors.events.trigger import Drained, DrainRequested, InboxConsumed, TriggerFired

log = logging.getLogger("memactors.daemon")


class Coordinator(Actor):
    """Decides when the daemon runs.

    - `notes`, `commit`, `session-end`, `schedule`: a run once triggers have
      been quiet for `debounce` seconds, but no later than `max_delay` after
      the first of them (a burst cannot postpone its run forever).
    - `stop` (an agent turn ended) is activity: alone, it waits for `quiet`
      seconds without further triggers; any other trigger takes it along.
    - One run at a time; triggers during a run make one follow-up run.
    - After a completed run, the hook files it covered are released
      (`InboxConsumed`); a run that lost a race is requested again.
    - A run that failed otherwise (disk full, repository unreadable) is
      retried with its triggers, but no run starts before `retry_base *
      2**(failures-1)` seconds (at most `retry_max`) after the last failure:
      a fault that persists costs one attempt every few minutes, never a hot loop.
    - `consolidate` (a `memactors consolidate` handed over by the command line): a run
      as soon as none is in flight, no debounce.
    - Given a `gate`, a run starts only once this process holds it (another process's run
      finishes first) and gives it back when the run ends: the daemon holds the repository
      only while it runs.
    - `DrainRequested`: start nothing more, answer `Drained` when idle.
    Timing uses trio's clock, so tests drive it with an autojump clock.
    """

    name = "coordinator"
    subscribes = (TriggerFired, RunCompleted, RunFailed, DrainRequested)
    publishes = (RunRequested, InboxConsumed, Drained)

    def __init__(self, bus: Bus, clock: Clock, *, debounce: float = 2.0, quiet: float = 300.0,
                 max_delay: float = 30.0, retry_base: float = 5.0, retry_max: float = 300.0,
                 gate: RunGate | None = None) -> None:
        super().__init__(bus)
        self._gate = gate
        self._clock = clock
        self._debounce, self._quiet, self._max_delay = debounce, quiet, max_delay
        self._retry_base, self._retry_max = retry_base, retry_max
        self._failures = 0
        self._not_before = -math.inf  # after a failed run: no run before this (trio time)
        self._kinds: set[str] = set()
        self._full = False
        self._paths: list[str] = []
        self._first = math.inf
        self._due = math.inf
        self._running: str | None = None
        self._running_paths: list[str] = []
        self._running_full = False
        self._draining = False
        self.runs_started = 0

    async def serve(self, inbox: trio.MemoryReceiveChannel[Event]) -> None:
        try:
            await self._serve(inbox)
        finally:
            if self._gate is not None:
                self._gate.release()

    async def _serve(self, inbox: trio.MemoryReceiveChannel[Event]) -> None:
        while True:
            event: Event | None = None
            idle = self._running is None and not self._draining
            with trio.move_on_at(self._start_at if idle else math.inf):
                try:
                    event = await inbox.receive()
                except trio.EndOfChannel:
                    return
            if event is not None:
                await self.handle(event)
            if self._running is None and not self._draining and trio.current_time() >= self._start_at:
                await self._start()

    @property
    def _start_at(self) -> float:
        """When the pending triggers start a run (inf: none pending)."""
        return max(self._due, self._not_before) if self._due < math.inf else math.inf

    async def handle(self, event: Event) -> None:
        now = trio.current_time()
        if isinstance(event, TriggerFired):
            self._kinds.add(event.kind)
            self._full |= event.full
            self._paths.extend(event.inbox_paths)
            self._first = min(self._first, now)
            if event.kind == "consolidate":
                self._due = now
            elif self._kinds == {"stop"}:
                self._due = now + self._quiet
            else:
                self._due = min(now + self._debounce, self._first + self._max_delay)
        elif isinstance(event, (RunCompleted, RunFailed)) and event.run_id == self._running:
            self._finished(event)
            if isinstance(event, RunCompleted) and self._running_paths:
                await self.bus.publish(InboxConsumed(inbox_paths=tuple(self._running_paths), report=event.report))
            self._running, self._running_paths, self._running_full = None, [], False
            if self._gate is not None:
                self._gate.release()
            if self._draining:
                await self.bus.publish(Drained())
        elif isinstance(event, DrainRequested):
            self._draining = True
            if self._running is None:
                await self.bus.publish(Drained())

    async def _start(self) -> None:
        if self._gate is not None:
            await self._gate.acquire()
        started = self._clock.now()
        request = RunRequested(run_id=new_run_id(started), trigger="+".join(sorted(self._kinds)),
                               started_at=started, full=self._full)
        self._running, self._running_paths, self._running_full = request.run_id, self._paths, self._full
        self._kinds, self._full, self._paths = set(), False, []
        self._first = self._due = math.inf
        self.runs_started += 1
        await self.bus.publish(request)

    def _finished(self, event: RunCompleted | RunFailed) -> None:
        if isinstance(event, RunCompleted):
            self._failures, self._not_before = 0, -math.inf
            r = event.report
            log.info("run %s (%s): %d memories, %d summaries, %d newly superseded, %d llm requests (%d failed), "
                     "%s, %.2f s", r.run_id, r.trigger, r.memories_processed, r.summaries_created,
                     r.supersessions_detected, r.token_usage.llm_calls, r.token_usage.llm_failed,
                     "persisted" if r.persisted else "nothing changed", r.duration_seconds)
            for stage, setting in r.stages_off.items():
                log.info("run %s: %s off (%s)", r.run_id, stage.replace("_", " "), setting)
            for error in r.errors:
                log.warning("run %s: %s", r.run_id, error)
            return
        now = trio.current_time()
        delay = self._debounce
        if not event.conflict:  # the environment failed it: back off before the next attempt
            self._failures += 1
            delay = min(self._retry_max, self._retry_base * 2 ** (self._failures - 1))
            self._not_before = now + delay
        log.warning("run %s failed in %s: %s; %s in %.3g s", event.run_id, event.actor, event.error,
                    "retrying on the new state" if event.conflict else "trying again", delay)
        # the failed run's triggers are still owed a run (and its hook files their release)
        self._kinds.add("retry")
        self._full |= self._running_full
        self._paths = self._running_paths + self._paths
        self._first = min(self._first, now)
        self._due = min(self._due, now + self._debounce)
