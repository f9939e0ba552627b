"""`sync` between real clones through a real bare repository on the file system."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memactors.adapters.git.doctor import diagnose
from memactors.adapters.git.memory_store import EDGES_REF, META_REF, RUNS_REF, STATE_REFS, SUMMARIES_REF, MemoryStore
from memactors.adapters.git.note_format import serialize_entry, stripspace
from memactors.adapters.git.notes_merge import entry_texts, merge_memory_note
from memactors.adapters.git.remote_setup import setup_remote
from memactors.adapters.git.repo_lock import RepoLock, RepositoryBusy
from memactors.adapters.git.state_codec import encode_edges_note, encode_meta_note, encode_summaries_note
from memactors.adapters.git.store import GitStore
from memactors.adapters.git.sync import RefOutcome, SyncError, sync
from memactors.events.edge import Edge, EdgeType
from memactors.events.metadata import MemoryMeta
from memactors.events.summary import Summary
from memactors.events.tier import Tier
from tests.conftest import NOW, Repo, entry, git, run_cli

NO_EMBEDDINGS = {"MEMACTORS_EMBEDDINGS": "none"}


@dataclass
class Clones:
    """Two clones of one bare remote, and every entry each side captured: (ref, commit, exact text)."""

    remote: Path
    a: Repo
    b: Repo
    captured: dict[str, list[tuple[str, str, str]]] = field(default_factory=lambda: {"a": [], "b": []})

    def repo(self, side: str) -> Repo:
        return self.a if side == "a" else self.b

    def capture(self, side: str, namespace: str, summary: str, body: str = "", *, when: datetime = NOW,
                commit: str = "HEAD") -> str:
        repo = self.repo(side)
        sha = git(repo.path, "rev-parse", commit).stdout.strip()
        repo.capture(namespace, summary, body, when=when, commit=sha)
        self.captured[side].append((f"refs/notes/mem/{namespace}", sha, stripspace(entry(namespace, summary, body, when=when))))
        return sha


def make_clones(root: Path, names: str) -> tuple[Path, list[Repo]]:
    """A bare remote under `root` and a clone of it per name, the first one having pushed one commit."""
    remote = root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    first = Repo(root / names[0])
    subprocess.run(["git", "init", "-q", str(first.path)], check=True)
    first.commit("initial")
    git(first.path, "remote", "add", "origin", str(remote))
    git(first.path, "push", "-q", "origin", "main")
    for name in names[1:]:
        subprocess.run(["git", "clone", "-q", str(remote), str(root / name)], check=True)
    return remote, [first] + [Repo(root / name) for name in names[1:]]


@pytest.fixture
def clones(tmp_path: Path, git_env: dict[str, str]) -> Clones:
    remote, (a, b) = make_clones(tmp_path, "ab")
    return Clones(remote, a, b)


def assert_holds(repo: Repo, captures: list[tuple[str, str, str]]) -> None:
    """Every captured entry is in the note of its commit, byte for byte."""
    for ref, commit, text in captures:
        note = git(repo.path, "notes", f"--ref={ref}", "show", commit).stdout
        assert text in note, f"{ref} {commit[:8]} lost:\n{text}"


def assert_originals_kept(repo: Repo, before: dict[str, tuple[str, dict[str, bytes]]]) -> None:
    """No note that existed before lost an entry: each old note's entries are all in the new note."""
    after = repo.originals()
    for ref, (_, notes) in before.items():
        for commit, data in notes.items():
            new = after[ref][1][commit]
            for text in entry_texts(data):
                assert text.encode() in new


def state_refs(repo: Repo) -> dict[str, str]:
    return {ref: tip for ref, tip in repo.refs("refs/notes/").items() if ref in STATE_REFS}


def consolidate(repo: Repo, env: dict[str, str] | None = None) -> dict:
    result = run_cli("consolidate", "--json", "--repo", str(repo.path), env=env)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def capture_both(c: Clones) -> None:
    """Shared history, then each clone captures on its own commits and on the shared one."""
    shared = c.capture("a", "decisions", "Use SQLite for storage", "Simple to start.", when=NOW - timedelta(days=9))
    git(c.a.path, "push", "-q", "origin", "refs/notes/mem/decisions")
    git(c.b.path, "fetch", "-q", "origin", "refs/notes/mem/decisions:refs/notes/mem/decisions")
    c.capture("a", "decisions", "Switch storage to PostgreSQL", "Replaces SQLite.", when=NOW - timedelta(days=2),
              commit=shared)
    c.capture("b", "decisions", "Cache keys carry a version", when=NOW - timedelta(days=3), commit=shared)
    c.a.commit("a works")
    c.b.commit("b works")
    c.capture("a", "learnings", "Retries must be idempotent", "Body with a rule\n\n---\n\nafter the rule",
              when=NOW - timedelta(days=1))
    c.capture("b", "learnings", "Flaky test was a race", when=NOW - timedelta(hours=5))
    c.capture("b", "blockers", "CI credentials missing", when=NOW - timedelta(hours=3))
    c.capture("a", "progress", "Milestone 1 done", when=NOW - timedelta(hours=1))


