"""Compose adapters and actors into a running pipeline and drive runs through it.

`consolidate` is what `memactors consolidate` does; the daemon starts the
same `pipeline_children` under the same supervisor.
"""

from __future__ import annotations

import logging
from functools import partial
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from memactors.actors.clusterer import Clusterer
from memactors.actors.judge import SupersessionJudge
from memactors.actors.link_finder import LinkFinder
from memactors.actors.persister import Persister
from memactors.actors.ports import Clock, CommitFileReader, Embedder, ReadModelSink, StateSink, StructuredLLM
from memactors.actors.scanner import Scanner
from memactors.actors.summarizer import Summarizer
from memactors.actors.tierer import Tierer
from memactors.adapters.claude.activation_log import ActivationLog
from memactors.adapters.git.commit_files import CACHE_FILE as COMMIT_FILES_CACHE
from memactors.adapters.git.commit_files import CommitFiles
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import StoreError
from memactors.adapters.reading.read_cache import ReadCache
from memactors.adapters.reading.traits_cache import TraitsCache
from memactors.adapters.runtime.gc_tuning import tune_gc  # noqa: F401 - re-exported for the benchmarks
from memactors.adapters.runtime.settings import Settings
from memactors.bus.bus import Bus
from memactors.bus.shutdown import watch_signals
from memactors.bus.supervisor import ChildSpec, Supervisor
from memactors.events.pipeline import RunCompleted, RunFailed, RunRequested, new_run_id
from memactors.events.report import RunReport

log = logging.getLogger(__name__)

class RunNeedsUser(StoreError):
    """A run stopped on something only the user can fix; the message says what, in one line."""

    needs_user = True


#: How often a run that lost a compare-and-swap race starts over on the new state.
CONFLICT_RETRIES = 3


@dataclass(frozen=True)
class RunOptions:
    """What a caller asks of one consolidation run."""

    trigger: str = "manual"
    namespaces: tuple[str, ...] | None = None
    dry_run: bool = False
    full: bool = False


@dataclass
class Services:
    """The adapters one pipeline runs on. `embedder` None runs without the semantic stages;
    `llm` None summarizes and judges offline; `read_cache` None keeps no recall index;
    `activations` None folds no recall uses; `traits` (what each memory's content says) lives in
    memory unless given a directory."""

    store: MemoryStore
    settings: Settings
    clock: Clock
    embedder: Embedder | None = None
    llm: StructuredLLM | None = None
    read_cache: ReadModelSink | None = None
    activations: ActivationLog | None = None
    traits: TraitsCache = field(default_factory=TraitsCache)
    #: the files commits changed (link discovery's file evidence); None: links from words alone
    commit_files: CommitFileReader | None = None
    #: What the last reading of queued session transcripts proposed (None before any).
    last_capture: Any = None
    #: Where the persister commits a run; None: the store (a proposing run records instead, see operations.proposals).
    sink: StateSink | None = None

    async def propose_from_sessions(self) -> Any:
        """Read the transcripts hooks queued into review proposals (see session_capture); the report, or None
        when nothing was queued or implicit capture is off (the queue then stays as it is). Never raises for a
        transcript: its problem is in the report's errors."""
        from memactors.adapters.claude.transcript_queue import queued
        from memactors.adapters.runtime.session_capture import SessionCapture, routing_from

        if not self.settings.implicit_capture_enabled:
            return None
        if not await trio.to_thread.run_sync(queued, self.store.git.common_dir):
            return None
        capture = SessionCapture(self.store, self.clock, embedder=self.embedder, llm=self.llm,
                                 routing=routing_from(self.settings), llm_deadline=self.settings.llm_deadline)
        self.last_capture = await capture.read_queued()
        return self.last_capture

    def run_started(self) -> None:
        """A run starts: the LLM's per-run caps count afresh (a daemon's chain lives across runs)."""
        begin = getattr(self.llm, "begin_run", None)
        if callable(begin):
            begin()

    async def run_completed(self, *, scoped: bool = False) -> None:
        """A run completed: keep its new vectors; answers checkpointed for it are no longer needed;
        the recall uses it folded can go (unless it covered only some namespaces)."""
        save = getattr(self.embedder, "save", None)
        if callable(save):
            await trio.to_thread.run_sync(save)
        await trio.to_thread.run_sync(self.traits.save)
        clear = getattr(self.llm, "clear", None)
        if callable(clear):
            clear()
        if self.activations is not None and not scoped:
            await trio.to_thread.run_sync(self.activations.consumed)

    async def aclose(self, *, keep_caches: bool) -> None:
        save = getattr(self.embedder, "save", None)
        if keep_caches and callable(save):
            await trio.to_thread.run_sync(save)
        if keep_caches:
            await trio.to_thread.run_sync(self.traits.save)
        if self.llm is not None:
            await self.llm.aclose()


