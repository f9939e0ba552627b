"""Tierer: turns retention inputs into a score and a tier for every memory in scope."""

from __future__ import annotations

from collections import Counter

import numpy as np

from memactors.actors.ports import ContentReader
from memactors.bus.bus import Bus
from memactors.bus.join import Joined, JoiningActor
from memactors.events.edge import replaced_in_part
from memactors.events.metadata import MemoryMeta
from memactors.events.pipeline import (
    ClustersFormed,
    ClustersSummarized,
    MemoriesScanned,
    MemoriesTiered,
    SupersessionsJudged,
)
from memactors.events.quality import quality_score
from memactors.events.retention import RetentionPolicy, fold_uses, reference_time, scores, tier_for
from memactors.events.tier import TIER_ORDER, Tier
from memactors.events.verdict import Relation


class Tierer(JoiningActor):
    """Joins a run's scan (and its supersession verdicts, when a judge runs) and tiers it.

    Inputs come from the prior metadata (last access, activation count,
    supersession, consolidation) and the memory itself (creation time, and
    the quality of its content); recency counts from the policy's reference
    time (the store's newest memory, or the run's start on the wall clock),
    so a run is deterministic. A memory the scan found `abandoned` (its branch deleted without merging) ages
    faster (the policy's `abandoned_half_life_factor`). With `forgetting` off no memory changes tier:
    each keeps the one it has, one seen for the first time enters hot (pins
    still apply); scores are computed all the same, for ranking.
    """

    name = "tierer"
    joins = (MemoriesScanned,)
    joins_if_published = (SupersessionsJudged, ClustersFormed, ClustersSummarized)
    publishes = (MemoriesTiered,)

    def __init__(self, bus: Bus, policy: RetentionPolicy, traits: ContentReader, *, forgetting: bool = True) -> None:
        super().__init__(bus)
        self._policy = policy
        self._traits = traits
        self._forgetting = forgetting

    async def handle_run(self, events: Joined) -> None:
        judged = events.get(SupersessionsJudged)
        verdicts = judged.superseded_by if judged is not None else {}
        released = frozenset(judged.no_longer_superseded) if judged is not None else frozenset()
        scanned = events[MemoriesScanned]
        await self.bus.publish(self._tier(scanned, verdicts, released, _replaced_in_part(scanned, judged),
                                          _summarized(scanned, events.get(ClustersFormed),
                                                      events.get(ClustersSummarized))))

    def _tier(self, scanned: MemoriesScanned, verdicts: dict[str, str], released: frozenset[str],
              partial: frozenset[str] = frozenset(), summarized: frozenset[str] = frozenset()) -> MemoriesTiered:
        memories = scanned.memories
        # the store clock is the whole store's, even when this run scans some namespaces only
        seen = [m.timestamp for m in memories] + ([scanned.newest] if scanned.newest else [])
        now = reference_time(self._policy, scanned.request.started_at, seen)
        traits = self._traits.traits(memories)
        priors = [scanned.prior.meta.get(m.key) for m in memories]
        uses = [fold_uses(p, scanned.activations.get(m.key, ())) for m, p in zip(memories, priors)]
        # a supersession stands until a verdict replaces it or overturns it (`released`)
        superseded_by = [verdicts.get(m.key) or (p.superseded_by if p and m.key not in released else None)
                         for m, p in zip(memories, priors)]
        anchors = np.fromiter(
            (max(m.timestamp, last) if last else m.timestamp for m, (last, _) in zip(memories, uses)),
            dtype=object, count=len(memories),
        )
        values = scores(
            self._policy,
            namespaces=[m.namespace for m in memories],
            anchors=np.fromiter((a.timestamp() for a in anchors), dtype=np.float64, count=len(memories)),
            activation_counts=np.fromiter((count for _, count in uses), dtype=np.float64, count=len(memories)),
            superseded=np.fromiter((s is not None for s in superseded_by), dtype=bool, count=len(memories)),
            now=now,
            quality=np.fromiter((quality_score(self._policy.quality, traits[m.key]) for m in memories),
                                dtype=np.float64, count=len(memories)),
            partially_superseded=np.fromiter((m.key in partial for m in memories), dtype=bool, count=len(memories)),
            summarized=np.fromiter((m.key in summarized for m in memories), dtype=bool, count=len(memories)),
            abandoned=np.fromiter((m.key in scanned.abandoned for m in memories), dtype=bool, count=len(memories)),
        )
        policy = self._policy
        counts: Counter[str] = Counter({tier.value: 0 for tier in TIER_ORDER})
        moves: Counter[str] = Counter()
        metas: list[MemoryMeta] = []
        for memory, prior, replaced, (last_access, activation_count), value in zip(
            memories, priors, superseded_by, uses, values.tolist()
        ):
            if self._forgetting:
                tier = _as_the_user_said(prior, tier_for(policy, value))
            else:  # nothing fades: the tier a memory has stays, a new one starts hot
                tier = _as_the_user_said(prior, prior.tier if prior is not None else Tier.HOT)
            counts[tier] += 1
            if prior is None:
                moves[f"new->{tier}"] += 1
            elif prior.tier is not tier:
                moves[f"{prior.tier}->{tier}"] += 1
            elif (prior.superseded_by == replaced and prior.commit == memory.commit
                  and prior.created == memory.timestamp and prior.id == memory.id
                  and prior.activation_count == activation_count):
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
                    activation_count=activation_count,
                    superseded_by=replaced,
                    consolidated_into=prior.consolidated_into if prior else None,
                    cluster_id=prior.cluster_id if prior else None,
                    tier=tier,
                    pin=prior.pin if prior else None,
                    pinned_at=prior.pinned_at if prior else None,
                )
            )
        return MemoriesTiered(
            run_id=scanned.run_id,
            metas=tuple(metas),
            scores=tuple(values.tolist()),
            reference_time=now,
            tier_counts={str(k): v for k, v in counts.items()},
            tier_transitions=dict(sorted(moves.items())),
        )


def _replaced_in_part(scanned: MemoriesScanned, judged: SupersessionsJudged | None) -> frozenset[str]:
    """The memories a newer one replaces in part: this run's partial verdicts, and earlier partial supersessions
    still in force that this run did not withdraw."""
    withdrawn = frozenset(judged.withdrawn_edges) if judged is not None else frozenset()
    earlier = replaced_in_part(scanned.prior.edges.values(), withdrawn)
    now = {v.older for v in (judged.verdicts if judged is not None else ())
           if v.relation is Relation.SUPERSEDES and v.partial}
    return frozenset(earlier | now)


def _summarized(scanned: MemoriesScanned, formed: ClustersFormed | None,
                summed: ClustersSummarized | None) -> frozenset[str]:
    """The members of a summary once this run is persisted (as the persister records them): this run's
    summaries' sources, and the earlier ones of clusters this run left untouched."""
    if formed is None:
        return frozenset(k for k, meta in scanned.prior.meta.items() if meta.consolidated_into)
    touched = {k: c.touched for c in formed.clusters for k in c.members}
    new = {k for summary in (summed.summaries if summed is not None else ()) for k in summary.source_keys}
    kept = {k for k, meta in scanned.prior.meta.items() if meta.consolidated_into and not touched.get(k, True)}
    return frozenset(new | kept)


def _as_the_user_said(prior: MemoryMeta | None, tier: Tier) -> Tier:
    """A pinned memory stays hot and an archived one archived, whatever its retention says."""
    if prior is not None and prior.pin == "pinned":
        return Tier.HOT
    if prior is not None and prior.pin == "archived":
        return Tier.ARCHIVED
    return tier
