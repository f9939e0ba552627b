"""`doctor`: notes destroyed by a real `git notes merge -s cat_sort_uniq`, found and rebuilt from history."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from memactors.adapters.git.doctor import diagnose, repair
from memactors.adapters.git.memory_store import EDGES_REF, META_REF, RUNS_REF, SUMMARIES_REF, MemoryStore
from memactors.adapters.git.note_format import parse_note, stripspace
from memactors.adapters.git.repo_lock import RepoLock, RepositoryBusy
from memactors.adapters.git.state_codec import (
    UnreadableState,
    decode_meta_note,
    decode_runs_note,
    encode_edges_note,
    encode_meta_note,
    unsorted_documents,
)
from memactors.adapters.git.store import GitStore
from memactors.adapters.git.sync import SyncError, sync
from memactors.events.metadata import MemoryMeta
from memactors.events.tier import Tier
from tests.actors.test_semantic_pipeline import store_of_facts  # noqa: F401 - fixture
from tests.adapters.cli.test_cli import one_line_error
from tests.adapters.git.test_sync import (  # noqa: F401 - clones is a fixture
    NO_EMBEDDINGS,
    Clones,
    _contradiction,
    _meta,
    _write_state,
    clones,
    state_refs,
)
from tests.conftest import NOW, Repo, entry, git, run_cli

REF = "refs/notes/mem/decisions"


def _text(summary: str, body: str = "", hours: int = 0) -> str:
    return stripspace(entry("decisions", summary, body, when=NOW + timedelta(hours=hours)))


def _append(repo: Repo, ref: str, commit: str, text: str) -> None:
    git(repo.path, "notes", f"--ref={ref}", "append", "-m", text, commit)


def diverge_and_sort(repo: Repo, sha: str) -> dict[str, str]:
    """Two histories of one note (as two clones would have), merged the way git-notes-memory configures."""
    texts = {
        "base": _text("Use SQLite for storage", "Simple to start.\n\n- point b\n- point a"),
        "ours": _text("Switch storage to PostgreSQL", "Replaces SQLite.\n\n---\n\nafter a rule", hours=1),
        "theirs": _text("Cache keys carry a version", "Otherwise stale reads.", hours=2),
    }
    _append(repo, REF, sha, texts["base"])
    git(repo.path, "update-ref", "refs/notes/theirs", REF)
    _append(repo, REF, sha, texts["ours"])
    _append(repo, "refs/notes/theirs", sha, texts["theirs"])
    merged = git(repo.path, "notes", f"--ref={REF}", "merge", "-s", "cat_sort_uniq", "refs/notes/theirs")
    assert "Concatenating unique lines" in merged.stdout + merged.stderr
    return texts


def test_a_real_cat_sort_uniq_merge_is_found_with_the_commit_it_hangs_on_and_the_merge_that_did_it(repo: Repo) -> None:
    sha = repo.commit("work")
    diverge_and_sort(repo, sha)
    note = repo.note(REF, sha)
    assert parse_note("decisions", sha, note.encode()).memories == []  # really destroyed: nothing parses
    found = diagnose(repo.path)
    assert len(found) == 1
    damaged = found[0]
    assert damaged.ref == REF and damaged.namespace == "decisions" and damaged.commit == sha
    assert damaged.damaged_by == GitStore(repo.path).tip(REF)
    assert damaged.entries_destroyed == 3 and damaged.repairable and damaged.entries_recoverable == 3


def test_repair_rebuilds_every_entry_from_the_pre_merge_parents_and_keeps_the_damage_in_history(repo: Repo) -> None:
    sha = repo.commit("work")
    texts = diverge_and_sort(repo, sha)
    damaged_tip = GitStore(repo.path).tip(REF)
    damaged_note = repo.note(REF, sha)

    report = repair(repo.path)

    assert [n.commit for n in report.repaired] == [sha] and report.unrepairable == []
    assert report.entries_restored == 3
    assert repo.note(REF, sha) == "\n".join([texts["base"], texts["ours"], texts["theirs"]])
    store = GitStore(repo.path)
    assert store.repo[store.tip(REF)].parent_ids == [store.repo[damaged_tip].id]
    assert git(repo.path, "show", f"{damaged_tip}:{sha}").stdout == damaged_note  # the damage, kept in history
    memories = parse_note("decisions", sha, repo.note(REF, sha).encode()).memories
    assert [m.summary for m in memories] == ["Use SQLite for storage", "Switch storage to PostgreSQL",
                                             "Cache keys carry a version"]
    assert diagnose(repo.path) == []


def test_entries_appended_after_the_damage_survive_the_repair(repo: Repo) -> None:
    sha = repo.commit("work")
    texts = diverge_and_sort(repo, sha)
    later = _text("Captured after the bad merge", "Still here.", hours=5)
    _append(repo, REF, sha, later)  # git-notes-memory keeps appending to the damaged note
    found = diagnose(repo.path)
    assert len(found) == 1 and found[0].repairable and found[0].entries_recoverable == 4
    repair(repo.path)
    note = repo.note(REF, sha)
    for text in [*texts.values(), later]:
        assert text in note
    assert len(parse_note("decisions", sha, note.encode()).memories) == 4


def test_damage_carried_through_a_later_merge_is_traced_to_the_merge_that_made_it(repo: Repo) -> None:
    sha, other = repo.commit("work"), repo.commit("more")
    diverge_and_sort(repo, sha)
    first_damage = GitStore(repo.path).tip(REF)
    git(repo.path, "update-ref", "refs/notes/side", REF)
    _append(repo, REF, other, _text("another note", hours=8))
    _append(repo, "refs/notes/side", other, _text("a side note", hours=9))
    git(repo.path, "notes", f"--ref={REF}", "merge", "-s", "cat_sort_uniq", "refs/notes/side")
    found = {n.commit: n for n in diagnose(repo.path)}
    assert found[sha].damaged_by == first_damage
    assert found[other].repairable and found[other].damaged_by == GitStore(repo.path).tip(REF)
    report = repair(repo.path)
    assert len(report.repaired) == 2 and diagnose(repo.path) == []
    assert "a side note" in repo.note(REF, other) and "another note" in repo.note(REF, other)


def test_a_healthy_store_with_rules_yaml_and_sorted_looking_bodies_is_not_reported(populated: Repo) -> None:
    populated.capture("patterns", "Config example", "name: x\ntimestamp: y\ntype: z")
    populated.capture("patterns", "Front matter in a body", "---\ntype: a\ntimestamp: b\n---\nafter")
    populated.capture("research", "Sorted list", "---\n- a\n- b\ntype: c")
    git(populated.path, "notes", "--ref=refs/notes/mem/research", "append", "-m", "not yaml at all")
    assert diagnose(populated.path) == []
    assert repair(populated.path).repaired == []


def test_a_note_written_sorted_without_a_merge_is_reported_unrepairable_and_left_alone(repo: Repo) -> None:
    sha = repo.commit("work")
    sorted_lines = sorted(set((_text("one") + _text("two", hours=1)).splitlines()) - {""})
    git(repo.path, "notes", f"--ref={REF}", "add", "-m", "\n".join(sorted_lines), sha)
    tip = GitStore(repo.path).tip(REF)
    found = diagnose(repo.path)
    assert len(found) == 1 and not found[0].repairable and found[0].damaged_by is None
    report = repair(repo.path)
    assert report.repaired == [] and len(report.unrepairable) == 1
    assert GitStore(repo.path).tip(REF) == tip


def test_repair_dry_run_writes_nothing(repo: Repo) -> None:
    sha = repo.commit("work")
    diverge_and_sort(repo, sha)
    tip = GitStore(repo.path).tip(REF)
    report = repair(repo.path, dry_run=True)
    assert report.dry_run and len(report.repaired) == 1 and report.refs_updated == {}
    assert GitStore(repo.path).tip(REF) == tip


def test_repair_is_refused_while_a_run_holds_the_repository(repo: Repo) -> None:
    sha = repo.commit("work")
    diverge_and_sort(repo, sha)
    tip = GitStore(repo.path).tip(REF)
    with RepoLock(GitStore(repo.path).common_dir):
        with pytest.raises(RepositoryBusy):
            repair(repo.path)
    assert GitStore(repo.path).tip(REF) == tip


# --- state notes ------------------------------------------------------------------------


def damage_state(clones: Clones) -> None:
    """Two clones consolidate notes on the same commit; b fetches a's state refs by hand and line-sorts them in."""
    clones.capture("a", "decisions", "Use SQLite for storage", when=NOW - timedelta(days=3))
    clones.capture("b", "learnings", "Retries must be idempotent", when=NOW - timedelta(days=2))
    for side in ("a", "b"):
        assert run_cli("consolidate", "--repo", str(clones.repo(side).path), env=NO_EMBEDDINGS).returncode == 0
    git(clones.a.path, "push", "-q", "origin", META_REF, RUNS_REF, "refs/notes/mem/decisions")
    git(clones.b.path, "fetch", "-q", "origin", f"{META_REF}:refs/notes/incoming-meta",
        f"{RUNS_REF}:refs/notes/incoming-runs", "refs/notes/mem/decisions:refs/notes/mem/decisions")
    for ref, incoming in ((META_REF, "refs/notes/incoming-meta"), (RUNS_REF, "refs/notes/incoming-runs")):
        git(clones.b.path, "notes", f"--ref={ref}", "merge", "-s", "cat_sort_uniq", incoming)


