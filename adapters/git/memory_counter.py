"""Count memories with a repository handle of its own (pygit2 objects stay in one thread)."""

from __future__ import annotations

from pathlib import Path

from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import GitStore


class StoreCounter:
    """`count()` scans through the parse cache (cheap when warm) without saving it."""

    def __init__(self, repo: Path, notes_base: str) -> None:
        self._repo = repo
        self._notes_base = notes_base

    def count(self) -> int:
        store = MemoryStore(GitStore(self._repo, notes_base=self._notes_base))
        return len(store.scan(None, remember=False).memories)
