"""The evidence behind a date answer: recalled memories read whole, and the LLM's choice among them.

`evidence_of` turns recall's hits into the evidence actors/algorithms/temporal.py
composes the offline answer from; `reason_with_llm` lets a configured LLM choose
among the same candidates, each with its resolved dates, and keeps the offline
answer when it fails. Kept apart from recall's search, and the LLM code imported
only when an LLM is asked, so an offline answer costs no LLM imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from memactors.actors.ports import StructuredLLM
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.note_format import parse_note
from memactors.adapters.reading.read_cache import RecallIndex
from memactors.adapters.reading.recall import RecallHit
from memactors.events.read_model import EntryKind
from memactors.events.temporal import Evidence, ReasonedAnswer

#: How many recalled memories a date question weighs: the report may rank below plans and later mentions.
EVIDENCE_DEPTH = 20
#: How many of a recalled summary's members stand in for it as evidence.
SUMMARY_MEMBERS = 5


def evidence_of(store: MemoryStore, hits: Sequence[RecallHit], index: RecallIndex) -> list[Evidence]:
    """The recalled memories as evidence for a date question, ranked as recalled, with their whole text
    (read from their notes; the index's excerpt when a note is gone). A summary stands for its members:
    the memories it was made from (at most SUMMARY_MEMBERS, lead first), at its relevance."""
    refs = store.git.memory_refs()
    by_id = {e.id: e for e in index.entries if e.kind is EntryKind.MEMORY}
    found: list[Evidence] = []
    seen: set[str] = set()
    for hit in hits:
        members = [hit.entry]
        if hit.entry.kind is EntryKind.SUMMARY:
            title = (hit.entry.title or hit.entry.summary).casefold()
            members = sorted((by_id[s] for s in hit.entry.sources if s in by_id),
                             key=lambda e: (e.title or e.summary).casefold() != title)[:SUMMARY_MEMBERS]
        for e in members:
            if e.id in seen or e.namespace not in refs:
                continue
            seen.add(e.id)
            commit = e.id.split(":")[1]
            data = store.git.read_note(refs[e.namespace], commit)
            memory = next((m for m in parse_note(e.namespace, commit, data).memories if m.key == e.key), None) \
                if data else None
            text = f"{memory.summary}\n{memory.body}" if memory else f"{e.summary}\n{e.excerpt}"
            found.append(Evidence(memory_id=e.id, text=text, timestamp=e.timestamp,
                                  relevance=min(1.0, max(0.0, hit.relevance))))
    return found


async def reason_with_llm(llm: StructuredLLM, question: str, evidence: Sequence[Evidence],
                          offline: ReasonedAnswer, tz: tzinfo) -> tuple[ReasonedAnswer, str | None]:
    """The LLM composes the answer from the deterministically resolved dates; on any failure the
    offline answer stands and the second value says why."""
    from memactors.actors.algorithms.llm_call import ask
    from memactors.actors.algorithms.prompts import REASON_SYSTEM, ReasonAnswer, check_citations, reason_prompt

    labelled = {f"E{i + 1}": e for i, e in enumerate(evidence)}
    rows = []
    for label, e in labelled.items():
        found = [r for r in offline.temporal_resolutions if r.memory_id == e.memory_id]
        lines = [f'"{r.original_text}" -> {r.resolved_date.isoformat()}'
                 + (f" .. {r.resolved_end.isoformat()}" if r.resolved_end else "")
                 + f" (confidence {r.confidence:.2f})" for r in found]
        rows.append((label, e.timestamp.astimezone(tz).isoformat(), e.text, lines))

    def check(answer: "ReasonAnswer") -> None:
        check_citations(answer.cited, labelled)  # type: ignore[arg-type]

    asked = await ask(llm, REASON_SYSTEM, reason_prompt(question, rows), ReasonAnswer, check)
    if asked.answer is None:
        return offline, asked.why
    cited = [labelled[c].memory_id for c in asked.answer.cited]
    return offline.model_copy(update={
        "answer": asked.answer.answer, "confidence": asked.answer.confidence, "reasoning": asked.answer.reasoning,
        "source_memory_ids": tuple(cited) or offline.source_memory_ids, "provider": asked.provider,
    }), None
