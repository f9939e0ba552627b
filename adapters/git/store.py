"""The git repository, through pygit2: notes trees read and written directly.

All writes build trees and commits in the object database and then move
refs in one pygit2 reference transaction with compare-and-swap: every ref
ends at its old or its new commit, never in between. Not thread-safe: use
one instance from one thread at a time.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pygit2

NOTES_BASE = "refs/notes/mem"
FALLBACK_NAME = "memactors"
FALLBACK_EMAIL = "memactors@localhost"
_HEX40 = re.compile(r"[0-9a-f]{40}")


class StoreError(Exception):
    """The repository cannot be used as asked; the message says why in one line.

    `needs_user` marks the failures no retry fixes (a run that meets one says so and stops).
    """

    needs_user = False


class NotARepository(StoreError):
    """The path is not inside a git repository."""


class RefsMoved(StoreError):
    """A ref changed between read and write (another writer won the race)."""


class NotWritable(StoreError):
    """Something memactors must write (objects, refs, its own files) is read-only or not ours."""

    needs_user = True


class RefLocked(StoreError):
    """Another process held a ref's lock for longer than we wait; nothing was written."""


#: How long a write waits, in total, for another process to release a ref's lock (MEMACTORS_LOCK_WAIT_SECONDS).
LOCK_WAIT_SECONDS = 10.0


def _why_not_writable(place: Path) -> str:
    try:
        probe = os.statvfs(place)
    except OSError:
        return "permission denied"
    return "read-only file system" if probe.f_flag & os.ST_RDONLY else "permission denied"


def _is_hex40(name: str) -> bool:
    return _HEX40.fullmatch(name) is not None


