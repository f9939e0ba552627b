"""Persister: writes what a run changed (metadata, summaries, edges) and its record, or nothing."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import TypeVar

import trio

from memactors.actors.algorithms.extractive import as_judged
from memactors.actors.algorithms.indexing import build_read_model
from memactors.actors.algorithms.heuristic_judge import RULES as JUDGE_RULES
from memactors.actors.algorithms.linker import SUMMARY_PREFIX, anchor, run_edges
from memactors.actors.ports import Clock, ContentReader, ReadModelSink, StateChange, StateConflict, StateSink
from memactors.bus.bus import Bus
from memactors.bus.join import Joined, JoiningActor
from memactors.events.cluster import ClusterKind
from memactors.events.edge import Edge, EdgeType
from memactors.events.metadata import MemoryMeta
from memactors.events.pipeline import (
    ClustersFormed,
    ClustersSummarized,
    LinksFound,
    MemoriesScanned,
    MemoriesTiered,
    RunCompleted,
    RunFailed,
    SupersessionsJudged,
)
from memactors.events.quality import QualityPolicy
from memactors.events.report import RunReport, TokenUsage
from memactors.events.summary import Summary
from memactors.events.verdict import Relation

R = TypeVar("R")
#: Fields that say when and by which run a record was written, not what it says.
_STAMPS = {"created_at", "run_id", "consolidation_run_id"}


def _same(a: object, b: object) -> bool:
    """Equal apart from write stamps: rewriting an unchanged record is a change to nobody."""
    return a.model_dump(exclude=_STAMPS) == b.model_dump(exclude=_STAMPS)  # type: ignore[attr-defined]


class Persister(JoiningActor):
    """Joins a run's events, diffs against the prior state, commits the difference.

    Waits for the scan and tiers, plus clusters, summaries and verdicts
    when actors that publish them are running. A run whose records equal
    the prior state writes nothing, not even a run record; a dry run writes
    nothing. When the refs moved since the scan nothing is written and the
    run fails with `conflict=True` so its requester retries on the new state.
    After a completed run over the whole store it refreshes the read model
    (what recall and the SessionStart context read) before saying so. Its
    report names the stages a setting turned off (`stages_off`), as given.
    """

    name = "persister"
    joins = (MemoriesScanned, MemoriesTiered)
    joins_if_published = (ClustersFormed, ClustersSummarized, SupersessionsJudged, LinksFound)
    publishes = (RunCompleted, RunFailed)

    def __init__(self, bus: Bus, sink: StateSink, clock: Clock, read_model: ReadModelSink | None = None,
                 quality: QualityPolicy | None = None, traits: ContentReader | None = None,
                 stages_off: Mapping[str, str] | None = None) -> None:
        super().__init__(bus)
        self._sink = sink
        self._stages_off = dict(stages_off or {})
        self._clock = clock
        self._read_model = read_model
        self._quality = quality or QualityPolicy()
        self._traits = traits

    async def handle_run(self, events: Joined) -> None:
        scanned, tiered = events[MemoriesScanned], events[MemoriesTiered]
        formed = events.get(ClustersFormed)
        summarized = events.get(ClustersSummarized)
        judged = events.get(SupersessionsJudged)
        request = scanned.request
        prior = scanned.prior
        now = self._clock.now()

        new_summaries = {s.id: s for s in summarized.summaries} if summarized else {}
        new_summaries = self._as_judged(scanned, tiered, formed, judged, new_summaries)
        metas = self._metas(scanned, tiered, formed, new_summaries)
        changed_meta = [m for m in metas if prior.meta.get(m.key) is not m and prior.meta.get(m.key) != m]

        summary_changes: dict[str, Summary | None] = {
            sid: s for sid, s in new_summaries.items() if sid not in prior.summaries or not _same(prior.summaries[sid], s)
        }
        if formed is not None:
            live = {c.id for c in formed.clusters if c.kind is ClusterKind.SEMANTIC}
            in_scope = {m.key for m in scanned.memories}
            for sid, old in prior.summaries.items():
                if sid not in live and set(old.source_keys) <= in_scope:
                    summary_changes[sid] = None  # its cluster is gone: the summary is stale
            if summarized is not None:
                resummarized = {c.id for c in formed.clusters if c.kind is ClusterKind.SEMANTIC and c.touched}
                for sid in (resummarized & prior.summaries.keys()) - new_summaries.keys():
                    summary_changes[sid] = None  # summarized again and found nothing readable to say
        # a summary kept from an earlier run follows today's judgement too: a member released or replaced since
        in_scope = {m.key for m in scanned.memories}
        kept = {sid: old for sid, old in prior.summaries.items()
                if sid not in summary_changes and set(old.source_keys) <= in_scope}
        for sid, judged_summary in self._as_judged(scanned, tiered, formed, judged, kept).items():
            if judged_summary is not kept[sid]:
                summary_changes[sid] = judged_summary
        edge_changes = self._edges(scanned, formed, judged, new_summaries, summary_changes, now)
        edge_changes.update(_links(scanned, events.get(LinksFound), edge_changes))

        usage = (summarized.usage if summarized else TokenUsage()) + (judged.usage if judged else TokenUsage())
        fallbacks = list((summarized.fallbacks if summarized else ()) + (judged.fallbacks if judged else ()))
        providers: Counter[str] = Counter(s.provider for s in new_summaries.values())
        providers.update(v.provider for v in (judged.verdicts if judged else ()))
        report = RunReport(
            run_id=request.run_id,
            trigger=request.trigger,
            started_at=request.started_at,
            completed_at=now,
            phase="dry_run" if request.dry_run else "completed",
            namespaces=request.namespaces,
            head=scanned.head,
            memories_processed=len(scanned.memories),
            memories_skipped=dict(sorted(scanned.skipped.items())),
            parse_warnings=dict(sorted(scanned.warnings.items())),
            clusters_found=sum(c.kind is ClusterKind.SEMANTIC for c in formed.clusters) if formed else 0,
            pairs_found=sum(c.kind is ClusterKind.PAIR for c in formed.clusters) if formed else 0,
            duplicates_collapsed=len(formed.duplicate_of) if formed else 0,
            memories_embedded=formed.embedded if formed else 0,
            summaries_created=sum(s is not None for s in summary_changes.values()),
            # what the metadata now says, not how many verdicts pointed the same way
            supersessions_detected=sum(
                m.superseded_by is not None and (prior.meta.get(m.key) is None
                                                 or prior.meta[m.key].superseded_by != m.superseded_by)
                for m in metas),
            contradictions_flagged=sum(
                e is not None and e.edge_type is EdgeType.CONTRADICTS and e.resolution is None
                for e in edge_changes.values()
            ),
            edges_written=sum(e is not None for e in edge_changes.values()),
            prompt_injections_flagged=summarized.injections_flagged if summarized else 0,
            judge_rules=JUDGE_RULES if judged is not None else scanned.prior_judge_rules,
            providers=dict(sorted(providers.items())),
            fallbacks=fallbacks,
            errors=[*scanned.unreadable_refs.values(), *fallbacks],
            tier_counts=tiered.tier_counts,
            tier_transitions=tiered.tier_transitions,
            token_usage=usage,
            duration_seconds=round((now - request.started_at).total_seconds(), 3),
            stages_off=self._stages_off,
        )
        if request.dry_run:
            await self.bus.publish(RunCompleted(run_id=request.run_id, report=report))
            return
        if not (changed_meta or summary_changes or edge_changes):
            report = await self._refresh_read_model(report, scanned, tiered, formed, metas, prior.summaries,
                                                    prior.edges)
            await self.bus.publish(RunCompleted(run_id=request.run_id, report=report))
            return
        commit_of = {m.key: m.commit for m in scanned.memories}
        time_of = {m.key: m.timestamp for m in scanned.memories}
        run_commit = scanned.head or max(scanned.memories, key=lambda m: m.timestamp).commit
        report = report.model_copy(update={"persisted": True})
        change = StateChange(
            meta_by_commit=whole_notes(
                prior.meta, {k: m.commit for k, m in prior.meta.items()},
                {m.key: (m, m.commit) for m in changed_meta},
            ),
            summaries_by_commit=whole_notes(
                prior.summaries, prior.summary_commits,
                {sid: (s, commit_of[max(s.source_keys, key=time_of.__getitem__)] if s else None)
                 for sid, s in summary_changes.items()},
            ),
            edges_by_commit=whole_notes(
                prior.edges, prior.edge_commits,
                {eid: (e, commit_of.get(anchor(e)) if e else None) for eid, e in edge_changes.items()},
            ),
            report=report,
            run_commit=run_commit,
        )
        try:
            refs = await trio.to_thread.run_sync(self._sink.commit, change, dict(prior.tips))
        except StateConflict as exc:
            await self.bus.publish(RunFailed(run_id=request.run_id, actor=self.name, error=str(exc), conflict=True))
            return
        report = report.model_copy(update={"refs_updated": refs})
        summaries = {**prior.summaries, **{sid: s for sid, s in summary_changes.items() if s is not None}}
        for sid in [sid for sid, s in summary_changes.items() if s is None]:
            summaries.pop(sid, None)
        edges = {**prior.edges, **{eid: e for eid, e in edge_changes.items() if e is not None}}
        for eid in [eid for eid, e in edge_changes.items() if e is None]:
            edges.pop(eid, None)
        report = await self._refresh_read_model(report, scanned, tiered, formed, metas, summaries, edges)
        await self.bus.publish(RunCompleted(run_id=request.run_id, report=report))

    async def _refresh_read_model(self, report: RunReport, scanned: MemoriesScanned, tiered: MemoriesTiered,
                                  formed: ClustersFormed | None, metas: list[MemoryMeta],
                                  summaries: Mapping[str, Summary], edges: Mapping[str, Edge]) -> RunReport:
        """Precompute what recall and context read, after a run over the whole store.

        A run scoped to some namespaces leaves the read model as it was (it
        saw only part of the store). A failure to write it is recorded in the
        report; the refs are already safe.
        """
        if self._read_model is None or scanned.request.namespaces is not None:
            return report
        model = build_read_model(
            scanned.memories, {m.key: m for m in metas},
            {m.key: s for m, s in zip(tiered.metas, tiered.scores)}, summaries.values(),
            run_id=scanned.run_id, generated_at=self._clock.now(), memory_tips=scanned.memory_tips,
            quality=self._quality, reference_time=tiered.reference_time,
            traits=self._traits.traits(scanned.memories) if self._traits is not None else None,
            copies=formed.duplicate_of if formed is not None else None,
            conflicts=[(e.source_key, e.target_key) for e in edges.values()
                       if e.edge_type is EdgeType.CONTRADICTS and e.resolution is None],
        )
        try:
            await trio.to_thread.run_sync(self._read_model.write, model)
        except OSError as exc:
            return report.model_copy(update={"errors": [*report.errors, f"recall index not written: {exc}"]})
        return report

    def _as_judged(self, scanned: MemoriesScanned, tiered: MemoriesTiered, formed: ClustersFormed | None,
                   judged: SupersessionsJudged | None, summaries: dict[str, Summary]) -> dict[str, Summary]:
        """Summaries that list as superseded exactly the members the judge replaced (not a copy folded into its
        canonical): the summarizer runs beside the judge and never guesses."""
        if not summaries:
            return summaries
        copies = formed.duplicate_of if formed is not None else {}
        # replaced along a supersedes edge (this run's verdict or an earlier one that stands): a restatement the
        # newer memory subsumes, or a copy folded into its canonical, is not a superseded fact
        superseding = {(v.newer, v.older) for v in (judged.verdicts if judged else ())
                       if v.relation is Relation.SUPERSEDES and not v.partial}
        superseding |= {(e.source_key, e.target_key) for e in scanned.prior.edges.values()
                        if e.edge_type is EdgeType.SUPERSEDES and e.in_force and not e.partial}
        replaced = {m.key: m.superseded_by for m in tiered.metas
                    if m.superseded_by and m.key not in copies and (m.superseded_by, m.key) in superseding}
        by_key = {m.key: m for m in scanned.memories}
        members = [by_key[k] for s in summaries.values() for k in s.source_keys if k in replaced and k in by_key]
        if self._traits is not None:
            titles = {k: t.title for k, t in self._traits.traits(members).items()}
        else:
            titles = {m.key: m.summary for m in members}
        return {sid: as_judged(s, replaced, titles) for sid, s in summaries.items()}

    @staticmethod
    def _metas(scanned: MemoriesScanned, tiered: MemoriesTiered, formed: ClustersFormed | None,
               new_summaries: Mapping[str, Summary]) -> list[MemoryMeta]:
        if formed is None:
            return list(tiered.metas)
        cluster_of: dict[str, tuple[str, bool]] = {}
        for kind in (ClusterKind.DUPLICATES, ClusterKind.PAIR, ClusterKind.SEMANTIC):
            for c in formed.clusters:
                if c.kind is kind:
                    cluster_of.update({k: (c.id, c.touched) for k in c.members})
        consolidated = {k: s.id for s in new_summaries.values() for k in s.source_keys}
        metas = []
        for meta in tiered.metas:
            cid, touched = cluster_of.get(meta.key, (None, True))
            before = scanned.prior.meta.get(meta.key)
            into = consolidated.get(meta.key)
            if into is None and not touched and before is not None:
                into = before.consolidated_into
            metas.append(meta.model_copy(update={"cluster_id": cid, "consolidated_into": into}))
        return metas

    @staticmethod
    def _edges(scanned: MemoriesScanned, formed: ClustersFormed | None, judged: SupersessionsJudged | None,
               new_summaries: Mapping[str, Summary], summary_changes: Mapping[str, Summary | None],
               now) -> dict[str, Edge | None]:
        if formed is None:
            return {}
        prior = scanned.prior.edges
        changes: dict[str, Edge | None] = {}
        wanted = run_edges(scanned.memories, judged.verdicts if judged else (), formed.duplicate_of,
                           new_summaries.values(), now=now, run_id=scanned.run_id)
        for edge in wanted:
            old = prior.get(edge.id)
            if old is not None:
                edge = edge.model_copy(update={"resolution": old.resolution})
                if _same(old, edge):
                    continue
            changes[edge.id] = edge
        stale = {SUMMARY_PREFIX + sid for sid, s in summary_changes.items() if s is None}
        for eid, edge in prior.items():
            if edge.source_key in stale:
                changes[eid] = None
        for eid in judged.withdrawn_edges if judged else ():
            if eid in prior and eid not in changes:
                changes[eid] = None  # a later, at least as confident verdict overturned it
        return changes


def _links(scanned: MemoriesScanned, found: LinksFound | None,
           other_changes: Mapping[str, Edge | None]) -> dict[str, Edge | None]:
    """What this run's links change: new or changed links, and withdrawn ones; a link the user added or removed
    stays as the user left it."""
    if found is None:
        return {}
    prior = scanned.prior.edges
    changes: dict[str, Edge | None] = {}
    for link in found.links:
        old = prior.get(link.id)
        if link.id in other_changes or (old is not None and (old.resolution is not None or _same(old, link))):
            continue
        changes[link.id] = link
    for eid in found.withdrawn:
        if eid in prior and prior[eid].resolution is None and eid not in other_changes:
            changes[eid] = None
    return changes


def whole_notes(
    prior: Mapping[str, R], prior_at: Mapping[str, str], changes: Mapping[str, tuple[R | None, str | None]]
) -> dict[str, tuple[R, ...]]:
    """Whole notes (records by commit) for every commit a change touches.

    A record that moved commits leaves its old note; None deletes it. Empty
    notes come back as empty tuples, which the sink removes.
    """
    touched = {at for _, at in changes.values() if at} | {prior_at[i] for i in changes if i in prior_at}
    notes: dict[str, dict[str, R]] = defaultdict(dict)
    for rid, record in prior.items():
        at = prior_at.get(rid)
        if at in touched:
            notes[at][rid] = record
    for rid, (record, at) in changes.items():
        old_at = prior_at.get(rid)
        if old_at is not None:
            notes[old_at].pop(rid, None)
        if record is not None and at:
            notes[at][rid] = record
    return {at: tuple(notes[at][i] for i in sorted(notes[at])) for at in sorted(touched)}
