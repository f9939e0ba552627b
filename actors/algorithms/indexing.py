"""Flatten a run's final state into the read model recall and the SessionStart context use."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from memactors.actors.algorithms.clustering import embedding_text
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.read_model import EntryKind, IndexedEntry, ReadModel
from memactors.events.summary import Summary
from memactors.events.terms import terms
from memactors.events.tier import Tier

EXCERPT_CHARS = 300
#: How many replaced memories an entry names (context shows them; more is noise).
MAX_SUPERSEDES = 3
_SPACE = re.compile(r"\s+")


def _flat(text: str, limit: int) -> str:
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def build_read_model(
    memories: Sequence[Memory],
    metas: Mapping[str, MemoryMeta],
    scores: Mapping[str, float],
    summaries: Iterable[Summary],
    *,
    run_id: str,
    generated_at: datetime,
    memory_tips: Mapping[str, str],
) -> ReadModel:
    """Every memory (with its tier, score and supersession) and every summary, in one model.

    `metas` and `scores` are the run's final values by memory key; a memory
    without metadata is left out (it has no tier yet).
    """
    by_key = {m.key: m for m in memories}
    replaced: dict[str, list[str]] = {}
    for memory in memories:
        meta = metas.get(memory.key)
        newer = by_key.get(meta.superseded_by) if meta and meta.superseded_by else None
        if newer is not None and newer.summary.strip().lower() != memory.summary.strip().lower():
            replaced.setdefault(newer.key, []).append(memory.summary)

    entries: list[IndexedEntry] = []
    texts: list[str] = []
    for memory in memories:
        meta = metas.get(memory.key)
        if meta is None:
            continue
        newer = by_key.get(meta.superseded_by) if meta.superseded_by else None
        entries.append(IndexedEntry(
            kind=EntryKind.MEMORY, id=memory.id, key=memory.key, namespace=memory.namespace, tier=meta.tier,
            score=round(scores.get(memory.key, 0.0), 4), timestamp=memory.timestamp,
            last_access=meta.last_access, activation_count=meta.activation_count,
            summary=memory.summary, excerpt=_flat(memory.body, EXCERPT_CHARS), tags=memory.tags,
            superseded_by=newer.id if newer else meta.superseded_by,
            superseded_by_text=newer.summary if newer else None,
            supersedes=tuple(replaced.get(memory.key, ())[:MAX_SUPERSEDES]),
            consolidated_into=meta.consolidated_into,
            terms=terms(" ".join((memory.summary, " ".join(memory.tags), memory.spec or "", memory.body))),
        ))
        texts.append(embedding_text(memory))

    for summary in sorted(summaries, key=lambda s: s.id):
        members = [k for k in summary.source_keys if k in metas]
        live = [k for k in members if not metas[k].superseded_by] or members
        namespaces = Counter(metas[k].namespace for k in members)
        facts = "; ".join(summary.key_facts)
        entries.append(IndexedEntry(
            kind=EntryKind.SUMMARY, id=f"summary:{summary.id}", key=f"summary:{summary.id}",
            namespace=namespaces.most_common(1)[0][0] if namespaces else "summary", tier=Tier.WARM,
            score=round(max((scores.get(k, 0.0) for k in live), default=0.0), 4), timestamp=summary.latest,
            summary=_flat(summary.text, 400), excerpt=_flat(facts, EXCERPT_CHARS),
            superseded_facts=summary.superseded_facts,
            sources=tuple(by_key[k].id if k in by_key else k for k in summary.source_keys),
            terms=terms(" ".join((summary.text, facts))),
        ))
        texts.append(f"{summary.text}\n{facts}".strip())
    return ReadModel(run_id=run_id, generated_at=generated_at, memory_tips=dict(memory_tips),
                     entries=tuple(entries), embedding_texts=tuple(texts))
