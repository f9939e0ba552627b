"""Summarizer: one summary per touched cluster of three or more memories."""

from __future__ import annotations

from collections.abc import Sequence

import trio

from memactors.actors import extractive
from memactors.actors.llm_call import ask
from memactors.actors.ports import Clock, StructuredLLM
from memactors.actors.prompts import SUMMARY_SYSTEM, SummaryAnswer, check_citations, flagged, summary_prompt
from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.bus.join import RunJoin
from memactors.events.cluster import Cluster, ClusterKind
from memactors.events.memory import Memory
from memactors.events.pipeline import ClustersFormed, ClustersSummarized, Event, MemoriesScanned, RunFailed
from memactors.events.report import TokenUsage
from memactors.events.summary import DecisionFact, Summary

#: An LLM's self-reported confidence is capped: it has not seen the code.
MAX_LLM_CONFIDENCE = 0.9


class Summarizer(Actor):
    """Joins a run's scan and clusters; summarizes touched semantic clusters concurrently.

    With an LLM, each cluster is one call whose answer must cite only the
    cluster's own memories; an invalid answer is asked again once, then the
    cluster falls back to the extractive summary and the reason is kept.
    Without an LLM every summary is extractive (`provider: offline`).
    """

    name = "summarizer"
    subscribes = (MemoriesScanned, ClustersFormed, RunFailed)
    publishes = (ClustersSummarized,)

    def __init__(self, bus: Bus, llm: StructuredLLM | None, clock: Clock, *, concurrency: int = 4) -> None:
        super().__init__(bus)
        self._llm = llm
        self._clock = clock
        self._limit = trio.CapacityLimiter(concurrency)
        self._join = RunJoin(bus, required=(MemoriesScanned, ClustersFormed))

    async def handle(self, event: Event) -> None:
        if isinstance(event, RunFailed):
            self._join.discard(event.run_id)
            return
        ready = self._join.add(event)  # type: ignore[arg-type]
        if ready is None:
            return
        scanned: MemoriesScanned = ready[MemoriesScanned]  # type: ignore[assignment]
        formed: ClustersFormed = ready[ClustersFormed]  # type: ignore[assignment]
        by_key = {m.key: m for m in scanned.memories}
        todo = [c for c in formed.clusters if c.kind is ClusterKind.SEMANTIC and c.touched]
        results: list[tuple[Summary, TokenUsage, str | None, bool]] = []

        async def one(cluster: Cluster) -> None:
            async with self._limit:
                results.append(await self._summarize(cluster, [by_key[k] for k in cluster.members], formed.run_id))

        async with trio.open_nursery() as nursery:
            for cluster in todo:
                nursery.start_soon(one, cluster)
        usage = TokenUsage()
        for _, used, _, _ in results:
            usage += used
        await self.bus.publish(
            ClustersSummarized(
                run_id=formed.run_id,
                summaries=tuple(sorted((r[0] for r in results), key=lambda s: s.id)),
                usage=usage,
                fallbacks=tuple(sorted(r[2] for r in results if r[2])),
                injections_flagged=sum(r[3] for r in results),
            )
        )

    async def _summarize(
        self, cluster: Cluster, members: Sequence[Memory], run_id: str
    ) -> tuple[Summary, TokenUsage, str | None, bool]:
        now = self._clock.now()
        suspicious = any(flagged(m) for m in members)
        replaced = _older_decisions(members)
        why: str | None = None
        usage = TokenUsage()
        if self._llm is not None:
            user, labels = summary_prompt(members)
            asked = await ask(self._llm, SUMMARY_SYSTEM, user, SummaryAnswer,
                              lambda a: check_citations(a.cited, labels))
            usage = asked.usage
            if asked.answer is not None:
                answer = asked.answer
                stamps = [m.timestamp for m in members]
                summary = Summary(
                    id=cluster.id,
                    cluster_id=cluster.id,
                    text=answer.summary.strip()[:2000],
                    key_facts=tuple(f.strip() for f in answer.key_facts if f.strip())[:12],
                    decisions=tuple(DecisionFact(decision=d.decision, rationale=d.rationale, outcome=d.outcome)
                                    for d in answer.decisions),
                    superseded_facts=tuple(answer.superseded_facts),
                    source_keys=tuple(m.key for m in members),
                    source_ids=tuple(m.id for m in members),
                    earliest=min(stamps),
                    latest=max(stamps),
                    confidence=min(answer.confidence, MAX_LLM_CONFIDENCE),
                    provider=asked.provider,
                    model=asked.model,
                    created_at=now,
                    run_id=run_id,
                )
                return summary, usage, None, suspicious
            why = f"cluster {cluster.id}: {asked.why}"
        summary = extractive.summarize(cluster, members, superseded=replaced, run_id=run_id, now=now,
                                       summary_id=cluster.id, fallback_reason=why)
        return summary, usage, why, suspicious


def _older_decisions(members: Sequence[Memory]) -> set[str]:
    """Decisions a newer decision of the same cluster follows: the extractive view of 'replaced'."""
    decisions = sorted((m for m in members if m.namespace == "decisions"), key=lambda m: m.timestamp)
    return {m.key for m in decisions[:-1]}
