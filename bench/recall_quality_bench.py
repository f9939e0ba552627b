"""Benchmark: does recall find the memory that answers a developer's question? (issue 15)

Run by hand: `python bench/recall_quality_bench.py [--held-out] [--misses] [--json]`.

Builds the realistic dormant and active stores of tests/realistic_store.py,
consolidates each once at the store's "now" (local MiniLM, offline summaries,
no LLM; the dormant one also with recency on the wall clock, a year after
its last capture, where nearly everything is cold) and asks the labelled questions of bench/labels/recall_questions.json
(45, phrased as developers ask; a third held out, reported only with
--held-out) the way `memactors recall QUESTION` does with no --mode. A result
answers when the memory it lists states one of the question's expected facts
(a summary: its sources' most common fact). Reports hit@1, hit@5 and MRR
(first answering result within the top 10; 0 when none), and how many
answering results came from widening into colder tiers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.quality_bench import fact_of_entry  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.adapters.reading.recall import search  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.realistic_store import RealisticStore, build_realistic_store  # noqa: E402

LABELS = ROOT / "bench" / "labels" / "recall_questions.json"
DEPTH = 10
#: (name, dormant, recency clock): the dormant store read a year later with the wall clock is the issue's
#: measurement (every memory old, so little is hot or warm); with the store clock, as memactors runs by default.
STORES = (("dormant", True, "store"), ("active", False, "store"), ("dormant-wall-clock", True, "wall"))


def measure(store: RealisticStore, questions: list[dict], embedder, mode: str | None) -> dict[str, object]:
    index = ReadCache(GitStore(store.path).common_dir).load()
    by_id = {e.id: e for e in index.entries}
    hits1 = hits5 = widened = 0
    reciprocal = 0.0
    misses: list[dict[str, object]] = []
    for q in questions:
        found = search(index, q["q"], mode=mode, limit=DEPTH, embedder=embedder)
        facts = [fact_of_entry(store, by_id, h.entry) for h in found]
        rank = next((i + 1 for i, f in enumerate(facts) if f in q["expect"]), None)
        hits1 += rank == 1
        hits5 += rank is not None and rank <= 5
        reciprocal += 1 / rank if rank else 0.0
        widened += rank is not None and getattr(found[rank - 1], "widened", False)
        if rank != 1:
            misses.append({"id": q["id"], "q": q["q"], "expect": q["expect"], "rank": rank,
                           "top": [f"[{h.entry.tier.value}] {(h.entry.title or h.entry.summary)[:70]} ({f})"
                                   for h, f in zip(found[:3], facts)]})
    n = max(1, len(questions))
    return {"questions": len(questions), "hit_at_1": round(hits1 / n, 3), "hit_at_5": round(hits5 / n, 3),
            "mrr": round(reciprocal / n, 3), "answered_by_widening": widened, "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help="also report the held-out questions")
    parser.add_argument("--misses", action="store_true", help="list the questions not answered first")
    parser.add_argument("--mode", help="a recall --mode (default: none, as recall without --mode)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    labels = json.loads(LABELS.read_text())["questions"]
    parts = {"tuning": [q for q in labels if not q["held_out"]]}
    if args.held_out:
        parts["held_out"] = [q for q in labels if q["held_out"]]
    results: dict[str, object] = {"machine": machine()}
    with TemporaryDirectory() as tmp:
        for name, dormant, clock in STORES:
            store = build_realistic_store(Path(tmp) / name, dormant=dormant)
            services = build_services(MemoryStore(GitStore(store.path)), Settings(recency_clock=clock),
                                      FixedClock(store.now))
            trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
            row: dict[str, object] = {}
            for part, questions in parts.items():
                started = time.perf_counter()
                row[part] = measure(store, questions, services.embedder, args.mode)
                row[part]["ms_per_question"] = round(1000 * (time.perf_counter() - started) / len(questions), 1)
            results[name] = row
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    print(f"machine: {results['machine']}")
    for name, _, _ in STORES:
        for part, row in results[name].items():  # type: ignore[union-attr]
            print(f"{name} {part}: " + ", ".join(f"{k}={v}" for k, v in row.items() if k != "misses"))
            for miss in row["misses"] if args.misses else []:
                print(f"    {miss['id']} rank={miss['rank']} {miss['q']}  expect {miss['expect']}")
                for line in miss["top"]:
                    print(f"        {line}")


if __name__ == "__main__":
    main()
