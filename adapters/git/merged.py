"""Whether a commit outside HEAD's history was merged all the same: rebased or cherry-picked (HEAD holds a
commit with the same patch id) or squash-merged (HEAD's files hold what it added).

Ancestry cannot see either: a rebase copies a commit, a squash merge folds a branch into one new commit, and
both leave the originals (and the memories hanging on them) outside HEAD's history. On the git-notes-memory
plugin's own store, the content test separates the two kinds cleanly: the commits of its squash-merged pull
request have 76-100% of their added lines in HEAD's files, the commits of branches never merged 0-25%.

Cost is bounded: patch ids of at most `MAX_PATCH_WALK` HEAD commits (only those committed after the commit
asked about, less `CLOCK_SLOP`), at most `MAX_FILES` files and `MAX_LINES` added lines a commit, HEAD blobs
of at most `MAX_BLOB_BYTES`, each read once. A commit's patch id never changes: they are kept in
`<git common dir>/memactors/patch-ids.json` (machine-local; missing or corrupt is empty), so a reader
(`recall`) diffs only the HEAD commits no earlier read did.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

import pygit2

#: HEAD commits whose patch ids are computed, newest first (a rebased copy is committed after its original).
MAX_PATCH_WALK = 2000
#: A copy is committed after its original; this much clock skew (seconds) is allowed, as in branches.py.
CLOCK_SLOP = 86_400
#: A commit counts as merged by content when at least this share of its added lines is in HEAD's version of
#: the same files (the plugin store: squash-merged commits 0.76-1.0, unmerged ones 0-0.25).
MERGED_SHARE = 0.6
#: Fewer readable added lines than this (after trivial ones are dropped) are no evidence either way.
MIN_LINES = 3
#: A line shorter than this once stripped, or without a letter or digit, is trivial ("}", "else:", "").
MIN_LINE_CHARS = 6
#: At most this many files and MAX_READ added lines of one commit are read, MAX_LINES of them (evenly spread)
#: compared; HEAD blobs larger than MAX_BLOB_BYTES are skipped.
MAX_FILES = 200
MAX_READ = 50_000
MAX_LINES = 2000
MAX_BLOB_BYTES = 1_000_000
#: The patch-id cache keeps at most this many commits (those read last).
MAX_CACHED = 20_000
PATCH_CACHE = "patch-ids.json"

Merged = Literal["rebase", "squash", "no", "unknown"]


def _significant(line: str) -> str | None:
    text = line.strip()
    return text if len(text) >= MIN_LINE_CHARS and any(ch.isalnum() for ch in text) else None


class MergeCheck:
    """Merge detection beyond ancestry against one HEAD (build one per read; results are memoised)."""

    def __init__(self, repo: pygit2.Repository, head: pygit2.Oid | None) -> None:
        self._repo = repo
        self._head = head
        self._cache_path = _cache_path(repo)
        self._cached: dict[str, str] | None = None  # commit -> patch id ("" for none: a merge, empty, unreadable)
        self._cache_dirty = False
        self._tree = None
        self._patch_ids: dict[str, str] = {}  # patch id -> HEAD commit
        self._walker = None
        self._walked = 0
        self._oldest_walked: int | None = None
        self._head_lines: dict[str, set[str] | bool] = {}
        self._memo: dict[str, Merged] = {}

    def merged(self, commit: str) -> Merged:
        """"rebase" (a HEAD commit has its patch id), "squash" (HEAD's files hold most of what it added),
        "no", or "unknown" (the commit or its objects are not in this clone)."""
        if commit not in self._memo:
            self._memo[commit] = self._judge(commit)
        return self._memo[commit]

    def _judge(self, sha: str) -> Merged:
        if self._head is None:
            return "no"
        try:
            commit = self._repo[pygit2.Oid(hex=sha)]
            diff = self._diff(commit)
            patch_id = str(diff.patchid) if len(diff) else ""
        except (ValueError, KeyError, pygit2.GitError):
            return "unknown"
        if patch_id and self._has_patch(patch_id, commit.commit_time):  # an empty commit matches nothing
            return "rebase"
        share = self._share_in_head(diff)
        if share is None:
            return "no"  # too little to compare: ancestry's answer stands
        if share < 0:
            return "unknown"
        return "squash" if share >= MERGED_SHARE else "no"

    def _diff(self, commit: pygit2.Commit) -> pygit2.Diff:
        if commit.parents:
            return self._repo.diff(commit.parents[0], commit)
        return commit.tree.diff_to_tree(swap=True)

    def _has_patch(self, patch_id: str, since: int) -> bool:
        """Whether a HEAD commit committed after `since` (less CLOCK_SLOP) has `patch_id`: HEAD's history is
        read newest first, once, as far as the oldest commit asked about needs, at most MAX_PATCH_WALK."""
        if patch_id in self._patch_ids:
            return True
        cutoff = since - CLOCK_SLOP
        if self._walker is None:
            self._walker = self._repo.walk(self._head, pygit2.enums.SortMode.TIME)
        while self._walked < MAX_PATCH_WALK and (self._oldest_walked is None or self._oldest_walked >= cutoff):
            try:
                head_commit = next(self._walker)
            except StopIteration:
                self._walked = MAX_PATCH_WALK
                break
            self._walked += 1
            self._oldest_walked = head_commit.commit_time
            found = self._patch_of(head_commit)
            if not found:
                continue
            self._patch_ids.setdefault(found, str(head_commit.id))
            if found == patch_id:
                self._save()
                return True
        self._save()
        return False

    def _patch_of(self, commit: pygit2.Commit) -> str:
        """A HEAD commit's patch id from the cache, else computed (and cached); "" for a merge commit (its own
        changes are its branch's commits), an empty one, or one whose blobs this clone lacks."""
        if self._cached is None:
            self._cached = _load(self._cache_path)
        sha = str(commit.id)
        found = self._cached.get(sha)
        if found is None:
            found = ""
            if len(commit.parents) <= 1:
                try:
                    diff = self._diff(commit)
                    found = str(diff.patchid) if len(diff) else ""
                except (KeyError, pygit2.GitError):
                    found = ""
            self._cached[sha] = found
            self._cache_dirty = True
        return found

    def _save(self) -> None:
        """Keep what was computed (at most MAX_CACHED commits, the last read); a failure costs only speed."""
        if not self._cache_dirty or self._cache_path is None or self._cached is None:
            return
        self._cache_dirty = False
        kept = dict(list(self._cached.items())[-MAX_CACHED:])
        tmp = self._cache_path.with_name(f".{PATCH_CACHE}.tmp{os.getpid()}")
        try:
            tmp.write_text(json.dumps({"version": 1, "patch_ids": kept}, separators=(",", ":")))
            os.replace(tmp, self._cache_path)
        except OSError:
            tmp.unlink(missing_ok=True)

    def _lines_at_head(self, path: str) -> set[str] | bool:
        """The significant lines of HEAD's version of `path` (empty when HEAD lacks it); False when it is too
        large or binary to compare, True when this clone lacks its blob."""
        if path not in self._head_lines:
            try:
                if self._tree is None:
                    self._tree = self._repo[self._head].tree
                entry = self._tree[path]
                blob = self._repo[entry.id]
                if not isinstance(blob, pygit2.Blob) or blob.size > MAX_BLOB_BYTES or blob.is_binary:
                    self._head_lines[path] = False
                else:
                    lines = (_significant(line) for line in blob.data.decode("utf-8", "replace").splitlines())
                    self._head_lines[path] = {line for line in lines if line}
            except KeyError:
                self._head_lines[path] = set()
            except pygit2.GitError:
                self._head_lines[path] = True
        return self._head_lines[path]

    def _share_in_head(self, diff: pygit2.Diff) -> float | None:
        """Share of the diff's significant added lines found in HEAD's version of their file (at most
        MAX_LINES of them, spread evenly over the diff: the first files alone can be all docs); None when
        fewer than MIN_LINES could be compared, -1 when the objects to compare are missing from this clone."""
        added: list[tuple[str, str]] = []
        missing = False
        try:
            for number, patch in enumerate(diff):
                if number >= MAX_FILES or len(added) >= MAX_READ:
                    break
                if patch is None or patch.delta.is_binary:
                    continue
                path = patch.delta.new_file.path
                lines = dict.fromkeys(_significant(diff_line.content) for hunk in patch.hunks
                                      for diff_line in hunk.lines if diff_line.origin == "+")
                added += [(path, line) for line in lines if line]
        except (KeyError, pygit2.GitError):
            missing = True
        step = max(1.0, len(added) / MAX_LINES)
        held = counted = 0
        for path, line in (added[int(i * step)] for i in range(min(len(added), MAX_LINES))):
            at_head = self._lines_at_head(path)
            if isinstance(at_head, bool):
                missing |= at_head
                continue
            counted += 1
            held += line in at_head
        if counted < MIN_LINES:
            return -1.0 if missing else None
        return held / counted

def _cache_path(repo: pygit2.Repository) -> Path | None:
    """`<git common dir>/memactors/patch-ids.json` when memactors keeps its files there, else None (no cache)."""
    try:
        git_dir = Path(repo.path)
        common = git_dir / (git_dir / "commondir").read_text().strip() if (git_dir / "commondir").exists() else git_dir
        folder = common.resolve() / "memactors"
    except (OSError, ValueError):
        return None
    return folder / PATCH_CACHE if folder.is_dir() else None


def _load(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
        found = data["patch_ids"] if data.get("version") == 1 else {}
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