def build_services(
    store: MemoryStore, settings: Settings, clock: Clock, *, max_llm_calls: int | None = None,
    max_cost_usd: float | None = None,
) -> Services:
    """The adapters the environment asks for: embeddings (cached under the common dir) and the LLM chain,
    capped per run (`max_cost_usd`, else MEMACTORS_MAX_COST_USD) and per day (MEMACTORS_MAX_COST_USD_PER_DAY)."""
    from memactors.adapters.models.llm_chain import build_chain
    from memactors.adapters.models.spend_ledger import SPEND_FILE, SpendLedger

    embedder: Embedder | None = None
    if settings.embeddings != "none":
        from memactors.adapters.models.embeddings import embedder_from_env
        from memactors.adapters.models.vector_cache import CachedEmbedder

        embedder = CachedEmbedder(embedder_from_env(), store.git.common_dir / "memactors" / "vectors")
    tz = settings.zone()
    ledger = SpendLedger(store.git.common_dir / "memactors" / SPEND_FILE, lambda: clock.now().astimezone(tz).date())
    chain = build_chain(os.environ, max_calls=max_llm_calls,
                        max_cost_usd=settings.max_cost_usd if max_cost_usd is None else max_cost_usd,
                        ledger=ledger, daily_limit=settings.max_cost_usd_per_day, timeout=settings.llm_timeout,
                        cli_concurrency=settings.claude_concurrency)
    llm = None
    if chain is not None:
        from memactors.adapters.models.llm_checkpoint import CheckpointedLLM

        llm = CheckpointedLLM(chain, store.git.common_dir / "memactors" / "llm-checkpoint.jsonl")
    files = CommitFiles(store.git.repo, store.git.common_dir / "memactors" / COMMIT_FILES_CACHE)
    return Services(store=store, settings=settings, clock=clock, embedder=embedder, llm=llm,
                    read_cache=ReadCache(store.git.common_dir, embedder, files,
                                         surfacing=settings.surfacing_enabled), commit_files=files,
                    activations=ActivationLog(store.git.common_dir),
                    traits=TraitsCache(store.git.common_dir / "memactors"))


def pipeline_children(services: Services, crossover: Callable[[], int] | None = None) -> list[ChildSpec]:
    """The consolidation actors, in pipeline order, less the stages a setting turned off. `crossover`, when
    given, is asked at each full kNN build for the store size from which pynndescent replaces exact kNN (the
    daemon lowers it once warm)."""
    settings, store, clock = services.settings, services.store, services.clock
    policy = settings.retention_policy()
    stages_off = settings.stages_off()
    children = [ChildSpec("scanner", lambda bus: Scanner(bus, store, services.activations))]
    if services.embedder is not None and "consolidation" not in stages_off:
        embedder, llm = services.embedder, services.llm
        children += [
            ChildSpec("clusterer", lambda bus: Clusterer(
                bus, embedder, threshold=settings.cluster_threshold, pair_threshold=settings.pair_threshold,
                max_size=settings.max_cluster_size,
                crossover=crossover or settings.knn_crossover)),
            ChildSpec("summarizer", lambda bus: Summarizer(bus, llm, clock, llm_deadline=settings.llm_deadline,
                                                               quality=policy.quality, traits=services.traits)),
            ChildSpec("judge", lambda bus: SupersessionJudge(bus, llm, pair_threshold=settings.pair_threshold,
                                                             llm_deadline=settings.llm_deadline,
                                                             quality=policy.quality, traits=services.traits)),
        ]
        if "linking" not in stages_off:
            children.append(ChildSpec("link_finder", lambda bus: LinkFinder(
                bus, quality=policy.quality, traits=services.traits, files=services.commit_files, embedder=embedder)))
    children += [
        ChildSpec("tierer", lambda bus: Tierer(bus, policy, services.traits,
                                               forgetting="forgetting" not in stages_off)),
        ChildSpec("persister", lambda bus: Persister(bus, services.sink or store, clock, services.read_cache,
                                                     quality=policy.quality, traits=services.traits,
                                                     stages_off=stages_off)),
    ]
    return children


