"""Summarizer: one summary per touched cluster of three or more memories."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import trio

from memactors.actors.algorithms import extractive
from memactors.actors.algorithms.llm_call import ask
from memactors.actors.algorithms.prompts import (
    SUMMARY_SYSTEM,
    SummaryAnswer,
    SummaryBatchAnswer,
    check_citations,
    flagged,
    summary_prompt,
)
from memactors.actors.ports import Clock, ContentReader, StructuredLLM
from memactors.bus.bus import Bus
from memactors.bus.join import Joined, JoiningActor
from memactors.events.cluster import Cluster, ClusterKind
from memactors.events.memory import Memory
from memactors.events.pipeline import ClustersFormed, ClustersSummarized, MemoriesScanned
from memactors.events.quality import WELL_FORMED, ContentTraits, QualityPolicy, quality_score
from memactors.events.report import TokenUsage
from memactors.events.summary import DecisionFact, Summary

progress = logging.getLogger("memactors.progress")
#: An LLM's self-reported confidence is capped: it has not seen the code.
MAX_LLM_CONFIDENCE = 0.9


class Summarizer(JoiningActor):
    """Joins a run's scan and clusters; summarizes touched semantic clusters concurrently.

    With an LLM, clusters are packed into requests of at most
    `batch_memories` memories, one summary per cluster, each citing only
    its own cluster's memories; an invalid answer is asked again once, then
    the batch falls back to extractive summaries and the reason is kept.
    LLM work stops `llm_deadline` seconds after the run's first request: the
    batches left are summarized offline, each saying why.
    Without an LLM every summary is extractive (`provider: offline`).
    """

    name = "summarizer"
    joins = (MemoriesScanned, ClustersFormed)
    publishes = (ClustersSummarized,)

    def __init__(self, bus: Bus, llm: StructuredLLM | None, clock: Clock, *, concurrency: int = 4,
                 batch_memories: int = 40, llm_deadline: float = 600.0, quality: QualityPolicy,
                 traits: ContentReader) -> None:
        super().__init__(bus)
        self._quality = quality
        self._traits = traits
        self._llm_deadline = llm_deadline
        self._llm = llm
        self._clock = clock
        self._limit = trio.CapacityLimiter(concurrency)
        self._batch_memories = batch_memories

    async def handle_run(self, events: Joined) -> None:
        scanned, formed = events[MemoriesScanned], events[ClustersFormed]
        by_key = {m.key: m for m in scanned.memories}
        touched = [c for c in formed.clusters if c.kind is ClusterKind.SEMANTIC and c.touched]
        traits = self._traits.traits([by_key[k] for c in touched for k in c.members])
        # a cluster with no readable member gets no summary: there is nothing in it worth showing
        todo = [c for c in touched if any(traits[k].readable for k in c.members)]
        if todo:
            progress.info("summarizing %d clusters%s...", len(todo), " with the LLM" if self._llm else "")
        summaries: list[Summary] = []
        usage = TokenUsage()
        fallbacks: list[str] = []
        flagged_total = 0
        deadline = trio.current_time() + self._llm_deadline  # then the rest is summarized offline

        async def one(batch: list[Cluster]) -> None:
            nonlocal usage, flagged_total
            async with self._limit:
                written, used, why = await self._summarize(batch, by_key, traits, formed.run_id, deadline)
            summaries.extend(written)
            usage += used
            flagged_total += sum(flagged(by_key[k]) for c in batch for k in c.members)
            if why:
                fallbacks.append(why)

        async with trio.open_nursery() as nursery:
            for batch in _pack(todo, self._batch_memories):
                nursery.start_soon(one, batch)
        await self.bus.publish(
            ClustersSummarized(
                run_id=formed.run_id,
                summaries=tuple(sorted(summaries, key=lambda s: s.id)),
                usage=usage,
                fallbacks=tuple(sorted(fallbacks)),
                injections_flagged=flagged_total,
            )
        )

    async def _summarize(
        self, clusters: Sequence[Cluster], by_key: dict[str, Memory], traits: Mapping[str, ContentTraits],
        run_id: str, deadline: float
    ) -> tuple[list[Summary], TokenUsage, str | None]:
        now = self._clock.now()
        groups = [[by_key[k] for k in c.members] for c in clusters]
        usage = TokenUsage()
        why: str | None = None
        if self._llm is not None:
            user, labels = summary_prompt(groups)

            def check(answer: SummaryBatchAnswer) -> None:
                missing = sorted(set(labels) - {s.cluster for s in answer.summaries})
                if missing:
                    raise ValueError(f"no summary for {', '.join(missing)}")
                for item in answer.summaries:
                    if item.cluster not in labels:
                        raise ValueError(f"{item.cluster} is not a cluster of this request")
                    check_citations(item.cited, labels[item.cluster])

            asked = await ask(self._llm, SUMMARY_SYSTEM, user, SummaryBatchAnswer, check, deadline=deadline)
            usage = asked.usage
            if asked.answer is not None:
                answers = {}
                for item in asked.answer.summaries:
                    answers.setdefault(item.cluster, item)
                written = [
                    self._from_answer(cluster, members, answers[f"C{i + 1}"], asked.provider, asked.model, now,
                                      run_id)
                    for i, (cluster, members) in enumerate(zip(clusters, groups))
                ]
                return written, usage, None
            why = f"summaries of {len(clusters)} clusters ({', '.join(c.id for c in clusters)}): {asked.why}"
        written = [
            # the lead is chosen among members no newer decision follows; what is listed as replaced is the
            # judge's to say (the persister sets it from the run's supersessions: extractive.as_judged)
            extractive.summarize(cluster, members, superseded=_older_decisions(members, traits, self._quality),
                                 run_id=run_id, now=now, summary_id=cluster.id, fallback_reason=why,
                                 quality=self._quality, traits=traits)
            for cluster, members in zip(clusters, groups)
        ]
        return [s for s in written if s is not None], usage, why

    @staticmethod
    def _from_answer(cluster: Cluster, members: Sequence[Memory], answer: SummaryAnswer, provider: str,
                     model: str, now, run_id: str) -> Summary:
        stamps = [m.timestamp for m in members]
        return Summary(
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
            provider=provider,
            model=model,
            created_at=now,
            run_id=run_id,
        )


def _pack(clusters: Sequence[Cluster], max_memories: int) -> list[list[Cluster]]:
    """Clusters grouped into requests of at most `max_memories` memories (a bigger cluster goes alone)."""
    batches: list[list[Cluster]] = []
    current: list[Cluster] = []
    size = 0
    for cluster in sorted(clusters, key=lambda c: -len(c.members)):
        if current and size + len(cluster.members) > max_memories:
            batches.append(current)
            current, size = [], 0
        current.append(cluster)
        size += len(cluster.members)
    if current:
        batches.append(current)
    return batches


def _older_decisions(members: Sequence[Memory], traits: Mapping[str, ContentTraits],
                     quality: QualityPolicy) -> set[str]:
    """Decisions a newer, well-formed decision of the same cluster follows: never the lead of an extractive
    summary, nor its key facts (a transcript fragment that mentions a decision follows nothing). Whether they are
    replaced is the judge's to say: the persister lists a summary's superseded facts from its verdicts."""
    decisions = sorted((m for m in members if m.namespace == "decisions"), key=lambda m: m.timestamp)
    formed = [m for m in decisions if quality_score(quality, traits[m.key]) >= WELL_FORMED]
    if not formed:
        return set()
    newest = formed[-1]
    return {m.key for m in decisions if m.timestamp < newest.timestamp}
