"""The small protocols actors use to reach the world; adapters implement them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.report import RunReport
from memactors.events.state import StateSnapshot


@dataclass
class ScanOutcome:
    """Every memory in scope (one per stable key) and what could not be read."""

    memories: list[Memory]
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class StateChange:
    """What one run writes: whole metadata notes by commit, and its run record."""

    meta_by_commit: dict[str, tuple[MemoryMeta, ...]]
    report: RunReport
    run_commit: str


class StateConflict(Exception):
    """The state refs moved since they were read; nothing was written."""


class MemorySource(Protocol):
    """Reads memories and our prior state. Blocking: call from a worker thread."""

    def scan(
        self, namespaces: tuple[str, ...] | None, *, remember: bool = True, reparse: bool = False
    ) -> ScanOutcome:
        """Memories in `namespaces` (all when None).

        `remember` keeps local parse caches for the next scan; `reparse`
        ignores them and reads every note afresh.
        """
        ...

    def load_state(self) -> StateSnapshot: ...

    def head(self) -> str | None: ...


class StateSink(Protocol):
    """Writes a run's state atomically. Blocking: call from a worker thread."""

    def commit(self, change: StateChange, expected_tips: dict[str, str | None]) -> list[str]:
        """Write `change` if our refs still hold `expected_tips`; return refs updated.

        Raises StateConflict (nothing written) when a ref moved.
        """
        ...


class Clock(Protocol):
    def now(self) -> datetime: ...
