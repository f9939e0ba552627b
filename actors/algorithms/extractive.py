"""The offline summarizer: picks the sentences and facts that best represent a cluster."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from memactors.events.cluster import Cluster
from memactors.events.memory import Memory
from memactors.events.summary import DecisionFact, Summary

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
#: Offline summaries are extractive, not understood: say so in the confidence.
OFFLINE_CONFIDENCE = 0.4


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _first_sentence(text: str) -> str:
    for part in _SENTENCE.split(text):
        part = part.strip(" -*#>`")
        if len(part) > 3:
            return part[:240]
    return ""


def summarize(
    cluster: Cluster,
    members: Sequence[Memory],
    *,
    superseded: set[str],
    run_id: str,
    now: datetime,
    summary_id: str,
    fallback_reason: str | None = None,
) -> Summary:
    """An extractive summary: the most central memory leads, the next most central are key facts.

    `members` are in the cluster's order; `superseded` holds keys the
    cluster's own evidence marks as replaced (listed as superseded facts),
    except restatements of a fact that still stands: those are not stale.
    """
    standing = {_norm(m.summary) for m in members if m.key not in superseded}
    superseded = {m.key for m in members if m.key in superseded and _norm(m.summary) not in standing}
    order = sorted(range(len(members)), key=lambda i: -cluster.centrality[i] if cluster.centrality else i)
    lead = members[order[0]]
    detail = _first_sentence(lead.body)
    text = lead.summary if not detail or detail in lead.summary else f"{lead.summary}. {detail}"
    facts: list[str] = []
    for i in order:
        fact = members[i].summary.strip()
        if members[i].key not in superseded and fact and fact not in facts:
            facts.append(fact)
    decisions = tuple(
        DecisionFact(
            decision=m.summary,
            rationale=_first_sentence(m.body),
            outcome="superseded" if m.key in superseded else "current",
        )
        for m in sorted(members, key=lambda m: m.timestamp)
        if m.namespace == "decisions"
    )
    stamps = [m.timestamp for m in members]
    return Summary(
        id=summary_id,
        cluster_id=cluster.id,
        text=text[:500],
        key_facts=tuple(facts[:8]),
        decisions=decisions,
        superseded_facts=tuple(dict.fromkeys(m.summary for m in members if m.key in superseded)),
        source_keys=tuple(m.key for m in members),
        source_ids=tuple(m.id for m in members),
        earliest=min(stamps),
        latest=max(stamps),
        confidence=OFFLINE_CONFIDENCE,
        provider="offline",
        model="extractive-v1",
        created_at=now,
        run_id=run_id,
        fallback_reason=fallback_reason,
    )