def test_line_sorted_state_notes_are_found_and_rebuilt_with_the_records_of_both_sides(clones: Clones) -> None:
    damage_state(clones)
    b = GitStore(clones.b.path)
    shared = git(clones.b.path, "rev-parse", "HEAD").stdout.strip()
    damaged = {META_REF: b.tip(META_REF), RUNS_REF: b.tip(RUNS_REF)}
    with pytest.raises(UnreadableState, match="line-sorted"):
        decode_meta_note(shared, b.read_blob(b.note_blob_at(damaged[META_REF], shared)))
    found = {n.ref: n for n in diagnose(clones.b.path)}
    assert set(found) == {META_REF, RUNS_REF}
    assert all(n.namespace is None and n.commit == shared and n.repairable for n in found.values())
    assert found[META_REF].damaged_by == damaged[META_REF] and found[META_REF].entries_recoverable == 2

    report = repair(clones.b.path)

    assert {n.ref for n in report.repaired} == {META_REF, RUNS_REF} and report.unrepairable == []
    meta = decode_meta_note(shared, b.read_blob(b.note_blob_at(b.tip(META_REF), shared)))
    assert sorted(m.namespace for m in meta) == ["decisions", "learnings"]
    runs = decode_runs_note(b.read_blob(b.note_blob_at(b.tip(RUNS_REF), shared)))
    a_runs = decode_runs_note(b.read_blob(b.note_blob_at(b.tip("refs/notes/incoming-runs"), shared)))
    assert len(runs) == 2 and a_runs[0] in runs
    newest = max(runs, key=lambda run: run["started_at"])
    assert MemoryStore(b).last_run() == newest  # `status` finds the last run through the repair commit
    for ref, tip in damaged.items():
        assert b.repo[b.tip(ref)].parent_ids == [b.repo[tip].id]  # the damage stays in history
    assert diagnose(clones.b.path) == []


