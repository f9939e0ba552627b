"""Flatten a run's final state into the read model recall and the SessionStart context use."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from memactors.actors.algorithms.clustering import embedding_text
from memactors.actors.algorithms.near_duplicates import copy_groups, most_complete
from memactors.events.memory import Memory
from memactors.events.memory_text import display_title, is_echo
from memactors.events.metadata import MemoryMeta
from memactors.events.quality import ContentTraits, QualityPolicy, assess, with_score
from memactors.events.read_model import EntryKind, IndexedEntry, ReadModel
from memactors.events.summary import Summary
from memactors.events.terms import terms
from memactors.events.tier import Tier

EXCERPT_CHARS = 300
#: How many replaced memories an entry names, the newest first (context shows them; more is noise).
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
    quality: QualityPolicy | None = None,
    reference_time: datetime | None = None,
    traits: Mapping[str, ContentTraits] | None = None,
    copies: Mapping[str, str] | None = None,
    conflicts: Iterable[tuple[str, str]] = (),
) -> ReadModel:
    """Every memory (with its tier, score, supersession, title and quality) and every summary, in one model.

    `metas` and `scores` are the run's final values by memory key; a memory
    without metadata is left out (it has no tier yet). Copies of one capture
    are grouped (`copies`, copy key -> canonical key, when the clusterer found
    them already; else actors/algorithms/near_duplicates.py): the most complete
    copy answers for the group, superseded when any copy was superseded by a
    memory outside the group (a statement re-captured verbatim after it was
    replaced is still replaced), else standing and scored as its best copy.
    """
    policy = quality or QualityPolicy()
    kept = [m for m in memories if m.key in metas]
    by_key = {m.key: m for m in kept}
    known = traits or {}
    assessed = {m.key: with_score(policy, known[m.key]) if m.key in known
                else assess(policy, summary=m.summary, body=m.body, tags=m.tags) for m in kept}
    group_of = copy_groups(kept) if copies is None else most_complete(kept, copies)
    members: dict[str, list[str]] = {}
    for key, head in group_of.items():
        members.setdefault(head, []).append(key)

    def outside(key: str) -> str | None:
        """What supersedes `key`, unless it is a copy of the same capture."""
        newer = metas[key].superseded_by
        return newer if newer and group_of.get(newer) != group_of[key] else None

    replaced: dict[str, list[str]] = {}
    # newest first: what held just before is what a reader needs named, and the order must not follow the keys
    for memory in sorted(kept, key=lambda m: (m.timestamp, m.key), reverse=True):
        newer = outside(memory.key)
        if newer in by_key and group_of[newer] != group_of[memory.key]:
            title = assessed[memory.key].title
            into = replaced.setdefault(group_of[newer], [])
            if title.casefold() != assessed[newer].title.casefold() and title not in into:
                into.append(title)

    entries: list[IndexedEntry] = []
    texts: list[str] = []
    replaced_by: dict[str, str] = {}  # group head -> what replaced the statement
    for memory in kept:
        meta, quality_of = metas[memory.key], assessed[memory.key]
        head = group_of[memory.key]
        group = members[head]
        newer_key = meta.superseded_by
        score, tier, first_seen, last_seen = scores.get(memory.key, 0.0), meta.tier, None, None
        if head == memory.key and len(group) > 1:
            replaced_copies = sorted((by_key[k].timestamp, k) for k in group if outside(k))
            newer_key = outside(replaced_copies[-1][1]) if replaced_copies else None
            # a superseded statement ranks as its superseded copies do; a standing one as its best copy
            ranked = [k for _, k in replaced_copies] or [k for k in group if metas[k].superseded_by is None] or group
            best = max(ranked, key=lambda k: scores.get(k, 0.0))
            score, tier = scores.get(best, 0.0), metas[best].tier
            first_seen = min(by_key[k].timestamp for k in group)
            last_seen = max(by_key[k].timestamp for k in group)
        newer = by_key.get(newer_key) if newer_key else None
        if head == memory.key and newer_key:
            replaced_by[head] = newer_key
        entries.append(IndexedEntry(
            kind=EntryKind.MEMORY, id=memory.id, key=memory.key, namespace=memory.namespace, tier=tier,
            score=round(score, 4), timestamp=memory.timestamp,
            last_access=meta.last_access, activation_count=meta.activation_count,
            summary=memory.summary, title=quality_of.title, readable=quality_of.readable,
            quality=quality_of.score, copy_of=None if head == memory.key else head, copies=len(group),
            first_seen=first_seen, last_seen=last_seen,
            excerpt=_flat(memory.body, EXCERPT_CHARS), tags=memory.tags,
            superseded_by=newer.id if newer else newer_key,
            superseded_by_text=assessed[newer.key].title if newer else None,
            supersedes=tuple(replaced.get(memory.key, ())[:MAX_SUPERSEDES]) if head == memory.key else (),
            consolidated_into=meta.consolidated_into,
            terms=terms(" ".join((memory.summary, " ".join(memory.tags), memory.spec or "", memory.body))),
        ))
        texts.append(embedding_text(memory))

    for summary in sorted(summaries, key=lambda s: s.id):
        members = [k for k in summary.source_keys if k in metas]
        live = [k for k in members if not metas[k].superseded_by] or members
        namespaces = Counter(metas[k].namespace for k in members)
        facts = "; ".join(summary.key_facts)
        title = display_title(summary.text, "")
        # a summary led by a statement that was replaced since (the judge runs beside the summarizer) is stale
        led_by = {group_of[k] for k in members if k in assessed
                  and assessed[k].title.casefold() == summary.text.strip().casefold()}
        stale = [replaced_by[h] for h in sorted(led_by) if h in replaced_by]
        newer = by_key.get(stale[0]) if led_by and len(stale) == len(led_by) else None
        entries.append(IndexedEntry(
            kind=EntryKind.SUMMARY, id=f"summary:{summary.id}", key=f"summary:{summary.id}",
            title=title.text, readable=title.readable and not is_echo(summary.text),
            namespace=namespaces.most_common(1)[0][0] if namespaces else "summary", tier=Tier.WARM,
            score=round(max((scores.get(k, 0.0) for k in live), default=0.0), 4), timestamp=summary.latest,
            summary=_flat(summary.text, 400), excerpt=_flat(facts, EXCERPT_CHARS),
            superseded_facts=summary.superseded_facts,
            superseded_by=newer.id if newer else None,
            superseded_by_text=assessed[newer.key].title if newer else None,
            sources=tuple(by_key[k].id if k in by_key else k for k in summary.source_keys),
            terms=terms(" ".join((summary.text, facts))),
        ))
        texts.append(f"{summary.text}\n{facts}".strip())
    undecided = tuple(sorted((by_key[a].id, by_key[b].id) for a, b in conflicts if a in by_key and b in by_key))
    return ReadModel(run_id=run_id, generated_at=generated_at, reference_time=reference_time,
                     memory_tips=dict(memory_tips),
                     entries=tuple(entries), embedding_texts=tuple(texts), conflicts=undecided)
