"""Benchmark: answering "when did ..." from long conversations turned into memories (issue 15).

Run by hand: `python bench/date_bench.py [--held-out] [--misses] [--json]`.

Builds the conversation store of tests/conversation_store.py (four pairs of
speakers, fifteen sessions each, one memory per turn, 160 events reported
with relative dates, mentioned again later beside other dates, among
distractor turns about the same people and topics), consolidates it once
(local MiniLM, no LLM) and asks every "When did <speaker> <event>?" the way
`memactors recall` does: recall's best 20 hits in exhaustive mode as evidence, the
offline answer composed from them, in UTC. An answer is correct when its
date (or span) is the gold one. A third of the questions is held out and
reported only with --held-out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date, datetime, timezone
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
from memactors.adapters.runtime.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.conversation_store import Question, build_conversation_store  # noqa: E402


def label(start: date, end: date | None) -> str:
    """The gold answer as recall words it: `YYYY-MM-DD (Weekday)`, or `... to ...` for a span."""
    day = f"{start.isoformat()} ({start:%A})"
    return day if end is None else f"{day} to {end.isoformat()} ({end:%A})"


def measure(store, index, embedder, questions: list[Question], now: datetime) -> dict[str, object]:
    correct = recognised = 0
    misses = []
    started = time.perf_counter()
    for q in questions:
        recognised += is_temporal_question(q.question)
        hits = search(index, q.question, mode="exhaustive", limit=EVIDENCE_DEPTH, embedder=embedder)
        answer = compose_answer(q.question, evidence_of(store, hits, index), now=now, tz=timezone.utc)
        if answer.answer == label(q.start, q.end):
            correct += 1
        else:
            misses.append({"id": q.id, "q": q.question, "gold": label(q.start, q.end), "answer": answer.answer,
                           "reasoning": answer.reasoning[:200]})
    n = max(1, len(questions))
    return {"questions": len(questions), "recognised_as_date_questions": recognised,
            "correct": round(correct / n, 3), "ms_per_question": round(1000 * (time.perf_counter() - started) / n, 1),
            "misses": misses}


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
        for part, questions in parts.items():
            results[part] = measure(store, index, services.embedder, questions, conversation.now)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    print(f"machine: {results['machine']}; {results['memories']} memories, consolidated in {results['consolidate_s']} s")
    for part in ("tuning", "held_out"):
        if part in results:
            row = results[part]
            print(f"{part}: " + ", ".join(f"{k}={v}" for k, v in row.items() if k != "misses"))
            for miss in row["misses"] if args.misses else []:
                print(f"    {miss['id']} {miss['q']} gold {miss['gold']} got {miss['answer']}\n        {miss['reasoning']}")


if __name__ == "__main__":
    main()