def test_a_line_sorted_state_note_stops_a_run_with_a_pointer_to_doctor_and_runs_again_after_repair(
        clones: Clones) -> None:
    damage_state(clones)
    originals = clones.b.originals()
    stopped = run_cli("consolidate", "--repo", str(clones.b.path), env=NO_EMBEDDINGS)
    assert stopped.returncode == 2 and stopped.stdout == ""
    line = one_line_error(stopped)
    assert "line-sorted by a merge" in line and line.count("doctor --repair") == 1
    fixed = run_cli("doctor", "--repair", "--repo", str(clones.b.path))
    assert fixed.returncode == 0 and "rebuilt 2 notes" in fixed.stdout
    again = run_cli("consolidate", "--json", "--repo", str(clones.b.path), env=NO_EMBEDDINGS)
    assert again.returncode == 0, again.stderr
    assert clones.b.originals() == originals


def test_a_line_sorted_state_note_of_mixed_schema_versions_is_not_guessed_at() -> None:
    old = encode_meta_note([MemoryMeta(key="decisions:a:0", id="decisions:a:0", namespace="decisions",
                                       commit="a" * 40, created=NOW, tier=Tier.HOT)])
    newer = old.replace(b'"schema_version":1', b'"schema_version":2')
    scrambled = b"\n".join(sorted(set(old.splitlines() + newer.splitlines()))) + b"\n"
    assert unsorted_documents(scrambled) is None
    assert unsorted_documents(old) is None  # a healthy note is never taken for a scrambled one
    assert unsorted_documents(b"\n".join(sorted(set(old.splitlines()))) + b"\n") is not None


