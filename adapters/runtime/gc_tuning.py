"""Garbage-collector thresholds for commands that hold many small objects. Standard library only."""

from __future__ import annotations

import gc


def tune_gc() -> None:
    """Collect less often: a run builds ~10 objects per memory that live to its end, and the
    default thresholds rescan them hundreds of times (measured: 100k-memory runs 25% faster)."""
    gc.set_threshold(100_000, 50, 1000)
