"""What recall lists first depending on what the question asks: what held before, what holds now, or a topic a
summary covers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memactors.actors.algorithms.indexing import build_read_model
from memactors.actors.ports import Embedder
from memactors.adapters.models.embeddings import embedder_from_env
from memactors.adapters.reading.focus import distinctive_weights, focus, held_stems, stem_weights
from memactors.adapters.reading.fresh import with_fresh
from memactors.adapters.reading.read_cache import ReadCache, RecallIndex
from memactors.adapters.reading.recall import RecallHit, _newer_choice_first, past_state, search, state_subject
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.read_model import EntryKind
from memactors.events.summary import Summary
from memactors.events.tier import Tier

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def _memory(n: int, summary: str, body: str, *, minutes_ago: int, namespace: str = "learnings") -> Memory:
    return Memory(key=f"k{n}", namespace=namespace, commit=f"{n:040x}", index=0, upstream_index=0,
                  timestamp=NOW - timedelta(minutes=minutes_ago), summary=summary, body=body)


def _index(tmp_path: Path, memories: list[Memory], *, replaced: dict[str, str] | None = None,
           summaries: tuple[Summary, ...] = (), embedder: Embedder | None = None) -> RecallIndex:
    """A read model of `memories` (`replaced`: key -> the key of what replaced it), written and loaded as recall
    reads it."""
    replaced = replaced or {}
    metas = {m.key: MemoryMeta(key=m.key, id=m.id, namespace=m.namespace, commit=m.commit, created=m.timestamp,
                               tier=Tier.WARM, superseded_by=replaced.get(m.key)) for m in memories}
    model = build_read_model(memories, metas, {k: 0.9 for k in metas}, summaries, run_id="r1", generated_at=NOW,
                             memory_tips={})
    tmp_path.mkdir(parents=True, exist_ok=True)
    cache = ReadCache(tmp_path, embedder)
    cache.write(model)
    return cache.load()


def test_a_question_about_what_held_before_lists_the_replaced_statement_first(tmp_path: Path) -> None:
    bug = _memory(1, "LSP tool broken by a race condition in Claude Code",
                  "The LSP manager starts before plugins load, so no language server is registered.",
                  minutes_ago=300, namespace="blockers")
    fixed = _memory(2, "LSP tool works again after the Claude Code update",
                    "Go-to-definition and find references answer for Python files.", minutes_ago=10,
                    namespace="progress")
    other = _memory(3, "Ruff replaces flake8 for linting", "One tool, faster.", minutes_ago=50)
    index = _index(tmp_path, [bug, fixed, other], replaced={bug.key: fixed.key})
    # what the bug was: the replaced statement answers, what replaced it follows right below
    before = [h.entry.id for h in search(index, "What was the race condition bug behind the broken LSP tool?",
                                         limit=3)]
    assert before[:2] == [bug.id, fixed.id]
    # what holds now: what replaced it first, as ever
    now = [h.entry.id for h in search(index, "Does the LSP tool work now?", limit=3)]
    assert now[:2] == [fixed.id, bug.id]


def test_past_state_tells_a_question_about_what_held_from_one_about_an_event() -> None:
    assert past_state("What was the Claude Code bug behind the LSP tool failing?")
    assert past_state("Which linter did we use originally?")
    assert past_state("What were the ports of the staging services?")
    # an event, or how something was done: what replaced the old statement answers these
    assert not past_state("When did we drop Bitbucket?")
    assert not past_state("What caused the errors, and how was it resolved?")
    assert not past_state("Which database was chosen for storage?")
    assert not past_state("What linter do we use?")


def test_in_a_question_about_now_the_newest_statement_of_a_things_state_comes_first(tmp_path: Path) -> None:
    # same day, two statements about the LSP tool that no replacement ties: the older matches the words better
    older = _memory(1, "LSP tool is not a documented Claude Code feature",
                    "The LSP tool of Claude Code is not documented; Claude Code has no LSP page.", minutes_ago=30)
    newer = _memory(2, "LSP tool is now fully functional", "Hover and go-to-definition answer.", minutes_ago=10,
                    namespace="progress")
    index = _index(tmp_path, [older, newer])
    now = [h.entry.id for h in search(index, "Can we currently use the Claude Code LSP tool?", limit=2)]
    assert now == [newer.id, older.id]
    # a question that does not ask what holds now keeps the order of relevance
    why = [h.entry.id for h in search(index, "Why is the Claude Code LSP tool not documented?", limit=2)]
    assert why == [older.id, newer.id]


def test_in_a_question_about_now_a_statement_extending_the_things_name_is_of_the_same_thing(tmp_path: Path) -> None:
    # "LSP tool failure is ..." states the LSP tool's state as "LSP tool is ..." does; the older holds more words
    cause = _memory(1, "LSP tool failure is a race condition in Claude Code",
                    "Claude Code's LSP tool fails: the plugin's LSP server starts too late.", minutes_ago=30)
    fixed = _memory(2, "LSP tool is now fully functional", "Hover and go-to-definition answer.", minutes_ago=10,
                    namespace="progress")
    index = _index(tmp_path, [cause, fixed])
    now = [h.entry.id for h in search(index, "Can we currently use the Claude Code LSP tool?", limit=2)]
    assert now == [fixed.id, cause.id]


def test_in_a_question_about_now_a_statement_of_a_part_of_the_thing_is_not_of_the_same_thing(tmp_path: Path) -> None:
    # "build cache key is ..." states a part of the build cache: the older note, which answers, keeps its place
    where = _memory(1, "Build cache is kept in the S3 bucket ci-cache",
                    "CI stores the build cache in the S3 bucket ci-cache.", minutes_ago=30)
    key = _memory(2, "Build cache key is the lockfile hash plus node version",
                  "The key changes when the lockfile changes.", minutes_ago=10)
    index = _index(tmp_path, [where, key])
    now = [h.entry.id for h in search(index, "Where is the build cache kept now?", limit=2)]
    assert now == [where.id, key.id]


def test_in_a_question_about_now_a_replaced_statement_seen_again_later_stays_below_what_replaced_it(
        tmp_path: Path) -> None:
    # the Heroku note was captured again after the Fly.io note replaced it: newer, and still replaced
    heroku = _memory(1, "Deploy target is Heroku for the web app", "The web app deploys to Heroku.", minutes_ago=5)
    fly = _memory(2, "Deploy target is Fly.io now", "Moved off Heroku.", minutes_ago=20)
    index = _index(tmp_path, [heroku, fly], replaced={heroku.key: fly.key})
    now = [h.entry.id for h in search(index, "What is the deploy target for the web app now?", limit=2)]
    assert now == [fly.id, heroku.id]


def test_what_replaced_a_summarys_fact_is_pulled_up_no_higher_than_a_newer_statement_of_the_same_thing(
        tmp_path: Path) -> None:
    undocumented = _memory(1, "LSP tool is not a documented Claude Code feature",
                           "Claude Code has no page on its LSP tool.", minutes_ago=50)
    cause = _memory(2, "LSP tool failure is a race condition in Claude Code",
                    "The LSP servers of plugins start too late for Claude Code's LSP tool.", minutes_ago=40)
    fixed = _memory(3, "LSP tool is now fully functional", "Hover and go-to-definition answer in this repo.",
                    minutes_ago=10, namespace="progress")
    config = _memory(4, "LSP configuration for Python checked", "pyright is set up for the Claude Code LSP tool.",
                     minutes_ago=45)
    members = (undocumented, config)
    summary = Summary(id="s1", cluster_id="c1", text="LSP setup for the Claude Code LSP tool in this repo",
                      key_facts=tuple(m.summary for m in members), superseded_facts=(undocumented.summary,),
                      source_keys=tuple(m.key for m in members), earliest=undocumented.timestamp,
                      latest=config.timestamp, confidence=0.6, provider="offline", model="extractive",
                      created_at=NOW, run_id="r1")
    index = _index(tmp_path, [undocumented, cause, fixed, config], replaced={undocumented.key: cause.key},
                   summaries=(summary,))
    hits = search(index, "Can we currently use the Claude Code LSP tool in this repo?", limit=3)
    # the summary's replaced fact brings what replaced it above the summary, the newer statement above both
    assert [h.entry.id for h in hits] == [fixed.id, cause.id, "summary:s1"]


def test_of_two_standing_choices_on_one_subject_answering_about_as_well_the_newer_is_listed_first(
        tmp_path: Path) -> None:
    # a change of rule the judge left unlinked: the older wording matches the question a little better
    embedder = embedder_from_env()
    full = _memory(1, "Always run the full test suite before pushing to main.",
                   "Always run the full test suite before pushing to main.", minutes_ago=3000, namespace="decisions")
    changed = _memory(2, "Before pushing, run only the tests of the packages you changed; CI runs the full suite.",
                      "Before pushing, run only the tests of the packages you changed; CI runs the full suite.",
                      minutes_ago=100, namespace="decisions")
    index = _index(tmp_path, [full, changed], embedder=embedder)
    now = search(index, "What tests should I run before pushing?", limit=2, embedder=embedder)
    assert [h.entry.id for h in now] == [changed.id, full.id]
    assert now[0].score < now[1].score  # listed first for being newer, not for answering better
    # a question about what held before keeps the order of relevance
    before = search(index, "Which tests did we run before pushing, originally?", limit=2, embedder=embedder)
    assert [h.entry.id for h in before] == [full.id, changed.id]


def test_a_newer_choice_on_another_subject_keeps_its_place_below(tmp_path: Path) -> None:
    # the main database and the unit tests' database: two choices that both stand, on different subjects
    embedder = embedder_from_env()
    main = _memory(1, "Use PostgreSQL as the main database.", "Use PostgreSQL as the main database.",
                   minutes_ago=3000, namespace="decisions")
    tests = _memory(2, "Use SQLite as the database in unit tests.", "Use SQLite as the database in unit tests.",
                    minutes_ago=100, namespace="decisions")
    index = _index(tmp_path, [main, tests], embedder=embedder)
    hits = search(index, "Which database do we use?", limit=2, embedder=embedder)
    assert [h.entry.id for h in hits] == [main.id, tests.id]
    assert hits[1].score >= 0.8 * hits[0].score  # close enough in score: only the subject keeps them apart


def test_a_newer_choice_never_passes_a_hit_answering_much_better_even_after_another_moved(tmp_path: Path) -> None:
    # 100 moves above 79 (newer, close in score); 120 may pass 100 but not 79, which answers much better
    embedder = embedder_from_env()
    day = 24 * 60
    oldest = _memory(1, "Python line length is 79 characters.", "Python line length is 79 characters.",
                     minutes_ago=400 * day, namespace="decisions")
    middle = _memory(2, "Line length for Python is 100 now.", "Line length for Python is 100 now.",
                     minutes_ago=300 * day, namespace="decisions")
    newest = _memory(3, "Set Python line length to 120 in ruff.", "Set Python line length to 120 in ruff.",
                     minutes_ago=100 * day, namespace="decisions")
    index = _index(tmp_path, [oldest, middle, newest], embedder=embedder)
    by_id = {e.id: e for e in (index.entries[row] for row in range(len(index.entries)))}
    hits = [RecallHit(by_id[m.id], score, score, False, True)
            for m, score in ((oldest, 1.0), (middle, 0.85), (newest, 0.7))]
    assert [h.entry.id for h in _newer_choice_first(index, hits)] == [middle.id, oldest.id, newest.id]


def test_a_memory_captured_since_the_run_ranks_as_it_will_once_the_next_run_indexes_it(tmp_path: Path) -> None:
    # the run indexed the old choice; the new one was captured since: read from its note, no BM25, no lexical text
    embedder = embedder_from_env()
    day = 24 * 60
    old = _memory(1, "Format Python code with black, line length 100.",
                  "Format Python code with black, line length 100.", minutes_ago=200 * day, namespace="decisions")
    new = _memory(2, "Use ruff format instead of black to format Python code.",
                  "Use ruff format instead of black to format Python code.", minutes_ago=60 * day,
                  namespace="decisions")
    others = [_memory(10 + i, text, text, minutes_ago=(300 + i) * day, namespace="decisions") for i, text in enumerate((
        "Use Terraform for all cloud infrastructure.", "Feature flags are managed in LaunchDarkly.",
        "Use Sentry for error tracking in every service.", "Docker images are built with multi-stage builds."))]
    question = "How do we format Python code?"
    indexed = search(_index(tmp_path / "later", [old, new, *others], embedder=embedder), question, limit=2,
                     embedder=embedder)
    fresh = search(with_fresh(_index(tmp_path / "now", [old, *others], embedder=embedder), [old, new, *others],
                              embedder), question, limit=2, embedder=embedder)
    assert [h.entry.id for h in fresh] == [h.entry.id for h in indexed] == [new.id, old.id]
    assert fresh[0].score >= 0.8 * indexed[0].score


def test_a_vague_note_captured_since_the_run_holding_every_word_stays_below_the_stored_answer(tmp_path: Path) -> None:
    # without vectors words decide: the fresh note's share of them stands in for BM25 at less than the best match's
    day = 24 * 60
    answer = _memory(1, "Outgoing HTTP calls time out after 5 seconds.", "Outgoing HTTP calls time out after 5 seconds.",
                     minutes_ago=50 * day, namespace="decisions")
    others = [_memory(10 + i, text, text, minutes_ago=(300 + i) * day, namespace="decisions") for i, text in enumerate((
        "Use Terraform for all cloud infrastructure.", "Feature flags are managed in LaunchDarkly.",
        "Use Sentry for error tracking in every service.", "Docker images are built with multi-stage builds."))]
    vague = _memory(2, "Open questions from the design review",
                    "Open questions from the design review\n\nShould outgoing HTTP calls have a timeout at all?\n\n"
                    "Nobody knows the current value.", minutes_ago=1, namespace="progress")
    index = with_fresh(_index(tmp_path, [answer, *others]), [answer, *others, vague], None)
    hits = search(index, "What is the timeout for outgoing HTTP calls?", limit=3)
    assert [h.entry.id for h in hits][:2] == [answer.id, vague.id]


def test_state_subject_is_a_named_thing_before_is_or_are() -> None:
    assert state_subject("LSP tool is now fully functional - race condition resolved") == "lsp tool"
    assert state_subject("Memory index location is project-specific") == "memory index location"
    assert state_subject("The fix is likely to add a setting") is None  # one word names nothing in particular
    assert state_subject("It is done") is None
    assert state_subject("Use SQLite for storage") is None


def _summary_fixture(tmp_path: Path) -> tuple[RecallIndex, Memory]:
    fixed = _memory(1, "Fixed OTEL collector duplicate label conflict",
                    "Fixed OTEL collector duplicate label conflict: dashboards now receive data.", minutes_ago=40,
                    namespace="progress")
    cause = _memory(2, "Duplicate labels caused by double resource attribute injection",
                    "service.name was injected twice, by the exporter and by the collector's resource processor.",
                    minutes_ago=30, namespace="progress")
    removed = _memory(3, "Removed the resource processor from the collector pipelines",
                      "The collector's resource processor is gone from every pipeline.", minutes_ago=20,
                      namespace="progress")
    other = _memory(4, "Grafana dashboards read the Prometheus datasource", "Dashboards use Prometheus.",
                    minutes_ago=10)
    members = (fixed, cause, removed)
    summary = Summary(id="s1", cluster_id="c1", text="Fixed the OTEL label issue by removing the resource processor",
                      key_facts=tuple(m.summary for m in members), source_keys=tuple(m.key for m in members),
                      earliest=fixed.timestamp, latest=removed.timestamp, confidence=0.6, provider="offline",
                      model="extractive", created_at=NOW, run_id="r1")
    return _index(tmp_path, [*members, other], summaries=(summary,)), fixed


def test_a_summary_takes_the_line_of_its_member_listed_above_it(tmp_path: Path) -> None:
    index, fixed = _summary_fixture(tmp_path)
    hits = search(index, "OTEL collector duplicate label conflict", limit=5)
    # the member matches the words best; its summary holds it and the fix, so it is listed once, as the summary
    assert hits[0].entry.kind is EntryKind.SUMMARY and hits[0].entry.id == "summary:s1"
    assert fixed.id not in [h.entry.id for h in hits]


def test_exhaustive_mode_lists_the_member_itself_beside_its_summary(tmp_path: Path) -> None:
    index, fixed = _summary_fixture(tmp_path)
    listed = [h.entry.id for h in search(index, "OTEL collector duplicate label conflict", mode="exhaustive",
                                         limit=5)]
    assert fixed.id in listed and "summary:s1" in listed


def _overview_fixture(tmp_path: Path, title: str, embedder: Embedder | None) -> tuple[RecallIndex, Memory, Memory]:
    """A session's overview that names the question's words, one per section, beside the memory about its
    subject, which holds fewer of them, together."""
    overview = _memory(1, title,
                       "## Telemetry\nAdded the OTLP exporter; spans and metrics reach the collector.\n\n"
                       "## Storage\nThe SQLite index moved under the project's own directory.\n\n"
                       "## Hooks\nThe Stop hook now runs the capture when the session ends; batching stays on.",
                       minutes_ago=30, namespace="progress")
    subject = _memory(2, "Metrics are exported in one batch",
                      "The exporter batches metrics and sends them once the session ends, not while it runs.",
                      minutes_ago=60)
    filler = [_memory(10 + i, f"Note {i} on the {topic}", f"The {topic} is described here.", minutes_ago=90 + i)
              for i, topic in enumerate(("release checklist", "branch naming", "review rota", "changelog"))]
    return _index(tmp_path, [overview, subject, *filler], embedder=embedder), overview, subject


@pytest.mark.parametrize(("title", "vectors"), [
    ("Session wrap-up: telemetry, storage and hook work", False),
    ("Session wrap-up: OTLP metrics export, storage and hooks", True),
])
def test_a_memory_holding_the_questions_words_together_ranks_above_an_overview_spreading_them(
        tmp_path: Path, title: str, vectors: bool) -> None:
    embedder = embedder_from_env() if vectors else None
    index, overview, subject = _overview_fixture(tmp_path, title, embedder)
    question = "Are OTLP metrics only exported by the exporter when the session ends, in a batch?"
    assert [h.entry.id for h in search(index, question, limit=2, embedder=embedder)] == [subject.id, overview.id]


def test_focus_is_the_share_of_the_questions_weight_one_block_holds() -> None:
    weights = stem_weights({"otlp": 3.0, "exporter": 2.0, "batch": 1.0})
    assert focus("The OTLP exporter sends one batch.", weights) == 1.0
    assert focus("The OTLP exporter.\n\nNothing else.\n\nThen a batch.", weights) == 5.0 / 6.0
    assert focus("Nothing here.\n\nNor here.", weights) == 1.0  # holds none: nothing to spread
    # a path points elsewhere: "batch" in it is no word of this text
    assert focus("The OTLP exporter.\n\nSee docs/batch/notes.md for more.", weights) == 1.0



def test_a_word_every_candidate_holds_tells_them_apart_less_than_one_few_hold() -> None:
    weights = stem_weights({"embedding": 3.0, "model": 3.0, "dimensions": 3.0})
    held = [held_stems(text, weights) for text in (
        "The embedding model loads lazily.", "Embedding model load time is a gauge.",
        "Vectors: 384 dimensions from the embedding model.", "The model is downloaded once for embedding.")]
    weight = distinctive_weights(held, weights)
    # all four hold "embedding" and "model": the topic they share; one holds "dimensions": what tells it apart
    topic, apart = stem_weights({"embedding": 1.0, "model": 1.0}), stem_weights({"dimensions": 1.0})
    assert all(weight[s] < 0.1 for s in topic) and all(weight[s] > 0.8 for s in apart)
    assert abs(sum(weight.values()) - 1.0) < 1e-9
    assert distinctive_weights([], weights) == {}