def test_state_damage_pushed_to_a_remote_is_rebuilt_by_the_next_sync_and_the_remote_mended(clones: Clones) -> None:
    damage_state(clones)
    git(clones.b.path, "push", "-q", "--force", "origin", META_REF, RUNS_REF)  # a hand-made refspec spreads it
    assert {n.ref for n in diagnose(clones.remote)} == {META_REF, RUNS_REF}

    mended = sync(clones.a.path)

    assert not mended.errors and mended.remote_notes_rebuilt == 2 and mended.pushed
    assert diagnose(clones.a.path) == [] and diagnose(clones.remote) == []
    a = GitStore(clones.a.path)
    shared = git(clones.a.path, "rev-parse", "HEAD").stdout.strip()
    meta = decode_meta_note(shared, a.read_blob(a.note_blob_at(a.tip(META_REF), shared)))
    assert sorted(m.namespace for m in meta) == ["decisions", "learnings"]
    assert len(decode_runs_note(a.read_blob(a.note_blob_at(a.tip(RUNS_REF), shared)))) == 2

    with pytest.raises(SyncError, match="doctor --repair"):  # b's own copy of the damage is b's to mend
        sync(clones.b.path)
    repair(clones.b.path)
    assert not sync(clones.b.path).errors and not sync(clones.a.path).errors
    assert state_refs(clones.a) == state_refs(clones.b)  # both clones converge on one mended state
    assert diagnose(clones.b.path) == [] and diagnose(clones.remote) == []


def test_a_remote_state_note_that_cannot_be_read_is_refused_until_a_clone_that_descends_from_it_pushes(
        clones: Clones) -> None:
    shared = clones.capture("a", "decisions", "Use SQLite for storage")
    for side in ("a", "b"):
        assert run_cli("consolidate", "--repo", str(clones.repo(side).path), env=NO_EMBEDDINGS).returncode == 0
        sync(clones.repo(side).path)
    _write_state(clones.b, META_REF, {shared: b"not json at all\n"})  # unreadable, and not a line sort
    git(clones.b.path, "push", "-q", "--force", "origin", META_REF)
    before = clones.a.refs()
    with pytest.raises(SyncError, match="is not JSON; nothing was merged"):
        sync(clones.a.path)
    assert {r: t for r, t in clones.a.refs().items() if r in before} == before  # nothing local moved
    _write_state(clones.b, META_REF, {shared: encode_meta_note([_meta("k1", shared)])})  # mended on top
    assert sync(clones.b.path).pushed
    assert not sync(clones.a.path).errors


def test_a_repaired_metadata_note_keeps_the_users_conflict_decision_over_either_sides_supersession(repo: Repo) -> None:
    sha = repo.commit("work")
    _write_state(repo, EDGES_REF, {sha: encode_edges_note([_contradiction("both")])})  # the user kept both
    _write_state(repo, META_REF, {sha: encode_meta_note([_meta("k1", sha), _meta("k2", sha)])})
    git(repo.path, "update-ref", "refs/notes/side", META_REF)
    _write_state(repo, META_REF, {sha: encode_meta_note([_meta("k1", sha, superseded_by="k2"), _meta("k2", sha)])})
    side = GitStore(repo.path).tip("refs/notes/side")
    _write_state(repo, "refs/notes/side", {sha: encode_meta_note([_meta("k1", sha, activation_count=4),
                                                                   _meta("k2", sha)])})
    assert side != GitStore(repo.path).tip("refs/notes/side")
    git(repo.path, "notes", f"--ref={META_REF}", "merge", "-s", "cat_sort_uniq", "refs/notes/side")

    repair(repo.path)

    meta = {m.key: m for m in MemoryStore(GitStore(repo.path)).load_state().meta.values()}
    assert meta["k1"].superseded_by is None  # a run judged k1 superseded; the user's "both" wins again
    assert meta["k1"].activation_count == 4  # and the other side's fields merged in


