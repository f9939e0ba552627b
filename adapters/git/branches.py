"""Which branches hold the commit a memory hangs on: on HEAD's line, only on other branches, or on none any
more (its branch was deleted).

Ancestry alone cannot tell "not merged" from "squash-merged": a pull request merged by squashing leaves its
commits outside HEAD's history (on the git-notes-memory plugin's own store, 3,325 of 4,271 memories hang on
such commits). So the label says what git knows, "not in HEAD's history", and readers do not rank by it.

Cost is bounded on repositories with thousands of branches: one walk of HEAD's history, then, per branch,
a walk from its tip back to where it meets HEAD's line (what is not merged), at most `MAX_UNMERGED` commits a
branch.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

#: A branch's unmerged commits are read this far back (a branch that diverged further is still listed for
#: the newest of them).
MAX_UNMERGED = 2000
#: HEAD's history is walked this far (a few tens of milliseconds); a commit beyond it is asked of git alone.
MAX_HEAD_WALK = 100_000


@dataclass(frozen=True)
class Placement:
    """Where a commit stands: on HEAD's line, or on these other branches only (none: its branch is gone)."""

    on_head: bool
    branches: tuple[str, ...] = ()

    @property
    def orphaned(self) -> bool:
        """No branch holds it: the branch it was made on was deleted (unmerged, or merged by squashing)."""
        return not self.on_head and not self.branches

    def label(self) -> str:
        """How a reader is told, or "" on HEAD's line."""
        if self.on_head:
            return ""
        if not self.branches:
            return "from a deleted branch, not in HEAD's history"
        shown = ", ".join(self.branches[:3]) + (f" and {len(self.branches) - 3} more" if len(self.branches) > 3 else "")
        return f"from {shown}, not in HEAD's history"


class BranchMap:
    """Placements of commits in one repository as its refs stand now (build one per read)."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self._repo = repo
        try:
            self._head = None if repo.head_is_unborn else repo.head.target
        except pygit2.GitError:
            self._head = None
        self._head_commits: set[str] | None = None
        self._head_complete = True
        self._unmerged: dict[str, list[str]] | None = None

    def _branches(self) -> dict[str, pygit2.Oid]:
        tips: dict[str, pygit2.Oid] = {}
        for name in self._repo.references:
            if not name.startswith(("refs/heads/", "refs/remotes/")) or name.endswith("/HEAD"):
                continue
            try:
                target = self._repo.references[name].resolve().target
            except (KeyError, pygit2.GitError):
                continue
            short = name.removeprefix("refs/heads/").removeprefix("refs/")
            tips[short] = target
        return tips

    def _head_line(self) -> set[str]:
        """The commits HEAD holds (one walk of its history, at most MAX_HEAD_WALK commits)."""
        if self._head_commits is None:
            self._head_commits = set()
            if self._head is not None:
                walker = self._repo.walk(self._head, pygit2.enums.SortMode.NONE)
                for count, commit in enumerate(walker):
                    if count >= MAX_HEAD_WALK:
                        self._head_complete = False
                        break
                    self._head_commits.add(str(commit.id))
        return self._head_commits

    def _unmerged_commits(self) -> dict[str, list[str]]:
        """Every commit some branch has and HEAD has not, with the branches that have it: from each branch's
        tip back to where it meets HEAD's line, at most MAX_UNMERGED commits a branch."""
        if self._unmerged is None:
            head_line = self._head_line()
            found: dict[str, list[str]] = {}
            for name, tip in sorted(self._branches().items()):
                seen: set[str] = set()
                waiting = [tip]
                while waiting and len(seen) < MAX_UNMERGED:
                    oid = waiting.pop()
                    sha = str(oid)
                    if sha in head_line or sha in seen:
                        continue
                    seen.add(sha)
                    found.setdefault(sha, []).append(name)
                    try:
                        waiting.extend(self._repo[oid].parent_ids)
                    except (KeyError, ValueError, AttributeError):
                        continue
            self._unmerged = found
        return self._unmerged

    def on_head(self, commit: str) -> bool:
        if commit in self._head_line():
            return True
        if self._head_complete or self._head is None:
            return False
        try:  # a history longer than the walk: ask git's ancestry for this one commit
            return bool(self._repo.descendant_of(self._head, pygit2.Oid(hex=commit)))
        except (ValueError, KeyError, pygit2.GitError):
            return False

    def placement(self, commit: str) -> Placement:
        if self.on_head(commit):
            return Placement(on_head=True)
        branches = self._unmerged_commits().get(commit, [])
        local = sorted(b for b in branches if not b.startswith("remotes/"))
        remote = sorted(b.removeprefix("remotes/") for b in branches if b.startswith("remotes/"))
        return Placement(on_head=False, branches=tuple(local + remote))
