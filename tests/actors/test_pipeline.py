"""The scanner -> tierer -> persister pipeline on real repositories, in process."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pygit2
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memactors.actors.ports import StateChange, StateConflict
from memactors.adapters.git.memory_store import META_REF, RUNS_REF, MemoryStore
from memactors.adapters.git.note_format import append_entry, serialize_entry
from memactors.adapters.git.store import GitStore
from memactors.adapters.system.clock import FixedClock
from memactors.adapters.runtime.pipeline import RunOptions, Services, consolidate
from memactors.adapters.runtime.settings import Settings
from memactors.events.quality import assess
from memactors.events.retention import RetentionPolicy, score, tier_for
from tests.conftest import NOW, Repo, git


def run(repo_path, *, now: datetime = NOW, store: MemoryStore | None = None, clock: str = "store", **options):
    store = store or MemoryStore(GitStore(repo_path))
    services = Services(store=store, settings=Settings(recency_clock=clock), clock=FixedClock(now))
    return trio.run(lambda: consolidate(services, RunOptions(**options)))


def test_a_run_tiers_every_memory_and_persists_meta_and_a_run_record(populated: Repo) -> None:
    before = populated.originals()
    report = run(populated.path)
    assert report.memories_processed == 6
    assert report.persisted and report.refs_updated == [META_REF, RUNS_REF]
    assert sum(report.tier_counts.values()) == 6
    assert report.tier_transitions == {f"new->{t}": n for t, n in report.tier_counts.items() if n}
    assert populated.originals() == before
    head_meta = json.loads(populated.note(META_REF, "HEAD"))
    assert head_meta["schema_version"] == 1
    tiers = {rec["id"].split(":")[0]: rec["tier"] for rec in head_meta["memories"].values()}
    assert tiers == {"decisions": "hot", "blockers": "hot"}
    runs = json.loads(populated.note(RUNS_REF, "HEAD"))
    assert runs["runs"][0]["run_id"] == report.run_id


def test_second_run_without_new_memories_changes_no_ref(populated: Repo) -> None:
    run(populated.path)
    refs = populated.refs()
    second = run(populated.path)
    assert not second.persisted and second.tier_transitions == {}
    assert populated.refs() == refs


def test_time_passing_moves_tiers_and_records_the_transitions_on_the_wall_clock(populated: Repo) -> None:
    run(populated.path, clock="wall")
    later = run(populated.path, now=NOW + timedelta(days=400), clock="wall")
    assert later.persisted
    assert later.tier_transitions.get("hot->warm", 0) + later.tier_transitions.get("hot->cold", 0) >= 2
    assert later.tier_counts["hot"] == 0


def test_a_dormant_store_keeps_its_tiers_on_the_store_clock(populated: Repo) -> None:
    first = run(populated.path)
    later = run(populated.path, now=NOW + timedelta(days=400))
    assert first.tier_counts["hot"] == 2  # the two newest decisions/blockers, as on the day they were written
    assert not later.persisted and later.tier_counts == first.tier_counts


def test_a_dry_run_computes_everything_and_writes_nothing(populated: Repo) -> None:
    refs = populated.refs()
    report = run(populated.path, dry_run=True)
    assert report.phase == "dry_run" and report.memories_processed == 6 and not report.persisted
    assert populated.refs() == refs
    assert not (populated.path / ".git" / "memactors" / "parse-cache.json").exists()


def test_a_namespace_scope_leaves_other_memories_without_metadata_and_counts_on_the_whole_stores_clock(
        populated: Repo) -> None:
    report = run(populated.path, namespaces=("learnings",))
    assert report.memories_processed == 2
    meta = MemoryStore(GitStore(populated.path)).load_state().meta
    assert {m.namespace for m in meta.values()} == {"learnings"}
    full = run(populated.path)
    assert sum(full.tier_transitions.values()) == 4


def test_an_empty_store_reports_nothing_and_writes_nothing(repo: Repo) -> None:
    report = run(repo.path)
    assert report.memories_processed == 0 and not report.persisted and report.errors == []
    assert repo.refs() == {}


def test_rescans_parse_only_notes_that_changed(populated: Repo) -> None:
    run(populated.path)
    store = MemoryStore(GitStore(populated.path))
    store.scan(None)
    assert store.cache.misses == 0 and store.cache.hits == 5  # five notes hold the six memories
    populated.capture("patterns", "New pattern")
    store = MemoryStore(GitStore(populated.path))
    store.scan(None)
    assert store.cache.misses == 1
    store = MemoryStore(GitStore(populated.path))
    store.scan(None, reparse=True)
    assert store.cache.hits == 0


class RacingSink:
    """A sink adapter that lets another writer move mem-meta just before the first commit."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        self.raced = False

    def commit(self, change: StateChange, expected: dict[str, str | None]) -> list[str]:
        if not self.raced:
            self.raced = True
            git_store = self.inner.git
            moved = git_store.build_notes_commit(expected.get(META_REF), {}, "someone else")
            git_store.move_refs({META_REF: moved}, {META_REF: expected.get(META_REF)}, "race")
        return self.inner.commit(change, expected)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def test_a_run_that_loses_the_race_writes_nothing_and_retries_on_the_new_state(populated: Repo) -> None:
    store = MemoryStore(GitStore(populated.path))
    sink = RacingSink(store)
    services = Services(store=sink, settings=Settings(), clock=FixedClock(NOW))  # type: ignore[arg-type]
    report = trio.run(lambda: consolidate(services, RunOptions()))
    assert sink.raced and report.persisted
    assert any("retried" in e for e in report.errors)
    log = pygit2.Repository(str(populated.path)).references[META_REF].peel(pygit2.Commit)
    assert log.parents[0].message == "someone else"


