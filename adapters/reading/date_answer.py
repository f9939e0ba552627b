"""The evidence behind a date answer: recalled memories read whole, and the LLM's choice among them.

`evidence_of` turns recall's hits into the evidence actors/algorithms/temporal.py
composes the offline answer from; `reason_with_llm` lets a configured LLM choose
among the same candidates, each with its resolved dates, and keeps the offline
answer when it fails. Kept apart from recall's search, and the LLM code imported
only when an LLM is asked, so an offline answer costs no LLM imports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, tzinfo

from memactors.actors.algorithms.temporal import speaker_of
from memactors.actors.ports import StructuredLLM
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.note_format import parse_note
from memactors.adapters.reading.read_cache import RecallIndex
from memactors.adapters.reading.recall import RecallHit
from memactors.events.memory import Memory
from memactors.events.read_model import EntryKind
from memactors.events.temporal import Alternative, Evidence, ReasonedAnswer

#: How many recalled memories a date question weighs: the report may rank below plans and later mentions.
EVIDENCE_DEPTH = 20
#: How many of a recalled summary's members stand in for it as evidence.
SUMMARY_MEMBERS = 5
#: How many memories before a recalled one in its note it carries (`Evidence.earlier`): in a conversation of two,
#: the speaker's three turns before it and the other speaker's between (LoCoMo 6-10: 2 and 4 one answer fewer).
EARLIER_DEPTH = 6
#: How many memories after a recalled one in its note a question about when is looked for (`_answers_after`): the
#: other speaker's "How long have you been playing this game?" a few turns on in the same story (LoCoMo 6-10: 3
#: gains none, 6 to 10 the same two).
FOLLOW_DEPTH = 6
#: A question asking when, how long, or where something came from, ending on its question mark; bounded, so a
#: long turn costs linear time.
_ASKS_WHEN = re.compile(r"\b(?:when|how\s+long|since\s+when|what\s+(?:day|date|year|month|time)"
                        r"|where\s+did\s+you\s+(?:get|find|buy))\b[^.!?\n]{0,200}\?", re.IGNORECASE)
#: How many candidates the LLM is shown (a prompt of a few thousand tokens).
LLM_CANDIDATES = 8


def evidence_of(store: MemoryStore, hits: Sequence[RecallHit], index: RecallIndex) -> list[Evidence]:
    """The recalled memories as evidence for a date question, ranked as recalled, with their whole text
    (read from their notes; the index's excerpt when a note is gone). A summary stands for its members:
    the memories it was made from (at most SUMMARY_MEMBERS, lead first), at its relevance. Each carries the
    memories just before and after it in its note; those not recalled follow, at the relevance of the one they
    stand beside: a turn that dates an event in few of the question's words ("I found it last week") answers
    the recalled turn before it ("Where did you find this car?"); so do the question and its answer a few turns
    on in the same conversation (`_answers_after`). Each carries the EARLIER_DEPTH memories before
    it in its note as well, with their moments (the story a turn goes on with: "Guess what I organised
    yesterday!" before "A charity tournament!")."""
    refs = store.git.memory_refs()
    found: list[Evidence] = []
    seen: set[str] = set()
    notes: dict[tuple[str, str], list[Memory]] = {}
    beside: list[tuple[Memory, float]] = []

    def note(namespace: str, commit: str) -> list[Memory]:
        if (namespace, commit) not in notes:
            data = store.git.read_note(refs[namespace], commit)
            notes[namespace, commit] = parse_note(namespace, commit, data).memories if data else []
        return notes[namespace, commit]

    for hit in hits:
        members = [hit.entry]
        if hit.entry.kind is EntryKind.SUMMARY:
            title = (hit.entry.title or hit.entry.summary).casefold()
            rows = [row for s in hit.entry.sources if (row := index.entries.row_of(s)) is not None]
            members = sorted((e for e in (index.entries[row] for row in rows) if e.kind is EntryKind.MEMORY),
                             key=lambda e: (e.title or e.summary).casefold() != title)[:SUMMARY_MEMBERS]
        for e in members:
            if e.id in seen or e.namespace not in refs:
                continue
            seen.add(e.id)
            memories = note(e.namespace, e.id.split(":")[1])
            at = next((i for i, m in enumerate(memories) if m.key == e.key), None)
            text = _text(memories[at]) if at is not None else f"{e.summary}\n{e.excerpt}"
            around = _around(memories, at)
            beside += [(m, hit.relevance) for m in around if m is not None]
            beside += [(m, hit.relevance) for m in _answers_after(memories, at)]
            # a statement dates from its first copy: a re-capture is not a newer report
            found.append(Evidence(memory_id=e.id, text=text, timestamp=e.first_seen or e.timestamp,
                                  relevance=min(1.0, max(0.0, hit.relevance)),
                                  before=_text(around[0]), after=_text(around[1]),
                                  earlier=_earlier(memories, at, index)))
    for memory, relevance in beside:
        if memory.id in seen:
            continue
        seen.add(memory.id)
        memories = note(memory.namespace, memory.commit)
        at = next((i for i, m in enumerate(memories) if m.key == memory.key), None)
        around = _around(memories, at)
        found.append(Evidence(memory_id=memory.id, text=_text(memory), timestamp=_first_seen(memory, index),
                              relevance=min(1.0, max(0.0, relevance)),
                              before=_text(around[0]), after=_text(around[1]),
                              earlier=_earlier(memories, at, index)))
    return found


def _answers_after(memories: Sequence[Memory], at: int | None) -> list[Memory]:
    """In a logged conversation, the questions about when asked within FOLLOW_DEPTH turns after the `at`-th
    memory, each with the other speaker's answer after it ("That's a strategy game..." / ... / "How long have you
    been playing this game?" / "Been playing it for a month now"): the answer dates the story in none of its
    words. Nothing for memories not said by a speaker."""
    if at is None or speaker_of(memories[at].summary) is None:
        return []
    found: list[Memory] = []
    for i in range(at + 1, min(len(memories) - 1, at + 1 + FOLLOW_DEPTH)):
        asker, answer = speaker_of(memories[i].summary), speaker_of(memories[i + 1].summary)
        if asker is None or answer is None:
            break  # not a conversation past here
        if asker != answer and _ASKS_WHEN.search(_text(memories[i])):
            found += [memories[i], memories[i + 1]]
    return found


def _first_seen(memory: Memory, index: RecallIndex) -> datetime:
    """When `memory` was first written: its index entry's first sighting, else its own timestamp."""
    row = index.entries.row_of(memory.id)
    first = index.entries[row].first_seen if row is not None else None
    return first or memory.timestamp


def _earlier(memories: Sequence[Memory], at: int | None, index: RecallIndex) -> tuple[tuple[str, datetime], ...]:
    """The EARLIER_DEPTH memories before the `at`-th of a note, nearest first, each with when it was written."""
    if at is None:
        return ()
    return tuple((_text(m), _first_seen(m, index)) for m in memories[max(0, at - EARLIER_DEPTH):at][::-1])


def _text(memory: Memory | None) -> str:
    return f"{memory.summary}\n{memory.body}" if memory is not None else ""


def _around(memories: Sequence[Memory], at: int | None) -> tuple[Memory | None, Memory | None]:
    """The memories just before and after the `at`-th of a note (None past its ends, or when `at` is None)."""
    if at is None:
        return None, None
    return memories[at - 1] if at > 0 else None, memories[at + 1] if at + 1 < len(memories) else None


def llm_candidates(evidence: Sequence[Evidence], offline: ReasonedAnswer) -> list[Evidence]:
    """The candidates the LLM chooses among: the offline answer's memories and its alternatives' first, then
    the memories that claim the change a change question asks about (found by their words, however recall
    ranked them), then the rest in recall's order, at most LLM_CANDIDATES."""
    from memactors.actors.algorithms.event_report import reports_change

    first = [*offline.source_memory_ids, *(m for a in offline.alternatives for m in a.source_memory_ids),
             *(e.memory_id for e in evidence if reports_change(offline.question, e.text))]
    rank = {memory_id: i for i, memory_id in enumerate(dict.fromkeys(first))}
    ordered = sorted(evidence, key=lambda e: rank.get(e.memory_id, len(rank)))
    return ordered[:LLM_CANDIDATES]


async def reason_with_llm(llm: StructuredLLM, question: str, evidence: Sequence[Evidence],
                          offline: ReasonedAnswer, tz: tzinfo) -> tuple[ReasonedAnswer, str | None]:
    """The LLM chooses among the candidates (llm_candidates), each with every date in it resolved, and
    composes the answer; on any failure the offline answer stands and the second value says why."""
    from memactors.actors.algorithms.llm_call import ask
    from memactors.actors.algorithms.prompts import REASON_SYSTEM, ReasonAnswer, check_citations, reason_prompt
    from memactors.actors.algorithms.temporal import resolve_relative_dates

    labelled = {f"E{i + 1}": e for i, e in enumerate(llm_candidates(evidence, offline))}
    rows = []
    for label, e in labelled.items():
        found = resolve_relative_dates(e.text, memory_id=e.memory_id, recorded_at=e.timestamp, tz=tz)
        lines = [f'"{r.original_text}" -> {r.resolved_date.isoformat()}'
                 + (f" .. {r.resolved_end.isoformat()}" if r.resolved_end else "")
                 + f" (confidence {r.confidence:.2f})" for r in found]
        rows.append((label, e.timestamp.astimezone(tz).isoformat(), e.text, lines))

    def check(answer: "ReasonAnswer") -> None:
        check_citations(answer.cited, labelled)  # type: ignore[arg-type]

    asked = await ask(llm, REASON_SYSTEM, reason_prompt(question, rows), ReasonAnswer, check)
    if asked.answer is None:
        return offline, asked.why
    cited = tuple(labelled[c].memory_id for c in asked.answer.cited) or offline.source_memory_ids
    # the offline choice becomes an alternative when the LLM chose another memory
    alternatives = [a for a in offline.alternatives if not set(a.source_memory_ids) & set(cited)]
    if not set(cited) & set(offline.source_memory_ids) and offline.temporal_resolutions:
        chosen = offline.temporal_resolutions[0]
        alternatives.insert(0, Alternative(answer=offline.answer, resolved_date=chosen.resolved_date,
                                           resolved_end=chosen.resolved_end, confidence=offline.confidence,
                                           source_memory_ids=offline.source_memory_ids))
    # the answer is never less sure than what it is preferred to: alternatives are capped at its confidence
    alternatives = [a.model_copy(update={"confidence": min(a.confidence, asked.answer.confidence)})
                    for a in alternatives]
    return offline.model_copy(update={
        "answer": asked.answer.answer, "confidence": asked.answer.confidence, "reasoning": asked.answer.reasoning,
        "source_memory_ids": cited, "provider": asked.provider, "alternatives": tuple(alternatives),
    }), None
