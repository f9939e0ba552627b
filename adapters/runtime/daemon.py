"""`memactors run`: the consolidation actors plus trigger actors, until a signal."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio

from memactors.actors.coordinator import Coordinator
from memactors.actors.inbox_reader import InboxReader
from memactors.actors.notes_watcher import NotesWatcher
from memactors.actors.ports import (
    ChangeFeed,
    Embedder,
    HookInbox,
    MemoryCounter,
    RunGate,
)
from memactors.actors.scheduler import Scheduler
from memactors.actors.threshold_watcher import ThresholdWatcher
from memactors.adapters.git.store import StoreError
from memactors.adapters.models.knn_warmup import KnnWarmup
from memactors.adapters.runtime.pipeline import Services, pipeline_children
from memactors.adapters.runtime.query_socket import Answer
from memactors.bus.bus import Bus
from memactors.bus.shutdown import watch_signals
from memactors.bus.supervisor import ChildSpec, Supervisor, describe
from memactors.events.pipeline import RunCompleted, RunFailed, RunRequested
from memactors.events.trigger import Drained, DrainRequested, TriggerFired

log = logging.getLogger("memactors.daemon")

#: What the embedding model is asked at start, only to load it (its vector is not kept).
WARM_UP_TEXT = "memactors warm-up"


@dataclass(frozen=True)
class DaemonSettings:
    """Timings of the trigger actors, fault handling, and the background warm-ups.

    `health_interval`: how often the repository's existence is checked (it is
    also checked after every failed run). `retry_base`/`retry_max`: back-off of
    runs after a failed one. `restart_backoff`: first delay before restarting a
    crashed actor (doubling, at most 30 s). `knn_warm_crossover`: a store with
    this many embedded memories gets pynndescent compiled in the background,
    and full kNN builds from this size use it once compiled.
    """

    debounce: float = 2.0
    quiet: float = 300.0
    max_delay: float = 30.0
    schedule_every: float = 24 * 3600.0
    #: a cron expression (local time zone) instead of `schedule_every`; its runs skip when nothing was captured
    schedule_cron: str | None = None
    inbox_interval: float = 1.0
    drain_timeout: float = 120.0
    threshold: int = 50
    threshold_interval: float = 30.0
    health_interval: float = 2.0
    retry_base: float = 5.0
    retry_max: float = 300.0
    restart_backoff: float = 1.0
    knn_warm_crossover: int = 10_000
    warm_model: bool = True
    serve_queries: bool = True


#: Work done around runs (the auto memory bridge): returns a line for the log.
Step = Callable[[], str]


async def _step(step: Step, when: str) -> None:
    try:
        said = await trio.to_thread.run_sync(step)
    except Exception as exc:  # noqa: BLE001 - the bridge is a side errand: runs go on without it
        log.warning("%s: %s", when, describe(exc))
    else:
        if said:
            log.info("%s", said)


class BeforeEachRun:
    """A `RunGate` that, once held for a run, first does `step` (in a worker thread): work every run starts
    with, under the run's lock. Without an inner gate it only does the step."""

    def __init__(self, gate: RunGate | None, step: Step) -> None:
        self._gate, self._step = gate, step
        self._held = False

    async def acquire(self) -> None:
        if self._gate is not None:
            await self._gate.acquire()
        if not self._held:
            self._held = True
            await _step(self._step, "before the run")

    def release(self) -> None:
        self._held = False
        if self._gate is not None:
            self._gate.release()


class RepositoryGone(StoreError):
    """The repository the daemon serves was deleted or moved: nothing left to serve."""


def repository_present(git_dir: Path, common_dir: Path) -> bool:
    """True while the repository still looks like one (HEAD and the object database are there)."""
    return (git_dir / "HEAD").is_file() and (common_dir / "objects").is_dir()


def _local_model(embedder: Embedder | None) -> Embedder | None:
    """The local MiniLM behind `embedder` (which loads lazily), or None: remote or no embeddings."""
    if embedder is None:
        return None
    from memactors.adapters.models.embeddings import LocalMiniLM

    inner = getattr(embedder, "inner", embedder)
    return inner if isinstance(inner, LocalMiniLM) else None