@pytest.mark.parametrize("first,second", [("a", "b"), ("b", "a")])
def test_two_clones_that_captured_and_consolidated_end_with_every_entry_and_identical_state_in_either_order(
    clones: Clones, first: str, second: str
) -> None:
    capture_both(clones)
    consolidate(clones.a, NO_EMBEDDINGS)
    consolidate(clones.b, NO_EMBEDDINGS)
    before = {side: clones.repo(side).originals() for side in "ab"}
    keys_before = {side: set(MemoryStore(GitStore(clones.repo(side).path)).load_state().meta) for side in "ab"}
    assert keys_before["a"] != keys_before["b"]

    for side in (first, second, first):
        report = sync(clones.repo(side).path)
        assert report.entries_lost == 0 and not report.errors

    everything = clones.captured["a"] + clones.captured["b"]
    for side in "ab":
        assert_holds(clones.repo(side), everything)
        assert_originals_kept(clones.repo(side), before[side])
    assert clones.a.refs("refs/notes/") == clones.b.refs("refs/notes/")
    state_a = MemoryStore(GitStore(clones.a.path)).load_state()
    state_b = MemoryStore(GitStore(clones.b.path)).load_state()
    assert state_a.meta == state_b.meta and set(state_a.meta) == keys_before["a"] | keys_before["b"]
    status = json.loads(run_cli("status", "--json", "--repo", str(clones.a.path)).stdout)
    assert status["memories"] == len(everything) and status["last_run"]  # the merged runs still name a last run

    tips = clones.a.refs("refs/notes/")
    for side in "ab":
        again = sync(clones.repo(side).path)
        assert {r.outcome for r in again.refs} == {RefOutcome.UP_TO_DATE}
        assert again.entries_added_locally == again.entries_pushed == 0
        assert clones.repo(side).refs("refs/notes/") == tips
    assert run_cli("consolidate", "--json", "--repo", str(clones.a.path), env=NO_EMBEDDINGS).returncode == 0


def test_summaries_and_edges_of_both_clones_survive_a_sync_with_local_embeddings(clones: Clones) -> None:
    topics = {
        "a": [("Use PostgreSQL for storage", "Chosen for its JSON support."),
              ("Store data in PostgreSQL", "Postgres holds all application data."),
              ("PostgreSQL is our database", "All tables live in Postgres."),
              ("Adopt PostgreSQL as the primary datastore", "Replaces the old files.")],
        "b": [("Run tests with pytest", "pytest is the test runner."),
              ("Use pytest for the test suite", "All tests run under pytest."),
              ("pytest runs our tests", "Test runner: pytest."),
              ("Adopt pytest as the test runner", "unittest is gone.")],
    }
    for side, items in topics.items():
        for offset, (summary, body) in enumerate(items):
            clones.capture(side, "decisions", summary, body, when=NOW - timedelta(days=10 - offset))
    reports = {side: consolidate(clones.repo(side)) for side in "ab"}
    assert all(r["summaries_created"] >= 1 for r in reports.values())
    states = {side: MemoryStore(GitStore(clones.repo(side).path)).load_state() for side in "ab"}
    assert states["a"].edges and states["b"].edges

    sync(clones.b.path)
    sync(clones.a.path)
    sync(clones.b.path)

    merged = {side: MemoryStore(GitStore(clones.repo(side).path)).load_state() for side in "ab"}
    assert set(merged["a"].summaries) == set(states["a"].summaries) | set(states["b"].summaries)
    assert set(merged["a"].edges) == set(states["a"].edges) | set(states["b"].edges)
    assert merged["a"] .summaries == merged["b"].summaries and merged["a"].edges == merged["b"].edges
    assert_holds(clones.a, clones.captured["a"] + clones.captured["b"])


def test_entries_both_clones_appended_to_one_commit_are_interleaved_by_timestamp_byte_for_byte(clones: Clones) -> None:
    sha = clones.capture("a", "decisions", "first", when=NOW)
    sync(clones.a.path)
    sync(clones.b.path)  # b now holds "first" on the same commit
    clones.capture("a", "decisions", "third", "from a\n\n- x\n- y", when=NOW + timedelta(hours=2), commit=sha)
    clones.capture("b", "decisions", "second", "from b", when=NOW + timedelta(hours=1), commit=sha)
    clones.capture("b", "decisions", "fourth", when=NOW + timedelta(hours=3), commit=sha)
    sync(clones.a.path)
    sync(clones.b.path)
    sync(clones.a.path)
    texts = {text.split("summary: ")[1].split("\n")[0]: text for _, _, text in clones.captured["a"] + clones.captured["b"]}
    expected = "\n".join(texts[name] for name in ("first", "second", "third", "fourth"))
    assert clones.a.note("refs/notes/mem/decisions", sha) == expected
    assert clones.b.note("refs/notes/mem/decisions", sha) == expected


def test_remote_entries_newer_than_every_local_one_are_appended_to_the_untouched_local_bytes(clones: Clones) -> None:
    sha = clones.capture("a", "decisions", "old one", "body\n\n---\n\nafter a rule", when=NOW)
    sync(clones.a.path)
    sync(clones.b.path)
    clones.capture("a", "decisions", "newer one", when=NOW + timedelta(days=1), commit=sha)
    sync(clones.a.path)
    clones.capture("b", "decisions", "b's, older than a's", when=NOW + timedelta(hours=1), commit=sha)
    local_before = git(clones.b.path, "notes", "--ref=refs/notes/mem/decisions", "show", sha).stdout
    report = sync(clones.b.path)
    after = clones.b.note("refs/notes/mem/decisions", sha)
    assert after.startswith(local_before) and after == local_before + "\n" + clones.captured["a"][-1][2]
    assert report.entries_added_locally == 1 and report.entries_pushed == 1


