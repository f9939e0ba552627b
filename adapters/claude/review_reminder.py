"""How many proposed memories wait for review, and how to say so. Standard library only (the SessionStart hook
reads it); the queue itself (review_queue.py) keeps its expiry from here."""

from __future__ import annotations

import json
import os
from datetime import datetime

#: A proposed memory waits this long for review, then expires.
EXPIRY_SECONDS = 7 * 24 * 3600.0
QUEUE_PATH = ("memactors", "review", "queue.json")


def waiting_count(common_dir: str | os.PathLike[str], now: float) -> int:
    """Proposals in the queue not yet expired at `now` (POSIX seconds); 0 when there is no readable queue."""
    try:
        with open(os.path.join(os.fspath(common_dir), *QUEUE_PATH), encoding="utf-8") as handle:
            doc = json.load(handle)
        cutoff = now - EXPIRY_SECONDS
        return sum(1 for c in doc.get("pending", []) if isinstance(c, dict) and _epoch(c.get("proposed_at")) >= cutoff)
    except (OSError, ValueError, AttributeError, TypeError):
        return 0


def waiting_phrase(count: int) -> str:
    """'3 proposed memories wait for review' (one line, no advice)."""
    return f"{count} proposed {'memory waits' if count == 1 else 'memories wait'} for review"


def _epoch(stamp: object) -> float:
    try:
        return datetime.fromisoformat(str(stamp)).timestamp()
    except ValueError:
        return 0.0
