"""Link discovery on memories written the way captures are: evidence, not vocabulary, makes a link."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import numpy as np

from memactors.actors.algorithms.link_discovery import FILE_ALONE_HOLDERS, MAX_PER_MEMORY, Candidate, discover_links
from memactors.events.edge import EdgeType

DAY0 = datetime(2026, 10, 1, tzinfo=timezone.utc)


def _c(key: str, namespace: str, day: int, summary: str, body: str = "", commit: str = "", tags=()) -> Candidate:
    return Candidate(key, namespace, DAY0 + timedelta(days=day), summary, f"{summary}\n{body}", commit, tags)


FILLER = [_c(f"f{i}", "learnings", i, f"Filler memory {i} about the project", f"Nothing about topic {i} here at all.")
          for i in range(12)]

POOL = _c("pool", "decisions", 1, "Put pgbouncer in front of PostgreSQL in transaction pooling mode",
          "## Decision\npgbouncer with pool_mode=transaction between the API and PostgreSQL connections.")
PREPARED = _c("prepared", "learnings", 5, "asyncpg prepared statements break behind pgbouncer transaction pooling",
              "## Learning\nWith pgbouncer in transaction mode a prepared statement lands on another connection: "
              "set statement_cache_size=0.")
ROLLOUT = _c("rollout", "progress", 6, "checkout_v2 enabled for 10% of users with an Unleash gradual rollout",
             "## Summary\nUnleash gradual rollout of checkout_v2 at 10%.")
FLAGS = _c("flags", "decisions", 2, "Feature flags live in Unleash; the checkout redesign ships behind checkout_v2",
           "## Decision\nUnleash for every flag; gradual rollout of the new checkout behind checkout_v2.")


def _keys(links) -> set[frozenset[str]]:
    return {frozenset((k.source, k.target)) for k in links}


def test_memories_sharing_rare_names_are_linked_with_the_words_as_reason() -> None:
    links = discover_links([POOL, PREPARED, *FILLER])
    assert _keys(links) == {frozenset(("pool", "prepared"))}
    [link] = links
    assert link.source == "prepared" and link.target == "pool"  # the newer points at what it builds on
    assert link.reason.startswith("shares rare words: ") and "pgbouncer" in link.reason and 0 < link.weight <= 1


def test_words_every_memory_holds_link_nothing() -> None:
    common = [_c(f"c{i}", "decisions", i, f"Use the project database for feature {i}",
                 "The project database and the API server handle this feature.") for i in range(20)]
    assert discover_links(common) == []


def test_a_progress_note_implements_the_decision_it_carries_out() -> None:
    [link] = discover_links([FLAGS, ROLLOUT, *FILLER])
    assert (link.source, link.target, link.edge_type) == ("rollout", "flags", EdgeType.IMPLEMENTS)


def test_a_newer_memory_that_says_it_needs_the_older_depends_on_it() -> None:
    storage = _c("s3", "decisions", 1, "Store product images in the product-images bucket on object storage",
                 "Uploads go to the product-images bucket; MinIO stands in for S3 locally.")
    cdn = _c("cdn", "decisions", 8, "Serve product thumbnails through CloudFront from the product-images bucket",
             "CloudFront in front of the product-images bucket. Needs the images in object storage first.")
    [link] = discover_links([storage, cdn, *FILLER])
    assert (link.source, link.target, link.edge_type) == ("cdn", "s3", EdgeType.DEPENDS_ON)


def test_pairs_already_related_or_unlinked_by_the_user_are_skipped() -> None:
    assert discover_links([POOL, PREPARED, *FILLER], excluded=[frozenset(("pool", "prepared"))]) == []


def test_a_pair_unlike_in_meaning_is_not_linked_whatever_it_shares() -> None:
    vectors = np.zeros((2 + len(FILLER), 4), dtype=np.float32)
    vectors[:, 0] = 1.0
    alike = discover_links([POOL, PREPARED, *FILLER], vectors=vectors * np.float32(0.7))  # cosine 0.49
    vectors[1] = (0.0, 1.0, 0.0, 0.0)  # orthogonal to the decision
    unlike = discover_links([POOL, PREPARED, *FILLER], vectors=vectors)
    assert _keys(alike) == {frozenset(("pool", "prepared"))} and unlike == []


def test_the_same_statement_captured_twice_is_no_link() -> None:
    block = _c("block", "decisions", 3, "▶ decision ─── Put pgbouncer in front of PostgreSQL in transaction pooling",
               "Put pgbouncer in front of PostgreSQL in transaction pooling mode.\npool_mode=transaction")
    assert discover_links([POOL, block, *FILLER]) == []


def test_two_memories_of_one_piece_of_work_are_linked_by_the_file_they_touch() -> None:
    handler = _c("handler", "progress", 4, "Webhook handler records processed event ids",
                 "The handler inserts the event id first.", commit="c1")
    review = _c("review", "learnings", 4, "Signature checks must read the raw request body",
                "Parsing the JSON first changes the bytes that were signed.", commit="c2")
    files = {"c1": ["app/payments/webhooks.py"], "c2": ["app/payments/webhooks.py"]}
    [link] = discover_links([handler, review, *FILLER], commit_files=files, repo_files=["app/payments/webhooks.py"])
    assert "app/payments/webhooks.py" in link.reason
    busy = {"c1": ["README.md"] + [f"app/m{i}.py" for i in range(45)], "c2": ["README.md"]}
    assert discover_links([handler, review, *FILLER], commit_files=busy, repo_files=["README.md"]) == []


def test_a_file_touched_by_work_of_different_sessions_ties_nothing_by_itself() -> None:
    # on a real store, two changes to one busy module weeks apart were unrelated 11 times in 12
    handler = _c("handler", "progress", 4, "Webhook handler records processed event ids",
                 "The handler inserts the event id first.", commit="c1")
    review = _c("review", "learnings", 9, "Signature checks must read the raw request body",
                "Parsing the JSON first changes the bytes that were signed.", commit="c2")
    files = {"c1": ["app/payments/webhooks.py"], "c2": ["app/payments/webhooks.py"]}
    assert discover_links([handler, review, *FILLER], commit_files=files,
                          repo_files=["app/payments/webhooks.py"]) == []


def test_progress_written_before_a_decision_does_not_implement_it() -> None:
    drafted = _c("drafted", "progress", 1, "Drafted the Unleash feature flag spec for checkout_v2",
                 "Spec for Unleash flags; gradual rollout of checkout_v2.")
    [link] = discover_links([drafted, FLAGS, *FILLER])
    assert link.edge_type == EdgeType.RELATES_TO


def test_a_need_for_something_the_older_does_not_name_is_no_dependency() -> None:
    storage = _c("s3", "decisions", 1, "Store product images in the product-images bucket on object storage",
                 "Uploads go to the product-images bucket; MinIO stands in for S3 locally.")
    cdn = _c("cdn", "decisions", 8, "Serve product thumbnails through CloudFront from the product-images bucket",
             "CloudFront in front of the product-images bucket. Requires a TLS certificate in us-east-1.")
    [link] = discover_links([storage, cdn, *FILLER])
    assert link.edge_type == EdgeType.RELATES_TO


def test_each_memory_keeps_only_its_strongest_links() -> None:
    hub = _c("hub", "decisions", 0, "Route jobs with edge_router, spool_queue and warm_cache",
             "edge_router feeds spool_queue; warm_cache sits behind both.")
    spokes = [_c(f"s{i}", "learnings", i + 1, f"Lesson {i} of the job path",
                 f"edge_router, spool_queue and warm_cache misbehaved in incident {i}.") for i in range(MAX_PER_MEMORY + 3)]
    many = [_c(f"m{i}", "learnings", i, f"Unrelated note {i}", f"Topic {i} only.") for i in range(80)]
    links = discover_links([hub, *spokes, *many])
    assert sum("hub" in (k.source, k.target) for k in links) == MAX_PER_MEMORY


SPEC_A = ("Task 2.3 of SPEC-2025-12-25-001 done: phase 2 tests pass",
          "## Summary\nSPEC-2025-12-25-001 phase 2, task 2.3 complete; PROGRESS.md updated, implementation_plan.md ticked.")
SPEC_B = ("Task 2.3 of SPEC-2025-12-25-001 done: phase 2 docs written",
          "## Summary\nSPEC-2025-12-25-001 phase 2, task 2.3 complete; PROGRESS.md updated, implementation_plan.md ticked.")


def test_two_progress_notes_on_different_commits_sharing_a_work_stream_label_are_not_linked() -> None:
    # a spec id, a phase and a task number reused across specs tie progress notes of different work
    first = _c("a", "progress", 1, *SPEC_A, commit="c1")
    second = _c("b", "progress", 9, *SPEC_B, commit="c2")
    assert discover_links([first, second, *FILLER]) == []


def test_two_progress_notes_on_one_commit_sharing_the_words_are_linked() -> None:
    first = _c("a", "progress", 1, *SPEC_A, commit="c1")
    second = _c("b", "progress", 1, *SPEC_B, commit="c1")
    assert _keys(discover_links([first, second, *FILLER])) == {frozenset(("a", "b"))}


def test_a_memory_that_only_narrates_or_leads_in_is_linked_to_nothing() -> None:
    # a transcript window ("I'll continue ...", "... Let me update the command:") shares its neighbour's words
    stated = _c("stated", "learnings", 5, "asyncpg prepared statements break behind pgbouncer transaction pooling",
                "With pgbouncer in transaction mode a prepared statement lands on another connection.")
    narrating = [
        _c("resume", "progress", 5, "I'll continue from where we left off with pgbouncer transaction pooling",
           "I was checking asyncpg prepared statements behind pgbouncer."),
        _c("next", "progress", 5, "Checkout workers lost connections behind pgbouncer",
           "asyncpg prepared statements failed in transaction mode. Let me update the pool settings:"),
        _c("lead", "progress", 5, "You're right. pgbouncer transaction pooling shipped with:",
           "asyncpg prepared statements broken behind it."),
    ]
    for memory in narrating:
        assert discover_links([stated, memory, *FILLER]) == [], memory.key
    said = _c("said", "progress", 5, "Turned off the asyncpg statement cache behind pgbouncer transaction pooling",
              "asyncpg prepared statements no longer break.")
    assert _keys(discover_links([stated, said, *FILLER])) == {frozenset(("stated", "said"))}


def test_an_empty_template_title_or_a_checklist_tick_is_linked_to_nothing() -> None:
    # unfilled templates ("Summary of decision", "The key insight") and checklist entries tied by their file
    template = ("## Context\nWhy this was needed.\n## Details\nKey point 1\n## Related Files\n"
                "app/payments/webhooks.py:10-25")
    files = {"c1": ["app/payments/webhooks.py"]}
    repo_files = ["app/payments/webhooks.py"]
    for summaries in (("Summary of decision", "The key insight"),
                      ("- [x] PAY-1: retry webhook deliveries ✅", "- [x] PAY-2: verify webhook signatures ✅")):
        first = _c("a", "decisions", 3, summaries[0], template, commit="c1")
        second = _c("b", "learnings", 3, summaries[1], template, commit="c1")
        assert discover_links([first, second, *FILLER], commit_files=files, repo_files=repo_files) == [], summaries
    first = _c("a", "decisions", 3, "Webhook deliveries are retried five times", template, commit="c1")
    second = _c("b", "learnings", 3, "Webhook signatures need the raw body", template, commit="c1")
    assert _keys(discover_links([first, second, *FILLER], commit_files=files, repo_files=repo_files)) == {
        frozenset(("a", "b"))}


def test_two_progress_notes_captured_from_one_checklist_file_are_not_tied_by_it() -> None:
    # entries of PROGRESS.md are different tasks; sections of one design document still relate
    def note(key: str, namespace: str, summary: str, body: str) -> Candidate:
        return _c(key, namespace, 3, summary, body, commit="c1", tags=("file:PROGRESS.md",))

    documentation = note("docs", "progress", "Task 2.15: Documentation", "Wrote the operator guide for refunds.")
    unit_tests = note("tests", "progress", "Task 2.12: Write unit tests", "Covered the ledger rounding cases.")
    assert discover_links([documentation, unit_tests, *FILLER], commit_files={"c1": []}) == []
    design = note("design", "patterns", "Refund flow: the ledger rounds half to even", "Rounding in one place.")
    assert _keys(discover_links([design, unit_tests, *FILLER], commit_files={"c1": []})) == {
        frozenset(("design", "tests"))}


TOPICS = ("connection leak", "batch insert", "retry jitter", "vacuum schedule", "lock timeout", "cursor reuse",
          "index rebuild", "schema cache", "error wrapping", "path quoting", "clock skew", "log noise", "temp cleanup",
          "signal handling")


def test_a_file_alone_ties_nothing_when_many_memories_name_it() -> None:
    # one code review's findings all name sync.py: the file says nothing about which of them belong together
    def findings(count: int) -> list[Candidate]:
        return [_c(f"r{i}", "progress", 3, f"Fixed the {topic} ({i})", f"Changed app/sync.py for the {topic}.",
                   commit="c1") for i, topic in enumerate(TOPICS[:count])]

    def linked(count: int) -> list:
        memories = [*findings(count), *FILLER]
        vectors = np.zeros((len(memories), len(memories) + 1), dtype=np.float32)
        vectors[:, 0] = np.sqrt(0.7)  # every pair: cosine 0.7 (alike, no restatement)
        vectors[np.arange(len(memories)), np.arange(len(memories)) + 1] = np.sqrt(0.3)
        return discover_links(memories, commit_files={"c1": []}, repo_files=["app/sync.py"], vectors=vectors)

    assert linked(FILE_ALONE_HOLDERS) and all(k.reason == "both about app/sync.py" for k in linked(FILE_ALONE_HOLDERS))
    assert linked(FILE_ALONE_HOLDERS + 1) == []


def test_a_file_alone_does_not_tie_two_findings_that_name_different_tickets() -> None:
    # a code review's findings fixed in one session all touch the module under review
    def fix(key: str, summary: str, body: str) -> Candidate:
        return _c(key, "progress", 3, summary, body, commit="c1")

    files = {"c1": []}
    repo_files = ["app/index.py"]
    split = fix("split", "ARCH-H-001 complete: split the god object", "Moved the schema code out of app/index.py.")
    batched = fix("batched", "Completed PERF-H-002: batched the existence check", "app/index.py asks once per run.")
    assert discover_links([split, batched, *FILLER], commit_files=files, repo_files=repo_files) == []
    followed = fix("followed", "PERF-H-002 follow-up: cached the id set", "app/index.py keeps the ids between calls.")
    assert _keys(discover_links([batched, followed, *FILLER], commit_files=files, repo_files=repo_files)) == {
        frozenset(("batched", "followed"))}


SPEC_TOPICS = ("refund ledger rounding", "webhook retry budget", "tenant export throttling", "invoice pdf fonts",
               "coupon stacking limits", "warehouse barcode scanner", "search synonym lists", "avatar upload quota",
               "session cookie rotation")


def test_specs_written_from_one_template_are_not_linked_by_its_file_names() -> None:
    # the plugin's specs each list REQUIREMENTS.md, ARCHITECTURE.md, DECISIONS.md...: the template's, not a topic
    def specs(topics: Sequence[str]) -> list[Candidate]:
        return [_c(f"s{i}", "progress", 1, topic.capitalize(),
                   f"{topic}: REQUIREMENTS.md, ARCHITECTURE.md, DECISIONS.md, IMPLEMENTATION_PLAN.md", commit="c1")
                for i, topic in enumerate(topics)]
    filler = [_c(f"f{i}", "learnings", i, f"Filler memory {i}", f"Nothing on topic{i}.") for i in range(91)]
    assert discover_links([*specs(SPEC_TOPICS), *filler]) == []
    assert _keys(discover_links([*specs(SPEC_TOPICS[:2]), *filler])) == {frozenset(("s0", "s1"))}


def test_progress_notes_on_one_commit_captured_days_apart_are_not_one_piece_of_work() -> None:
    # HEAD can sit on one commit for days: two review runs a day apart hang on it and share the command's words
    first = _c("a", "progress", 1, *SPEC_A, commit="c1")
    second = _c("b", "progress", 3, *SPEC_B, commit="c1")
    assert discover_links([first, second, *FILLER]) == []
