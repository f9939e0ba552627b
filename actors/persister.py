"""Persister: writes a run's changed metadata and its run record, or nothing at all."""

from __future__ import annotations

from collections import defaultdict

import trio

from memactors.actors.ports import Clock, StateChange, StateConflict, StateSink
from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.bus.join import RunJoin
from memactors.events.metadata import MemoryMeta
from memactors.events.pipeline import Event, MemoriesScanned, MemoriesTiered, RunCompleted, RunFailed
from memactors.events.report import RunReport
from memactors.events.state import StateSnapshot


class Persister(Actor):
    """Joins a run's scan and tiers, diffs against the prior state, commits the difference.

    A run whose metadata equals the prior state writes nothing, not even a
    run record. A dry run computes the report and writes nothing. When the
    state refs moved since the scan, nothing is written and the run fails
    with `conflict=True` so its requester can retry on the new state.
    """

    name = "persister"
    subscribes = (MemoriesScanned, MemoriesTiered, RunFailed)
    publishes = (RunCompleted, RunFailed)

    def __init__(self, bus: Bus, sink: StateSink, clock: Clock) -> None:
        super().__init__(bus)
        self._sink = sink
        self._clock = clock
        self._join = RunJoin(bus, required=(MemoriesScanned, MemoriesTiered))

    async def handle(self, event: Event) -> None:
        if isinstance(event, RunFailed):
            self._join.discard(event.run_id)
            return
        ready = self._join.add(event)  # type: ignore[arg-type]
        if ready is None:
            return
        scanned: MemoriesScanned = ready[MemoriesScanned]  # type: ignore[assignment]
        tiered: MemoriesTiered = ready[MemoriesTiered]  # type: ignore[assignment]
        request = scanned.request
        changed = [meta for meta in tiered.metas if scanned.prior.meta.get(meta.key) != meta]
        completed = self._clock.now()
        report = RunReport(
            run_id=request.run_id,
            trigger=request.trigger,
            started_at=request.started_at,
            completed_at=completed,
            phase="dry_run" if request.dry_run else "completed",
            namespaces=request.namespaces,
            head=scanned.head,
            memories_processed=len(scanned.memories),
            memories_skipped=dict(sorted(scanned.skipped.items())),
            parse_warnings=dict(sorted(scanned.warnings.items())),
            tier_counts=tiered.tier_counts,
            tier_transitions=tiered.tier_transitions,
            duration_seconds=round((completed - request.started_at).total_seconds(), 3),
        )
        if request.dry_run or not changed:
            await self.bus.publish(RunCompleted(run_id=request.run_id, report=report))
            return
        run_commit = scanned.head or max(scanned.memories, key=lambda m: m.timestamp).commit
        report = report.model_copy(update={"persisted": True})
        change = StateChange(
            meta_by_commit=_regroup(scanned.prior, changed), report=report, run_commit=run_commit
        )
        try:
            refs = await trio.to_thread.run_sync(self._sink.commit, change, dict(scanned.prior.tips))
        except StateConflict as exc:
            await self.bus.publish(
                RunFailed(run_id=request.run_id, actor=self.name, error=str(exc), conflict=True)
            )
            return
        report = report.model_copy(update={"refs_updated": refs})
        await self.bus.publish(RunCompleted(run_id=request.run_id, report=report))


def _regroup(prior: StateSnapshot, changed: list[MemoryMeta]) -> dict[str, tuple[MemoryMeta, ...]]:
    """Whole notes for every commit a change touches (a record that moved leaves its old note)."""
    touched = {meta.commit for meta in changed}
    for meta in changed:
        before = prior.meta.get(meta.key)
        if before is not None:
            touched.add(before.commit)
    notes: dict[str, dict[str, MemoryMeta]] = defaultdict(dict)
    for key, meta in prior.meta.items():
        if meta.commit in touched:
            notes[meta.commit][key] = meta
    for meta in changed:
        before = prior.meta.get(meta.key)
        if before is not None and before.commit != meta.commit:
            notes[before.commit].pop(meta.key, None)
        notes[meta.commit][meta.key] = meta
    return {commit: tuple(notes[commit][k] for k in sorted(notes[commit])) for commit in sorted(touched)}
