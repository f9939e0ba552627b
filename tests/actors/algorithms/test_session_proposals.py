"""The offline proposer: complete statements someone made as memories, and nothing else."""

from __future__ import annotations

import pytest

from memactors.actors.algorithms.session_proposals import SessionTurn, fit_summary, novelty_of, propose


def _proposed(role: str, text: str) -> list[tuple[str, str]]:
    return [(p.namespace, p.summary) for p in propose([SessionTurn("u1", role, text, 7)])]


@pytest.mark.parametrize(("role", "text", "expected"), [
    ("user", "OK, let's use uv for dependency management.", ("decisions", "Use uv for dependency management.")),
    ("user", "From now on, never commit generated protobuf files.",
     ("decisions", "Never commit generated protobuf files.")),
    ("user", "We decided to target Python 3.11 as the minimum version.",
     ("decisions", "We decided to target Python 3.11 as the minimum version.")),
    ("user", "Switch the test runner from nose to pytest.", ("decisions", "Switch the test runner from nose to pytest.")),
    ("user", "TIL git notes merges can sort the lines of a note.",
     ("learnings", "Git notes merges can sort the lines of a note.")),
    ("user", "Keep in mind that staging resets every Sunday at 02:00 UTC.",
     ("learnings", "Staging resets every Sunday at 02:00 UTC.")),
    ("user", "We're blocked on the security review of the token scopes.",
     ("blockers", "We're blocked on the security review of the token scopes.")),
    ("assistant", "That works. Decision: store the cursor per session under the git common dir.",
     ("decisions", "Store the cursor per session under the git common dir.")),
    ("assistant", "The root cause was the watcher starting before the fixture made its folder.",
     ("learnings", "The root cause was the watcher starting before the fixture made its folder.")),
    ("user", "> [decision] Pin onnxruntime below 2.0 until the ARM wheels ship.",
     ("decisions", "Pin onnxruntime below 2.0 until the ARM wheels ship.")),
    ("assistant", "▶ learned ─── git notes append makes one commit per call\nSo bursts grow the ref.\n───",
     ("learnings", "Git notes append makes one commit per call.")),
    ("assistant", ":::blocker\nBatching note writes needs a new writer API.\n:::",
     ("blockers", "Batching note writes needs a new writer API.")),
])
def test_a_statement_made_as_a_memory_is_proposed(role: str, text: str, expected: tuple[str, str]) -> None:
    assert _proposed(role, text) == [expected]


@pytest.mark.parametrize(("role", "text"), [
    ("user", "Maybe we should try hatch for builds?"),  # a question, hedged
    ("user", "Should we use Redis for the cache?"),
    ("user", "Let's try pytest-xdist for now and see."),  # temporary
    ("user", "I've finished the migration to the new layout."),  # a status update
    ("user", "All tests pass now, nice."),
    ("user", "The build is failing right now because the index times out."),
    ("assistant", "Let me check the configuration first."),  # narration
    ("assistant", "Now I understand the error handling. Here's what I changed:"),
    ("assistant", "I've capped it and added a test."),
    ("assistant", "I'll use Redis for the cache."),  # the agent's plan is not a decision
    ("user", "Decision: exit code 1 means Traceback (most recent call last) in the log."),  # an error report
    ("user", "thanks, looks good"),
    ("assistant", "```python\n# Decision: keep this\nx = 1\n```"),  # code
    ("assistant", "| Decision: | use uv |\n|---|---|"),  # a table
])
def test_what_is_not_a_memory_is_never_proposed(role: str, text: str) -> None:
    assert _proposed(role, text) == []


def test_a_statement_too_long_for_a_summary_is_cut_only_at_a_whole_clause() -> None:
    long = ("Keep the render cache in SQLite next to the search index because laptops should not need another "
            "service running in the background.")
    assert fit_summary(long) == "Keep the render cache in SQLite next to the search index."
    no_clause = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau."
    assert fit_summary(no_clause * 2) is None  # never cut mid-sentence
    proposals = propose([SessionTurn("u", "user", "Let's use " + "very " * 30 + "long names.", 1)])
    assert proposals == []


def test_the_reason_after_a_decision_goes_into_its_content() -> None:
    [p] = propose([SessionTurn("u", "user", "Let's use uv for locking. It resolves in seconds instead of minutes. "
                                             "Anyway, next topic.", 3)])
    assert p.content == "Use uv for locking. It resolves in seconds instead of minutes."
    assert p.line == 3 and p.uuid == "u"


def test_a_statement_said_twice_is_proposed_once() -> None:
    turns = [SessionTurn("a", "user", "Let's use uv for locking.", 1), SessionTurn("b", "user", "let's use uv for locking.", 5)]
    assert len(propose(turns)) == 1


def test_novelty_falls_as_the_closest_kept_memory_gets_closer() -> None:
    assert novelty_of(0.2) == 1.0 and novelty_of(1.0) == 0.0
    assert novelty_of(0.5) > novelty_of(0.7) > novelty_of(0.9)