def test_an_entry_captured_identically_on_both_clones_is_kept_once(clones: Clones) -> None:
    sha = clones.capture("a", "decisions", "shared base")
    sync(clones.a.path)
    sync(clones.b.path)
    clones.capture("a", "decisions", "same words", when=NOW + timedelta(hours=1), commit=sha)
    clones.capture("b", "decisions", "same words", when=NOW + timedelta(hours=1), commit=sha)
    clones.capture("b", "decisions", "b only", when=NOW + timedelta(hours=2), commit=sha)
    sync(clones.b.path)
    note = clones.b.note("refs/notes/mem/decisions", sha)
    assert note.count("summary: same words") == 1 and "b only" in note and "shared base" in note


def test_a_first_sync_pushes_everything_to_a_remote_without_our_refs(clones: Clones) -> None:
    capture_both(clones)
    consolidate(clones.b, NO_EMBEDDINGS)
    report = sync(clones.b.path)
    assert report.pushed and report.entries_pushed == len(clones.captured["b"])
    pushed = subprocess.run(["git", "--git-dir", str(clones.remote), "for-each-ref", "--format=%(refname)",
                             "refs/notes/"], capture_output=True, text=True, check=True).stdout.split()
    assert set(STATE_REFS) - {EDGES_REF, SUMMARIES_REF} <= set(pushed)
    assert {r.ref: r.outcome for r in report.refs}[META_REF] is RefOutcome.PUSHED


def test_sync_without_such_a_remote_is_refused_in_one_line_and_changes_nothing(repo: Repo) -> None:
    repo.capture("decisions", "lonely")
    before = repo.refs()
    with pytest.raises(SyncError) as raised:
        sync(repo.path)
    message = str(raised.value)
    assert "no remote named 'origin'" in message and "git remote add" in message and "\n" not in message
    assert repo.refs() == before