async def drive_run(
    bus: Bus, outcomes: trio.MemoryReceiveChannel, options: RunOptions, clock: Clock
) -> RunReport:
    """Request one run and wait for its outcome; restart it on a lost race.

    Raises RunNeedsUser when an actor failed on something no retry fixes (a corrupt state note).
    """
    errors: list[str] = []
    for _attempt in range(CONFLICT_RETRIES + 1):
        started = clock.now()
        request = RunRequested(
            run_id=new_run_id(started),
            trigger=options.trigger,
            started_at=started,
            namespaces=options.namespaces,
            dry_run=options.dry_run,
            full=options.full,
        )
        await bus.publish(request)
        log.info("run %s started (%s)", request.run_id, options.trigger)
        async for event in outcomes:
            if getattr(event, "run_id", None) == request.run_id:
                break
        else:
            raise RuntimeError("the bus closed before the run ended")
        if isinstance(event, RunCompleted):
            report = event.report
            return report.model_copy(update={"errors": errors + report.errors}) if errors else report
        assert isinstance(event, RunFailed)
        if event.needs_user:
            raise RunNeedsUser(event.needs_user)
        if not event.conflict:
            return _failed(request, clock, errors + [f"{event.actor}: {event.error}"])
        log.info("run %s lost a race (%s); retrying on the new state", request.run_id, event.error)
        errors.append(f"retried after a concurrent write: {event.error}")
    return _failed(request, clock, errors + ["gave up: the state refs kept moving"])


def _failed(request: RunRequested, clock: Clock, errors: list[str]) -> RunReport:
    return RunReport(run_id=request.run_id, trigger=request.trigger, started_at=request.started_at,
                     completed_at=clock.now(), phase="failed", namespaces=request.namespaces, errors=errors)


async def consolidate(
    services: Services,
    options: RunOptions,
    *,
    handle_signals: bool = False,
    stop_at_first_signal: bool = False,
    children: Callable[[Services], list[ChildSpec]] = pipeline_children,
) -> RunReport:
    """Start the actors, drive one run to its end, shut the actors down.

    With `handle_signals`, a first SIGINT/SIGTERM lets the run in flight
    finish and persist; a second stops at once (refs stay at old or new).
    With `stop_at_first_signal` (a command a person waits on), the first
    stops at once: a commit in progress completes (its refs move together or
    not at all), then KeyboardInterrupt is raised.
    Local caches (vectors) are saved unless the run was a dry run. Raises
    RunNeedsUser when the run stopped on something only the user can fix.
    """
    bus = Bus()
    outcomes = bus.subscribe("driver", (RunCompleted, RunFailed))
    supervisor = Supervisor(bus, children(services))
    report: RunReport | None = None
    stopped: RunNeedsUser | None = None
    try:
        async with trio.open_nursery() as nursery:
            if handle_signals:
                stop = nursery.cancel_scope.cancel
                await nursery.start(partial(watch_signals, quiet_first=stop_at_first_signal),
                                    (lambda _sig: stop()) if stop_at_first_signal else (lambda _sig: None),
                                    lambda _sig: stop())
            await nursery.start(supervisor.run)
            try:
                report = await drive_run(bus, outcomes, options, services.clock)
            except RunNeedsUser as exc:  # raised below, alone rather than in the nursery's group
                stopped = exc
            else:
                if report.phase == "completed":
                    await services.run_completed(scoped=options.namespaces is not None)
                    if not options.dry_run and options.namespaces is None:
                        await services.propose_from_sessions()
            bus.close()
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await services.aclose(keep_caches=report is not None and not options.dry_run)
    if stopped is not None:
        raise stopped
    if report is None:  # cancelled by a signal
        raise KeyboardInterrupt
    return report
