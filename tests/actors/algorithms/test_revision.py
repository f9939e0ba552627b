"""A statement revised without a word of change: a diagnosis revised in the same investigation, numbers moved deep
in a body (fixtures written here in the plugin's note format)."""

from __future__ import annotations

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.actors.algorithms.lexical_pairs import lexical_pairs, retraction_pairs
from memactors.events.verdict import Relation
from tests.actors.algorithms.test_clustering import memory


def _learning(summary: str, body: str, days: int = 0):
    return memory(summary, f"{summary}\n{body}", days=days, ns="learnings")


def _pairs(*memories) -> set[tuple[str, str]]:
    return {(n.key, o.key) for n, o in lexical_pairs(memories, {m.key: m.timestamp for m in memories})}


FIRST = _learning("Search index rebuild works but requires a warm cache",
                  "## Finding\n- The rebuild returns no error\n- Returns \"index empty\" until the cache is warmed")


def test_a_later_learning_naming_a_cause_replaces_the_earlier_explanation_of_the_same_thing_that_day() -> None:
    cause = _learning("Search index rebuild failure is a lock ordering bug in the indexer",
                      "## Root Cause\nThe writer takes the shard lock before the segment lock.\n\n"
                      "## Your setup is correct\n- the cache warm-up runs", days=0)
    cause = cause.model_copy(update={"timestamp": FIRST.timestamp.replace(minute=30)})
    verdict = judge_pair(cause, FIRST, 0.0)
    assert verdict.relation is Relation.SUPERSEDES and "lock ordering bug" in verdict.reason
    assert (cause.key, FIRST.key) in _pairs(FIRST, cause)
    # the same cause stated again replaces nothing: a restatement, not a revision
    again = _learning("Search index rebuild broken due to lock ordering bug", "Downgrade the indexer.", days=0)
    again = again.model_copy(update={"timestamp": FIRST.timestamp.replace(minute=45)})
    assert judge_pair(again, cause, 0.0).relation is not Relation.SUPERSEDES
    # a cause named of another thing, or weeks later, revises nothing
    other = _learning("Search results ranking failure is a stale idf table", "## Root Cause\nThe idf table is old.")
    other = other.model_copy(update={"timestamp": FIRST.timestamp.replace(minute=30)})
    assert judge_pair(other, FIRST, 0.0).relation is not Relation.SUPERSEDES
    later = _learning("Search index rebuild failure is a disk quota on the build host", "## Root Cause\nQuota.",
                      days=20)
    assert judge_pair(later, FIRST, 0.0).relation is not Relation.SUPERSEDES


OLD_LIMITS = memory("▶ progress ─────────────────────────────────────\nReleased version 2.3.1 with schema test fi...",
                    "Released version 2.3.1 with schema test fixes\n## Changes Made\n- Updated assertions in "
                    "`test_schema_dump`\n- Updated payload size tests with increased limits (400/1200/3000 vs "
                    "200/800/2000)\n\n## Related Files\n- tests/test_schema.py:40-80", days=0, ns="progress")


def test_numbers_moved_deep_in_a_body_replace_in_part_the_line_stating_the_old_values() -> None:
    new = memory("▶ progress ─────────────────────────────────────\nAdded nested field support to the schema d...",
                 "Added nested field support to the schema dumper\n## Changes Made\n- Dumped nested fields\n"
                 "- Updated payload size limits: standard 1200→1500 bytes, large 3000→3600 bytes\n\n"
                 "## Related Files\n- tests/test_schema.py:90-110", days=2, ns="progress")
    verdict = judge_pair(new, OLD_LIMITS, 0.0)
    assert verdict.relation is Relation.SUPERSEDES and verdict.partial and "1200 -> 1500" in verdict.reason
    assert (new.key, OLD_LIMITS.key) in _pairs(OLD_LIMITS, new)
    # one number moved (a version bump, a table arrow) is no evidence
    bump = memory("▶ progress ─────────────────────────────────────\nBumped the payload limit",
                  "Bumped the payload size limit 1200→1500 bytes", days=2, ns="progress")
    assert judge_pair(bump, OLD_LIMITS, 0.0).relation is not Relation.SUPERSEDES
    # the old values stated about something else: no word of what they are in common
    elsewhere = memory("Worker pool sizes", "## Sizes\n- small 1200 workers; large 3000 workers", days=1,
                       ns="progress")
    assert judge_pair(new, elsewhere, 0.0).relation is not Relation.SUPERSEDES


def test_a_retraction_replaces_the_fragment_of_the_same_session_that_said_what_it_takes_back() -> None:
    said = memory("...queue) were skipped as optional**. This means:\n**The webhook replay has...",
                  "...queue) were skipped as optional**. This means:\n\n**The webhook replay hasn't been "
                  "implemented yet** - only the signature checks were completed....", days=0, ns="progress")
    retraction = memory("To be clear about my earlier error: **I was wrong when I said Phase 4 wasn't implemen...",
                        "To be clear about my earlier error: **I was wrong when I said Phase 4 wasn't implemented.** "
                        "The webhook replay code exists and works (310 lines in `replay.py`)....", days=0,
                        ns="progress")
    retraction = retraction.model_copy(update={"timestamp": said.timestamp.replace(minute=20)})
    verdict = judge_pair(retraction, said, 0.0, statements=(True, False))
    assert verdict.relation is Relation.SUPERSEDES and "Phase 4 wasn't implemented" in verdict.reason
    first_seen = {said.key: said.timestamp, retraction.key: retraction.timestamp}
    assert [(n.key, o.key) for n, o in retraction_pairs([said, retraction], first_seen)] == [
        (retraction.key, said.key)]
    # a note saying the opposite (it was implemented) is not what the retraction takes back
    agreed = memory("Webhook replay implemented", "The webhook replay has been implemented in replay.py.", days=0,
                    ns="progress")
    assert judge_pair(retraction, agreed, 0.0).relation is not Relation.SUPERSEDES
