from __future__ import annotations

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.events.verdict import Relation
from tests.actors.algorithms.test_clustering import memory
from tests.conftest import FIXTURES


def test_a_newer_decision_that_says_it_switches_supersedes_the_older() -> None:
    old = memory("Use SQLite for storage", "Simple to start.", days=0)
    new = memory("Switch storage from SQLite to PostgreSQL", "Replaces the SQLite decision.", days=30)
    verdict = judge_pair(new, old, 0.8)
    assert verdict.relation is Relation.SUPERSEDES and not verdict.partial
    assert verdict.provider == "offline" and verdict.confidence <= 0.6


def test_a_restatement_subsumes_the_older_memory() -> None:
    old = memory("Retries must be idempotent", days=0)
    new = memory("Retries must be idempotent", "Seen again in the billing work.", days=3)
    verdict = judge_pair(new, old, 0.9)
    assert verdict.relation is Relation.SUBSUMES and verdict.container == new.key


def test_a_related_addition_is_compatible() -> None:
    old = memory("Use PostgreSQL for storage", "JSONB support.", days=0)
    new = memory("PostgreSQL connection pool size is 20", "Tuned under load.", days=3)
    assert judge_pair(new, old, 0.7).relation is Relation.COMPATIBLE


def test_a_negation_of_the_same_claim_is_flagged_as_contradictory() -> None:
    old = memory("Use Redis for session caching", days=0)
    new = memory("Do not use Redis for session caching", "It loses sessions on restart.", days=3)
    assert judge_pair(new, old, 0.85).relation is Relation.CONTRADICTORY


def test_the_offline_judge_on_the_labelled_pairs() -> None:
    """Evidence for the heuristic (bench/judge_eval.py prints the full table)."""
    import json

    from memactors.adapters.models.embeddings import LocalMiniLM

    pairs = json.loads((FIXTURES / "similarity_pairs.json").read_text())
    model = LocalMiniLM()
    a, b = model.embed([p["a"] for p in pairs]), model.embed([p["b"] for p in pairs])
    expected = {"replaced_decision": {Relation.SUPERSEDES}, "paraphrase": {Relation.SUBSUMES, Relation.COMPATIBLE},
                "compatible_addition": {Relation.COMPATIBLE}, "unrelated_lookalike": {Relation.COMPATIBLE}}
    right = 0
    for pair, sim in zip(pairs, (a * b).sum(axis=1)):
        verdict = judge_pair(memory(pair["b"], days=10), memory(pair["a"], days=0), float(sim))
        right += verdict.relation in expected[pair["category"]]
        if pair["category"] in ("compatible_addition", "unrelated_lookalike"):
            assert verdict.relation is not Relation.SUPERSEDES, pair
    assert right / len(pairs) >= 0.9
