"""A problem reported fixed ends what stood on it: the standing problem, and a decision held only until the fix;
the fix is paired with the problem however many notes share its words (fixtures written here)."""

from __future__ import annotations

from datetime import timedelta

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.actors.algorithms.lexical_pairs import lexical_pairs
from memactors.events.verdict import Relation
from tests.actors.algorithms.test_clustering import memory


def test_a_decision_held_until_a_fix_is_replaced_by_the_fix_and_no_other_decision_is() -> None:
    decision = memory("Keep the polling sync until the webhook relay is fixed",
                      "## Rationale\n- The webhook relay drops events since the proxy upgrade", days=0)
    fix = memory("Webhook relay is now working - proxy header bug resolved", days=2, ns="progress")
    verdict = judge_pair(fix, decision, 0.5)
    assert verdict.relation is Relation.SUPERSEDES and "webhook" in verdict.reason
    # with no condition, or waiting on something else, the decision stands
    for summary in ("Keep the polling sync for the billing export",
                    "Keep the polling sync until the queue consumer is fixed"):
        assert judge_pair(fix, memory(summary, days=0), 0.5).relation is not Relation.SUPERSEDES, summary


def test_a_fix_is_paired_with_its_problem_past_many_notes_sharing_its_rarest_word() -> None:
    problem = memory("Nightly export blocked: exporter crashes on empty shards", days=0, ns="blockers")
    # later notes that hold every rare word of the fix but state no problem
    chatter = [memory(f"Exporter shard layout note {i}", "The exporter crash log, fixed at night, lists empty shards.",
                      days=1, ns="learnings") for i in range(15)]
    chatter = [m.model_copy(update={"timestamp": m.timestamp + timedelta(minutes=i)}) for i, m in enumerate(chatter)]
    fix = memory("Fixed exporter crash on empty shards", days=2, ns="progress")
    everyone = [problem, *chatter, fix]
    pairs = {(n.key, o.key) for n, o in lexical_pairs(everyone, {m.key: m.timestamp for m in everyone})}
    assert (fix.key, problem.key) in pairs
    assert judge_pair(fix, problem, 0.0).relation is Relation.SUPERSEDES


def test_a_behaviour_learned_is_ended_by_a_fix_made_not_by_a_thing_found_working() -> None:
    learned = memory("The collector's scrape exporter doesn't keep pushed samples", days=0, ns="learnings")
    working = memory("Verified the push to collector to scrape exporter pipeline is working", days=1, ns="progress")
    assert judge_pair(working, learned, 0.7).relation is not Relation.SUPERSEDES
    fixed = memory("Fixed the scrape exporter dropping pushed samples: collector keeps them now", days=2,
                   ns="progress")
    assert judge_pair(fixed, learned, 0.7).relation is Relation.SUPERSEDES


def test_a_problem_is_ended_by_the_first_fix_a_later_fix_of_the_area_is_not_paired_with_it() -> None:
    blocker = memory("Workers collect traces but don't flush them to the exporter", days=0, ns="blockers")
    first = memory("Fixed worker traces not flushing to the exporter", days=1, ns="progress")
    later = memory("Fixed exporter batching of worker traces for short-lived jobs", days=3, ns="progress")
    everyone = [blocker, first, later]
    pairs = {(n.key, o.key) for n, o in lexical_pairs(everyone, {m.key: m.timestamp for m in everyone})}
    assert (first.key, blocker.key) in pairs and (later.key, blocker.key) not in pairs


def test_a_blocker_is_ended_by_a_fix_told_in_a_later_body_naming_what_it_is_about() -> None:
    blocker = memory("Schema registry cache is stale - v3 vs service v9",
                     "## Summary\nThe `/schema:pull` command fails because the registry cache holds v3.", days=0,
                     ns="blockers")
    note = memory("▶ progress ─────────────────────────────────────\nLocal registry install verified and pull ...",
                  "Local registry install verified and pull command executed\n## Summary\nInstalled the registry "
                  "from the local mirror. The schema registry cache layout was resolved with a `./../` source "
                  "path.\n\n## Changes Made\n- Fixed mirror.json source path", days=1, ns="progress")
    verdict = judge_pair(note, blocker, 0.0)
    assert verdict.relation is Relation.SUPERSEDES and "schema, registry, cache" in verdict.reason
    assert (note.key, blocker.key) in {(n.key, o.key) for n, o in lexical_pairs(
        [blocker, note], {blocker.key: blocker.timestamp, note.key: note.timestamp})}
    # a fix wondered about ("to verify if ... is resolved") tells nothing
    wondered = memory("Registry pull tested", "Testing the pull to verify if the schema registry cache is resolved.",
                      days=1, ns="learnings")
    assert judge_pair(wondered, blocker, 0.0).relation is not Relation.SUPERSEDES


def test_a_learning_captured_with_its_fix_is_its_lesson_not_a_problem_the_fix_ended() -> None:
    from datetime import timedelta

    learned = memory("Stale socket file blocking the metrics sidecar", ns="learnings", days=1)
    fix = memory("Fixed the metrics sidecar - stale socket file removed on start", ns="progress", days=1)

    def at(m, seconds: float):
        return m.model_copy(update={"timestamp": learned.timestamp + timedelta(seconds=seconds)})

    assert judge_pair(at(fix, 2), learned, 0.6).relation is not Relation.SUPERSEDES
    assert judge_pair(at(fix, 20 * 60), learned, 0.6).relation is Relation.SUPERSEDES
    blocker = learned.model_copy(update={"namespace": "blockers"})  # a blocker saved with its fix is still ended
    assert judge_pair(at(fix, 2), blocker, 0.6).relation is Relation.SUPERSEDES
