"""Memories by day: filtered by namespace, tier, quality and a search, copies folded into one row, a replaced
memory pointing at what replaced it. A page at a time: a store of 100,000 memories stays browsable."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.memories import label, open_view_and_state
from memactors.adapters.operations.outcome import Outcome

PER_PAGE = 50
#: A search keeps this many of recall's best matches (then filtered and paged like the rest).
SEARCHED = 300
TIERS = ("hot", "warm", "cold", "archived", "untiered")


def timeline(repo: Path, *, query: str = "", namespace: str = "", tier: str = "", min_quality: float = 0.0,
             page: int = 1, per_page: int = PER_PAGE, embedder: Any = None, copies: bool = False) -> Outcome:
    """One page of memories, newest day first (with a search: best match first, one list), and the filters'
    totals. A search ranks recall's matches first, then the memories recall does not list that hold the query's
    words (an archived memory, a copy): so asking for tier archived, or for `copies`, finds them too."""
    if page < 1 or per_page < 1:
        raise UsageError("page and per_page must be 1 or more")
    if tier and tier not in TIERS:
        raise UsageError(f"unknown tier {tier!r}; use one of: {', '.join(TIERS)}")
    if not 0.0 <= min_quality <= 1.0:
        raise UsageError("min_quality must be between 0 and 1")
    _, view, state = open_view_and_state(repo)
    copy_of = {e.target_key: e.source_key for e in state.edges.values()
               if e.edge_type.value == "subsumes" and e.reason.startswith("duplicate")}
    copy_count: dict[str, int] = defaultdict(int)
    for copy, canonical in copy_of.items():
        copy_count[canonical] += 1
    namespaces = sorted({v.memory.namespace for v in view.memories})
    if namespace and namespace not in namespaces:
        raise UsageError(f"no namespace {namespace!r} in this store; it has: {', '.join(namespaces)}")
    items = [v for v in view.memories if (copies or v.memory.key not in copy_of)
             and (not namespace or v.memory.namespace == namespace) and (not tier or v.tier == tier)
             and v.quality.score >= min_quality]
    order: dict[str, int] | None = None
    if query.strip():
        from memactors.adapters.operations.recall import recall

        found = recall(repo, query, mode="exhaustive", limit=SEARCHED, track=False, embedder=embedder,
                       passages=False).document
        # a list of results; or {"nothing_relevant": true, "results": []}; or a date question's dated answer
        hits = found if isinstance(found, list) else found.get("results") or []
        order = {h["id"]: rank for rank, h in enumerate(hits) if h.get("kind") == "memory"}
        words = _words(query)
        for v in sorted((v for v in items if v.memory.id not in order), key=lambda v: -_held(words, v)):
            if _held(words, v) >= 0.5:  # at least half the query's words, in its title, summary, body or tags
                order[v.memory.id] = len(order)
        items = [v for v in items if v.memory.id in order]
        items.sort(key=lambda v: order[v.memory.id])
    else:
        items.sort(key=lambda v: (v.memory.timestamp, v.memory.id), reverse=True)
    total = len(items)
    pages = max(1, -(-total // per_page))
    if page > pages:
        raise UsageError(f"page {page} is past the last page ({pages})")
    rows = []
    for v in items[(page - 1) * per_page: page * per_page]:
        m = v.memory
        replaced_by = v.meta.superseded_by if v.meta else None
        replacer = view.by_key.get(replaced_by) if replaced_by else None
        rows.append({"id": m.id, "day": m.timestamp.date().isoformat(), "timestamp": m.timestamp.isoformat(),
                     "namespace": m.namespace, "title": v.quality.title or m.summary, "tier": v.tier,
                     "quality": round(v.quality.score, 2), "copies": copy_count.get(m.key, 0),
                     "copy_of": view.by_key[copy_of[m.key]].memory.id if m.key in copy_of
                     and copy_of[m.key] in view.by_key else None,
                     "superseded_by": replacer.memory.id if replacer else None,
                     "superseded_by_title": (replacer.quality.title or replacer.memory.summary) if replacer
                     else (label(view, replaced_by) if replaced_by else None)})
    doc = {"total": total, "page": page, "pages": pages, "per_page": per_page, "namespaces": namespaces,
           "filters": {"q": query, "namespace": namespace, "tier": tier, "min_quality": min_quality,
                       "copies": copies},
           "memories": rows}
    lines = [f"{total} {'memory' if total == 1 else 'memories'} (page {page} of {pages})"]
    for r in rows:
        struck = f"  [replaced by {r['superseded_by']}]" if r["superseded_by"] else ""
        lines.append(f"  {r['day']}  [{r['tier']}] {r['namespace']:<12} {r['title'][:70]}"
                     + (f" (+{r['copies']} copies)" if r["copies"] else "") + struck)
    return Outcome(doc, "\n".join(lines))


def _words(query: str) -> list[str]:
    import re

    return sorted({w for w in re.findall(r"\w+", query.lower()) if len(w) > 1})


def _held(words: list[str], v: Any) -> float:
    """The share of the query's words that a memory's title, summary, body or tags hold (by their start)."""
    import re

    if not words:
        return 0.0
    m = v.memory
    held = set(re.findall(r"\w+", " ".join([v.quality.title or "", m.summary, m.body or "", *m.tags]).lower()))
    return sum(any(h.startswith(w) for h in held) for w in words) / len(words)
