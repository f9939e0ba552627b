"""Offline summaries worth reading: a standing, readable member leads; facts are sentences, not titles."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memactors.actors.algorithms.extractive import summarize
from memactors.events.cluster import Cluster, ClusterKind
from memactors.events.memory import Memory, memory_key

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def memory(summary: str, body: str = "", *, days: int = 0, ns: str = "decisions", auto: bool = False) -> Memory:
    when = NOW + timedelta(days=days)
    return Memory(key=memory_key(ns, when.isoformat(), summary, body), namespace=ns, commit="a" * 40, index=0,
                  upstream_index=0, timestamp=when, summary=summary, body=body,
                  tags=("auto-captured", "pre-compact") if auto else ())


def cluster(members: list[Memory]) -> Cluster:
    # centrality puts the fragment first: the old lead rule would have picked it
    return Cluster(id="c1", kind=ClusterKind.SEMANTIC, members=tuple(m.key for m in members),
                   centrality=tuple(1.0 - 0.1 * i for i in range(len(members))))


def write(members: list[Memory], superseded: set[str] | None = None):
    return summarize(cluster(members), members, superseded=superseded or set(), run_id="r", now=NOW,
                     summary_id="c1")


FRAGMENT = memory("...ed on this. We replaced Poetry with uv: uv.lock is the lock file and `uv sync` instal...",
                  "...ed on this. We replaced Poetry with uv: uv.lock is the lock file and `uv sync` instal...",
                  days=9, auto=True)
OLD = memory("Use server-rendered templates for the UI", "## Decision\nPages are rendered on the server with "
             "Jinja templates.\n\n## Rationale\nNo build step is needed.", days=0)
NEW = memory("Switch the UI to React", "## Decision\nThe UI moves to React components.\n\n## Rationale\nThe "
             "editor needs client state. Server templates could not keep up.", days=5)


def test_a_fragment_never_leads_a_summary() -> None:
    summary = write([FRAGMENT, OLD, NEW], superseded={OLD.key})
    assert summary is not None and summary.text == "Switch the UI to React"


def test_a_superseded_memory_never_leads_and_is_listed_by_title() -> None:
    summary = write([OLD, NEW], superseded={OLD.key})
    assert summary.text == "Switch the UI to React"
    assert summary.superseded_facts == ("Use server-rendered templates for the UI",)


def test_key_facts_are_complete_sentences_from_bodies_never_sibling_titles() -> None:
    summary = write([OLD, NEW, FRAGMENT])
    assert "The UI moves to React components." in summary.key_facts
    assert not {"Use server-rendered templates for the UI", "Switch the UI to React"} & set(summary.key_facts)
    assert all(f[0].isupper() and f.endswith(".") for f in summary.key_facts)


def test_a_cluster_without_a_readable_member_gets_no_summary() -> None:
    echo = memory('...namespace=\\"decisions\\" relevance=\\"0.81\\">...', '...<memory namespace="d">...',
                  days=1, auto=True)
    code = memory("```python\ndef index(config: Config) -> None:...", "```python\ndef index(config):\n```", auto=True)
    assert write([echo, code, memory("...Examples", "...Examples", auto=True)]) is None
