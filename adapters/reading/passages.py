"""Recall's excerpts: each listed memory's passage that answers the question, read from its note.

The read model keeps only the start of each body; the answer often sits
further down (a list, a code block, the last paragraph of a long reply).
So for the first PASSAGE_RESULTS results recall reads each memory's note
(one read per note, however many of its memories are listed; only the
entry the memory's ID points at, unless the note changed since the run)
and shows the passage of the whole body that best answers the question
(actors/algorithms/passage.py), marked "…" where it was cut. A memory whose
note cannot be read keeps the stored excerpt; a summary keeps its key facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memactors.actors.algorithms.passage import best_passage, question_stems
from memactors.adapters.git.note_format import entry_body, parse_note
from memactors.adapters.reading.lexical_index import query_words
from memactors.adapters.reading.recall import RecallHit
from memactors.events.read_model import EntryKind, IndexedEntry

#: How many results' notes are read for their passage (the MCP server lists at most 25).
PASSAGE_RESULTS = 25


def with_passages(store, hits: Sequence[RecallHit], query: str) -> list[RecallHit]:
    """`hits` with each memory's excerpt the passage of its body that best answers `query` (see the module)."""
    wanted = question_stems(query_words(query))
    try:
        refs = store.git.memory_refs()
    except Exception:  # noqa: BLE001 - an unreadable store costs the passages, not the answer
        return list(hits)
    notes: dict[tuple[str, str], bytes] = {}
    out: list[RecallHit] = []
    for i, hit in enumerate(hits):
        entry = hit.entry
        body = _body(store, refs, entry, notes) if i < PASSAGE_RESULTS and entry.kind is EntryKind.MEMORY else None
        if not body or not body.strip():
            out.append(hit)
            continue
        passage = best_passage(body, wanted, shown=entry.summary)
        out.append(replace(hit, entry=entry.model_copy(update={"excerpt": passage})))
    return out


def _body(store, refs: dict[str, str], entry: IndexedEntry, notes: dict[tuple[str, str], bytes]) -> str | None:
    """`entry`'s whole body from its note (each note read once): the entry its ID points at when that body starts
    as the stored excerpt does (the note unchanged since the run), else the one with its key; None when gone."""
    parts = entry.id.split(":")
    if entry.namespace not in refs or len(parts) != 3 or not parts[2].isdigit():
        return None
    note = (entry.namespace, parts[1])
    if note not in notes:
        try:
            notes[note] = store.git.read_note(refs[entry.namespace], parts[1]) or b""
        except Exception:  # noqa: BLE001 - a note gone or unreadable keeps the stored excerpt
            notes[note] = b""
    data = notes[note]
    if not data:
        return None
    body = entry_body(data, int(parts[2]))
    if body is not None and " ".join(body.split()).startswith(entry.excerpt.removesuffix("…").rstrip()):
        return body
    return next((m.body for m in parse_note(entry.namespace, parts[1], data).memories if m.key == entry.key), None)
