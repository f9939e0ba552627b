"""Replacements the writer declared: a memory that names an older one in `relates_to` and says "Replaces:
<that memory's summary>" in its body (what an approved update proposal and an edited auto memory write)
supersedes it, whatever the wording of either."""

from __future__ import annotations

from collections.abc import Iterable

from memactors.events.memory import Memory
from memactors.events.verdict import Relation, Verdict


def declared_replacements(memories: Iterable[Memory]) -> list[Verdict]:
    """A SUPERSEDES verdict for every declared replacement of an older memory among `memories`."""
    memories = list(memories)
    by_short: dict[str, list[Memory]] = {}
    for m in memories:
        for commit in m.commits():
            by_short.setdefault(f"{m.namespace}:{commit[:7]}", []).append(m)
        by_short.setdefault(m.key, []).append(m)
    found: list[Verdict] = []
    for newer in memories:
        if not newer.relates_to or "Replaces:" not in newer.body:
            continue
        for ref in newer.relates_to:
            parts = ref.split(":")
            bucket = by_short.get(f"{parts[0]}:{parts[1][:7].lower()}" if len(parts) == 3 else ref, [])
            older = next((m for m in bucket if m.key != newer.key and m.answers_to(ref)), None)
            if older is None or older.timestamp > newer.timestamp:
                continue
            if f"Replaces: {older.summary}" in newer.body:
                found.append(Verdict(newer=newer.key, older=older.key, relation=Relation.SUPERSEDES, confidence=1.0,
                                     reason=f"says it replaces \"{older.summary}\""))
    return found
