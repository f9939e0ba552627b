"""Small shared checks and phrasings of the operations. Standard library only (hooks import the CLI's common)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memactors.adapters.operations.errors import UsageError

#: What one memory may hold: a summary of one line, a body of at most 100 KB.
MAX_SUMMARY_CHARS = 100
MAX_CONTENT_BYTES = 100 * 1024


def counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "none"


def check_namespaces(given: Sequence[str] | None, present: Iterable[str]) -> None:
    """A UsageError naming the valid namespaces when one of `given` is neither a known one nor in the store."""
    from memactors.events.memory import KNOWN_NAMESPACES

    valid = list(KNOWN_NAMESPACES) + sorted(set(present) - set(KNOWN_NAMESPACES))
    unknown = [ns for ns in given or () if ns not in valid]
    if unknown:
        raise UsageError(f"unknown namespace {unknown[0]!r}; use one of: {', '.join(valid)}")