class GitStore:
    """A git repository seen as notes refs of memories and our state refs."""

    def __init__(self, path: str | os.PathLike[str], *, notes_base: str = NOTES_BASE,
                 lock_wait_seconds: float = LOCK_WAIT_SECONDS) -> None:
        path = Path(path)
        if not path.exists():
            raise NotARepository(f"{path} does not exist")
        found = pygit2.discover_repository(str(path))
        if found is None:
            raise NotARepository(f"{path} is not inside a git repository (run `git init` first?)")
        try:
            self.repo = pygit2.Repository(found)
        except pygit2.GitError as exc:
            raise StoreError(f"cannot open the repository at {found}: {exc}") from None
        self.notes_base = notes_base.rstrip("/")
        self.lock_wait_seconds = lock_wait_seconds

    # --- locations ---------------------------------------------------------------

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.path)

    @property
    def common_dir(self) -> Path:
        """git's common dir: shared by every worktree (`.git` may be a file in a worktree)."""
        marker = self.git_dir / "commondir"
        if marker.is_file():
            return (self.git_dir / marker.read_text().strip()).resolve()
        return self.git_dir

    def check_writable(self) -> None:
        """Raise NotWritable naming the first place a run or capture writes to that it cannot.

        Checked up front so a read-only mount or a teammate's permissions cost one line, not a
        half-done run: objects and refs (shared by worktrees), and our folder under the common dir.
        """
        ours = self.common_dir / "memactors"
        for place in (self.common_dir / "objects", self.common_dir / "refs", ours if ours.exists() else self.common_dir):
            if place.exists() and not os.access(place, os.W_OK | os.X_OK):
                raise NotWritable(f"cannot write to {place}: {_why_not_writable(place)}")

    @property
    def description(self) -> str:
        return self.repo.workdir or self.repo.path

    # --- refs --------------------------------------------------------------------

    def tip(self, ref: str) -> str | None:
        """The commit `ref` points at, or None when it does not exist."""
        try:
            reference = self.repo.references.get(ref)
        except (pygit2.GitError, ValueError) as exc:
            raise StoreError(f"cannot read {ref}: {exc}") from None
        if reference is None:
            return None
        try:
            return str(reference.resolve().target)
        except (pygit2.GitError, KeyError) as exc:
            raise StoreError(f"cannot read {ref}: {exc}") from None

    def last_commit_in_reflog(self, ref: str) -> str | None:
        """The newest commit `ref` pointed at according to its reflog, other than where it is now."""
        try:
            reference = self.repo.references[ref]
            now = str(reference.target)
            for entry in reference.log():
                for oid in (entry.oid_new, entry.oid_old):
                    candidate = str(oid)
                    if candidate != now and isinstance(self.repo.get(candidate), pygit2.Commit):
                        return candidate
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return None

    def head(self) -> str | None:
        """The commit HEAD points at, or None (unborn HEAD, e.g. a fresh bare repository)."""
        if self.repo.head_is_unborn:
            return None
        try:
            return str(self.repo.head.target)
        except pygit2.GitError:
            return None

    def commit_time(self, commit: str) -> int | None:
        """The committer time of `commit`, or None when it is not in the object database."""
        try:
            return self.repo[commit].commit_time
        except (KeyError, ValueError, AttributeError, pygit2.GitError):
            return None

    def memory_refs(self) -> dict[str, str]:
        """namespace -> ref for every notes ref under the base (with its slash)."""
        prefix = self.notes_base + "/"
        try:
            names = self.repo.references
            return {name[len(prefix) :]: name for name in names if name.startswith(prefix)}
        except pygit2.GitError as exc:
            raise StoreError(f"cannot list references: {exc}") from None

    # --- notes trees ---------------------------------------------------------------

    def _tree_of(self, commit_hex: str) -> pygit2.Tree:
        """The tree of a notes commit; a ref at a blob or a bare tree is not one (git itself refuses those)."""
        try:
            found = self.repo[commit_hex]
            if isinstance(found, pygit2.Tag):
                found = found.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise StoreError(f"notes commit {commit_hex[:12]} is unreadable: {exc}") from None
        if not isinstance(found, pygit2.Commit):
            raise StoreError(f"{commit_hex[:12]} is a {found.type_str}, not a notes commit")
        return found.tree

    def blob_size(self, blob_hex: str) -> int:
        """The size of a blob, read from its header only."""
        try:
            return self.repo.odb.read_header(pygit2.Oid(hex=blob_hex))[1]
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise StoreError(f"note blob {blob_hex[:12]} is unreadable: {exc}") from None

    def notes(self, ref: str) -> list[tuple[str, str]]:
        """(annotated commit, note blob) for every note of `ref`, any fanout."""
        tip = self.tip(ref)
        if tip is None:
            return []
        return list(self._walk(self._tree_of(tip), ""))

    def notes_at(self, notes_commit: str) -> list[tuple[str, str]]:
        """(annotated commit, note blob) for every note of a notes commit (any, not only a tip)."""
        return list(self._walk(self._tree_of(notes_commit), ""))

    def note_blob_at(self, notes_commit: str, commit_hex: str) -> str | None:
        """The blob of the note on `commit_hex` in notes commit `notes_commit`, or None."""
        tree = self._tree_of(notes_commit)
        path = self.note_path(tree, commit_hex)
        return None if path is None else str(tree[path].id)

    def _walk(self, tree: pygit2.Tree, prefix: str) -> Iterator[tuple[str, str]]:
        for entry in tree:
            name = prefix + entry.name
            if entry.type_str == "tree":
                if len(name) < 40:
                    yield from self._walk(self.repo[entry.id], name)
            elif entry.type_str == "blob" and _is_hex40(name):
                yield name, str(entry.id)

    def read_blob(self, blob_hex: str) -> bytes:
        try:
            return self.repo.odb.read(pygit2.Oid(hex=blob_hex))[1]
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise StoreError(f"note blob {blob_hex[:12]} is unreadable: {exc}") from None

    def note_path(self, tree: pygit2.Tree, commit_hex: str) -> str | None:
        """Where the note for `commit_hex` sits in a notes tree, whatever the fanout."""
        node: pygit2.Tree = tree
        path, consumed = "", 0
        while True:
            rest = commit_hex[consumed:]
            if rest in node:
                return path + rest
            head = rest[:2]
            if len(rest) > 2 and head in node and node[head].type_str == "tree":
                node = self.repo[node[head].id]
                path, consumed = f"{path}{head}/", consumed + 2
                continue
            return None

    def read_note(self, ref: str, commit_hex: str) -> bytes | None:
        tip = self.tip(ref)
        if tip is None:
            return None
        tree = self._tree_of(tip)
        path = self.note_path(tree, commit_hex)
        return None if path is None else self.read_blob(str(tree[path].id))

    def _signature(self) -> pygit2.Signature:
        try:
            return self.repo.default_signature
        except (KeyError, pygit2.GitError):
            return pygit2.Signature(FALLBACK_NAME, FALLBACK_EMAIL)

    def build_notes_commit(
        self,
        ref_tip: str | None,
        notes: Mapping[str, bytes | None],
        message: str,
        *,
        keep_layout: bool = False,
        extra_parents: Sequence[str] = (),
    ) -> str:
        """A commit whose tree is `ref_tip`'s notes tree with `notes` set (None removes).

        New notes go into a two-character fanout unless `keep_layout` asks to
        follow a flat tree. A note already present anywhere is replaced where
        it is, so no commit ever ends up with two notes. `extra_parents` follow
        `ref_tip` as parents (a merge keeps both histories). Returns the commit
        id; moves no ref.
        """
        base = self._tree_of(ref_tip) if ref_tip else None
        fanout = not keep_layout or (
            base is not None and any(e.type_str == "tree" and len(e.name) == 2 for e in base)
        )
        placed: dict[str, dict[str, bytes | None]] = defaultdict(dict)
        for commit_hex, data in notes.items():
            existing = self.note_path(base, commit_hex) if base is not None else None
            if existing is not None:
                directory, _, leaf = existing.rpartition("/")
            elif fanout:
                directory, leaf = commit_hex[:2], commit_hex[2:]
            else:
                directory, leaf = "", commit_hex
            placed[directory][leaf] = data
        tree_id = self._rewrite_tree(base, "", placed)
        parents = [pygit2.Oid(hex=ref_tip)] if ref_tip else []
        parents += [pygit2.Oid(hex=p) for p in extra_parents if p != ref_tip]
        signature = self._signature()
        return str(self.repo.create_commit(None, signature, signature, message, tree_id, parents))

    def _rewrite_tree(
        self, tree: pygit2.Tree | None, path: str, placed: Mapping[str, Mapping[str, bytes | None]]
    ) -> pygit2.Oid:
        builder = self.repo.TreeBuilder(tree) if tree is not None else self.repo.TreeBuilder()
        for leaf, data in placed.get(path, {}).items():
            if data is None:
                if builder.get(leaf) is not None:
                    builder.remove(leaf)
            else:
                builder.insert(leaf, self.repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB)
        prefix = f"{path}/" if path else ""
        children = {d[len(prefix) :].split("/")[0] for d in placed if d.startswith(prefix) and d != path}
        for child in sorted(children):
            sub_path = prefix + child
            existing = builder.get(child)
            subtree = self.repo[existing.id] if existing is not None and existing.type_str == "tree" else None
            sub_id = self._rewrite_tree(subtree, sub_path, placed)
            if len(self.repo[sub_id]) == 0:
                if existing is not None:
                    builder.remove(child)
            else:
                builder.insert(child, sub_id, pygit2.GIT_FILEMODE_TREE)
        return builder.write()

    def move_refs(self, updates: Mapping[str, str], expected: Mapping[str, str | None], message: str, *,
                  wait_seconds: float | None = None) -> None:
        """Point each ref at its new commit, all or none, if every ref of `expected` still holds its value.

        Refs in `expected` but not in `updates` are locked and checked too
        (what was written was computed from them). Raises RefsMoved, leaving
        every ref untouched, when one moved; RefLocked when another process held a ref's
        lock for `wait_seconds`.
        """
        checked = sorted(set(updates) | set(expected))
        wait_seconds = self.lock_wait_seconds if wait_seconds is None else wait_seconds
        waited, delay = 0.0, 0.005
        while True:
            try:
                with self.repo.transaction() as txn:
                    for ref in checked:
                        _lock(txn, ref)
                    for ref in checked:
                        if self.tip(ref) != expected.get(ref):
                            raise RefsMoved(f"{ref} moved while this run was working")
                    for ref in sorted(updates):
                        txn.set_target(ref, updates[ref], message=message)
                return
            except _Contended as contended:
                # git and other tools hold a ref's lock for milliseconds: wait, boundedly, then say who holds it
                if waited >= wait_seconds:
                    raise RefLocked(
                        f"{contended.ref} stayed locked by another process for {waited:.0f} s "
                        f"({self.git_dir / (contended.ref + '.lock')}); nothing was written: retry, or delete "
                        "that lock file if no git process is running") from None
                time.sleep(delay)
                waited += delay
                delay = min(delay * 2, 0.5)

    # --- config --------------------------------------------------------------------

    def ensure_rewrite_refs(self, refs: list[str]) -> None:
        """Add those of `refs` that exist to notes.rewriteRef so rebases and amends carry them.

        A ref not yet created is left for a later call: git warns "notes ref ... is
        invalid" on every amend and rebase while a configured ref is missing.
        """
        config = self.repo.config
        try:
            present = set(config.get_multivar("notes.rewriteRef"))
        except pygit2.GitError:
            present = set()
        for ref in refs:
            if ref not in present and self.tip(ref) is not None:
                config.set_multivar("notes.rewriteRef", "^" + ref.replace(".", r"\.") + "$", ref)

    # --- capture --------------------------------------------------------------------

    def append_memory_note(self, namespace: str, entry_bytes_for: "_Appender") -> str:
        """Append to the note of HEAD in `<base>/<namespace>`; returns the annotated commit.

        `entry_bytes_for(existing)` returns the whole new note from the old one.
        """
        head = self.head()
        if head is None:
            raise StoreError("the repository has no commit yet: memories hang on commits, commit once first")
        ref = f"{self.notes_base}/{namespace}"
        deadline = time.monotonic() + self.lock_wait_seconds
        delay = 0.005
        while True:
            tip = self.tip(ref)
            existing = self.read_note(ref, head) if tip else None
            commit = self.build_notes_commit(
                tip, {head: entry_bytes_for(existing)}, "Notes added by 'git notes append'\n", keep_layout=True
            )
            try:
                self.move_refs({ref: commit}, {ref: tip}, "notes: Notes added by 'git notes append'",
                               wait_seconds=max(0.0, deadline - time.monotonic()))
                return head
            except RefsMoved:  # another capture landed first: append to its note instead
                if time.monotonic() >= deadline:
                    raise RefLocked(f"{ref} kept moving under other writers for {self.lock_wait_seconds:.0f} s; "
                                    "nothing was written: retry") from None
                time.sleep(delay * (0.5 + random.random()))  # jitter: parallel writers stop colliding
                delay = min(delay * 2, 0.25)


class _Contended(Exception):
    def __init__(self, ref: str) -> None:
        super().__init__(ref)
        self.ref = ref


def _lock(txn: "pygit2.repository.ReferenceTransaction", ref: str) -> None:  # type: ignore[name-defined]
    try:
        txn.lock_ref(ref)
    except pygit2.GitError as exc:
        text = str(exc)
        if "Read-only" in text or "Permission denied" in text or "lock" not in text.lower():
            raise NotWritable(f"cannot lock {ref}: {text}") from None
        raise _Contended(ref) from None  # "File exists" / "failed to lock file": another writer holds it


class _Appender:  # typing aid only
    def __call__(self, existing: bytes | None) -> bytes: ...
