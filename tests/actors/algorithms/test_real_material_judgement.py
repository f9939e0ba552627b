"""The classes of wrong and missed judgements found on material nobody here wrote (a public plugin store, the
MemoryCode dialogues), each pinned on the offline judge."""

from __future__ import annotations

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.actors.algorithms.slot_change import slot_change
from memactors.events.verdict import Relation
from tests.actors.algorithms.test_clustering import memory


def _progress(summary: str, days: int, body: str = ""):
    return memory(summary, body, days=days, ns="progress")


def test_a_spec_id_reused_by_two_specs_chains_nothing() -> None:
    old = _progress("Completed specification for Multi-Domain Memories (SPEC-2025-12-25-001)", 0)
    new = _progress("Specification complete for Observability Instrumentation (SPEC-2025-12-25-001)", 1)
    assert judge_pair(new, old, 0.7).relation is not Relation.SUPERSEDES


def test_one_area_milestone_does_not_replace_another_areas() -> None:
    old = _progress("billing: milestone 4 done", 0)
    new = _progress("auth: milestone 4 done", 1)
    assert judge_pair(new, old, 0.9).relation is not Relation.SUPERSEDES
    later = _progress("billing: milestone 4 done, merged", 2)
    earlier = _progress("billing: milestone 4 started", 0)
    assert judge_pair(later, earlier, 0.9).relation is Relation.SUPERSEDES


def test_a_mapping_arrow_in_a_list_is_no_claim_of_change() -> None:
    new = memory("Multi-Domain Memories implementation complete",
                 "Markers map to domains:\n- [project] -> PROJECT\n- [global] -> USER", days=5)
    for old in (memory("Confirmed key architectural decisions for multi-domain memories",
                       "Use [project] markers for project memories.", days=0),
                memory("Adaptive token budget based on project complexity", "Budget grows with the project.", days=0)):
        assert judge_pair(new, old, 0.6).relation is not Relation.SUPERSEDES


def test_a_contrast_with_no_word_of_change_replaces_nothing() -> None:
    old = memory("Hook-based capture reads the assistant output at session end", days=0, ns="learnings")
    new = memory("The UserPromptSubmit hook runs on user prompts, not assistant output", days=3,
                 ns="learnings")
    assert judge_pair(new, old, 0.6).relation is not Relation.SUPERSEDES


def test_an_implementation_note_does_not_replace_the_decision_it_implements() -> None:
    old = memory("Store each memory domain under its own notes ref", "Approved in the spec review.", days=0)
    new = memory("Multi-domain memories implementation complete",
                 "Domains are stored under their own refs as decided; 120 tests pass.", days=9)
    assert judge_pair(new, old, 0.7).relation is not Relation.SUPERSEDES


def test_a_learning_that_explains_a_bug_does_not_replace_the_fix() -> None:
    old = memory("Fix the status command to use the project-specific index path",
                 "Call get_project_index_path in status.md.", days=0)
    new = memory("When project-specific index storage was added, commands were not updated",
                 "The commands were using get_index_path instead of get_project_index_path.", days=1,
                 ns="learnings")
    assert judge_pair(new, old, 0.7).relation is not Relation.SUPERSEDES


def test_a_new_prefix_for_the_same_names_replaces_the_old_one_unnamed() -> None:
    old = memory("Going forward, I'd like you to end all attribute names with '_at'.", days=0)
    new = memory("From now on, please end attribute names with the suffix '_xt'.", days=4)
    verdict = judge_pair(new, old, 0.8)
    assert verdict.relation is Relation.SUPERSEDES
    assert "'_at' -> '_xt'" in verdict.reason and "exclusive" in verdict.reason


def test_a_new_tool_in_the_same_role_replaces_the_old_one() -> None:
    old = memory("We use Jira as our project management tool.", days=0)
    new = memory("From now on, use Asana as the project management tool.", days=6)
    verdict = judge_pair(new, old, 0.5)
    assert verdict.relation is Relation.SUPERSEDES and "'Jira' -> 'Asana'" in verdict.reason


def test_a_rule_turned_round_replaces_the_rule() -> None:
    old = memory("Always use a virtual environment for your projects.", days=0)
    new = memory("Going forward, I need you to avoid using virtual environments in your projects.", days=2)
    verdict = judge_pair(new, old, 0.8)
    assert verdict.relation is Relation.SUPERSEDES and "turned round" in verdict.reason


