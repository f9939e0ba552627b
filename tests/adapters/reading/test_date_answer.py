"""What an LLM is shown for a date question: the offline choice first, then the memories claiming the change."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memactors.adapters.reading.date_answer import LLM_CANDIDATES, llm_candidates
from memactors.events.temporal import Alternative, Evidence, ReasonedAnswer

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)


def test_the_llm_sees_the_memory_claiming_the_change_however_recall_ranked_it() -> None:
    question = "When did we drop PostgreSQL?"
    mentions = [Evidence(memory_id=f"decisions:{i:040x}:0", text=f"PostgreSQL tuning note {i}: vacuum nightly.",
                         timestamp=T0 + timedelta(days=i), relevance=0.9) for i in range(12)]
    change = Evidence(memory_id="decisions:" + "f" * 40 + ":0", text="Moved off PostgreSQL to SQLite for the desktop",
                      timestamp=T0 + timedelta(days=20), relevance=0.35)
    evidence = [*mentions, change]  # recall ranked the report last
    # an offline answer that missed it (say its wording escaped the offline rules): a mention and three others
    offline = ReasonedAnswer(question=question, answer="2026-03-02 (Monday)", confidence=0.2, reasoning="...",
                             source_memory_ids=(mentions[0].memory_id,),
                             alternatives=tuple(Alternative(answer="a", resolved_date=T0.date(), confidence=0.1,
                                                            source_memory_ids=(m.memory_id,)) for m in mentions[1:4]))
    shown = llm_candidates(evidence, offline)
    assert len(shown) <= LLM_CANDIDATES
    assert change.memory_id in [e.memory_id for e in shown]
