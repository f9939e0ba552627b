"""`memactors recall`: tier-aware hybrid search over the read model the last run stored.

Two rankings are fused by reciprocal rank (1/(60 + rank) from each): the
dense one, by relevance — the cosine of the query to each entry (when the
index has vectors from the same embedding model) blended with the share of
the query's terms the entry holds — and BM25 over the entries' FTS5 index
(title, text, tags; adapters/reading/lexical_index.py). The ranking score is
`fused · (0.8 + 0.2 · retention)`, so among equally ranked entries the ones
worth keeping (quality included) come first. Without a lexical index the
score is `relevance · (0.8 + 0.2 · retention)`.
Summaries rank alongside memories. The tier filter is the mode's. Copies of
one capture (identical, or cut differently) are one result: the group's most
complete copy, ranked by its best-matching copy, with the copies' date range;
memories with the same title (one statement captured two ways) are one result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

import numpy as np

from memactors.actors.algorithms.llm_call import ask
from memactors.actors.algorithms.prompts import REASON_SYSTEM, ReasonAnswer, check_citations, reason_prompt
from memactors.actors.ports import Embedder, StructuredLLM
from memactors.adapters.reading.lexical_index import ranked
from memactors.adapters.reading.read_cache import RecallIndex
from memactors.events.read_model import EntryKind, IndexedEntry
from memactors.events.temporal import Evidence, ReasonedAnswer
from memactors.events.terms import terms
from memactors.events.tier import Tier

MODES: dict[str, frozenset[Tier]] = {
    "reflexive": frozenset({Tier.HOT}),
    "standard": frozenset({Tier.HOT, Tier.WARM}),
    "deep": frozenset({Tier.HOT, Tier.WARM, Tier.COLD}),
    "exhaustive": frozenset(Tier),
}
MAX_QUERY_CHARS = 2000
SEMANTIC_WEIGHT = 0.8
#: Below this blended relevance an entry is noise, not a result (unrelated MiniLM pairs score ~0.1-0.3).
MIN_RELEVANCE = 0.3
#: Reciprocal rank fusion's constant (the usual 60: ranks far down still count a little).
RRF_K = 60
#: BM25 candidates fused with the dense ranking.
LEXICAL_DEPTH = 400


@dataclass(frozen=True)
class RecallHit:
    entry: IndexedEntry
    relevance: float
    score: float

    def as_json(self) -> dict[str, Any]:
        e = self.entry
        doc: dict[str, Any] = {
            "id": e.id, "kind": e.kind.value, "namespace": e.namespace, "tier": e.tier.value,
            "score": round(self.score, 4), "relevance": round(self.relevance, 4), "summary": e.summary,
            "title": e.title or e.summary, "timestamp": e.timestamp.isoformat(), "superseded_by": e.superseded_by,
        }
        if e.copies > 1:
            doc["copies"] = e.copies
            doc["first_seen"] = e.first_seen.isoformat() if e.first_seen else None
            doc["last_seen"] = e.last_seen.isoformat() if e.last_seen else None
        if e.superseded_by_text:
            doc["superseded_by_summary"] = e.superseded_by_text
        if e.kind is EntryKind.SUMMARY:
            doc["key_facts"] = e.excerpt
            doc["superseded_facts"] = list(e.superseded_facts)
            doc["sources"] = list(e.sources)
        else:
            doc["excerpt"] = e.excerpt
            doc["retention"] = e.score
        return doc


def _lexical(query_terms: frozenset[str], entries: Sequence[IndexedEntry]) -> np.ndarray:
    if not query_terms:
        return np.zeros(len(entries), dtype=np.float32)
    shares = [len(query_terms.intersection(e.terms)) / len(query_terms) for e in entries]
    return np.asarray(shares, dtype=np.float32)


def search(index: RecallIndex, query: str, *, mode: str = "standard", limit: int = 10,
           namespaces: Sequence[str] | None = None, embedder: Embedder | None = None) -> list[RecallHit]:
    """The best `limit` entries for `query` among the tiers `mode` allows (and `namespaces`, when given)."""
    allowed = MODES[mode]
    keep = [i for i, e in enumerate(index.entries)
            if e.tier in allowed and (not namespaces or e.namespace in namespaces)]
    if not keep:
        return []
    entries = [index.entries[i] for i in keep]
    lexical = _lexical(frozenset(terms(query)), entries)
    if embedder is not None and index.vectors is not None and index.model_id == embedder.model_id:
        query_vector = embedder.embed([query])[0]
        cosine = np.clip(index.vectors[keep] @ query_vector, 0.0, 1.0)
        relevance = SEMANTIC_WEIGHT * cosine + (1 - SEMANTIC_WEIGHT) * lexical
        floor = MIN_RELEVANCE
    else:
        relevance = lexical
        floor = 1e-9
    retention = np.asarray([e.score for e in entries], dtype=np.float32)
    bm25 = ranked(index.lexical, query, LEXICAL_DEPTH) if index.lexical is not None else None
    if bm25 is None:  # no lexical index: the blended relevance alone
        scores = relevance * (0.8 + 0.2 * retention)
        eligible = relevance >= floor
    else:
        # reciprocal rank fusion of the dense ranking and BM25's; retention (quality included) breaks ties
        position = {row: j for j, row in enumerate(keep)}
        fused = 1.0 / (RRF_K + 1 + np.argsort(np.argsort(-relevance, kind="stable"), kind="stable"))
        eligible = relevance >= floor
        matched = [position[row] for row, _ in bm25 if row in position]
        for rank, j in enumerate(matched):
            fused[j] += 1.0 / (RRF_K + 1 + rank)
            eligible[j] = True
        scores = fused * (0.8 + 0.2 * retention)
    order = np.argsort(-scores, kind="stable")
    heads = {e.key: e for e in index.entries if e.kind is EntryKind.MEMORY and e.copy_of is None}
    hits: list[RecallHit] = []
    shown: set[str] = set()
    for i in order:
        if len(hits) == limit:
            break
        if not eligible[i]:
            continue
        entry = entries[i]
        head = heads.get(entry.copy_of or entry.key, entry)
        # a copy of a capture already listed, or the same statement captured another way (same title)
        seen = {head.key, f"title:{' '.join((head.title or head.summary).split()).casefold()}"}
        if head.kind is EntryKind.SUMMARY:
            seen = {head.key}
        if seen & shown:
            continue
        shown |= seen
        hits.append(RecallHit(head, float(relevance[i]), float(scores[i])))
    return hits


def semantic(index: RecallIndex, embedder: Embedder | None) -> bool:
    """True when `search` can use vectors (same embedding model as the index)."""
    return embedder is not None and index.vectors is not None and index.model_id == embedder.model_id


async def reason_with_llm(llm: StructuredLLM, question: str, evidence: Sequence[Evidence],
                          offline: ReasonedAnswer, tz: tzinfo) -> tuple[ReasonedAnswer, str | None]:
    """The LLM composes the answer from the deterministically resolved dates; on any failure the
    offline answer stands and the second value says why."""
    labelled = {f"E{i + 1}": e for i, e in enumerate(evidence)}
    rows = []
    for label, e in labelled.items():
        found = [r for r in offline.temporal_resolutions if r.memory_id == e.memory_id]
        lines = [f'"{r.original_text}" -> {r.resolved_date.isoformat()}'
                 + (f" .. {r.resolved_end.isoformat()}" if r.resolved_end else "")
                 + f" (confidence {r.confidence:.2f})" for r in found]
        rows.append((label, e.timestamp.astimezone(tz).isoformat(), e.text, lines))

    def check(answer: ReasonAnswer) -> None:
        check_citations(answer.cited, labelled)  # type: ignore[arg-type]

    asked = await ask(llm, REASON_SYSTEM, reason_prompt(question, rows), ReasonAnswer, check)
    if asked.answer is None:
        return offline, asked.why
    cited = [labelled[c].memory_id for c in asked.answer.cited]
    return offline.model_copy(update={
        "answer": asked.answer.answer, "confidence": asked.answer.confidence, "reasoning": asked.answer.reasoning,
        "source_memory_ids": tuple(cited) or offline.source_memory_ids, "provider": asked.provider,
    }), None
