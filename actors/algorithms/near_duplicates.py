"""Copies of one capture with different cuts: the shorter text, stripped, appears verbatim in the longer.

A transcript window captured at two compactions, a block captured whole
and as an inline window: once cut marks and markup are stripped, one text
contains the other. Identical texts (the same capture at another
timestamp) are the simplest case. A text shorter than `MIN_COPY_CHARS` is
never taken for a copy: "Use SQLite" inside "Use SQLite, later Postgres" is
a different statement, not a cut of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memactors.events.memory import Memory
from memactors.events.memory_text import is_cut, prose_lines

#: Chosen on the realistic store (tests/realistic_store.py): there, every contained text is a true
#: copy down to 30 characters (the shortest real cut is 149); at 20, table headers of different
#: decisions are taken for copies. 40 leaves room for short statements that nest by chance.
MIN_COPY_CHARS = 40
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
#: Words in the probe taken from the shorter text to find candidate containers.
_PROBE_WORDS = 5


def _words(text: str) -> str:
    return " ".join(_NON_WORD.split(text.casefold())).strip()


def comparable_text(memory: Memory) -> str:
    """What two copies share: the summary unless it is a cut of the body, then the body; markup,
    cut marks (and the possibly halved words next to them), punctuation and spacing stripped, case folded."""
    head = "" if is_cut(memory.summary) else memory.summary
    words = _words(" ".join(line for line, _ in prose_lines(f"{head}\n{memory.body}"))).split()
    body = memory.body.strip() or memory.summary.strip()
    # a window may cut a word in two: the words at a cut edge are not compared
    if body.startswith(("...", "…")):
        words = words[1:]
    if body.endswith(("...", "…")):
        words = words[:-1]
    return " ".join(words)


def copy_groups(memories: Sequence[Memory], min_chars: int = MIN_COPY_CHARS) -> dict[str, str]:
    """memory key -> key of its group's most complete copy (the longest text; the newest among equals).
    Copies share a namespace; memories with no copy map to themselves."""
    texts = [comparable_text(m) for m in memories]
    parent = list(range(len(memories)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    exact: dict[tuple[str, str], int] = {}
    probes: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        # identical short texts are copies only when the whole entry is identical
        same = (memories[i].namespace,
                text if len(text) >= min_chars else _words(f"{memories[i].summary}\n{memories[i].body}"))
        if same in exact:
            union(i, exact[same])
            continue
        exact[same] = i
        if len(text) < min_chars:
            continue
        words = text.split()
        if len(words) >= _PROBE_WORDS:
            probes.setdefault(" ".join(words[:_PROBE_WORDS]), []).append(i)
    for j in exact.values():  # each distinct text once, as a possible container
        longer = f" {texts[j]} "
        words = texts[j].split()
        seen: set[int] = set()
        for start in range(max(0, len(words) - _PROBE_WORDS + 1)):
            for i in probes.get(" ".join(words[start: start + _PROBE_WORDS]), ()):
                if i != j and i not in seen and memories[i].namespace == memories[j].namespace \
                        and len(texts[i]) < len(texts[j]) and f" {texts[i]} " in longer:
                    seen.add(i)
                    union(i, j)
    groups: dict[int, list[int]] = {}
    for i in range(len(memories)):
        groups.setdefault(find(i), []).append(i)
    result: dict[str, str] = {}
    for members in groups.values():
        best = max(members, key=lambda i: (len(texts[i]), memories[i].timestamp, memories[i].key))
        result.update({memories[i].key: memories[best].key for i in members})
    return result


def most_complete(memories: Sequence[Memory], copy_of: Mapping[str, str]) -> dict[str, str]:
    """`copy_groups`' answer from groups already found (copy key -> canonical key, as the clusterer
    gives them): memory key -> key of its group's most complete copy."""
    members: dict[str, list[Memory]] = {}
    by_key = {m.key: m for m in memories}
    for memory in memories:
        members.setdefault(copy_of.get(memory.key, memory.key), []).append(memory)
    result: dict[str, str] = {}
    for canonical, group in members.items():
        if canonical in by_key and by_key[canonical] not in group:
            group.append(by_key[canonical])
        best = group[0] if len(group) == 1 else max(
            group, key=lambda m: (len(comparable_text(m)), m.timestamp, m.key))
        result.update({m.key: best.key for m in group})
    return result
