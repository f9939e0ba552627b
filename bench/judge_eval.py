"""Evidence for the offline judge: its verdicts on the labelled pairs of tests/fixtures/similarity_pairs.json.

Run by hand: `python bench/judge_eval.py`. The second sentence of each pair
is taken as the newer memory, both in the `decisions` namespace. Expected:
replaced decisions -> supersedes; paraphrases -> subsumes or compatible
(never supersedes); compatible additions and look-alikes -> compatible.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.adapters.models.embeddings import LocalMiniLM
from memactors.events.memory import Memory, memory_key

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "similarity_pairs.json"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
EXPECTED = {"replaced_decision": {"supersedes"}, "paraphrase": {"subsumes", "compatible"},
            "compatible_addition": {"compatible"}, "unrelated_lookalike": {"compatible"}}


def memory(text: str, days: int) -> Memory:
    when = T0 + timedelta(days=days)
    return Memory(key=memory_key("decisions", when.isoformat(), text, ""), namespace="decisions", commit="0" * 40,
                  index=0, upstream_index=0, timestamp=when, summary=text)


def main() -> None:
    pairs = json.loads(FIXTURE.read_text())
    model = LocalMiniLM()
    a, b = model.embed([p["a"] for p in pairs]), model.embed([p["b"] for p in pairs])
    table: dict[str, Counter[str]] = {}
    right = 0
    for pair, sim in zip(pairs, (a * b).sum(axis=1)):
        verdict = judge_pair(memory(pair["b"], 10), memory(pair["a"], 0), float(sim))
        table.setdefault(pair["category"], Counter())[verdict.relation.value] += 1
        right += verdict.relation.value in EXPECTED[pair["category"]]
    for category, counts in sorted(table.items()):
        print(f"{category:<22} {dict(counts)}")
    print(f"as expected: {right}/{len(pairs)} ({right / len(pairs):.0%})")


if __name__ == "__main__":
    main()
