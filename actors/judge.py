"""Supersession judge: classifies newer/older pairs inside each touched cluster."""

from __future__ import annotations

from collections.abc import Sequence

import trio

from memactors.actors.heuristic_judge import judge_pair
from memactors.actors.llm_call import ask
from memactors.actors.ports import StructuredLLM
from memactors.actors.prompts import JUDGE_SYSTEM, JudgeAnswer, check_citations, flagged, judge_prompt
from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.bus.join import RunJoin
from memactors.events.cluster import Cluster, ClusterKind
from memactors.events.edge import EdgeType
from memactors.events.memory import Memory
from memactors.events.pipeline import ClustersFormed, Event, MemoriesScanned, RunFailed, SupersessionsJudged
from memactors.events.report import TokenUsage
from memactors.events.verdict import Relation, Verdict

#: A memory that reads like an instruction to the model never wins a pair on the model's word.
DISTRUSTED = (Relation.SUPERSEDES, Relation.SUBSUMES)


class SupersessionJudge(Actor):
    """Joins a run's scan and clusters; one judgement per touched cluster (or pair).

    Pairs are every newer/older couple of a cluster at cosine >=
    `pair_threshold`, minus pairs the user already resolved. With an LLM,
    all pairs of a cluster go in one call; otherwise the offline heuristic
    judges each pair. Exact duplicates are superseded by their canonical.
    """

    name = "judge"
    subscribes = (MemoriesScanned, ClustersFormed, RunFailed)
    publishes = (SupersessionsJudged,)

    def __init__(self, bus: Bus, llm: StructuredLLM | None, *, pair_threshold: float,
                 concurrency: int = 4) -> None:
        super().__init__(bus)
        self._llm = llm
        self._pair_threshold = pair_threshold
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
        resolved = {
            frozenset((e.source_key, e.target_key))
            for e in scanned.prior.edges.values()
            if e.edge_type is EdgeType.CONTRADICTS and e.resolution
        }
        verdicts: list[Verdict] = []
        usage = TokenUsage()
        fallbacks: list[str] = []

        async def one(cluster: Cluster) -> None:
            nonlocal usage
            members = [by_key[k] for k in cluster.members]
            pairs = [
                (members[j], members[i], cluster.similarity[i][j])
                for i in range(len(members))
                for j in range(i + 1, len(members))
                if cluster.similarity[i][j] >= self._pair_threshold
                and frozenset((members[i].key, members[j].key)) not in resolved
            ]
            if not pairs:
                return
            async with self._limit:
                found, used, why = await self._judge(members, pairs)
            verdicts.extend(found)
            usage += used
            if why:
                fallbacks.append(f"cluster {cluster.id}: {why}")

        async with trio.open_nursery() as nursery:
            for cluster in formed.clusters:
                if cluster.kind is not ClusterKind.DUPLICATES and cluster.touched:
                    nursery.start_soon(one, cluster)
        superseded_by = dict(formed.duplicate_of)
        for verdict in sorted(verdicts, key=lambda v: by_key[v.newer].timestamp):
            if verdict.relation is Relation.SUPERSEDES:
                superseded_by[verdict.older] = verdict.newer
            elif verdict.relation is Relation.SUBSUMES and verdict.container:
                lesser = verdict.older if verdict.container == verdict.newer else verdict.newer
                superseded_by[lesser] = verdict.container
        await self.bus.publish(
            SupersessionsJudged(
                run_id=formed.run_id,
                superseded_by=superseded_by,
                verdicts=tuple(sorted(verdicts, key=lambda v: (v.newer, v.older))),
                usage=usage,
                fallbacks=tuple(sorted(fallbacks)),
            )
        )

    async def _judge(
        self, members: Sequence[Memory], pairs: Sequence[tuple[Memory, Memory, float]]
    ) -> tuple[list[Verdict], TokenUsage, str | None]:
        offline = [judge_pair(newer, older, sim) for newer, older, sim in pairs]
        if self._llm is None:
            return offline, TokenUsage(), None
        user, labels = judge_prompt(members, [(n, o) for n, o, _ in pairs])

        def check(answer: JudgeAnswer) -> None:
            check_citations([l for v in answer.verdicts for l in (v.newer, v.older)], labels)
            for v in answer.verdicts:
                if v.relation == "subsumes" and v.container not in (v.newer, v.older):
                    raise ValueError(f"subsumes verdict for {v.newer}/{v.older} must name one of them as container")

        asked = await ask(self._llm, JUDGE_SYSTEM, user, JudgeAnswer, check)
        if asked.answer is None:
            return offline, asked.usage, asked.why
        wanted = {(n.key, o.key) for n, o, _ in pairs}
        judged: dict[tuple[str, str], Verdict] = {}
        for answer in asked.answer.verdicts:
            a, b = labels[answer.newer], labels[answer.older]
            newer, older = (a, b) if (a.timestamp, a.key) >= (b.timestamp, b.key) else (b, a)
            if (newer.key, older.key) not in wanted:
                continue
            relation = Relation(answer.relation)
            reason = answer.reason.strip()[:300]
            if relation in DISTRUSTED and (flagged(newer) or flagged(labels.get(answer.container or "", newer))):
                relation, reason = Relation.AMBIGUOUS, f"held for review: a memory reads like an instruction ({reason})"
            judged[(newer.key, older.key)] = Verdict(
                newer=newer.key, older=older.key, relation=relation, partial=answer.partial,
                container=labels[answer.container].key if relation is Relation.SUBSUMES and answer.container else None,
                reason=reason, confidence=min(answer.confidence, 0.9), provider=asked.provider,
            )
        # pairs the model skipped keep the offline verdict
        merged = [judged.get((v.newer, v.older), v) for v in offline]
        return merged, asked.usage, None
