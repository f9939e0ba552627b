"""The review queue: memories proposed from sessions, waiting on this machine for a person's decision.

One JSON file, `<git common dir>/memactors/review/queue.json`, written to a
temporary name and renamed, every change under an exclusive `flock` (the
daemon and a `memactors review` may write at once). It holds the pending
candidates (at most MAX_PENDING, each for EXPIRY_DAYS; when full, the oldest
of the least confident goes first), the blocked ones (listed for the user,
never approvable, at most MAX_BLOCKED), and the content hashes of rejected
and approved candidates, so neither is proposed again. Nothing here is
shared: the queue never enters a notes ref.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from memactors.adapters.claude.review_reminder import EXPIRY_SECONDS
from memactors.events.candidate import Candidate

MAX_PENDING = 100
MAX_BLOCKED = 100
MAX_DECIDED = 5000
EXPIRY_DAYS = EXPIRY_SECONDS / 86400
QUEUE_FILE = "queue.json"
T = TypeVar("T")


@dataclass
class QueueState:
    """What the file holds; `decided` maps a content hash to "approved" or "rejected"."""

    pending: list[Candidate] = field(default_factory=list)
    blocked: list[Candidate] = field(default_factory=list)
    decided: dict[str, str] = field(default_factory=dict)

    def known(self, content_hash: str) -> str | None:
        """Why a candidate with this hash is not proposed again: pending, blocked, approved, rejected."""
        if content_hash in self.decided:
            return self.decided[content_hash]
        if any(c.content_hash == content_hash for c in self.pending):
            return "pending"
        if any(c.content_hash == content_hash for c in self.blocked):
            return "blocked"
        return None


def _candidates(raw: object) -> list[Candidate]:
    out: list[Candidate] = []
    for item in raw if isinstance(raw, list) else []:
        with contextlib.suppress(ValidationError, TypeError):
            out.append(Candidate.model_validate(item))
    return out


class ReviewQueue:
    """Read with `load`; change with `update(fn)`, which holds the lock from read to write."""

    def __init__(self, common_dir: Path) -> None:
        self.directory = common_dir / "memactors" / "review"
        self.path = self.directory / QUEUE_FILE

    def load(self, now: datetime | None = None) -> QueueState:
        state = self._read()
        return self._pruned(state, now) if now is not None else state

    def update(self, change: Callable[[QueueState], T], now: datetime) -> T:
        """Apply `change` to the current state (expired and surplus candidates dropped first) and save it."""
        with self._locked():
            state = self._pruned(self._read(), now)
            result = change(state)
            self._write(self._pruned(state, now))
            return result

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / ".lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _read(self) -> QueueState:
        try:
            doc = json.loads(self.path.read_text())
        except FileNotFoundError:
            return QueueState()
        except (OSError, ValueError):
            return QueueState()  # unreadable: start afresh rather than fail a session (the file is ours alone)
        if not isinstance(doc, dict):
            return QueueState()
        decided = doc.get("decided")
        return QueueState(pending=_candidates(doc.get("pending")), blocked=_candidates(doc.get("blocked")),
                          decided={str(k): str(v) for k, v in decided.items()} if isinstance(decided, dict) else {})

    def _write(self, state: QueueState) -> None:
        doc = {"schema_version": 1,
               "pending": [c.model_dump(mode="json") for c in state.pending],
               "blocked": [c.model_dump(mode="json") for c in state.blocked],
               "decided": state.decided}
        tmp = self.path.with_name(f".{QUEUE_FILE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc, ensure_ascii=False))
        os.replace(tmp, self.path)

    @staticmethod
    def _pruned(state: QueueState, now: datetime) -> QueueState:
        cutoff = now - timedelta(days=EXPIRY_DAYS)
        pending = [c for c in state.pending if c.proposed_at >= cutoff]
        if len(pending) > MAX_PENDING:
            # the oldest of the least confident go first
            keep = sorted(pending, key=lambda c: (c.confidence, c.proposed_at), reverse=True)[:MAX_PENDING]
            kept = {c.id for c in keep}
            pending = [c for c in pending if c.id in kept]
        blocked = [c for c in state.blocked if c.proposed_at >= cutoff][-MAX_BLOCKED:]
        decided = dict(list(state.decided.items())[-MAX_DECIDED:])
        return QueueState(pending=pending, blocked=blocked, decided=decided)