def test_an_unreachable_remote_is_refused_and_local_refs_stay(clones: Clones, tmp_path: Path) -> None:
    clones.capture("a", "decisions", "kept")
    before = clones.a.refs()
    git(clones.a.path, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    with pytest.raises(SyncError) as raised:
        sync(clones.a.path)
    assert "cannot fetch from origin" in str(raised.value) and "nothing changed locally" in str(raised.value)
    assert clones.a.refs() == before


def _write_state(repo: Repo, ref: str, notes: dict[str, bytes]) -> None:
    """Our own writer, as a run would: one notes commit on top of the ref."""
    store = GitStore(repo.path)
    tip = store.tip(ref)
    store.move_refs({ref: store.build_notes_commit(tip, notes, "test state\n")}, {ref: tip}, "test")


def test_a_remote_state_note_from_a_newer_schema_is_refused_not_guessed(clones: Clones) -> None:
    sha = clones.capture("b", "decisions", "from the future")
    _write_state(clones.b, META_REF, {sha: b'{"schema_version": 99, "memories": {}}\n'})
    git(clones.b.path, "push", "-q", "origin", "refs/notes/mem-meta", "refs/notes/mem/decisions")
    clones.capture("a", "decisions", "mine")
    before = clones.a.refs()
    with pytest.raises(SyncError) as raised:
        sync(clones.a.path)
    assert "schema_version 99" in str(raised.value) and "upgrade memactors" in str(raised.value)
    assert clones.a.refs() == before


def test_a_remote_whose_records_lack_fields_added_since_merges_and_loads(clones: Clones) -> None:
    sha = clones.capture("b", "decisions", "old writer")
    git(clones.b.path, "push", "-q", "origin", "refs/notes/mem/decisions")
    clones.capture("a", "decisions", "new writer", when=NOW + timedelta(hours=1))
    older_meta = {"schema_version": 1, "memories": {"old": {
        "key": "old", "id": f"decisions:{sha}:0", "namespace": "decisions", "commit": sha,
        "created": NOW.isoformat(), "tier": "warm"}}}  # no activation, supersession or cluster fields
    older_edge = {"schema_version": 1, "edges": {"e": {
        "source_key": "old", "target_key": "x", "source_id": "a", "target_id": "b", "edge_type": "references",
        "created_at": NOW.isoformat(), "consolidation_run_id": "r0"}}}  # no weight, partial or resolution
    _write_state(clones.b, META_REF, {sha: json.dumps(older_meta).encode()})
    _write_state(clones.b, EDGES_REF, {sha: json.dumps(older_edge).encode()})
    git(clones.b.path, "push", "-q", "origin", META_REF, EDGES_REF)
    _write_state(clones.a, META_REF, {sha: encode_meta_note([_meta("new", sha, activation_count=2)])})
    report = sync(clones.a.path)
    assert not report.errors
    state = MemoryStore(GitStore(clones.a.path)).load_state()
    assert set(state.meta) == {"old", "new"} and state.meta["old"].activation_count == 0
    assert len(state.edges) == 1 and next(iter(state.edges.values())).weight == 1.0


def _meta(key: str, commit: str, **fields: object) -> MemoryMeta:
    base: dict[str, object] = {"key": key, "id": f"decisions:{commit}:0", "namespace": "decisions",
                               "commit": commit, "created": NOW, "tier": Tier.WARM}
    return MemoryMeta.model_validate({**base, **fields})


def test_metadata_merges_field_by_field(clones: Clones) -> None:
    sha = clones.capture("a", "decisions", "one")
    _write_state(clones.a, META_REF, {sha: encode_meta_note([
        _meta("k1", sha, activation_count=3, last_access=NOW - timedelta(days=5), superseded_by="k2"),
        _meta("k2", sha, activation_count=1)])})
    sync(clones.a.path)
    git(clones.b.path, "fetch", "-q", "origin", "refs/notes/*:refs/notes/*")
    _write_state(clones.b, META_REF, {sha: encode_meta_note([
        _meta("k1", sha, activation_count=2, last_access=NOW - timedelta(days=1)),
        _meta("k2", sha, activation_count=7, consolidated_into="s1"),
        _meta("k3", sha)])})
    _write_state(clones.a, META_REF, {sha: encode_meta_note([
        _meta("k1", sha, activation_count=4, last_access=NOW - timedelta(days=5), superseded_by="k2"),
        _meta("k2", sha, activation_count=1)])})
    sync(clones.a.path)
    sync(clones.b.path)
    merged = MemoryStore(GitStore(clones.b.path)).load_state().meta
    assert merged["k1"].activation_count == 4 and merged["k1"].last_access == NOW - timedelta(days=1)
    assert merged["k1"].superseded_by == "k2"
    assert merged["k2"].activation_count == 7 and merged["k2"].consolidated_into == "s1"
    assert set(merged) == {"k1", "k2", "k3"}
    sync(clones.a.path)
    assert MemoryStore(GitStore(clones.a.path)).load_state().meta == merged


def _summary(sid: str, keys: tuple[str, ...]) -> Summary:
    return Summary(id=sid, cluster_id=f"c-{sid}", text=f"summary {sid}", source_keys=keys, earliest=NOW,
                   latest=NOW, confidence=0.5, provider="offline", model="extractive", created_at=NOW, run_id="r1")


def test_a_summary_one_clone_deleted_after_the_last_sync_is_not_resurrected_by_the_other(clones: Clones) -> None:
    sha = clones.capture("a", "decisions", "one")
    _write_state(clones.a, SUMMARIES_REF, {sha: encode_summaries_note([_summary("s1", ("k1",)),
                                                                      _summary("s2", ("k2",))])})
    sync(clones.a.path)
    sync(clones.b.path)
    _write_state(clones.a, SUMMARIES_REF, {sha: encode_summaries_note([_summary("s2", ("k2",))])})  # s1 went stale
    _write_state(clones.b, SUMMARIES_REF, {sha: encode_summaries_note([_summary("s1", ("k1",)), _summary("s2", ("k2",)),
                                                                      _summary("s3", ("k3",))])})
    sync(clones.a.path)
    sync(clones.b.path)
    summaries = MemoryStore(GitStore(clones.b.path)).load_state().summaries
    assert set(summaries) == {"s2", "s3"}


def _contradiction(resolution: str | None) -> Edge:
    return Edge(source_key="k1", target_key="k2", source_id="decisions:x:1", target_id="decisions:x:0",
                edge_type=EdgeType.CONTRADICTS, reason="opposite", created_at=NOW, consolidation_run_id="r1",
                resolution=resolution)


def test_a_conflict_the_user_resolved_on_one_clone_stays_resolved_after_sync_whatever_the_other_ran(
    clones: Clones,
) -> None:
    sha = clones.capture("a", "decisions", "one")
    edge = _contradiction(None)
    _write_state(clones.a, EDGES_REF, {sha: encode_edges_note([edge])})
    _write_state(clones.a, META_REF, {sha: encode_meta_note([_meta("k1", sha), _meta("k2", sha)])})
    sync(clones.a.path)
    sync(clones.b.path)
    # b's user keeps both; a's next run judged k1 superseded by k2 meanwhile
    _write_state(clones.b, EDGES_REF, {sha: encode_edges_note([_contradiction("both")])})
    _write_state(clones.a, META_REF, {sha: encode_meta_note([_meta("k1", sha, superseded_by="k2", activation_count=2),
                                                             _meta("k2", sha)])})
    sync(clones.a.path)
    sync(clones.b.path)
    sync(clones.a.path)
    for side in "ab":
        state = MemoryStore(GitStore(clones.repo(side).path)).load_state()
        assert state.edges[edge.id].resolution == "both"
        assert state.meta["k1"].superseded_by is None and state.meta["k1"].activation_count == 2


def test_a_keep_decision_made_with_resolve_on_one_clone_survives_a_sync(clones: Clones) -> None:
    clones.capture("a", "decisions", "Use Redis for session caching", "Fast and simple.", when=NOW - timedelta(days=3))
    clones.capture("a", "decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                   when=NOW - timedelta(days=1))
    assert consolidate(clones.a)["contradictions_flagged"] == 1
    sync(clones.a.path)
    sync(clones.b.path)
    conflict = json.loads(run_cli("conflicts", "--json", "--repo", str(clones.b.path)).stdout)[0]
    resolved = run_cli("resolve", conflict["conflict_id"][:8], "--keep", conflict["source_id"],
                       "--repo", str(clones.b.path))
    assert resolved.returncode == 0, resolved.stderr
    clones.capture("a", "progress", "a moves on")
    consolidate(clones.a)  # a's run knows nothing of the decision
    sync(clones.a.path)
    sync(clones.b.path)
    sync(clones.a.path)
    for side in "ab":
        assert json.loads(run_cli("conflicts", "--json", "--repo", str(clones.repo(side).path)).stdout) == []
        older = json.loads(run_cli("show", "--json", "--repo", str(clones.repo(side).path),
                                   conflict["target_id"]).stdout)
        assert older["meta"]["superseded_by"]


def test_a_push_rejected_because_another_clone_pushed_meanwhile_is_merged_again_and_retried(clones: Clones) -> None:
    clones.capture("a", "decisions", "from a")
    clones.capture("b", "decisions", "from b, pushed while a was syncing", when=NOW + timedelta(hours=1))
    marker = clones.a.path / ".git" / "raced"
    hook = clones.a.path / ".git" / "hooks" / "pre-push"
    # Runs between a's fetch and a's ref update on the remote: b pushes first, once.
    hook.write_text(f"#!/bin/sh\nunset GIT_DIR GIT_WORK_TREE\n[ -e '{marker}' ] && exit 0\ntouch '{marker}'\n"
                    f"git -C '{clones.b.path}' push -q origin refs/notes/mem/decisions >/dev/null 2>&1\nexit 0\n")
    hook.chmod(0o755)
    report = sync(clones.a.path)
    assert marker.exists() and report.retries >= 1 and report.pushed
    assert_holds(clones.a, clones.captured["a"] + clones.captured["b"])
    remote_note = subprocess.run(["git", "--git-dir", str(clones.remote), "notes", "--ref=refs/notes/mem/decisions",
                                  "show", clones.captured["a"][0][1]], capture_output=True, text=True).stdout
    assert "from a" in remote_note and "from b" in remote_note


def test_a_remote_that_keeps_moving_gives_up_after_a_bounded_number_of_attempts_and_keeps_the_merge(
    clones: Clones,
) -> None:
    clones.capture("a", "decisions", "from a")
    hook = clones.a.path / ".git" / "hooks" / "pre-push"
    counter = clones.a.path / ".git" / "pushes"
    hook.write_text(f"#!/bin/sh\nunset GIT_DIR GIT_WORK_TREE\necho x >> '{counter}'\n"
                    f"git -C '{clones.b.path}' notes --ref=refs/notes/mem/decisions append -m \"$(date +%s%N)\" "
                    f">/dev/null 2>&1\ngit -C '{clones.b.path}' push -q -f origin refs/notes/mem/decisions "
                    ">/dev/null 2>&1\nexit 0\n")
    hook.chmod(0o755)
    with pytest.raises(SyncError) as raised:
        sync(clones.a.path, max_attempts=3)
    assert "gave up after 3 attempts" in str(raised.value)
    assert len(counter.read_text().split()) == 3
    assert_holds(clones.a, clones.captured["a"])


def test_a_dry_run_moves_no_local_ref_and_pushes_nothing(clones: Clones) -> None:
    capture_both(clones)
    sync(clones.a.path)
    before_b = {ref: tip for ref, tip in clones.b.refs("refs/").items() if not ref.startswith("refs/memactors/")}
    remote_before = subprocess.run(["git", "--git-dir", str(clones.remote), "for-each-ref"], capture_output=True,
                                   text=True).stdout
    report = sync(clones.b.path, dry_run=True)
    assert report.dry_run and not report.pushed and report.entries_added_locally > 0 and report.entries_pushed > 0
    assert {r.ref: r.outcome for r in report.refs}["refs/notes/mem/decisions"] is RefOutcome.MERGED
    after_b = {ref: tip for ref, tip in clones.b.refs("refs/").items() if not ref.startswith("refs/memactors/")}
    assert after_b == before_b
    assert subprocess.run(["git", "--git-dir", str(clones.remote), "for-each-ref"], capture_output=True,
                          text=True).stdout == remote_before


def test_sync_is_refused_while_another_run_holds_the_repository(clones: Clones) -> None:
    clones.capture("a", "decisions", "busy")
    before = clones.a.refs()
    with RepoLock(GitStore(clones.a.path).common_dir):
        with pytest.raises(RepositoryBusy):
            sync(clones.a.path)
    assert clones.a.refs() == before


def _bulk(repo: Repo, side: str, count: int) -> None:
    """`count` entries over ten namespaces on a few commits, written as `git notes append` would write them."""
    store = GitStore(repo.path)
    commits = [repo.commit(f"{side} bulk {i}") for i in range(20)]
    namespaces = ["decisions", "learnings", "progress", "blockers", "patterns",
                  "research", "reviews", "inception", "elicitation", "retrospective"]
    per_ref: dict[str, dict[str, bytes]] = {}
    for i in range(count):
        ns = namespaces[i % 10]
        commit = commits[i % 20]
        text = stripspace(serialize_entry({"type": ns, "timestamp": (NOW + timedelta(seconds=i)).isoformat(),
                                           "summary": f"{side} memory {i}"}, f"body {i} of {side}"))
        notes = per_ref.setdefault(f"refs/notes/mem/{ns}", {})
        notes[commit] = notes.get(commit, b"") + (b"\n" if commit in notes else b"") + text.encode()
    for ref, notes in per_ref.items():
        tip = store.tip(ref)
        store.move_refs({ref: store.build_notes_commit(tip, notes, "bulk\n", keep_layout=True)}, {ref: tip}, "bulk")


def _wait_for_orphans(group: int) -> None:
    """A killed sync's git child (a fetch or push) runs on to its end: wait for it, as a user would."""
    for _ in range(600):
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def test_a_sync_killed_midway_leaves_every_local_ref_at_its_old_or_its_merged_commit(clones: Clones) -> None:
    shared = clones.capture("a", "decisions", "shared")
    sync(clones.a.path)
    sync(clones.b.path)
    _bulk(clones.a, "a", 3000)
    _bulk(clones.b, "b", 3000)
    clones.capture("a", "decisions", "a on shared", when=NOW + timedelta(days=1), commit=shared)
    clones.capture("b", "decisions", "b on shared", when=NOW + timedelta(days=2), commit=shared)
    sync(clones.b.path)
    old = {ref: tip for ref, tip in clones.a.refs("refs/notes/").items()}
    code = f"from memactors.adapters.git.sync import sync; sync({str(clones.a.path)!r})"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code.replace(")", ", dry_run=True)")], check=True)
    dry = time.perf_counter() - started  # a full sync takes a little longer: it also writes and pushes
    interrupted = 0
    for delay in (dry * f for f in (0.3, 0.6, 0.8, 1.0, 1.2)):
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(delay)
        interrupted += proc.poll() is None
        proc.kill()
        proc.wait()
        _wait_for_orphans(proc.pid)
        store = GitStore(clones.a.path)
        for ref, tip in clones.a.refs("refs/notes/").items():
            if ref in old and tip != old[ref]:
                assert store.repo.descendant_of(tip, old[ref]), ref  # moved only to a merge of the old commit
        assert_holds(clones.a, clones.captured["a"])
    assert interrupted >= 2  # kills landed mid-sync, not after it
    stale = [*(clones.a.path / ".git" / "refs").rglob("*.lock"), *(clones.a.path / ".git").glob("*.lock")]
    if stale:  # killed inside the ref transaction: as with git itself, its lock files stay behind
        with pytest.raises(SyncError, match=r"\.lock.*(remove it and retry; nothing changed locally|nothing was "
                                            r"written: retry, or delete that lock file)"):
            sync(clones.a.path)
        for lock in stale:
            lock.unlink()
    report = sync(clones.a.path)
    assert report.entries_lost == 0
    assert_holds(clones.a, clones.captured["a"] + clones.captured["b"])


