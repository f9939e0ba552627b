"""`doctor`: notes destroyed by a real `git notes merge -s cat_sort_uniq`, found and rebuilt from history."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memactors.adapters.doctor import diagnose, repair
from memactors.adapters.git_store import GitStore
from memactors.adapters.note_format import parse_note, stripspace
from memactors.adapters.repo_lock import RepoLock, RepositoryBusy
from tests.conftest import NOW, Repo, entry, git

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
