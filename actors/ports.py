"""The small protocols actors use to reach the world; adapters implement them."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from memactors.events.edge import Edge
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.quality import ContentTraits
from memactors.events.read_model import ReadModel
from memactors.events.report import RunReport
from memactors.events.state import StateSnapshot
from memactors.events.summary import Summary

T = TypeVar("T", bound=BaseModel)


@dataclass
class ScanOutcome:
    """Every memory in scope (one per stable key) and what could not be read.

    `unreadable_refs` holds memory refs skipped whole (ref -> one line saying why and what to do);
    `skipped_notes` where unreadable entries sit: (ref, commit, reason, how many), copies not counted.
    """

    memories: list[Memory]
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: Counter[str] = field(default_factory=Counter)
    tips: dict[str, str] = field(default_factory=dict)
    unreadable_refs: dict[str, str] = field(default_factory=dict)
    skipped_notes: list[tuple[str, str, str, int]] = field(default_factory=list)


@dataclass(frozen=True)
class StateChange:
    """What one run writes: whole notes by commit for each state ref, and its run record.

    An empty tuple removes that commit's note; a ref with no notes to
    change keeps its commit.
    """

    meta_by_commit: dict[str, tuple[MemoryMeta, ...]]
    report: RunReport
    run_commit: str
    summaries_by_commit: dict[str, tuple[Summary, ...]] = field(default_factory=dict)
    edges_by_commit: dict[str, tuple[Edge, ...]] = field(default_factory=dict)


class StateConflict(Exception):
    """The state refs moved since they were read; nothing was written."""


class ContentReader(Protocol):
    """What each memory's content says (events/quality.py), by memory key. Blocking, CPU-bound on a miss."""

    def traits(self, memories: Sequence[Memory]) -> dict[str, ContentTraits]: ...


class CommitFileReader(Protocol):
    """The files each commit changed, and the files at HEAD (git, read in a worker thread)."""

    def changed(self, commits: Iterable[str]) -> Mapping[str, Sequence[str]]: ...

    def head_files(self) -> Sequence[str]: ...

    def save(self) -> None: ...


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

    def judge_rules(self) -> int:
        """The offline judge rules the newest persisted run recorded; 0 when none did or it cannot be read."""
        ...

    def abandoned(self, memories: list[Memory]) -> set[str]:
        """The keys of `memories` whose every commit sits only on a branch deleted without merging."""
        ...


class ActivationSource(Protocol):
    """Uses of memories recorded by recall since the last completed run. Blocking: call from a worker thread."""

    def read(self) -> dict[str, tuple[datetime, ...]]:
        """Use times by memory key."""
        ...


class ReadModelSink(Protocol):
    """Keeps what recall and context read. Blocking: call from a worker thread."""

    def write(self, model: ReadModel) -> None:
        """Store `model` (replacing the previous one); raises OSError when it cannot."""
        ...


class StateSink(Protocol):
    """Writes a run's state atomically. Blocking: call from a worker thread."""

    def commit(self, change: StateChange, expected_tips: dict[str, str | None]) -> list[str]:
        """Write `change` if our refs still hold `expected_tips`; return refs updated.

        Raises StateConflict (nothing written) when a ref moved.
        """
        ...


class Clock(Protocol):
    def now(self) -> datetime: ...


# --- semantic consolidation ------------------------------------------------------------


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors. Blocking: call from a worker thread."""

    model_id: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """A (len(texts), dimensions) array; row i is the unit vector of texts[i]."""
        ...


class InvalidAnswer(Exception):
    """The model answered, but not with JSON matching the schema. `raw` is what it said;
    `requests` how many requests this question sent (failed attempts before the answer included);
    tokens and cost what the unusable answer still cost, where the provider reports it."""

    def __init__(self, message: str, raw: str = "", *, requests: int = 1, tokens_in: int = 0,
                 tokens_out: int = 0, cost_usd: float = 0.0) -> None:
        super().__init__(message)
        self.raw = raw
        self.requests = requests
        self.tokens_in = tokens_in
        self.tokens_out = tokens_out
        self.cost_usd = cost_usd


class LLMUnavailable(Exception):
    """No provider could answer (down, rate-limited past retries, timed out, circuit open, capped).
    `requests` is how many requests this question sent before giving up (0 when refused up front)."""

    def __init__(self, message: str, *, requests: int = 0) -> None:
        super().__init__(message)
        self.requests = requests


@dataclass(frozen=True)
class Completion(Generic[T]):
    """A validated structured answer and what it cost."""

    value: T
    provider: str
    model: str
    tokens_in: int
    tokens_out: int
    cost_usd: float = 0.0
    requests: int = 1  # requests sent for it, failed attempts included; 0 for an answer replayed from disk


class StructuredLLM(Protocol):
    """An LLM that answers with JSON validated against a pydantic model. Async (trio)."""

    provider: str
    model: str

    async def complete(self, system: str, user: str, schema: type[T], *,
                       deadline: float | None = None) -> Completion[T]:
        """Ask once (transport retries inside). Raises InvalidAnswer or LLMUnavailable.

        Past `deadline` (trio time) nothing is sent and a request in flight is abandoned:
        LLMUnavailable, counting the requests sent.
        """
        ...

    async def aclose(self) -> None: ...


class ChangeFeed(Protocol):
    """Yields once per batch of changes to the memory refs (debouncing is the adapter's)."""

    def changes(self) -> AsyncIterator[int]: ...


#: Inbox kinds whose sender waits for the run's report (`HookInbox.answer`).
REQUEST_KINDS = ("consolidate",)


class HookInbox(Protocol):
    """The durable hook inbox. Blocking: call from a worker thread.

    `pending` lists events (with `path`, `kind`, `payload`) and files moved aside as corrupt;
    `answer` leaves a completed run's report for the sender of a request before `ack_paths` removes it.
    """

    def pending(self) -> tuple[list[Any], list[Any]]: ...

    def answer(self, event_path: str, document: dict[str, Any]) -> None: ...

    def ack_paths(self, paths: Sequence[str]) -> None: ...


class MemoryCounter(Protocol):
    """How many memories the store holds now. Blocking: call from a worker thread."""

    def count(self) -> int: ...


class RunGate(Protocol):
    """The right to run, shared with other processes (a one-shot `consolidate`, `sync`, `doctor --repair`).

    `acquire` waits, cancellably, until this process holds it (a no-op while it already does);
    `release` gives it back (a no-op when not held). Held only for the length of one run.
    """

    async def acquire(self) -> None: ...

    def release(self) -> None: ...