def test_a_lock_file_left_by_a_killed_fetch_is_named_with_what_to_do(clones: Clones) -> None:
    clones.capture("b", "decisions", "Use SQLite for storage")
    sync(clones.b.path)
    before = clones.a.refs("refs/notes/")
    tracking = clones.a.path / ".git" / "refs" / "memactors" / "remotes" / "origin" / "notes" / "mem"
    tracking.mkdir(parents=True, exist_ok=True)
    (tracking / "decisions.lock").write_text("")
    with pytest.raises(SyncError, match=r"decisions\.lock.*remove it and retry; nothing changed locally"):
        sync(clones.a.path)
    assert clones.a.refs("refs/notes/") == before
    (tracking / "decisions.lock").unlink()
    assert sync(clones.a.path).entries_lost == 0


def test_a_lock_file_left_on_a_local_ref_is_named_with_what_to_do(clones: Clones) -> None:
    clones.capture("b", "decisions", "Use SQLite for storage")
    sync(clones.b.path)
    sync(clones.a.path)
    clones.capture("b", "decisions", "Switch to PostgreSQL", when=NOW + timedelta(days=1))
    sync(clones.b.path)
    before = clones.a.refs("refs/notes/")
    lock = clones.a.path / ".git" / "refs" / "notes" / "mem" / "decisions.lock"
    lock.write_text("")
    with pytest.raises(SyncError, match=r"decisions\.lock.*nothing was written: retry, or delete that lock file"):
        sync(GitStore(clones.a.path, lock_wait_seconds=0.2))
    assert clones.a.refs("refs/notes/") == before
    lock.unlink()
    assert sync(clones.a.path).entries_lost == 0


