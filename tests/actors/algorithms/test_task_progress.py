"""A progress note replaces an earlier one only on the same task, at the same or a later state."""

from __future__ import annotations

from memactors.actors.algorithms.task_progress import later_state, state_of, task_of


def test_a_later_state_of_the_same_task_replaces_the_earlier_note() -> None:
    assert later_state("Completed Task 2.1: the FTS5 index serves recall",
                       "Started Task 2.1: add the FTS5 index to the recall path") == "task 2.1"
    assert later_state("Phase 3 done: every hook answers in under 100 ms", "Started Phase 3: hook latency") \
        == "phase 3"


def test_notes_on_other_tasks_replace_nothing_whatever_their_words() -> None:
    assert later_state("Completed Task 2.3: added proactive memory search guidance",
                       "Completed Task 2.2: RecallService is instrumented") is None
    assert later_state("Ready to begin implementation with Task 5.1", "Completed all Phase 2 tasks") is None


def test_an_earlier_state_never_replaces_a_later_one() -> None:
    assert later_state("Started Task 2.1 again", "Completed Task 2.1") is None
    assert task_of("Fix PROJ-12 flaky test") == "proj-12" and state_of("Working on #42") == 1