def test_two_decorators_added_both_stand() -> None:
    old = memory("Always add the '@timer' decorator from the 'pedantic' module to all functions.", days=0)
    new = memory("Always add the '@retry' decorator from the 'pedantic' module to all methods.", days=3)
    assert judge_pair(new, old, 0.9).relation is Relation.COMPATIBLE
    same_target = memory("Always add the '@retry' decorator from the 'pedantic' module to all functions.", days=3)
    assert judge_pair(same_target, old, 0.95).relation is Relation.COMPATIBLE


def test_names_of_different_things_with_one_suffix_are_not_one_statement() -> None:
    old = memory("Always end function argument names with '_x'.", days=0)
    new = memory("Always end function names with '_x'.", days=3)
    assert judge_pair(new, old, 0.94).relation is Relation.COMPATIBLE
    assert slot_change("Always end function names with '_y'.", "Always end function argument names with '_x'.") \
        is None


def test_two_instructions_given_in_one_turn_are_two_memories() -> None:
    turn = ("Now, some conventions. Start method names with 'md_'. "
            "Also add the '@validate' decorator from the 'pedantic' module to all your functions.")
    old = memory("Start method names with 'md_'.", turn, days=0)
    new = memory("Also add the '@validate' decorator from the 'pedantic' module to all your functions.", turn,
                 days=0)
    assert judge_pair(new, old, 0.96).relation is Relation.COMPATIBLE


def test_a_tool_used_as_well_or_somewhere_else_replaces_nothing() -> None:
    for old, new in (("Use pytest for testing", "We also use Hypothesis for testing"),
                     ("Use uv for dependency management", "Use Poetry for dependency management in the legacy service"),
                     ("Use GitHub Actions as the CI provider", "Use CircleCI as the CI provider for the iOS app"),
                     ("Use structlog for logging", "Use structlog with JSON output for logging")):
        assert judge_pair(memory(new, days=3), memory(old, days=0), 0.8).relation is not Relation.SUPERSEDES, new


def test_a_setting_name_is_the_slot_and_its_number_the_value() -> None:
    old = memory("Set the default `max_connections` to 100", days=0)
    assert judge_pair(memory("Set the default `pool_size` to 100", days=3), old, 0.8).relation is not Relation.SUPERSEDES
    verdict = judge_pair(memory("Set the default `max_connections` to 200", days=3), old, 0.8)
    assert verdict.relation is Relation.SUPERSEDES and "100" in verdict.reason and "200" in verdict.reason
    assert slot_change("Set `max_connections` to 200", "Set `max_connections` to 100") is not None


def test_a_fix_never_replaces_a_decision_and_a_fixed_size_is_no_fix() -> None:
    decision = memory("Don't use mocks for database tests", days=0)
    fix = memory("Fixed flaky database tests by removing mocks", days=3, ns="learnings")
    assert judge_pair(fix, decision, 0.8).relation is not Relation.SUPERSEDES
    problem = memory("Upload of large files fails with timeouts", days=0, ns="learnings")
    chunked = memory("Uploads of large files use a fixed 5MB chunk size", days=3, ns="learnings")
    assert judge_pair(chunked, problem, 0.8).relation is not Relation.SUPERSEDES
    blocker = memory("Hooks collect metrics but don't push them to OTLP", days=0, ns="blockers")
    fixed = memory("Fixed hook metrics not pushing to OTLP", days=1, ns="progress")
    assert judge_pair(fixed, blocker, 0.8).relation is Relation.SUPERSEDES


def test_bare_task_notes_still_chain() -> None:
    assert judge_pair(_progress("Task 2.1 complete", 1), _progress("Task 2.1 in progress", 0), 0.9).relation \
        is Relation.SUPERSEDES


def test_hostile_whitespace_is_refused_not_backtracked() -> None:
    """A long run of spaces once made the reason pattern backtrack for minutes; a sentence this long is no slot."""
    from memactors.actors.algorithms.slot_change import slot_of

    assert slot_of("Use x" + " " * 2000 + "y") is None
    assert slot_of("Use x for builds" + ", so that" * 20 + " a") is not None  # short enough: read, reason cut