def test_line_sorted_notes_pushed_by_another_clone_are_rebuilt_from_its_history_not_spread(clones: Clones) -> None:
    sha = clones.capture("a", "decisions", "base entry", "base body", when=NOW)
    sync(clones.a.path)
    sync(clones.b.path)
    clones.capture("a", "decisions", "a entry", "a body", when=NOW + timedelta(hours=1), commit=sha)
    git(clones.a.path, "push", "-q", "origin", "refs/notes/mem/decisions")
    clones.capture("b", "decisions", "b entry", "b body", when=NOW + timedelta(hours=2), commit=sha)
    # b merges the way git-notes-memory's configuration does, and pushes the damage
    git(clones.b.path, "fetch", "-q", "origin", "refs/notes/mem/decisions:refs/notes/incoming")
    git(clones.b.path, "notes", "--ref=refs/notes/mem/decisions", "merge", "-s", "cat_sort_uniq", "refs/notes/incoming")
    git(clones.b.path, "push", "-q", "origin", "refs/notes/mem/decisions")
    assert diagnose(clones.b.path)

    report = sync(clones.a.path)
    assert report.remote_notes_rebuilt == 1 and report.pushed
    assert diagnose(clones.a.path) == []
    assert_holds(clones.a, clones.captured["a"] + clones.captured["b"])