def test_compare_and_swap_refuses_a_stale_expectation_and_moves_no_ref(populated: Repo) -> None:
    run(populated.path)
    store = MemoryStore(GitStore(populated.path))
    state = store.load_state()
    refs = populated.refs()
    stale = {META_REF: None, RUNS_REF: state.tips[RUNS_REF]}
    change = StateChange(meta_by_commit={}, report=run(populated.path, dry_run=True), run_commit=populated.commit())
    try:
        store.commit(change, stale)
    except StateConflict:
        pass
    else:
        raise AssertionError("a stale expectation must be refused")
    assert {k: v for k, v in populated.refs().items() if "mem-" in k} == {k: v for k, v in refs.items() if "mem-" in k}


def test_metadata_follows_a_memory_whose_note_moved_to_another_commit(populated: Repo) -> None:
    run(populated.path)
    head = git(populated.path, "rev-parse", "HEAD").stdout.strip()
    new_commit = populated.commit("rewritten")
    git(populated.path, "notes", "--ref=refs/notes/mem/blockers", "copy", head, new_commit)
    git(populated.path, "notes", "--ref=refs/notes/mem/blockers", "remove", head)
    run(populated.path)
    meta = MemoryStore(GitStore(populated.path)).load_state().meta
    blockers = [m for m in meta.values() if m.namespace == "blockers"]
    assert [m.commit for m in blockers] == [new_commit]
    assert len(meta) == 6


# --- properties over generated stores, written with our own writer ----------------------

entries = st.lists(
    st.tuples(
        st.sampled_from(["decisions", "progress", "learnings", "blockers", "odd-namespace"]),
        st.integers(min_value=0, max_value=900),  # age in days
        st.text(alphabet="abc xyz:-'\"#", min_size=1, max_size=30).filter(lambda s: s.strip()),
        st.sampled_from(["", "plain body", "a\n\n---\n\nrule", "```\ncode\n```", "---"]),
        st.integers(min_value=0, max_value=3),  # which commit
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(store=entries, days_later=st.integers(min_value=0, max_value=500))
def test_any_store_keeps_its_originals_tiers_by_threshold_and_settles(repo: Repo, store, days_later) -> None:
    for ref in repo.refs():
        git(repo.path, "update-ref", "-d", ref)
    commits = [repo.commit(f"c{i}") for i in range(4)]
    notes: dict[str, dict[str, bytes]] = {}
    for namespace, age, summary, body, which in store:
        when = (NOW - timedelta(days=age)).isoformat()
        text = serialize_entry({"type": namespace, "timestamp": when, "summary": summary}, body)
        by_commit = notes.setdefault(namespace, {})
        by_commit[commits[which]] = append_entry(by_commit.get(commits[which]), text)
    git_store = GitStore(repo.path)
    for namespace, by_commit in notes.items():
        ref = f"refs/notes/mem/{namespace}"
        git_store.move_refs({ref: git_store.build_notes_commit(None, by_commit, "m")}, {ref: None}, "m")
    before = repo.originals()
    now = NOW + timedelta(days=days_later)
    first = run(repo.path, now=now)
    refs = repo.refs()
    second = run(repo.path, now=now)
    assert repo.originals() == before
    assert not second.persisted and repo.refs() == refs
    policy = RetentionPolicy()
    view = MemoryStore(GitStore(repo.path))
    scan = {m.key: m for m in view.scan(None).memories}
    reference = max(m.timestamp for m in scan.values())  # the store clock: its newest memory
    for key, meta in view.load_state().meta.items():
        value = score(policy, namespace=meta.namespace, created=scan[key].timestamp, last_access=None,
                      activation_count=0, superseded=False, now=reference,
                      quality=assess(policy.quality, summary=scan[key].summary, body=scan[key].body).score)
        assert meta.tier is tier_for(policy, value.score)
    assert first.memories_processed == len(scan)


def test_records_are_plain_json_readable_with_git_notes_show(populated: Repo) -> None:
    run(populated.path)
    listing = git(populated.path, "notes", f"--ref={META_REF}", "list").stdout.split()
    for commit in listing[1::2]:
        document = json.loads(populated.note(META_REF, commit))
        for record in document["memories"].values():
            assert record["tier"] in {"hot", "warm", "cold", "archived"}
            assert set(record) >= {"id", "created", "last_access", "activation_count", "superseded_by",
                                   "consolidated_into", "tier"}
            assert "score" not in record
    assert datetime.fromisoformat(json.loads(populated.note(RUNS_REF))["runs"][0]["started_at"]).tzinfo == timezone.utc