class Daemon:
    """The supervised pipeline plus notes watcher, inbox reader, scheduler, coordinator and
    (given a counter) the threshold watcher.

    `run` returns after `stop()` (or a first SIGINT/SIGTERM when it handles
    signals; `signalled_before` says one came before it did) once the run in
    flight has finished and persisted, or after `drain_timeout`; a second
    signal stops at once (refs stay at their old or new commits). It raises `RepositoryGone` within about
    `health_interval` of the repository being deleted or moved. Before the
    pipeline starts, the local embedding model is loaded (in a worker thread,
    abandoned if stopped); once a run saw a big store, pynndescent compiles
    in the background (see `KnnWarmup`). Given a `gate`, each run holds it
    while it runs, and only then. `before_run` runs (in a worker thread) once
    each run holds the gate, before it reads the store; `after_run` after a
    completed run that persisted (and after the first run); a failure of
    either is logged and the daemon goes on.
    """

    def __init__(self, services: Services, feed: ChangeFeed, inbox: HookInbox,
                 settings: DaemonSettings = DaemonSettings(), counter: MemoryCounter | None = None,
                 knn: KnnWarmup | None = None, gate: RunGate | None = None,
                 answer_query: Answer | None = None, before_run: Step | None = None,
                 after_run: Step | None = None) -> None:
        self.services = services
        self._after_run = after_run
        self._after_run_done = False
        if before_run is not None:
            gate = BeforeEachRun(gate, before_run)
        self._answer_query = answer_query  # recall for the query socket (none: the socket is not served)
        self.bus = Bus()
        self.settings = settings
        self.knn = knn or KnnWarmup(cold_crossover=services.settings.knn_crossover,
                                    warm_crossover=settings.knn_warm_crossover)
        self.gone: str | None = None
        self._stop = trio.Event()
        self._model_scope: trio.CancelScope | None = None
        self._nursery: trio.Nursery | None = None
        git = services.store.git
        self._git_dir, self._common_dir, self._where = git.git_dir, git.common_dir, git.description
        s = settings
        children = pipeline_children(services, crossover=self.knn.crossover) + [
            ChildSpec("coordinator", lambda bus: Coordinator(
                bus, services.clock, debounce=s.debounce, quiet=s.quiet, max_delay=s.max_delay,
                retry_base=s.retry_base, retry_max=s.retry_max, gate=gate)),
            ChildSpec("notes-watcher", lambda bus: NotesWatcher(bus, feed)),
            ChildSpec("inbox", lambda bus: InboxReader(bus, inbox, interval=s.inbox_interval)),
            ChildSpec("scheduler", lambda bus: self._scheduler(bus)),
        ]
        if counter is not None:
            children.append(ChildSpec("threshold", lambda bus: ThresholdWatcher(
                bus, counter, threshold=s.threshold, interval=s.threshold_interval)))
        self.supervisor = Supervisor(self.bus, children, max_restarts=5, within_seconds=60,
                                     backoff=s.restart_backoff, max_backoff=30.0)

    def stop(self) -> None:
        self._stop.set()
        if self._model_scope is not None:
            self._model_scope.cancel()

    async def _after_runs(self, outcomes: trio.MemoryReceiveChannel) -> None:
        async for event in outcomes:
            if isinstance(event, RunRequested):
                self.services.run_started()  # per-run LLM caps count from here
                continue
            if isinstance(event, RunFailed):
                await self._check_repository()  # a vanished repository fails runs first: stop, do not retry
                continue
            if event.report.phase != "completed":
                continue
            try:
                await self.services.run_completed()
            except Exception as exc:  # noqa: BLE001 - caches are an optimisation; the run itself is done
                log.warning("could not save local caches: %s", describe(exc))
            try:
                proposed = await self.services.propose_from_sessions()
            except Exception as exc:  # noqa: BLE001 - proposals are retried from the queue after the next run
                log.warning("could not read queued session transcripts: %s", describe(exc))
            else:
                if proposed is not None:
                    log.info("sessions read: %d proposed for review, %d blocked, %d already known",
                             proposed.queued, proposed.blocked, proposed.known)
            if self._after_run is not None and (event.report.persisted or not self._after_run_done):
                self._after_run_done = True
                await _step(self._after_run, "after the run")
            if self.knn.should_warm(event.report.memories_embedded) and self._nursery is not None:
                self._nursery.start_soon(self.knn.warm)

    async def _watch_repository(self) -> None:
        while True:
            await trio.sleep(self.settings.health_interval)
            await self._check_repository()

    async def _check_repository(self) -> None:
        if self.gone is not None:
            return
        if await trio.to_thread.run_sync(repository_present, self._git_dir, self._common_dir):
            return
        self.gone = f"the repository at {self._where} was deleted or moved"
        log.error("%s; stopping", self.gone)
        self._stop.set()
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()  # nothing to drain into: a run in flight cannot persist

    async def _warm_model(self) -> None:
        """Load the local embedding model now, not at the first new memory (~1.7 s measured)."""
        model = _local_model(self.services.embedder)
        if model is None or not self.settings.warm_model or self._stop.is_set():
            return
        # before any actor runs: the model is used from one thread at a time
        with trio.CancelScope() as self._model_scope:
            try:
                await trio.to_thread.run_sync(model.embed, [WARM_UP_TEXT], abandon_on_cancel=True)
            except Exception as exc:  # noqa: BLE001 - the run that needs it will report it properly
                log.warning("could not load the embedding model ahead of time: %s", describe(exc))
        self._model_scope = None

    async def _start_query_socket(self, nursery: trio.Nursery) -> None:
        """`recall` from the CLI answered here, with the model already loaded (a failure is logged, not fatal)."""
        from memactors.adapters.runtime.query_socket import serve_queries

        if self._answer_query is None:
            return
        git = self.services.store.git
        model = _local_model(self.services.embedder) or self.services.embedder
        try:
            await nursery.start(serve_queries, Path(git.repo.workdir or git.git_dir), self._common_dir, model,
                                self._answer_query)
        except OSError as exc:
            log.warning("recall will not be answered by the daemon (query socket: %s)", exc)


    def _scheduler(self, bus: Bus) -> Scheduler:
        """Every `schedule_every` seconds, or at the times `schedule_cron` names (then only after captures)."""
        s, services = self.settings, self.services
        if s.schedule_cron is None:
            return Scheduler(bus, every=s.schedule_every)
        from memactors.adapters.runtime.cron import CronSchedule, captured_since_last_run

        schedule = CronSchedule(s.schedule_cron, services.settings.zone(), services.clock)
        git = services.store.git

        def active() -> bool:
            return captured_since_last_run(git.common_dir, {ref: tip for ref in git.memory_refs().values()
                                                            if (tip := git.tip(ref)) is not None})

        return Scheduler(bus, next_delay=schedule.delay, active=active)
    async def run(self, *, handle_signals: bool = False, signalled_before: Callable[[], bool] = lambda: False,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        drained = self.bus.subscribe("daemon", (Drained,))
        outcomes = self.bus.subscribe("daemon-runs", (RunRequested, RunCompleted, RunFailed))
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                if handle_signals:
                    await nursery.start(partial(watch_signals, arrived_before=signalled_before),
                                        lambda _s: self.stop(), lambda _s: nursery.cancel_scope.cancel())
                nursery.start_soon(self._watch_repository)
                task_status.started()
                await self._warm_model()
                if not self._stop.is_set() and self.settings.serve_queries:
                    await self._start_query_socket(nursery)
                if not self._stop.is_set():
                    await nursery.start(self.supervisor.run)
                    nursery.start_soon(self._after_runs, outcomes)
                    await self.bus.publish(TriggerFired(kind="startup"))  # catch up with what happened while down
                    log.info("watching for memories; Ctrl-C stops after the run in flight")
                    await self._stop.wait()
                    await self.bus.publish(DrainRequested())
                    with trio.move_on_after(self.settings.drain_timeout):
                        await drained.receive()
                self.bus.close()
                nursery.cancel_scope.cancel()
        finally:
            self._nursery = None
            with trio.CancelScope(shield=True):
                # a vanished repository gets no caches written: saving would recreate its directories
                await self.services.aclose(keep_caches=self.gone is None)
        if self.gone is not None:
            raise RepositoryGone(self.gone)
