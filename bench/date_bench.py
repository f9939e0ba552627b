"""Benchmark: answering "when did ..." from long conversations turned into memories (issue 15).

Run by hand: `python bench/date_bench.py [--held-out] [--misses] [--json]`.

Builds the conversation store of tests/conversation_store.py (four pairs of
speakers, fifteen sessions each, one memory per turn, 160 events reported
with relative dates, mentioned again later beside other dates, among
distractor turns about the same people and topics; and a team of four whose
chat reports twenty tool changes in many wordings, with plans, postponed
plans and later mentions in other words), and the labelled supersession
store of tests/supersession_facts.py (a developer's decisions: "when did we
drop PostgreSQL?"). Consolidates each once (local MiniLM, no LLM) and asks
every question the way `memactors recall --reason` does: recall's best 20
hits in exhaustive mode as evidence, the offline answer composed from them,
in UTC. An answer is correct when its date (or span) is the gold one
(strict: the day, not the week). A third of the questions is held out and
reported only with --held-out. The calibration table groups every answer by
its confidence: how often answers that sure are right.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.actors.algorithms.temporal import compose_answer, is_temporal_question  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.reading.date_answer import EVIDENCE_DEPTH, evidence_of  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.adapters.reading.recall import search  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.conversation_store import Question, build_conversation_store  # noqa: E402
from tests.supersession_facts import CHANGE_NAMES, replacements  # noqa: E402
from tests.supersession_store import START, build_supersession_store  # noqa: E402

#: Confidence buckets of the calibration table (lower bounds).
BUCKETS = (0.0, 0.3, 0.5, 0.7, 0.85)


def label(start: date, end: date | None) -> str:
    """The gold answer as recall words it: `YYYY-MM-DD (Weekday)`, or `... to ...` for a span."""
    day = f"{start.isoformat()} ({start:%A})"
    return day if end is None else f"{day} to {end.isoformat()} ({end:%A})"


def measure(store, index, embedder, questions: list[Question], now: datetime,
            sureness: list[tuple[float, bool]] | None = None) -> dict[str, object]:
    """Accuracy on `questions`; each (confidence, right) is added to `sureness` for the calibration table."""
    correct = recognised = consistent = 0
    misses = []
    started = time.perf_counter()
    for q in questions:
        recognised += is_temporal_question(q.question)
        hits = search(index, q.question, mode="exhaustive", limit=EVIDENCE_DEPTH, embedder=embedder)
        answer = compose_answer(q.question, evidence_of(store, hits, index), now=now, tz=timezone.utc)
        gold = label(q.start, q.end)
        right = answer.answer == gold or answer.answer.startswith(f"{gold}, ")  # "how long ago" adds the distance
        consistent += all(a.confidence <= answer.confidence for a in answer.alternatives)
        if sureness is not None:
            sureness.append((answer.confidence, right))
        if right:
            correct += 1
        else:
            misses.append({"id": q.id, "q": q.question, "gold": gold, "answer": answer.answer,
                           "confidence": answer.confidence, "reasoning": answer.reasoning[:240]})
    n = max(1, len(questions))
    return {"questions": len(questions), "recognised_as_date_questions": recognised,
            "correct": round(correct / n, 3), "chosen_most_confident": round(consistent / n, 3),
            "ms_per_question": round(1000 * (time.perf_counter() - started) / n, 1), "misses": misses}


def change_questions() -> list[Question]:
    """"When did we drop X?" / "When did we switch to Y?" for the supersession store's topics."""
    out = []
    for r in replacements():
        if r.id not in CHANGE_NAMES:
            continue
        old, new = CHANGE_NAMES[r.id]
        day = (START + timedelta(days=r.new.day)).date()
        for kind, question in (("drop", f"When did we drop {old}?"), ("switch", f"When did we switch to {new}?")):
            out.append(Question(id=f"{r.id}-{kind}", question=question, start=day, end=None, held_out=r.held_out))
    return out


def calibration(sureness: list[tuple[float, bool]]) -> list[dict[str, object]]:
    """Answers grouped by confidence: how many, and the share that is right."""
    rows = []
    for low, high in zip(BUCKETS, (*BUCKETS[1:], 1.01)):
        inside = [right for confidence, right in sureness if low <= confidence < high]
        rows.append({"confidence": f"{low:.2f}-{min(high, 1.0):.2f}", "answers": len(inside),
                     "right": round(sum(inside) / len(inside), 3) if inside else None})
    sure = [right for confidence, right in sureness if confidence >= 0.7]
    rows.append({"confidence": ">= 0.70", "answers": len(sure), "right": round(sum(sure) / len(sure), 3) if sure
                 else None})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help="also report the held-out questions")
    parser.add_argument("--misses", action="store_true", help="list the wrong answers")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, object] = {"machine": machine()}
    with TemporaryDirectory() as tmp:
        conversation = build_conversation_store(Path(tmp) / "conversations")
        services = build_services(MemoryStore(GitStore(conversation.path)), Settings(), FixedClock(conversation.now))
        started = time.perf_counter()
        trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
        results["memories"] = conversation.memories
        results["consolidate_s"] = round(time.perf_counter() - started, 1)
        index = ReadCache(GitStore(conversation.path).common_dir).load()
        store = MemoryStore(GitStore(conversation.path))
        parts = {"tuning": [q for q in conversation.questions if not q.held_out]}
        if args.held_out:
            parts["held_out"] = [q for q in conversation.questions if q.held_out]
        sureness: list[tuple[float, bool]] = []
        for part, questions in parts.items():
            results[part] = measure(store, index, services.embedder, questions, conversation.now, sureness)
        decisions = build_supersession_store(Path(tmp) / "decisions")
        services = build_services(MemoryStore(GitStore(decisions.path)), Settings(), FixedClock(decisions.now))
        trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
        index = ReadCache(GitStore(decisions.path).common_dir).load()
        store = MemoryStore(GitStore(decisions.path))
        asked = change_questions()
        results["decisions_tuning"] = measure(store, index, services.embedder, [q for q in asked if not q.held_out],
                                              decisions.now, sureness)
        if args.held_out:
            results["decisions_held_out"] = measure(store, index, services.embedder,
                                                    [q for q in asked if q.held_out], decisions.now, sureness)
        results["calibration"] = calibration(sureness)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    print(f"machine: {results['machine']}; {results['memories']} memories, consolidated in {results['consolidate_s']} s")
    for part in ("tuning", "held_out", "decisions_tuning", "decisions_held_out"):
        if part in results:
            row = results[part]
            print(f"{part}: " + ", ".join(f"{k}={v}" for k, v in row.items() if k != "misses"))
            for miss in row["misses"] if args.misses else []:
                print(f"    {miss['id']} {miss['q']} gold {miss['gold']} got {miss['answer']} "
                      f"({miss['confidence']})\n        {miss['reasoning']}")
    print("calibration (all answers of this run):")
    for row in results["calibration"]:  # type: ignore[union-attr]
        print(f"    confidence {row['confidence']}: {row['answers']} answers, right {row['right']}")


if __name__ == "__main__":
    main()
