"""Writing one memory exactly as git-notes-memory does: appended to HEAD's note in `refs/notes/mem/<ns>`.

The one way anything of ours adds a memory (`memactors capture`, an approved
proposal): same front matter, layout and positional ID as upstream, and
refused before writing when the entry would not read back as that memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from memactors.adapters.git.note_format import (
    append_entry,
    read_back_problem,
    serialize_entry,
    upstream_next_index,
)
from memactors.adapters.system.clock import SystemClock


class CaptureRefused(ValueError):
    """The entry would not read back as one memory; nothing was written. The message says why."""


def prepare_entry(namespace: str, summary: str, content: str = "", *, tags: Sequence[str] = (),
                  relates_to: Sequence[str] = (), spec: str | None = None, phase: str | None = None,
                  now: datetime | None = None) -> str:
    """The entry git-notes-memory would append for this memory; raises CaptureRefused when it would not read
    back as that memory."""
    stamp = (now or SystemClock().now()).astimezone(timezone.utc).isoformat()
    front: dict[str, Any] = {"type": namespace, "timestamp": stamp, "summary": summary}
    if spec:
        front["spec"] = spec
    if phase:
        front["phase"] = phase
    if tags:
        front["tags"] = list(tags)
    if relates_to:
        front["relates_to"] = list(relates_to)
    entry = serialize_entry(front, content)
    problem = read_back_problem(namespace, entry, summary, list(tags), content)
    if problem is not None:
        raise CaptureRefused(problem)
    return entry


def write_entries(store: Any, namespace: str, entries: Sequence[str]) -> list[str]:
    """Append prepared entries, in order, to HEAD's note of `namespace` in one notes commit (what one
    `git notes append` per entry would leave); their IDs. Raises StoreError (the repository refused)."""
    if not entries:
        return []
    assigned: list[int] = []

    def new_note(existing: bytes | None) -> bytes:
        assigned.clear()  # a retry after another writer landed first starts from its note
        for entry in entries:
            assigned.append(upstream_next_index(existing))
            existing = append_entry(existing, entry)
        return existing or b""

    store.git.check_writable()
    commit = store.git.append_memory_note(namespace, new_note)
    return [f"{namespace}:{commit}:{index}" for index in assigned]


def write_memory(store: Any, namespace: str, summary: str, content: str = "", *, tags: Sequence[str] = (),
                 relates_to: Sequence[str] = (), spec: str | None = None, phase: str | None = None,
                 now: datetime | None = None, announce: Callable[[], object] | None = None) -> str:
    """Append the memory to HEAD's note of `namespace` and return its ID (`ns:<sha>:<index>`).

    `store` is a MemoryStore; `announce` is called once the entry passed its read-back check, just
    before writing. Raises CaptureRefused (nothing written) or StoreError (the repository refused).
    """
    entry = prepare_entry(namespace, summary, content, tags=tags, relates_to=relates_to, spec=spec, phase=phase,
                          now=now)
    if announce is not None:
        announce()
    return write_entries(store, namespace, [entry])[0]
