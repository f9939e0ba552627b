"""The edges a run implies: from verdicts, duplicates, summaries and `relates_to`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from memactors.events.edge import Edge, EdgeType, edge_id
from memactors.events.memory import Memory
from memactors.events.summary import Summary
from memactors.events.verdict import Relation, Verdict

SUMMARY_PREFIX = "summary:"


def _edge(source: str, target: str, kind: EdgeType, ids: Mapping[str, str], *, weight: float, reason: str,
          now: datetime, run_id: str, partial: bool = False) -> Edge:
    return Edge(source_key=source, target_key=target, source_id=ids.get(source, source),
                target_id=ids.get(target, target), edge_type=kind, weight=round(weight, 3), reason=reason,
                partial=partial, created_at=now, consolidation_run_id=run_id)


def verdict_edge(v: Verdict) -> tuple[str, str, EdgeType] | None:
    """(source, target, type) of the edge a verdict implies; None for compatible pairs."""
    if v.relation is Relation.SUPERSEDES:
        return v.newer, v.older, EdgeType.SUPERSEDES
    if v.relation is Relation.SUBSUMES and v.container:
        return v.container, v.older if v.container == v.newer else v.newer, EdgeType.SUBSUMES
    if v.relation in (Relation.CONTRADICTORY, Relation.AMBIGUOUS):
        return v.newer, v.older, EdgeType.CONTRADICTS
    return None


def withdrawn_edges(verdicts: Iterable[Verdict], prior: Mapping[str, Edge]) -> list[Edge]:
    """Earlier verdict edges a re-judged pair no longer implies, when the new verdict is at least as confident.

    Only supersedes, subsumes and undecided contradicts edges between the two memories of a judged pair
    count; a contradiction the user resolved stays, and a weaker judgement (say the offline heuristic
    after an LLM) never overturns a stronger one.
    """
    withdrawn: list[Edge] = []
    for v in verdicts:
        implied = verdict_edge(v)
        for source, target in ((v.newer, v.older), (v.older, v.newer)):
            for kind in (EdgeType.SUPERSEDES, EdgeType.SUBSUMES, EdgeType.CONTRADICTS):
                old = prior.get(edge_id(source, target, kind))
                if (old is not None and (source, target, kind) != implied and old.resolution is None
                        and v.confidence >= old.weight):
                    withdrawn.append(old)
    return withdrawn


def run_edges(
    memories: Sequence[Memory],
    verdicts: Iterable[Verdict],
    duplicate_of: Mapping[str, str],
    summaries: Iterable[Summary],
    *,
    now: datetime,
    run_id: str,
) -> list[Edge]:
    """Every edge this run's findings imply (the persister merges them with what exists)."""
    ids = {m.key: m.id for m in memories}
    edges: list[Edge] = []
    for copy, canonical in duplicate_of.items():
        edges.append(_edge(canonical, copy, EdgeType.SUBSUMES, ids, weight=1.0,
                           reason="duplicate: a copy of the same capture (the same text, or a shorter cut of it)",
                           now=now, run_id=run_id))
    for v in verdicts:
        implied = verdict_edge(v)
        if implied is not None:
            source, target, kind = implied
            reason = f"{v.relation.value}: {v.reason}" if kind is EdgeType.CONTRADICTS else v.reason
            edges.append(_edge(source, target, kind, ids, weight=v.confidence, reason=reason,
                               partial=v.partial and kind is EdgeType.SUPERSEDES, now=now, run_id=run_id))
    for summary in summaries:
        for key in summary.source_keys:
            edges.append(_edge(SUMMARY_PREFIX + summary.id, key, EdgeType.CONSOLIDATES, ids,
                               weight=summary.confidence, reason="summarized in", now=now, run_id=run_id))
    by_short: dict[str, list[Memory]] = {}
    for m in memories:
        for commit in m.commits():
            by_short.setdefault(f"{m.namespace}:{commit[:7]}", []).append(m)
        by_short.setdefault(m.key, []).append(m)
    for memory in memories:
        for ref in memory.relates_to:
            parts = ref.split(":")
            bucket = by_short.get(f"{parts[0]}:{parts[1][:7].lower()}" if len(parts) == 3 else ref, [])
            target = next((m for m in bucket if m.answers_to(ref)), None)
            if target is not None and target.key != memory.key:
                edges.append(_edge(memory.key, target.key, EdgeType.REFERENCES, ids, weight=1.0,
                                   reason=f"relates_to {ref}", now=now, run_id=run_id))
    return edges


def anchor(edge: Edge) -> str:
    """The key whose commit an edge hangs on: the memory it describes."""
    return edge.target_key if edge.source_key.startswith(SUMMARY_PREFIX) else edge.source_key