def test_a_locally_damaged_note_refuses_that_ref_and_points_to_doctor(clones: Clones) -> None:
    sha = clones.capture("a", "decisions", "base entry", when=NOW)
    sync(clones.a.path)
    sync(clones.b.path)
    clones.capture("a", "decisions", "a entry", when=NOW + timedelta(hours=1), commit=sha)
    git(clones.a.path, "push", "-q", "origin", "refs/notes/mem/decisions")
    clones.capture("b", "decisions", "b entry", when=NOW + timedelta(hours=2), commit=sha)
    clones.capture("b", "learnings", "fine")
    git(clones.b.path, "fetch", "-q", "origin", "refs/notes/mem/decisions:refs/notes/incoming")
    git(clones.b.path, "notes", "--ref=refs/notes/mem/decisions", "merge", "-s", "cat_sort_uniq", "refs/notes/incoming")
    damaged_tip = GitStore(clones.b.path).tip("refs/notes/mem/decisions")
    clones.capture("a", "decisions", "a again", when=NOW + timedelta(hours=3), commit=sha)
    git(clones.a.path, "push", "-q", "origin", "refs/notes/mem/decisions")
    report = sync(clones.b.path)
    outcomes = {r.ref: r for r in report.refs}
    assert outcomes["refs/notes/mem/decisions"].outcome is RefOutcome.REFUSED
    assert "doctor --repair" in report.errors[0]
    assert GitStore(clones.b.path).tip("refs/notes/mem/decisions") == damaged_tip
    assert outcomes["refs/notes/mem/learnings"].outcome is RefOutcome.PUSHED


def test_sync_accepts_a_path_as_the_remote(clones: Clones) -> None:
    clones.capture("a", "decisions", "by path")
    report = sync(clones.a.path, str(clones.remote))
    assert report.pushed
    assert git(clones.b.path, "ls-remote", "origin", "refs/notes/mem/decisions").stdout.strip()


# --- setup ----------------------------------------------------------------------------------


def test_setup_remote_makes_plain_git_push_and_fetch_carry_state_refs_and_still_push_the_branch(
    clones: Clones,
) -> None:
    clones.capture("a", "decisions", "one")
    consolidate(clones.a, NO_EMBEDDINGS)
    lines = setup_remote(clones.a.path, "origin")
    assert any("remote.origin.push: added refs/notes/mem-*:refs/notes/mem-*" in line for line in lines)
    clones.a.commit("new work")
    pushed = git(clones.a.path, "push", "-q", check=False)
    assert pushed.returncode == 0, pushed.stderr
    remote_refs = subprocess.run(["git", "--git-dir", str(clones.remote), "for-each-ref", "--format=%(refname)"],
                                 capture_output=True, text=True).stdout.split()
    assert META_REF in remote_refs and RUNS_REF in remote_refs
    assert git(clones.a.path, "rev-parse", "HEAD").stdout == subprocess.run(
        ["git", "--git-dir", str(clones.remote), "rev-parse", "main"], capture_output=True, text=True).stdout
    setup_remote(clones.b.path, "origin")
    git(clones.b.path, "fetch", "-q")
    assert GitStore(clones.b.path).tip("refs/memactors/remotes/origin/notes/mem-meta") == GitStore(clones.a.path).tip(META_REF)


def test_setup_remote_stops_a_line_sorting_merge_of_state_refs_and_warns_about_memory_notes(clones: Clones) -> None:
    git(clones.a.path, "config", "notes.mergeStrategy", "cat_sort_uniq")
    sha = clones.capture("a", "decisions", "at risk")
    lines = setup_remote(clones.a.path, "origin")
    warning = [line for line in lines if line.startswith("warning:")]
    assert len(warning) == 1 and "cat_sort_uniq" in warning[0] and "refs/notes/mem/decisions" in warning[0]
    assert git(clones.a.path, "config", "notes.mergeStrategy").stdout.strip() == "cat_sort_uniq"  # untouched
    for ref in STATE_REFS:
        name = ref.removeprefix("refs/notes/")
        assert git(clones.a.path, "config", f"notes.{name}.mergeStrategy").stdout.strip() == "manual"
        assert ref in git(clones.a.path, "config", "--get-all", "notes.rewriteRef").stdout.split()
    # a plain `git notes merge` of two diverged meta notes now stops instead of sorting the JSON
    _write_state(clones.a, META_REF, {sha: encode_meta_note([_meta("k1", sha)])})
    git(clones.a.path, "update-ref", "refs/notes/other", META_REF)
    _write_state(clones.a, META_REF, {sha: encode_meta_note([_meta("k1", sha, activation_count=1)])})
    other = GitStore(clones.a.path)
    tip = other.tip("refs/notes/other")
    other.move_refs({"refs/notes/other": other.build_notes_commit(tip, {sha: encode_meta_note([_meta("k2", sha)])},
                                                                  "o\n")}, {"refs/notes/other": tip}, "o")
    merged = git(clones.a.path, "notes", f"--ref={META_REF}", "merge", "refs/notes/other", check=False)
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout + merged.stderr
    git(clones.a.path, "notes", f"--ref={META_REF}", "merge", "--abort")
    json.loads(git(clones.a.path, "notes", f"--ref={META_REF}", "show", sha).stdout)  # still whole JSON


def test_setup_remote_twice_changes_nothing_the_second_time(clones: Clones) -> None:
    setup_remote(clones.a.path, "origin")
    config = (clones.a.path / ".git" / "config").read_text()
    lines = setup_remote(clones.a.path, "origin")
    assert all("already set" in line for line in lines if not line.startswith("note:"))
    assert (clones.a.path / ".git" / "config").read_text() == config


def test_setup_remote_dry_run_writes_nothing(clones: Clones) -> None:
    config = (clones.a.path / ".git" / "config").read_text()
    lines = setup_remote(clones.a.path, "origin", dry_run=True)
    assert any("would add" in line for line in lines)
    assert (clones.a.path / ".git" / "config").read_text() == config


