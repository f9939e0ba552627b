"""`memactors run`: the consolidation actors plus trigger actors, until a signal."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import trio

from memactors.actors.coordinator import Coordinator
from memactors.actors.inbox_reader import InboxReader
from memactors.actors.notes_watcher import NotesWatcher
from memactors.actors.ports import ChangeFeed, HookInbox, MemoryCounter
from memactors.actors.scheduler import Scheduler
from memactors.actors.threshold_watcher import ThresholdWatcher
from memactors.adapters.runtime import Services, pipeline_children
from memactors.bus.bus import Bus
from memactors.bus.shutdown import watch_signals
from memactors.bus.supervisor import ChildSpec, Supervisor
from memactors.events.pipeline import RunCompleted
from memactors.events.trigger import DrainRequested, Drained, TriggerFired

log = logging.getLogger("memactors.daemon")


@dataclass(frozen=True)
class DaemonSettings:
    debounce: float = 2.0
    quiet: float = 300.0
    max_delay: float = 30.0
    schedule_every: float = 24 * 3600.0
    inbox_interval: float = 1.0
    drain_timeout: float = 120.0
    threshold: int = 50
    threshold_interval: float = 30.0


class Daemon:
    """The supervised pipeline plus notes watcher, inbox reader, scheduler, coordinator and
    (given a counter) the threshold watcher.

    `run` returns after `stop()` (or a first SIGINT/SIGTERM when it handles
    signals) once the run in flight has finished and persisted, or after
    `drain_timeout`; a second signal stops at once (refs stay at their old
    or new commits).
    """

    def __init__(self, services: Services, feed: ChangeFeed, inbox: HookInbox,
                 settings: DaemonSettings = DaemonSettings(), counter: MemoryCounter | None = None) -> None:
        self.services = services
        self.bus = Bus()
        self.settings = settings
        self._stop = trio.Event()
        s = settings
        children = pipeline_children(services) + [
            ChildSpec("coordinator", lambda bus: Coordinator(bus, services.clock, debounce=s.debounce,
                                                              quiet=s.quiet, max_delay=s.max_delay)),
            ChildSpec("notes-watcher", lambda bus: NotesWatcher(bus, feed)),
            ChildSpec("inbox", lambda bus: InboxReader(bus, inbox, interval=s.inbox_interval)),
            ChildSpec("scheduler", lambda bus: Scheduler(bus, every=s.schedule_every)),
        ]
        if counter is not None:
            children.append(ChildSpec("threshold", lambda bus: ThresholdWatcher(
                bus, counter, threshold=s.threshold, interval=s.threshold_interval)))
        self.supervisor = Supervisor(self.bus, children, max_restarts=5, within_seconds=60)

    async def _after_runs(self, completed: trio.MemoryReceiveChannel) -> None:
        async for event in completed:
            if event.report.phase == "completed":
                await self.services.run_completed()

    def stop(self) -> None:
        self._stop.set()

    async def run(self, *, handle_signals: bool = False,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        drained = self.bus.subscribe("daemon", (Drained,))
        completed = self.bus.subscribe("daemon-runs", (RunCompleted,))
        try:
            async with trio.open_nursery() as nursery:
                if handle_signals:
                    await nursery.start(watch_signals, lambda _s: self.stop(),
                                        lambda _s: nursery.cancel_scope.cancel())
                await nursery.start(self.supervisor.run)
                nursery.start_soon(self._after_runs, completed)
                await self.bus.publish(TriggerFired(kind="startup"))  # catch up with what happened while down
                log.info("watching for memories; Ctrl-C stops after the run in flight")
                task_status.started()
                await self._stop.wait()
                await self.bus.publish(DrainRequested())
                with trio.move_on_after(self.settings.drain_timeout):
                    await drained.receive()
                self.bus.close()
                nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await self.services.aclose(keep_caches=True)
