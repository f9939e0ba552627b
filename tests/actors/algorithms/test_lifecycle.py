"""The same piece of work recorded at a later stage replaces the note that tracked it at an earlier one: specs,
pull requests, counters, task rows, what remained (fixtures written here in the plugin's note format)."""

from __future__ import annotations

from datetime import timedelta

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.actors.algorithms.lexical_pairs import stage_pairs
from memactors.actors.algorithms.lifecycle import later_stage
from memactors.events.verdict import Relation
from tests.actors.algorithms.test_clustering import memory

SPEC = "docs/spec/active/2026-03-02-rate-limiter"


def _progress(summary: str, body: str, days: int):
    return memory(summary, f"{summary}\n{body}", days=days, ns="progress")


def _spec_written(days: int = 0):
    return _progress("Completed specification for GitHub Issue #41 rate limiter",
                     "## Summary\nWrote the rate limiter spec.\n\n## Changes Made\n- Wrote IMPLEMENTATION_PLAN.md with "
                     "3 phases, 11 tasks\n- Updated status to `in-review`\n\n## Related Files\n"
                     f"- {SPEC}/README.md\n- {SPEC}/IMPLEMENTATION_PLAN.md", days)


def test_a_spec_approved_after_review_replaces_the_note_that_left_it_in_review() -> None:
    old = _spec_written()
    new = memory("Approved specification for \"Rate Limiter\"",
                 "Approved specification for \"Rate Limiter\"\n## Summary\nThe spec for GitHub Issue #41 has been "
                 f"approved for implementation.\n\n## Related Files\n- {SPEC}/README.md:5 (status updated)", days=1)
    verdict = judge_pair(new, old, 0.0)
    assert verdict.relation is Relation.SUPERSEDES and "in review -> approved" in verdict.reason
    # another spec that only mentions the issue replaces nothing
    other = memory("Approved spec SPEC-2026-03-05-001 for implementation",
                   "Approved for implementation; reuses the retry helper from Issue #41.\n\n## Related Files\n"
                   "- docs/spec/active/2026-03-05-queue-backpressure/README.md", days=3)
    assert judge_pair(other, old, 0.0).relation is not Relation.SUPERSEDES


def test_the_approval_decision_is_carried_out_not_replaced_when_the_spec_completes() -> None:
    decision = memory("Approved specification for \"Rate Limiter\"",
                      f"Approved for implementation.\n\n## Related Files\n- {SPEC}/README.md", days=1)
    closed = _progress("Closed out the rate limiter spec",
                       f"Moved to docs/spec/completed.\nstatus: completed\n- {SPEC}/README.md", days=5)
    assert judge_pair(closed, decision, 0.0).relation is not Relation.SUPERSEDES
    assert judge_pair(closed, _spec_written(), 0.0).relation is Relation.SUPERSEDES


def test_front_matter_cut_from_a_spec_readme_is_replaced_by_a_later_stage_of_it() -> None:
    old = memory("...rate-limiter", "...rate-limiter\nstatus: approved\ncreated: 2026-03-02T09:10:00Z\n"
                 "approved: 2026-03-02T11:00:00Z\nstarted: null\ncompleted: null\ntags: [api,...", days=0,
                 ns="progress")
    new = memory("...2026-03-02-001", "...2026-03-02-001\nslug: rate-limiter\nstatus: completed\n"
                 "created: 2026-03-02T09:10:00Z\napproved: 2026-03-02T11:00:00Z\nstarted: 2026-03-02T12:00:00Z\n"
                 "completed...", days=2, ns="progress")
    verdict = judge_pair(new, old, 0.0, statements=(False, False))
    assert verdict.relation is Relation.SUPERSEDES and "approved -> completed" in verdict.reason
    # another spec's front matter, created another minute, is another document
    other = memory("...2026-03-04-001", new.body.replace("rate-limiter", "queue-backpressure").replace(
        "2026-03-02T09:10", "2026-03-04T08:00"), days=3, ns="progress")
    assert judge_pair(other, old, 0.0, statements=(False, False)).relation is not Relation.SUPERSEDES
    # two specs created the same minute share their expiry, which names neither
    old = memory("...rate-limiter", "...rate-limiter\nstatus: in-review\ncreated: 2026-03-02T09:10:00Z\n"
                 "approved: null\nexpires: 2026-06-02T09:10:00Z", days=0, ns="progress")
    new = memory("...2026-03-02T10:00:00Z", "...2026-03-02T10:00:00Z\nstarted: 2026-03-02T12:00:00Z\n"
                 "completed: 2026-03-03T08:00:00Z\nexpires: 2026-06-02T09:10:00Z", days=2, ns="progress")
    assert later_stage(f"{new.summary}\n{new.body}", f"{old.summary}\n{old.body}") is None
    # the expiry with the same tags names the one spec
    tagged_old = memory(old.summary, f"{old.body}\ntags: [api, limits,...", days=0, ns="progress")
    tagged_new = memory(new.summary, f"{new.body}\ntags: [api, limits,...", days=2, ns="progress")
    assert judge_pair(tagged_new, tagged_old, 0.0, statements=(False, False)).relation is Relation.SUPERSEDES


