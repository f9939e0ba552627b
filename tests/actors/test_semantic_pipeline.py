"""Clusters, summaries, verdicts and edges on real repositories, with the real local model."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta

import pytest
import trio

from memactors.adapters.git.memory_store import EDGES_REF, SUMMARIES_REF, MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.adapters.models.embeddings import LocalMiniLM
from memactors.adapters.models.vector_cache import CachedEmbedder
from memactors.adapters.system.clock import FixedClock
from memactors.adapters.runtime.pipeline import RunOptions, Services, consolidate
from memactors.adapters.runtime.settings import Settings
from memactors.events.edge import EdgeType
from tests.conftest import NOW, Repo, git

DAY = timedelta(days=1)


@pytest.fixture(scope="module")
def model() -> LocalMiniLM:
    return LocalMiniLM()


@pytest.fixture
def store_of_facts(repo: Repo) -> Repo:
    """A storage decision replaced, three paraphrases, a duplicate, unrelated work, a reference."""
    repo.capture("decisions", "Use SQLite for storage", "Simple to start with, a single file.", when=NOW - 90 * DAY)
    repo.capture("learnings", "Retries of payment webhooks must be idempotent",
                 "A retried webhook charged twice.", when=NOW - 60 * DAY)
    repo.commit("more")
    repo.capture("learnings", "Payment webhook retries need idempotency keys",
                 "Stripe retried and we double charged.", when=NOW - 40 * DAY)
    repo.capture("learnings", "Make webhook handlers idempotent: payments were retried",
                 "Use the event id as an idempotency key.", when=NOW - 20 * DAY)
    repo.capture("progress", "Frontend login page styled", "CSS done.", when=NOW - 10 * DAY)
    repo.capture("progress", "Frontend login page styled", "CSS done.", when=NOW - 9 * DAY)
    repo.commit("later")
    repo.capture("decisions", "Switch storage from SQLite to PostgreSQL",
                 "Replaces the SQLite decision: we need concurrent writers.", when=NOW - 2 * DAY)
    repo.capture("blockers", "Deploy blocked on missing TLS certificate", "Waiting for ops.", when=NOW - 1 * DAY)
    return repo


def run(repo: Repo, model: LocalMiniLM, **options):
    store = MemoryStore(GitStore(repo.path))
    embedder = CachedEmbedder(model, store.git.common_dir / "memactors" / "vectors")
    services = Services(store=store, settings=Settings(), clock=FixedClock(NOW), embedder=embedder)
    return trio.run(lambda: consolidate(services, RunOptions(**options))), store


def test_offline_consolidation_summarizes_judges_and_links(store_of_facts: Repo, model: LocalMiniLM) -> None:
    before = store_of_facts.originals()
    report, store = run(store_of_facts, model)
    assert store_of_facts.originals() == before
    assert report.duplicates_collapsed == 1
    assert report.summaries_created == report.clusters_found == 1 and report.pairs_found >= 1, report.model_dump()
    assert report.providers.get("offline", 0) >= 2 and report.token_usage.llm_calls == 0
    state = store.load_state()
    by_summary = {m.summary: m for m in store.scan(None).memories}
    sqlite = by_summary["Use SQLite for storage"]
    postgres = by_summary["Switch storage from SQLite to PostgreSQL"]
    supersedes = [e for e in state.edges.values() if e.edge_type is EdgeType.SUPERSEDES]
    assert [(e.source_key, e.target_key) for e in supersedes] == [(postgres.key, sqlite.key)]
    assert state.meta[sqlite.key].superseded_by == postgres.key
    assert state.meta[sqlite.key].tier.value in {"cold", "archived"}
    # the run's count is what the metadata records, not how many verdicts pointed the same way
    assert report.supersessions_detected == sum(m.superseded_by is not None for m in state.meta.values())
    webhook = [m for m in by_summary.values() if "webhook" in m.summary.lower() or "idempot" in m.summary.lower()]
    summary = next(s for s in state.summaries.values() if set(s.source_keys) == {m.key for m in webhook})
    assert summary.provider == "offline" and summary.confidence < 0.5
    assert all(state.meta[m.key].consolidated_into == summary.id for m in webhook)
    consolidates = {e.target_key for e in state.edges.values() if e.edge_type is EdgeType.CONSOLIDATES}
    assert consolidates >= {m.key for m in webhook}
    duplicates = [e for e in state.edges.values() if e.edge_type is EdgeType.SUBSUMES and "duplicate" in e.reason]
    assert len(duplicates) == 1
    note = json.loads(store_of_facts.note(SUMMARIES_REF, git(store_of_facts.path, "rev-parse", "HEAD~1").stdout.strip()))
    assert note["schema_version"] == 1 and note["summaries"]
    edges_json = json.loads(store_of_facts.note(EDGES_REF, "HEAD"))
    for edge in edges_json["edges"].values():
        assert {"source_id", "target_id", "edge_type", "weight", "reason", "created_at",
                "consolidation_run_id"} <= set(edge)


def test_a_second_run_with_nothing_new_changes_no_ref(store_of_facts: Repo, model: LocalMiniLM) -> None:
    run(store_of_facts, model)
    refs = store_of_facts.refs()
    report, store = run(store_of_facts, model)
    assert not report.persisted and report.summaries_created == 0
    assert store_of_facts.refs() == refs
    assert store.cache.misses == 0


def test_a_second_run_touches_no_cluster_when_a_duplicated_memory_also_sits_in_a_pair(
        repo: Repo, model: LocalMiniLM, caplog: pytest.LogCaptureFixture) -> None:
    repo.capture("progress", "Frontend login page styled", "CSS done.", when=NOW - 10 * DAY)
    repo.capture("progress", "Frontend login page styled", "CSS done.", when=NOW - 9 * DAY)
    repo.capture("progress", "Frontend signup page styled", "CSS done.", when=NOW - 8 * DAY)
    first, _ = run(repo, model)
    assert first.duplicates_collapsed == 1 and first.pairs_found == 1, first.model_dump()
    caplog.set_level(logging.INFO, logger="memactors.progress")
    run(repo, model)
    formed = [r.getMessage() for r in caplog.records if "clusters and pairs" in r.getMessage()]
    assert formed == ["2 clusters and pairs, 0 new or changed"]


def test_a_new_memory_re_summarizes_only_its_cluster(store_of_facts: Repo, model: LocalMiniLM) -> None:
    run(store_of_facts, model)
    store_of_facts.capture("learnings", "Idempotency keys for payment webhooks prevent double charges",
                           "Confirmed again after the outage.", when=NOW)
    report, store = run(store_of_facts, model)
    assert report.summaries_created == 1
    assert report.token_usage.llm_calls == 0
    summaries = list(store.load_state().summaries.values())
    assert len(summaries) == 1 and len(summaries[0].source_keys) == 4  # the old 3-member summary was replaced


def test_a_relates_to_id_becomes_a_references_edge(repo: Repo, model: LocalMiniLM) -> None:
    repo.capture("decisions", "Use trio for concurrency", when=NOW - 5 * DAY)
    head = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    body = "---\ntype: patterns\ntimestamp: '2026-05-30T00:00:00+00:00'\nsummary: Cancel scopes everywhere\n"
    body += f"relates_to:\n- decisions:{head[:7]}:0\n---\n"
    git(repo.path, "notes", "--ref=refs/notes/mem/patterns", "append", "-m", body)
    _, store = run(repo, model)
    edges = [e for e in store.load_state().edges.values() if e.edge_type is EdgeType.REFERENCES]
    assert len(edges) == 1 and edges[0].target_id == f"decisions:{head}:0"


def test_full_recomputes_everything_but_writes_only_what_differs(store_of_facts: Repo, model: LocalMiniLM) -> None:
    run(store_of_facts, model)
    refs = store_of_facts.refs()
    again, _ = run(store_of_facts, model, full=True)
    assert again.providers.get("offline", 0) >= 2  # every cluster was summarized and judged again
    assert not again.persisted and store_of_facts.refs() == refs


def test_a_dense_store_settles_after_one_run(repo: Repo, model: LocalMiniLM) -> None:
    """Many restatements of few facts: pairs overlap clusters, and still nothing is re-judged."""
    from memactors.adapters.git.note_format import append_entry, serialize_entry

    subjects = ["the session store", "payment webhooks", "the search index", "CI caching", "log shipping"]
    aspects = ["timeouts", "retries", "memory use", "error handling", "alerts", "backups"]
    phrases = ["{s}: {a} need a fix", "Fixed {a} in {s}", "Learned how {s} handles {a}", "Plan for {a} in {s}"]
    by_ref: dict[str, dict[str, bytes]] = {}
    commits = [repo.commit(f"c{i}") for i in range(10)]
    for i in range(240):
        s, a, p = subjects[i % 5], aspects[(i // 5) % 6], phrases[(i // 30) % 4]
        namespace = ("decisions", "learnings", "progress")[i % 3]
        text = serialize_entry({"type": namespace, "timestamp": (NOW - DAY * (240 - i)).isoformat(),
                                "summary": p.format(s=s, a=a)}, f"Ticket {i}: {a} in {s}.")
        note = by_ref.setdefault(f"refs/notes/mem/{namespace}", {})
        note[commits[i % 10]] = append_entry(note.get(commits[i % 10]), text)
    git_store = GitStore(repo.path)
    for ref, by_commit in by_ref.items():
        git_store.move_refs({ref: git_store.build_notes_commit(None, by_commit, "m")}, {ref: None}, "m")
    first, _ = run(repo, model)
    assert first.persisted and first.pairs_found > 0 and first.clusters_found > 0
    refs = repo.refs()
    second, _ = run(repo, model)
    assert not second.persisted and second.providers == {} and repo.refs() == refs


def test_a_warm_clusterer_forms_the_same_clusters_as_a_fresh_one(store_of_facts: Repo, model: LocalMiniLM) -> None:
    from memactors.actors.clusterer import Clusterer
    from memactors.bus.bus import Bus
    from memactors.events.pipeline import MemoriesScanned, RunRequested

    def scanned() -> MemoriesScanned:
        store = MemoryStore(GitStore(store_of_facts.path))
        request = RunRequested(run_id="r", trigger="t", started_at=NOW)
        return MemoriesScanned(run_id="r", request=request, memories=tuple(store.scan(None).memories), skipped={},
                               warnings={}, prior=store.load_state(), head=None)

    warm = Clusterer(Bus(), model, threshold=0.6, pair_threshold=0.5)
    warm._form(scanned())
    store_of_facts.capture("learnings", "Webhook retries must not double charge", "Idempotency keys again.",
                           when=NOW - DAY)
    store_of_facts.capture("decisions", "Use PostgreSQL 16 for storage", when=NOW)
    after = scanned()
    fresh = Clusterer(Bus(), model, threshold=0.6, pair_threshold=0.5)._form(after)
    grown = warm._form(after)
    assert warm._graph is not None
    assert sorted(c.members for c in grown.clusters) == sorted(c.members for c in fresh.clusters)
    assert [c.touched for c in sorted(grown.clusters, key=lambda c: c.members)] == \
        [c.touched for c in sorted(fresh.clusters, key=lambda c: c.members)]


def test_a_statement_is_never_superseded_by_one_first_captured_after_it(dormant_store) -> None:
    """A statement dates from its first copy: whatever replaces it was first captured no earlier (a verbatim
    re-capture after the replacement is replaced with the rest of its copies)."""
    store = MemoryStore(GitStore(dormant_store.store.path))
    memories = {m.key: m for m in store.scan(None).memories}
    first_seen: dict[tuple[str, str, str], datetime] = {}
    for m in memories.values():
        content = (m.namespace, m.summary, m.body.strip())
        first_seen[content] = min(first_seen.get(content, m.timestamp), m.timestamp)

    def first(key: str) -> datetime:
        m = memories[key]
        return first_seen[(m.namespace, m.summary, m.body.strip())]

    state = store.load_state()
    replaced = {(e.target_key, e.source_key) for e in state.edges.values() if e.edge_type is EdgeType.SUPERSEDES}
    superseded = [(k, m.superseded_by) for k, m in state.meta.items()
                  if m.superseded_by in memories and (k, m.superseded_by) in replaced]
    assert superseded  # replaced decisions exist in this store
    for older, newer in superseded:
        assert first(newer) >= first(older), (memories[older].summary, memories[newer].summary)


def test_a_decision_captured_again_after_its_replacement_is_still_listed_as_replaced(dormant_store) -> None:
    from memactors.adapters.reading.read_cache import ReadCache
    from tests.realistic_store import FACTS

    realistic = dormant_store.store
    index = ReadCache(GitStore(realistic.path).common_dir).load()
    explicit = [(e, realistic.truth[e.key]) for e in index.entries if e.key in realistic.truth
                and realistic.truth[e.key].kind == "explicit"]
    recaptured = []
    for fact in FACTS:
        if fact.replaces is None:
            continue
        since = min(e.timestamp for e, t in explicit if t.fact == fact.id)
        again = [e for e, t in explicit if t.fact == fact.replaces and e.timestamp > since]
        if again:
            recaptured.append(fact.replaces)
            heads = {e.copy_of or e.key for e in again}
            assert all(next(h for h in index.entries if h.key == head).superseded_by for head in heads), fact.id
    assert recaptured  # the store holds a replaced decision captured again after its replacement


def test_a_summary_lists_as_superseded_only_what_the_judge_replaced(repo: Repo, model: LocalMiniLM) -> None:
    """Decisions about one subject, each adding to the others: no member is listed as superseded (the
    summarizer used to list every older decision of a cluster), and a replaced one is listed once it is."""
    repo.capture("decisions", "Payment webhook handlers must be idempotent", "Stripe retries deliveries.",
                 when=NOW - 30 * DAY)
    repo.capture("decisions", "Payment webhook retries are deduplicated by the event id",
                 "Processed event ids are kept for 15 minutes.", when=NOW - 20 * DAY)
    repo.capture("decisions", "Payment webhook handlers return 200 only after the idempotency check",
                 "So a retried webhook never charges twice.", when=NOW - 10 * DAY)
    repo.commit("tokens")
    _, store = run(repo, model)
    state = store.load_state()
    assert state.summaries, "the three decisions form one summarized cluster"
    assert all(not s.superseded_facts for s in state.summaries.values())
    assert all(d.outcome == "current" for s in state.summaries.values() for d in s.decisions)
    repo.capture("decisions", "Payment webhook retries are now deduplicated by the idempotency key instead of the "
                 "event id", "Event ids repeat across accounts.", when=NOW - 1 * DAY)
    repo.commit("shorter")
    _, store = run(repo, model)
    state = store.load_state()
    replaced = {k for k, m in state.meta.items() if m.superseded_by}
    listed = {fact for s in state.summaries.values() for fact in s.superseded_facts}
    assert replaced and listed
    assert all("event id" in fact for fact in listed)


def test_a_second_run_over_an_unchanged_store_writes_nothing(store_of_facts: Repo, model: LocalMiniLM) -> None:
    first, store = run(store_of_facts, model)
    tips = {ref: store.git.tip(ref) for ref in ("refs/notes/mem-meta", EDGES_REF, SUMMARIES_REF)}
    second, store = run(store_of_facts, model)
    assert second.persisted is False
    assert {ref: store.git.tip(ref) for ref in tips} == tips
