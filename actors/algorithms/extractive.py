"""The offline summarizer: the best standing member leads, complete sentences of the others are its facts."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from memactors.events.cluster import Cluster
from memactors.events.memory import Memory
from memactors.events.memory_text import sentences
from memactors.events.quality import ContentTraits, QualityPolicy, assess, with_score
from memactors.events.summary import DecisionFact, Summary

#: Offline summaries are extractive, not understood: say so in the confidence.
OFFLINE_CONFIDENCE = 0.4
MAX_KEY_FACTS = 8


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def summarize(
    cluster: Cluster,
    members: Sequence[Memory],
    *,
    superseded: set[str],
    run_id: str,
    now: datetime,
    summary_id: str,
    fallback_reason: str | None = None,
    quality: QualityPolicy | None = None,
    traits: Mapping[str, ContentTraits] | None = None,
) -> Summary | None:
    """An extractive summary, or None when no member has a readable title (nothing worth showing).

    The lead is the standing (not superseded) member of highest quality,
    the newest among equals: its title is the summary's text. Key facts are
    distinct complete sentences of standing members' bodies, best members
    first, never a member's title. `superseded` holds keys the cluster's own
    evidence marks as replaced (listed as superseded facts, by title),
    except restatements of a fact that still stands: those are not stale.
    """
    policy = quality or QualityPolicy()
    known = traits or {}
    rated = {m.key: with_score(policy, known[m.key]) if m.key in known
             else assess(policy, summary=m.summary, body=m.body, tags=m.tags) for m in members}
    titles = {m.key: rated[m.key].title for m in members}
    standing_titles = {_norm(titles[m.key]) for m in members if m.key not in superseded}
    superseded = {m.key for m in members if m.key in superseded and _norm(titles[m.key]) not in standing_titles}
    standing = sorted((m for m in members if m.key not in superseded),
                      key=lambda m: (-rated[m.key].score, -m.timestamp.timestamp(), m.key))
    readable = [m for m in standing if rated[m.key].readable]
    if not readable:
        return None
    lead = readable[0]
    sibling_titles = {_norm(t) for t in titles.values()}
    facts: list[str] = []
    seen: set[str] = set(sibling_titles)
    for member in readable:
        for sentence in sentences(member.body):
            key = _norm(sentence)
            if key and key not in seen:
                seen.add(key)
                facts.append(sentence)
    decisions = tuple(
        DecisionFact(
            decision=titles[m.key],
            rationale=next(iter(sentences(m.body)), ""),
            outcome="superseded" if m.key in superseded else "current",
        )
        for m in sorted(members, key=lambda m: m.timestamp)
        if m.namespace == "decisions" and rated[m.key].readable
    )
    stamps = [m.timestamp for m in members]
    return Summary(
        id=summary_id,
        cluster_id=cluster.id,
        text=titles[lead.key],
        key_facts=tuple(facts[:MAX_KEY_FACTS]),
        decisions=decisions,
        superseded_facts=tuple(dict.fromkeys(titles[m.key] for m in members
                                             if m.key in superseded and rated[m.key].readable)),
        source_keys=tuple(m.key for m in members),
        source_ids=tuple(m.id for m in members),
        earliest=min(stamps),
        latest=max(stamps),
        confidence=OFFLINE_CONFIDENCE,
        provider="offline",
        model="extractive-v2",
        created_at=now,
        run_id=run_id,
        fallback_reason=fallback_reason,
    )


def as_judged(summary: Summary, replaced: Mapping[str, str], titles: Mapping[str, str]) -> Summary:
    """`summary` saying exactly what the judge decided: its superseded facts are the titles of its members that a
    supersedes edge replaced (`replaced`: memory key -> what replaced it, copies' canonicals excluded), and each
    decision's outcome follows; whatever the summary's writer (offline or an LLM) listed besides is dropped."""
    gone = [titles[k] for k in summary.source_keys if k in replaced and titles.get(k)]
    facts = tuple(dict.fromkeys(gone))
    named = {_norm(t) for t in facts}
    decisions = tuple(d.model_copy(update={"outcome": "superseded" if _norm(d.decision) in named else "current"})
                      for d in summary.decisions)
    if facts == summary.superseded_facts and decisions == summary.decisions:
        return summary
    return summary.model_copy(update={"superseded_facts": facts, "decisions": decisions})
