"""Which branches hold the commit a memory hangs on, and whether it was merged: on HEAD's line; merged all
the same (rebased, cherry-picked or squash-merged: adapters/git/merged.py); only on other branches, not
merged; on none any more, not merged (its branch was deleted); or unknown (the commit is not in this clone).

Readers rank a memory that is not merged below merged ones of similar score (`UNMERGED_PENALTY`), and label it
("from feature/x, not merged"); one whose branch was deleted unmerged also ages faster (the tierer's
`abandoned_half_life_factor`). An unknown placement is never demoted.

Cost is bounded on repositories with thousands of branches: one walk of HEAD's history, then, per branch,
a walk from its tip back to where it meets HEAD's line (what is not merged), at most `MAX_UNMERGED` commits a
branch. Which branches contain one commit (`containing`) is one walk of what was committed after it, at most
`MAX_CONTAINS_WALK` commits, shared by every branch. Merge detection is bounded by merged.py's constants.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

from memactors.adapters.git.merged import MergeCheck

#: A branch's unmerged commits are read this far back (a branch that diverged further is still listed for
#: the newest of them).
MAX_UNMERGED = 2000
#: HEAD's history is walked this far (a few tens of milliseconds); a commit beyond it is asked of git alone.
MAX_HEAD_WALK = 100_000
#: `containing` reads at most this many commits newer than the one asked about (~0.1 s); past it, it says so.
MAX_CONTAINS_WALK = 200_000
#: A commit is taken to be older than its descendants by at most this much clock skew (seconds), as git's own
#: `--contains` assumes when it stops walking at old commits.
CLOCK_SLOP = 86_400
#: Readers name at most this many branches, then "and N more".
MAX_NAMED = 10
#: A memory whose commit is not merged into HEAD ranks at this times its score in recall, the SessionStart
#: block and surfacing: below merged ones of similar score, above much weaker ones.
UNMERGED_PENALTY = 0.85


@dataclass(frozen=True)
class Placement:
    """Where a commit stands: on HEAD's line; else `merged` into HEAD by "rebase" or "squash" (or "no"), on
    these other branches (none: its branch is gone), or not `known` (not in this clone: never demoted)."""

    on_head: bool
    branches: tuple[str, ...] = ()
    merged: str = "no"
    known: bool = True

    @property
    def unmerged(self) -> bool:
        """Known not to be in HEAD: neither in its history nor merged by rebase or squash."""
        return self.known and not self.on_head and self.merged == "no"

    @property
    def orphaned(self) -> bool:
        """Not merged, and no branch holds it: the branch it was made on was deleted."""
        return self.unmerged and not self.branches

    @property
    def penalty(self) -> float:
        """What a reader multiplies its rank by: UNMERGED_PENALTY when not merged, else 1."""
        return UNMERGED_PENALTY if self.unmerged else 1.0

    @property
    def state(self) -> str:
        """One of "on HEAD's line", "merged into HEAD by rebase|squash", "not merged", "deleted branch, not
        merged", "unknown (not in this clone)"."""
        if self.on_head:
            return "on HEAD's line"
        if not self.known:
            return "unknown (not in this clone)"
        if self.merged != "no":
            return f"merged into HEAD by {self.merged}"
        return "not merged" if self.branches else "deleted branch, not merged"

    def label(self) -> str:
        """How a reader is told, or "" when there is nothing to warn about (on HEAD's line, merged, unknown)."""
        if not self.unmerged:
            return ""
        if not self.branches:
            return "from a deleted branch, not merged"
        shown = ", ".join(self.branches[:3]) + (f" and {len(self.branches) - 3} more" if len(self.branches) > 3 else "")
        return f"from {shown}, not merged"


@dataclass(frozen=True)
class Containing:
    """The branches whose history holds a commit: HEAD's branch, other local ones, then remote-tracking ones
    (`origin/x`), by name.
    `complete` is False when the walk stopped at its bound: the list may then miss some."""

    branches: tuple[str, ...]
    complete: bool = True

    def phrase(self, limit: int = MAX_NAMED) -> str:
        """The first `limit` names, then "and N more"; "no branch" when none does."""
        if not self.branches:
            return "no branch" + ("" if self.complete else " found (stopped looking)")
        shown = ", ".join(self.branches[:limit])
        rest = len(self.branches) - limit
        more = f" and {rest} more" if rest > 0 else ""
        return shown + more + ("" if self.complete else " (and maybe more: stopped looking)")


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
        self._merge_check: MergeCheck | None = None

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

    def _current_branch(self) -> str | None:
        try:
            return None if self._repo.head_is_detached or self._repo.head_is_unborn else self._repo.head.shorthand
        except pygit2.GitError:
            return None

    def containing(self, commits: list[str] | tuple[str, ...] | set[str], *,
                   max_walk: int = MAX_CONTAINS_WALK) -> Containing:
        """The branches that hold any of `commits` (a memory's commit and its aliases): from every branch tip,
        one memoised walk down to the commits, never below the oldest of them (less `CLOCK_SLOP`), reading at
        most `max_walk` commits."""
        targets: set[pygit2.Oid] = set()
        for sha in commits:
            try:
                oid = pygit2.Oid(hex=sha)
                self._repo[oid]
            except (ValueError, KeyError):
                continue
            targets.add(oid)
        if not targets:
            return Containing(())
        cutoff = min(self._repo[oid].commit_time for oid in targets) - CLOCK_SLOP
        reaches: dict[pygit2.Oid, bool] = {oid: True for oid in targets}
        budget = max_walk
        found: list[str] = []
        complete = True
        current = self._current_branch()
        for name, tip in sorted(self._branches().items(), key=lambda item: (item[0] != current,
                                                                           item[0].startswith("remotes/"),
                                                                           item[0])):
            stack = [tip]
            while stack and budget > 0:
                oid = stack[-1]
                if oid in reaches:
                    stack.pop()
                    continue
                try:
                    commit = self._repo[oid]
                    parents = commit.parent_ids if commit.commit_time >= cutoff else []
                except (KeyError, ValueError, AttributeError):
                    parents = []
                waiting = [p for p in parents if p not in reaches]
                if waiting:
                    budget -= 1
                    stack.extend(waiting)
                    continue
                reaches[oid] = any(reaches[p] for p in parents)
                stack.pop()
            if stack:
                complete = False
                break
            if reaches[tip]:
                found.append(name.removeprefix("remotes/"))
        return Containing(tuple(found), complete)

    def orphaned(self, commit: str) -> bool:
        """`placement(commit).orphaned`, without merge detection for a commit HEAD or a branch holds."""
        if self.on_head(commit) or self._unmerged_commits().get(commit):
            return False
        return self.placement(commit).orphaned

    def placement(self, commit: str) -> Placement:
        """Where `commit` stands (see Placement); ancestry first, merge detection only for what it leaves out."""
        if self.on_head(commit):
            return Placement(on_head=True)
        branches = self._unmerged_commits().get(commit, [])
        local = sorted(b for b in branches if not b.startswith("remotes/"))
        remote = sorted(b.removeprefix("remotes/") for b in branches if b.startswith("remotes/"))
        if self._merge_check is None:
            self._merge_check = MergeCheck(self._repo, self._head)
        merged = self._merge_check.merged(commit)
        if merged == "unknown":
            return Placement(on_head=False, branches=tuple(local + remote), known=False)
        return Placement(on_head=False, branches=tuple(local + remote), merged=merged)
