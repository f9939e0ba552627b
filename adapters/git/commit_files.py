"""The files each commit changed, and the files at HEAD: what the file signal reads from git.

A commit's changed files are its diff against its first parent (a root
commit: every file it holds), paths as git stores them (repository-relative,
`/`-separated). Commits never change, so what was computed is kept in a
small JSON cache under `<common dir>/memactors/`; a commit that changed
more than `MAX_KEPT` files keeps only that many (the signal ignores such
commits anyway). A commit the repository does not have (a note on a
rewritten or unfetched commit) changed nothing we can see.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import pygit2

from memactors.actors.algorithms.file_signal import MAX_COMMIT_FILES

CACHE_FILE = "commit-files.json"
MAX_KEPT = MAX_COMMIT_FILES + 1


class CommitFiles:
    """`changed(commits)` and `head_files()` for one repository, cached in `cache_path`."""

    def __init__(self, repo: pygit2.Repository, cache_path: Path) -> None:
        self.repo = repo
        self.cache_path = cache_path
        self._cache: dict[str, list[str]] | None = None
        self._dirty = False

    def _load(self) -> dict[str, list[str]]:
        if self._cache is None:
            try:
                data = json.loads(self.cache_path.read_text())
                self._cache = {str(k): [str(p) for p in v] for k, v in data.items()} if isinstance(data, dict) else {}
            except (OSError, ValueError, TypeError, AttributeError):
                self._cache = {}
        return self._cache

    def changed(self, commits: Iterable[str]) -> dict[str, tuple[str, ...]]:
        cache = self._load()
        result: dict[str, tuple[str, ...]] = {}
        for sha in set(commits):
            if sha not in cache:
                cache[sha] = self._diff(sha)
                self._dirty = True
            result[sha] = tuple(cache[sha])
        return result

    def _diff(self, sha: str) -> list[str]:
        try:
            commit = self.repo.get(sha)
        except (ValueError, KeyError):
            return []
        if not isinstance(commit, pygit2.Commit):
            return []
        if commit.parents:
            diff = commit.parents[0].tree.diff_to_tree(commit.tree)
            paths = []
            for delta in diff.deltas:
                paths.append(delta.new_file.path)
                if len(paths) >= MAX_KEPT:
                    break
            return paths
        return _tree_files(self.repo, commit.tree, MAX_KEPT)

    def head_files(self, limit: int = 200_000) -> list[str]:
        try:
            head = self.repo.head.peel(pygit2.Commit)
        except (pygit2.GitError, KeyError, ValueError):
            return []
        return _tree_files(self.repo, head.tree, limit)

    def save(self) -> None:
        if not self._dirty or self._cache is None:
            return
        try:
            tmp = self.cache_path.with_name(f".{self.cache_path.name}.tmp{os.getpid()}")
            tmp.write_text(json.dumps(self._cache, separators=(",", ":")))
            os.replace(tmp, self.cache_path)
            self._dirty = False
        except OSError:
            pass  # a cache that cannot be written is recomputed next time


def _tree_files(repo: pygit2.Repository, tree: pygit2.Tree, limit: int) -> list[str]:
    files: list[str] = []
    stack: list[tuple[str, pygit2.Tree]] = [("", tree)]
    while stack and len(files) < limit:
        prefix, current = stack.pop()
        for item in current:
            if item.type_str == "tree":
                stack.append((f"{prefix}{item.name}/", repo[item.id]))
            elif item.type_str == "blob":
                files.append(f"{prefix}{item.name}")
    return files[:limit]
