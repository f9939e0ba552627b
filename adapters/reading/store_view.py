"""Read-side view of a repository: memories joined with their metadata, scored on read."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from datetime import datetime

from memactors.actors.ports import ScanOutcome
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.reading.traits_cache import TraitsCache
from memactors.events.edge import replaced_in_part
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.quality import Quality, with_score
from memactors.events.retention import RetentionPolicy, RetentionScore, reference_time, score


@dataclass(frozen=True)
class MemoryView:
    memory: Memory
    meta: MemoryMeta | None
    retention: RetentionScore
    quality: Quality

    @property
    def tier(self) -> str:
        """The tier the last run assigned, or `untiered` before any run."""
        return self.meta.tier.value if self.meta else "untiered"


@dataclass(frozen=True)
class StoreView:
    memories: list[MemoryView]
    scan: ScanOutcome

    @cached_property
    def by_key(self) -> dict[str, MemoryView]:
        """Each memory by its stable key (built once per view: labels and lists look up thousands)."""
        return {v.memory.key: v for v in self.memories}

    def find(self, memory_id: str) -> MemoryView | None:
        found = self.by_key.get(memory_id)
        return found if found is not None else next((v for v in self.memories if v.memory.answers_to(memory_id)),
                                                    None)

    def tier_counts(self) -> Counter[str]:
        return Counter(view.tier for view in self.memories)

    def namespace_counts(self) -> Counter[str]:
        return Counter(view.memory.namespace for view in self.memories)


def load_view(store: MemoryStore, policy: RetentionPolicy, now: datetime) -> StoreView:
    """Scan (through the parse cache) and join every memory with its metadata; recency counts from the
    policy's reference time (the store's newest memory, by default), as a run's does. What each memory's
    content says comes from the runs' cache, so a large store is not read again."""
    state = store.load_state()
    scan = store.scan(None)
    now = reference_time(policy, now, (m.timestamp for m in scan.memories))
    cache = TraitsCache(store.git.common_dir / "memactors")
    traits = cache.traits(scan.memories)
    cache.save()
    partial = replaced_in_part(state.edges.values())
    abandoned = store.abandoned(scan.memories)  # as the runs' tierer sees it: the same retention
    views = []
    for memory in scan.memories:
        meta = state.meta.get(memory.key)
        quality = with_score(policy.quality, traits[memory.key])
        views.append(
            MemoryView(
                memory=memory,
                meta=meta,
                quality=quality,
                retention=score(
                    policy,
                    namespace=memory.namespace,
                    created=memory.timestamp,
                    last_access=meta.last_access if meta else None,
                    activation_count=meta.activation_count if meta else 0,
                    superseded=bool(meta and meta.superseded_by),
                    now=now,
                    quality=quality.score,
                    partially_superseded=memory.key in partial,
                    summarized=bool(meta and meta.consolidated_into),
                    abandoned=memory.key in abandoned,
                ),
            )
        )
    return StoreView(memories=views, scan=scan)
