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


def test_a_later_negation_said_as_a_change_turns_the_rule_round() -> None:
    old = memory("Use Redis for session caching", days=0)
    new = memory("From now on, do not use Redis for session caching", "It loses sessions on restart.", days=3)
    verdict = judge_pair(new, old, 0.85)
    assert verdict.relation is Relation.SUPERSEDES
    assert "turned round" in verdict.reason


def test_a_negation_of_part_of_a_claim_is_flagged_as_contradictory() -> None:
    old = memory("Cache sessions in Redis with a one hour expiry", days=0)
    new = memory("Never cache sessions in Redis", "It loses sessions on restart.", days=3)
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


def _judged(new, old, similarity: float = 0.8):
    """The verdict as the judge actor reaches it: a memory takes part as a statement when its content is readable
    and well formed (events/quality.py)."""
    from memactors.events.quality import QualityPolicy, assess, asserts

    def statement(m) -> bool:
        q = assess(QualityPolicy(), summary=m.summary, body=m.body, tags=m.tags)
        return asserts(q.score, q.readable, m.summary)

    return judge_pair(new, old, similarity, statements=(statement(new), statement(old)))


def test_a_change_word_with_no_replaced_object_in_the_older_memory_is_not_a_supersession() -> None:
    old = memory("Use PostgreSQL for the main database", "JSONB columns for the event payloads.", days=0)
    new = memory("Switched the scheduler's clock source from time.time to time.monotonic",
                 "Wall clock jumps made jobs fire twice.", days=10)
    assert _judged(new, old).relation is not Relation.SUPERSEDES
    progress_old = memory("Completed Task 2.2: Instrumented RecallService", ns="progress", days=0)
    progress_new = memory("Added proactive memory search guidance instead of the old SessionStart templates",
                          ns="progress", days=3)
    assert _judged(progress_new, progress_old).relation is not Relation.SUPERSEDES


def test_a_heading_or_table_row_never_supersedes_and_is_never_superseded() -> None:
    decision = memory("Use flake8 for linting", "All Python code is checked with flake8 in CI.", days=0)
    row = memory("| flake8 | replaced | ruff |", "| Tool | Status |\n|---|---|\n| flake8 | replaced | ruff |", days=4)
    heading = memory("Migration Plan", "## Migration Plan", days=5)
    lead_in = memory("Here is how we replaced flake8:", days=6)
    for noise in (row, heading, lead_in):
        assert _judged(noise, decision).relation is not Relation.SUPERSEDES
    switch = memory("Switch linting from flake8 to ruff", "Ruff replaces flake8: 50x faster.", days=7)
    assert _judged(switch, row).relation is not Relation.SUPERSEDES
    assert _judged(switch, decision).relation is Relation.SUPERSEDES


def test_the_reason_names_the_words_that_matched() -> None:
    old = memory("Use flake8 for linting", days=0)
    new = memory("Switch linting from flake8 to ruff", "Ruff replaces flake8: 50x faster, same rules plus isort.",
                 days=4)
    verdict = _judged(new, old, similarity=0.4)
    assert verdict.relation is Relation.SUPERSEDES and "flake8" in verdict.reason and "lint" in verdict.reason


def test_a_negation_of_what_the_other_states_in_its_body_is_contradictory() -> None:
    old = memory("Keep user sessions in Redis", "Sessions are stored in Redis with a one-day expiry.", days=0)
    new = memory("Session storage after the outage", "Never store sessions in Redis: they vanish on restart.", days=4)
    verdict = judge_pair(new, old, 0.7)
    assert verdict.relation is Relation.CONTRADICTORY and "store sessions in Redis" in verdict.reason


def test_a_negation_about_something_else_is_no_contradiction() -> None:
    old = memory("Verify Stripe webhook signatures and process each event id once",
                 "Stripe delivers at least once; a replayed event must not ship an order twice.", days=0)
    new = memory("Stripe retries a failed webhook for three days and may deliver it twice",
                 "Stripe retries with backoff and does not promise order. This is why every event id is recorded.",
                 days=4)
    assert judge_pair(new, old, 0.7).relation is not Relation.CONTRADICTORY


def test_two_memories_that_deny_the_same_thing_agree() -> None:
    old = memory("Anything a hook prints to stdout must be valid JSON",
                 "Claude Code parses hook stdout as JSON. Log to stderr, never to stdout, from hook code.", days=0)
    new = memory("Hook logging goes to a file", "Hooks log to a file and never to stdout from hook code.", days=2)
    assert judge_pair(new, old, 0.8).relation is not Relation.CONTRADICTORY
