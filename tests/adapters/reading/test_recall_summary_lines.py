"""What recall lists when a summary and the memories it was made from both match: one line, the summary's."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from memactors.actors.algorithms.indexing import build_read_model
from memactors.adapters.reading.read_cache import ReadCache
from memactors.adapters.reading.recall import search
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.read_model import EntryKind
from memactors.events.summary import Summary
from memactors.events.tier import Tier

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def _memory(n: int, summary: str, body: str) -> Memory:
    return Memory(key=f"k{n}", namespace="progress", commit=f"{n:040x}", index=0, upstream_index=0,
                  timestamp=NOW - timedelta(days=10 - n), summary=summary, body=body)


def test_a_summary_takes_the_line_of_its_member_listed_above_it(tmp_path: Path) -> None:
    fixed = _memory(1, "Fixed OTEL collector duplicate label conflict",
                    "Fixed OTEL collector duplicate label conflict: dashboards now receive data.")
    cause = _memory(2, "Duplicate labels caused by double resource attribute injection",
                    "service.name was injected twice, by the exporter and by the collector's resource processor.")
    removed = _memory(3, "Removed the resource processor from the collector pipelines",
                      "The collector's resource processor is gone from every pipeline.")
    other = _memory(4, "Grafana dashboards read the Prometheus datasource", "Dashboards use Prometheus.")
    members = (fixed, cause, removed)
    metas = {m.key: MemoryMeta(key=m.key, id=m.id, namespace=m.namespace, commit=m.commit, created=m.timestamp,
                               tier=Tier.WARM) for m in (*members, other)}
    summary = Summary(id="s1", cluster_id="c1", text="Fixed the OTEL label issue by removing the resource processor",
                      key_facts=tuple(m.summary for m in members), source_keys=tuple(m.key for m in members),
                      earliest=fixed.timestamp, latest=removed.timestamp, confidence=0.6, provider="offline",
                      model="extractive", created_at=NOW, run_id="r1")
    model = build_read_model([*members, other], metas, {k: 0.9 for k in metas}, [summary], run_id="r1",
                             generated_at=NOW, memory_tips={})
    cache = ReadCache(tmp_path)
    cache.write(model)
    hits = search(cache.load(), "OTEL collector duplicate label conflict", limit=5)
    # the member matches the words best; its summary holds it and the fix, so it is listed once, as the summary
    assert hits[0].entry.kind is EntryKind.SUMMARY and hits[0].entry.id == "summary:s1"
    assert fixed.id not in [h.entry.id for h in hits]