def test_setup_remote_for_a_missing_remote_is_refused(repo: Repo) -> None:
    with pytest.raises(SyncError, match="no remote named 'upstream'"):
        setup_remote(repo.path, "upstream")


# --- the entry merge itself -------------------------------------------------------------------

_words = st.text(alphabet="abcdefgh ", min_size=1, max_size=12).map(str.strip).filter(bool)
_entries = st.lists(
    st.tuples(st.integers(0, 50), _words, st.sampled_from(["", "body", "line\n\n---\n\nrule", "x: y"])),
    max_size=6, unique=True,
)


_junk = st.lists(_words.map(lambda w: f"not yaml: {w}"), max_size=2)


def _note(junk: list[str], items: list[tuple[int, str, str]]) -> bytes:
    texts = [stripspace(j) for j in junk]
    texts += [stripspace(entry("decisions", s, b, when=NOW + timedelta(minutes=m))) for m, s, b in items]
    return "\n".join(texts).encode()


@settings(max_examples=150, deadline=None)
@given(shared=_entries, mine=_entries, theirs=_entries, my_junk=_junk, their_junk=_junk)
def test_merging_two_notes_keeps_every_entry_of_both_alters_none_and_settles(
    shared, mine, theirs, my_junk, their_junk
) -> None:
    local, remote = _note(my_junk, sorted(shared) + mine), _note(their_junk, sorted(shared) + theirs)
    merged = merge_memory_note(local, remote)
    assert entry_texts(local) | entry_texts(remote) == entry_texts(merged)
    assert merge_memory_note(merged, remote) == merged and merge_memory_note(merged, local) == merged
    if entry_texts(remote) <= entry_texts(local):
        assert merged == local


# --- convergence: random histories of capture / consolidate / sync on two or three clones ---------

_TOPICS = [
    ("decisions", "Use PostgreSQL for storage", "Chosen for its JSON support."),
    ("decisions", "Store application data in PostgreSQL", "Postgres holds all tables."),
    ("decisions", "Switch storage from PostgreSQL to SQLite", "Replaces PostgreSQL: one file is enough."),
    ("learnings", "Webhook retries must be idempotent", "A retried webhook charged twice."),
    ("learnings", "Make payment webhook handlers idempotent", "Use the event id as the key."),
    ("progress", "Login page styled", "CSS done."),
]
_STEP = st.tuples(st.sampled_from(["capture", "consolidate", "sync"]), st.integers(0, 2),
                  st.integers(0, len(_TOPICS) - 1))
#: The history the fault probe found: shared memories consolidated on both clones, then a -> b -> a.
_BOTH_CONSOLIDATED = [("capture", 0, 0), ("capture", 0, 1), ("capture", 0, 3), ("capture", 0, 4), ("sync", 0, 0),
                      ("sync", 1, 0), ("consolidate", 0, 0), ("consolidate", 1, 0), ("capture", 1, 2),
                      ("consolidate", 1, 0)]


@pytest.fixture(scope="module")
def minilm():
    from memactors.adapters.models.embeddings import LocalMiniLM

    return LocalMiniLM()


def _consolidate_in_process(path: Path, model) -> None:
    import trio

    from memactors.adapters.models.vector_cache import CachedEmbedder
    from memactors.adapters.system.clock import SystemClock
    from memactors.adapters.runtime.pipeline import RunOptions, Services
    from memactors.adapters.runtime.pipeline import consolidate as run_once
    from memactors.adapters.runtime.settings import Settings

    store = MemoryStore(GitStore(path))
    services = Services(store=store, settings=Settings(), clock=SystemClock(),
                        embedder=CachedEmbedder(model, store.git.common_dir / "memactors" / "vectors"))
    report = trio.run(lambda: run_once(services, RunOptions()))
    assert report.phase == "completed", report.errors


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(clone_count=st.integers(2, 3), steps=st.lists(_STEP, min_size=1, max_size=12))
@example(clone_count=2, steps=_BOTH_CONSOLIDATED)
def test_any_history_of_captures_runs_and_syncs_converges_on_identical_refs_and_loses_no_entry(
        git_env: dict[str, str], minilm, clone_count: int, steps: list[tuple[str, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        _, repos = make_clones(Path(scratch), "abc"[:clone_count])
        captured: list[tuple[str, str, str]] = []
        for number, (op, side, topic) in enumerate(steps):
            repo = repos[side % clone_count]
            if op == "capture":
                namespace, summary, body = _TOPICS[topic]
                when = NOW + timedelta(minutes=number)
                if topic % 2:
                    repo.commit(f"work {number}")
                sha = git(repo.path, "rev-parse", "HEAD").stdout.strip()
                repo.capture(namespace, summary, body, when=when, commit=sha)
                captured.append((f"refs/notes/mem/{namespace}", sha, stripspace(entry(namespace, summary, body,
                                                                                       when=when))))
            elif op == "consolidate":
                _consolidate_in_process(repo.path, minilm)
            else:
                assert not sync(repo.path).errors
        for repo in repos + repos:  # a settling round: each clone syncs twice, in turn
            assert not sync(repo.path).errors
        tips = repos[0].refs("refs/notes/")
        for repo in repos:
            assert repo.refs("refs/notes/") == tips  # memory and state refs: one commit each, everywhere
            assert_holds(repo, captured)
            assert diagnose(repo.path) == []
