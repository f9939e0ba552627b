"""Changes to the memory refs, seen through watchfiles (loose refs and packed-refs)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path


class NotesFeed:
    """`changes()` yields the size of each debounced batch of changes under `<base>/`.

    Only memory refs count: our own state refs (`refs/notes/mem-*`) and
    object writes never trigger. Watches git's common dir, where refs live
    for every worktree.
    """

    def __init__(self, common_dir: Path, notes_base: str = "refs/notes/mem", *, debounce_ms: int = 400) -> None:
        self.common_dir = common_dir
        self.refs_dir = common_dir / notes_base
        self.packed = common_dir / "packed-refs"
        self.debounce_ms = debounce_ms

    def _relevant(self, _change: object, path: str) -> bool:
        return path.startswith(str(self.refs_dir) + "/") or path == str(self.packed)

    async def changes(self) -> AsyncIterator[int]:
        from watchfiles import awatch

        self.refs_dir.mkdir(parents=True, exist_ok=True)
        async for batch in awatch(self.common_dir, watch_filter=self._relevant, debounce=self.debounce_ms,
                                  step=50, recursive=True):
            yield len(batch)
