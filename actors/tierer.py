"""Tierer: turns retention inputs into a score and a tier for every memory in scope."""

from __future__ import annotations

from collections import Counter

from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.bus.join import RunJoin
from memactors.events.metadata import MemoryMeta
from memactors.events.pipeline import (
    Event,
    MemoriesScanned,
    MemoriesTiered,
    RunFailed,
    SupersessionsJudged,
)
from memactors.events.retention import RetentionPolicy, factors, tier_for
from memactors.events.tier import TIER_ORDER


class Tierer(Actor):
    """Joins a run's scan (and its supersession verdicts, when a judge runs) and tiers it.

    Inputs come from the prior metadata (last access, activation count,
    supersession, consolidation) and the memory itself (creation time);
    `now` is the run's start, so a run is deterministic.
    """

    name = "tierer"
    subscribes = (MemoriesScanned, SupersessionsJudged, RunFailed)
    publishes = (MemoriesTiered,)

    def __init__(self, bus: Bus, policy: RetentionPolicy) -> None:
        super().__init__(bus)
        self._policy = policy
        self._join = RunJoin(bus, required=(MemoriesScanned,), if_published=(SupersessionsJudged,))

    async def handle(self, event: Event) -> None:
        if isinstance(event, RunFailed):
            self._join.discard(event.run_id)
            return
        ready = self._join.add(event)  # type: ignore[arg-type]
        if ready is None:
            return
        scanned: MemoriesScanned = ready[MemoriesScanned]  # type: ignore[assignment]
        judged = ready.get(SupersessionsJudged)
        verdicts = judged.superseded_by if isinstance(judged, SupersessionsJudged) else {}
        await self.bus.publish(self._tier(scanned, verdicts))

    def _tier(self, scanned: MemoriesScanned, verdicts: dict[str, str]) -> MemoriesTiered:
        now = scanned.request.started_at
        counts: Counter[str] = Counter({tier.value: 0 for tier in TIER_ORDER})
        moves: Counter[str] = Counter()
        metas: list[MemoryMeta] = []
        for memory in scanned.memories:
            prior = scanned.prior.meta.get(memory.key)
            superseded_by = verdicts.get(memory.key) or (prior.superseded_by if prior else None)
            last_access = prior.last_access if prior else None
            activations = prior.activation_count if prior else 0
            value = factors(
                self._policy,
                namespace=memory.namespace,
                created=memory.timestamp,
                last_access=last_access,
                activation_count=activations,
                superseded=superseded_by is not None,
                now=now,
            )[0]
            tier = tier_for(self._policy, value)
            counts[tier.value] += 1
            before = prior.tier.value if prior else "new"
            if before != tier.value:
                moves[f"{before}->{tier.value}"] += 1
            if (
                prior is not None
                and prior.tier is tier
                and prior.superseded_by == superseded_by
                and prior.id == memory.id
                and prior.commit == memory.commit
                and prior.created == memory.timestamp
            ):
                metas.append(prior)  # unchanged: no new record to build or write
                continue
            metas.append(
                MemoryMeta(
                    key=memory.key,
                    id=memory.id,
                    namespace=memory.namespace,
                    commit=memory.commit,
                    created=memory.timestamp,
                    last_access=last_access,
                    activation_count=activations,
                    superseded_by=superseded_by,
                    consolidated_into=prior.consolidated_into if prior else None,
                    cluster_id=prior.cluster_id if prior else None,
                    tier=tier,
                )
            )
        return MemoriesTiered(
            run_id=scanned.run_id,
            metas=tuple(metas),
            tier_counts=dict(counts),
            tier_transitions=dict(sorted(moves.items())),
        )
