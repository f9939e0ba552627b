"""Changes to the memory refs, seen through watchfiles (loose refs and packed-refs)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path


class NotesFeed:
    """`changes()` yields the size of each debounced batch of changes under `<base>/`.

    Only memory refs count: our own state refs (`refs/notes/mem-*`) and
    object writes never trigger. Watches git's common dir, where refs live
    for every worktree. A directory on the way to `<base>` appearing or
    vanishing counts too: git creates `refs/notes/mem/` to write a ref into
    it faster than a recursive watch reaches the new directory (first
    capture, or after `git pack-refs` removed it), and the common dir itself
    vanishing means the repository went away. Creates nothing: a deleted
    repository is never half-recreated by its watcher.
    """

    #: watchfiles waits for changes in a worker thread that a cancellation cannot interrupt; returning
    #: empty-handed this often (ms) bounds how long stopping the daemon waits for it (default: 5 s).
    WAKE_MS = 500

    def __init__(self, common_dir: Path, notes_base: str = "refs/notes/mem", *, debounce_ms: int = 400) -> None:
        self.common_dir = common_dir
        self.refs_dir = common_dir / notes_base
        self.packed = common_dir / "packed-refs"
        self.debounce_ms = debounce_ms
        self._ancestors = {str(self.refs_dir), *(str(p) for p in self.refs_dir.parents
                                                 if p == common_dir or common_dir in p.parents)}

    def _relevant(self, _change: object, path: str) -> bool:
        return path.startswith(str(self.refs_dir) + "/") or path == str(self.packed) or path in self._ancestors

    async def changes(self) -> AsyncIterator[int]:
        from watchfiles import awatch

        async for batch in awatch(self.common_dir, watch_filter=self._relevant, debounce=self.debounce_ms,
                                  step=50, recursive=True, rust_timeout=self.WAKE_MS):
            yield len(batch)