def test_a_plan_given_another_size_replaces_the_note_of_the_old_size() -> None:
    new = _progress("Completed specification updates for burst handling",
                    f"## Changes Made\n- README.md: Updated metrics (4 phases, 15 tasks)\n\n## Related Files\n"
                    f"- {SPEC}/IMPLEMENTATION_PLAN.md", 2)
    verdict = judge_pair(new, _spec_written(), 0.0)
    assert verdict.relation is Relation.SUPERSEDES and "3 phases, 11 tasks -> 4 phases, 15 tasks" in verdict.reason
    added = _progress("Updated specification with burst handling",
                      "## Changes Made\n- Added Phase 3: Burst Handling to IMPLEMENTATION_PLAN.md (3 new tasks)\n"
                      f"- Renumbered Phase 3 (Tests) to Phase 4\n\n## Related Files\n- {SPEC}/README.md", 2)
    verdict = judge_pair(added, _spec_written(), 0.0)
    assert verdict.relation is Relation.SUPERSEDES and "phase 4 added to its 3 phases" in verdict.reason
    # a phase completed is no phase added
    done = _progress("Completed Phase 3 of the rate limiter", f"All tasks done.\n- {SPEC}/PROGRESS.md", 4)
    assert judge_pair(done, _spec_written(), 0.0).relation is not Relation.SUPERSEDES


def test_a_pull_request_merged_replaces_the_note_that_opened_it() -> None:
    old = _progress("Fixed the changelog links", "## Changes Made\n- Fixed the links\n- Created PR #57 targeting "
                    "main", 0)
    new = _progress("Released the changelog link fix", "## Summary\nSynced main after PR #57 merge.", 1)
    assert judge_pair(new, old, 0.5).relation is Relation.SUPERSEDES
    other = _progress("Released the docs fix", "## Summary\nSynced main after PR #58 merge.", 1)
    assert judge_pair(other, old, 0.5).relation is not Relation.SUPERSEDES
    # a fragment that is no record (front matter, counter, task row) still takes no part
    old = memory("...the limiter keeps", "...the limiter keeps state per key, see PR #57 opened...", days=0)
    new = _progress("Released the limiter", "## Summary\nSynced main after PR #57 merge.", 1)
    assert judge_pair(new, old, 0.0, statements=(True, False)).relation is not Relation.SUPERSEDES


def test_a_counter_of_the_same_total_moved_on_replaces_the_earlier_count() -> None:
    old = memory("...phases", "...phases\n\n### Session 2\n\n**Tasks Completed: 12/90 (13%)**\n\n#### Phase 1...",
                 days=0, ns="progress")
    new = memory("...tasks)", "...tasks)\n\n### Session 4\n\n**Tasks Completed: 71/90 (79%)**\n\n#### Phase 3...",
                 days=1, ns="progress")
    verdict = judge_pair(new, old, 0.0, statements=(False, False))
    assert verdict.relation is Relation.SUPERSEDES and "12/90 -> 71/90" in verdict.reason
    assert judge_pair(old, new, 0.0, statements=(False, False)).relation is not Relation.SUPERSEDES
    other_total = memory("...tasks)", new.body.replace("/90", "/40"), days=1, ns="progress")
    assert judge_pair(other_total, old, 0.0, statements=(False, False)).relation is not Relation.SUPERSEDES


def test_a_task_table_row_at_a_later_status_replaces_the_earlier_row() -> None:
    old = memory("...retry budget | pending | | |",
                 "...retry budget | pending | | |\n| 4.2 | Add jitter to the backoff | pending | | |\n| 4.3...",
                 days=0, ns="patterns")
    new = memory("...retry budget | done | 2026-03-03 |",
                 "...retry budget | done | 2026-03-03 |\n| 4.2 | Add jitter to the backoff | done | 2026-03-03 |\n"
                 "| 4.3...", days=1, ns="patterns")
    assert judge_pair(new, old, 0.0, statements=(False, False)).relation is Relation.SUPERSEDES
    assert judge_pair(old, new, 0.0, statements=(False, False)).relation is not Relation.SUPERSEDES


def test_all_of_what_remained_done_replaces_the_list_of_it_in_part_or_whole() -> None:
    old = _progress("Completed ALL CRITICAL review findings (9 total)",
                    "## Summary\n- CRIT: 9/9 complete\n\n## Remaining\n- 17 MEDIUM priority findings\n"
                    "- 6 LOW priority findings", 0)
    some = _progress("Completed all 17 MEDIUM priority findings", "## Summary\nAll MEDIUM findings are resolved.", 1)
    every = _progress("Finished the review remediation - all 32 findings resolved", "## Summary\nDone.", 2)
    part = judge_pair(some, old, 0.6)
    assert part.relation is Relation.SUPERSEDES and part.partial
    whole = judge_pair(every, old, 0.6)
    assert whole.relation is Relation.SUPERSEDES and not whole.partial
    unrelated = _progress("Completed all database migrations", "## Summary\nAll migrations applied.", 2)
    assert judge_pair(unrelated, old, 0.6).relation is not Relation.SUPERSEDES


def test_the_later_stage_is_paired_however_many_notes_name_the_spec_between() -> None:
    old = _spec_written(0)
    between = [_progress(f"Researched rate limiter option {i}", f"Notes.\n- {SPEC}/RESEARCH.md", 1) for i in range(20)]
    between = [m.model_copy(update={"timestamp": old.timestamp + timedelta(hours=i + 1)}) for i, m in
               enumerate(between)]
    new = memory("Approved specification for \"Rate Limiter\"",
                 f"Approved for implementation.\n\n## Related Files\n- {SPEC}/README.md", days=3)
    everyone = [old, *between, new]
    first_seen = {m.key: m.timestamp for m in everyone}
    assert (new.key, old.key) in {(n.key, o.key) for n, o in stage_pairs(everyone, first_seen)}
