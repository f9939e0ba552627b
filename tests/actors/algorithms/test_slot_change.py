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


def test_an_opener_is_not_the_slot() -> None:
    change = slot_change("To that end, start all test names with 'check_'.", "Start all test names with 'it_'.")
    assert change is not None and "'it_' -> 'check_'" in change.reason()  # "end" of "to that end" is no slot


def test_the_old_value_named_in_a_lead_in_leaves_the_new_one_its_slot() -> None:
    old = "Start all test names with 'it_'."
    change = slot_change("We've used 'it_' for years, but from now on start all test names with 'check_'.", old)
    assert change is not None and "'it_' -> 'check_'" in change.reason()
    # without a word of change the lead-in's value stays part of what is said
    assert slot_change("We've used 'it_' for years, but start all test names with 'check_'.", old) is None


def test_a_tool_set_up_or_switched_to_for_a_role_fills_it() -> None:
    old = "Use PyCharm as your main editor."
    for new in ("From now on, I'd like to get you set up with Helix as your main editor.",
                "Going forward, we'll be transitioning to Zed as our main editor."):
        change = slot_change(new, old)
        assert change is not None and "'PyCharm' -> " in change.reason()


def test_a_scope_word_in_a_role_is_not_the_role() -> None:
    change = slot_change("Going forward, use a ThinkPad as your primary work laptop.", "Use a Dell as your main laptop.")
    assert change is not None and "'a Dell' -> 'a ThinkPad'" in change.reason()


def test_a_count_in_words_is_a_value() -> None:
    change = slot_change("From now on, deploy to production no more than once a week.",
                         "Deploy to production no more than twice a week.")
    assert change is not None and "'twice' -> 'once'" in change.reason()
    assert slot_change("One of our rules: deploy to production on Fridays.",
                       "Two of our rules: deploy to production on Fridays.") is None


def test_a_rule_turned_round_with_a_little_more_of_where_it_applies() -> None:
    change = slot_change("From now on, always run a profiler on your Python services.", "Never run a profiler.")
    assert change is not None and "turned round" in change.reason()
    assert set(frame_keys("From now on, always run a profiler on your Python services.", "")) \
        & set(frame_keys("Never run a profiler.", ""))  # paired for the judge
    # a rule about something else that shares a word is not turned round
    assert slot_change("From now on, always run the test suite before a release.", "Never run a profiler.") is None


def test_a_measured_number_needs_only_one_word_of_frame() -> None:
    change = slot_change("Going forward, aim for a standup every 20 minutes.", "Take a standup every 15 minutes.")
    assert change is not None and "'15 minutes' -> '20 minutes'" in change.reason()
    assert slot_change("Going forward, aim for a standup every 20.", "Take a standup every 15.") is None


def test_a_role_named_in_a_lead_in_is_the_new_tools_role() -> None:
    old = "Use Sentry for error reports."
    change = slot_change("We've used Sentry for error reports, but from now on, switch to Rollbar.", old)
    assert change is not None and "'Sentry' -> 'Rollbar'" in change.reason()
    # not said as a change: the lead-in is history, nothing new fills the role
    assert slot_change("We've used Sentry for error reports, and Rollbar is nice.", old) is None


def test_a_question_in_quotes_states_no_slot() -> None:
    assert slot_change("We've used Rollbar for error reports, but going forward, switch to Sentry.",
                       'Have you ever used Rollbar for error reports?"') is None


def test_an_acronym_is_the_role_it_stands_for() -> None:
    old = "Use Datadog as our main application performance monitoring (APM)."
    change = slot_change("From now on, use Grafana as our main APM.", old)
    assert change is not None and "'Datadog' -> 'Grafana'" in change.reason()
    assert set(frame_keys("From now on, use Grafana as our main APM.", "")) & set(frame_keys(old, ""))
    # two roles of many words with the same first letters are not one role
    assert slot_change("From now on, use GitHub for version control.", "Use Zoom for video calls.") is None