@pytest.mark.parametrize("ref", [META_REF, SUMMARIES_REF, EDGES_REF, RUNS_REF])
def test_a_garbage_state_note_stops_runs_with_one_line_and_doctor_restores_it_from_history(
        store_of_facts: Repo, ref: str) -> None:
    """Garbage JSON where a run wrote a state note (by hand, a broken tool, a bad merge), no line sort."""
    assert run_cli("consolidate", "--repo", str(store_of_facts.path)).returncode == 0
    assert run_cli("capture", "--repo", str(store_of_facts.path), "--namespace", "decisions", "--summary",
                   "Switch storage from PostgreSQL to CockroachDB", "--content", "").returncode == 0
    assert run_cli("consolidate", "--repo", str(store_of_facts.path)).returncode == 0  # the write that is lost
    store = GitStore(store_of_facts.path)
    commit, _ = sorted(store.notes(ref))[-1]
    _write_state(store_of_facts, ref, {commit: b'{"schema_version": 1, "memor'})  # cut short
    before = store_of_facts.originals()

    for command in (["consolidate"], ["consolidate", "--full"], ["status"]):
        stopped = run_cli(*command, "--repo", str(store_of_facts.path))
        assert stopped.returncode == 2 and stopped.stdout == "", (command, stopped.stdout)
        line = one_line_error(stopped)
        assert f"{ref} note on {commit[:12]} is unreadable" in line and "memactors doctor --repair" in line

    found = [d for d in diagnose(store_of_facts.path) if d.damage == "unreadable"]
    assert [(d.ref, d.commit) for d in found] == [(ref, commit)]
    dropped = len(found[0].writes_dropped)  # the garbage, and any run's write after the last readable version
    assert found[0].repairable and dropped >= 1
    doctor = run_cli("doctor", "--repo", str(store_of_facts.path))
    assert doctor.returncode == 1 and f"drops {dropped} later write" in doctor.stdout

    repaired = run_cli("doctor", "--repair", "--repo", str(store_of_facts.path))
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert diagnose(store_of_facts.path) == []
    again = run_cli("consolidate", "--json", "--repo", str(store_of_facts.path))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["memories_processed"] == 9
    assert store_of_facts.originals() == before
    last = json.loads(run_cli("status", "--json", "--repo", str(store_of_facts.path)).stdout)["last_run"]
    assert last is not None  # never "no run yet" once a run was recorded


def test_a_state_ref_pointed_at_a_blob_is_named_and_moved_back_where_its_reflog_had_it(store_of_facts: Repo) -> None:
    assert run_cli("consolidate", "--repo", str(store_of_facts.path)).returncode == 0
    good = GitStore(store_of_facts.path).tip(META_REF)
    blob = git(store_of_facts.path, "hash-object", "-w", "--stdin", input="not a commit").stdout.strip()
    git(store_of_facts.path, "update-ref", META_REF, blob)
    stopped = run_cli("consolidate", "--repo", str(store_of_facts.path))
    assert stopped.returncode == 2 and f"{META_REF} is unreadable" in one_line_error(stopped)
    [bad] = diagnose(store_of_facts.path)
    assert bad.damage == "bad_ref" and bad.restored_from == good
    assert run_cli("doctor", "--repair", "--repo", str(store_of_facts.path)).returncode == 0
    assert GitStore(store_of_facts.path).tip(META_REF) == good
    assert run_cli("consolidate", "--repo", str(store_of_facts.path)).returncode == 0


def test_a_garbage_run_note_off_head_is_reported_by_status_and_doctor_and_runs_go_on(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    assert run_cli("consolidate", "--repo", str(repo.path), env=NO_EMBEDDINGS).returncode == 0
    older = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    repo.commit("later")
    repo.capture("decisions", "Switch storage to PostgreSQL")
    assert run_cli("consolidate", "--repo", str(repo.path), env=NO_EMBEDDINGS).returncode == 0
    _write_state(repo, RUNS_REF, {older: b"garbage {"})  # by hand: the tip no longer names the last run

    status = run_cli("status", "--json", "--repo", str(repo.path))
    assert status.returncode == 1, status.stderr
    reported = json.loads(status.stdout)
    assert reported["last_run"] is not None  # the readable run on HEAD, not "no run yet"
    assert [line.split(" is ")[0] for line in reported["unreadable"]] == [f"{RUNS_REF} note on {older[:12]}"]
    assert [(d.ref, d.commit, d.damage) for d in diagnose(repo.path)] == [(RUNS_REF, older, "unreadable")]
    repo.capture("learnings", "Retries must be idempotent")
    assert run_cli("consolidate", "--repo", str(repo.path), env=NO_EMBEDDINGS).returncode == 0  # HEAD's note reads
