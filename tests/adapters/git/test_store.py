from __future__ import annotations

import pygit2
import pytest

from memactors.adapters.git.store import GitStore, NotARepository, RefsMoved
from tests.conftest import Repo, git


def test_notes_are_found_in_flat_and_fanout_trees(repo: Repo) -> None:
    commits = [repo.commit(f"c{i}") for i in range(3)]
    store = GitStore(repo.path)
    fanned = store.build_notes_commit(None, {c: f"note {c}".encode() for c in commits}, "fanout")
    store.move_refs({"refs/notes/test": fanned}, {"refs/notes/test": None}, "t")
    assert sorted(c for c, _ in store.notes("refs/notes/test")) == sorted(commits)
    for c in commits:
        assert repo.note("refs/notes/test", c) == f"note {c}"


def test_a_note_git_wrote_flat_is_replaced_in_place_and_stays_readable(repo: Repo) -> None:
    head = repo.commit()
    repo.capture("decisions", "by git")
    store = GitStore(repo.path)
    tip = store.tip("refs/notes/mem/decisions")
    new = store.build_notes_commit(tip, {head: b"replaced\n"}, "m", keep_layout=True)
    store.move_refs({"refs/notes/mem/decisions": new}, {"refs/notes/mem/decisions": tip}, "m")
    tree = git(repo.path, "ls-tree", "-r", "--name-only", "refs/notes/mem/decisions").stdout.split()
    assert tree == [head]
    assert repo.note("refs/notes/mem/decisions") == "replaced\n"
    git(repo.path, "notes", "--ref=refs/notes/mem/decisions", "append", "-m", "git still appends")
    assert repo.note("refs/notes/mem/decisions") == "replaced\n\ngit still appends\n"


def test_move_refs_is_all_or_nothing(repo: Repo) -> None:
    store = GitStore(repo.path)
    commit = store.build_notes_commit(None, {repo.commit(): b"x"}, "m")
    store.move_refs({"refs/notes/a": commit}, {}, "m")
    with pytest.raises(RefsMoved):
        store.move_refs({"refs/notes/a": commit, "refs/notes/b": commit}, {"refs/notes/a": None}, "m")
    assert store.tip("refs/notes/b") is None


def test_state_lives_under_the_common_dir_of_a_worktree(repo: Repo, tmp_path) -> None:
    git(repo.path, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert GitStore(tmp_path / "wt").common_dir == (repo.path / ".git").resolve()


def test_a_directory_outside_any_repository_is_refused(tmp_path) -> None:
    with pytest.raises(NotARepository):
        GitStore(tmp_path)


def test_a_note_in_a_fanout_tree_is_found_and_replaced_where_it_is(repo: Repo) -> None:
    head = repo.commit()
    store = GitStore(repo.path)
    first = store.build_notes_commit(None, {head: b"one"}, "m")
    assert store.note_path(store.repo[first].peel(pygit2.Tree), head) == f"{head[:2]}/{head[2:]}"
    second = store.build_notes_commit(first, {head: b"two"}, "m")
    store.move_refs({"refs/notes/x": second}, {}, "m")
    assert store.read_note("refs/notes/x", head) == b"two"
    assert git(repo.path, "ls-tree", "-r", "--name-only", "refs/notes/x").stdout.split() == [f"{head[:2]}/{head[2:]}"]
