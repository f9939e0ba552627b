"""A new value for the same slot said in other words than the old one: a pronoun, a lead-in, a trailing remark,
a role said more or less fully (actors/algorithms/slot_change.py), each pinned with its precision guard."""

from __future__ import annotations

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.actors.algorithms.slot_change import frame_keys, slot_change, statement
from memactors.events.verdict import Relation
from tests.actors.algorithms.test_clustering import memory


def test_a_pronoun_takes_its_subject_from_the_sentence_before() -> None:
    old = memory("Always prefix constant names with 'k_'.", days=0)
    new = memory("Prefix them with 'c_' instead.",
                 "We have a new rule for constant names. Prefix them with 'c_' instead.", days=3)
    verdict = judge_pair(new, old, 0.5)
    assert verdict.relation is Relation.SUPERSEDES and "'k_' -> 'c_'" in verdict.reason
    other = memory("Prefix them with 'c_' instead.",
                   "We have a new rule for class names. Prefix them with 'c_' instead.", days=3)
    assert judge_pair(other, old, 0.5).relation is not Relation.SUPERSEDES
    said = "Prefix them with 'c_' instead."  # no subject in the sentence before: read as it is
    assert statement(said, "Good morning! " + said) == said
    assert statement(said, said) == said


def test_a_lead_in_before_the_instruction_is_not_the_slot() -> None:
    old = "Always start private method names with '_p'."
    new = "It matters that the code base reads the same everywhere, so from now on start private method names with '_x'."
    change = slot_change(new, old)
    assert change is not None and "'_p' -> '_x'" in change.reason()
    # a lead-in naming a value of its own is part of what is said
    assert slot_change("We used '_p' for years, but start method names with '_x'.",
                       "Always start private method names with '_p'.") is None


def test_a_remark_after_the_value_is_not_the_slot() -> None:
    change = slot_change("From now on, end all constant names with '_c', regardless of their type.",
                         "End all constant names with '_k'.")
    assert change is not None and "'_k' -> '_c'" in change.reason()


def test_a_role_said_more_fully_is_the_same_role() -> None:
    old = "We use Sentry for error reports."
    new = "Going forward, use Rollbar for error reports and alerts."
    change = slot_change(new, old)
    assert change is not None and "'Sentry' -> 'Rollbar'" in change.reason()
    assert set(frame_keys(new, "")) & set(frame_keys(old, ""))  # paired for the judge without an embedding
    # one word in common is not one role, nor is the same role in another place
    assert slot_change("Going forward, use Rollbar for error alerts.", "We use Sentry for error reports.") is None
    assert slot_change("Going forward, use Rollbar for error reports in the billing service.", old) is None


def test_a_tool_named_as_the_carrier_of_a_role_is_that_role() -> None:
    change = slot_change("From now on, Loki is our main platform for log search.", "Use Kibana for log search.")
    assert change is None  # no verb of use: not read as a role
    change = slot_change("From now on, use Loki as our main platform for log search.", "Use Kibana for log search.")
    assert change is not None and "'Kibana' -> 'Loki'" in change.reason()


def test_a_value_that_only_announces_one_is_no_value() -> None:
    assert slot_change("From now on, use a specific format for your test names.",
                       "Always use snake_case for your test names.") is None
