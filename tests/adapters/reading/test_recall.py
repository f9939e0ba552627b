"""`memactors recall` against consolidated real repositories, as a user runs it."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from memactors.adapters.claude.activation_log import ActivationLog
from memactors.adapters.git.memory_store import META_REF, MemoryStore
from memactors.adapters.git.store import GitStore
from tests.conftest import Repo, run_cli
from tests.fake_openai import FakeOpenAI
from tests.realistic_facts import BY_ID

UTC = {"MEMACTORS_TIMEZONE": "UTC"}


def consolidate(repo: Repo, env: dict[str, str] | None = None) -> dict[str, Any]:
    result = run_cli("consolidate", "--json", "--repo", str(repo.path), env=env)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def recall(repo: Repo, *args: str, env: dict[str, str] | None = None) -> Any:
    result = run_cli("recall", *args, "--json", "--repo", str(repo.path), env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def replaced(repo: Repo) -> Repo:
    """A storage decision replaced by a newer one, both recent, plus unrelated memories."""
    now = datetime.now(timezone.utc)
    repo.capture("decisions", "Use SQLite for storage", "We chose SQLite: simplest thing that works.",
                 when=now - timedelta(days=20))
    repo.commit("more")
    repo.capture("decisions", "Switch storage from SQLite to PostgreSQL",
                 "Replaces SQLite: we need concurrent writers.", when=now - timedelta(days=2))
    repo.capture("learnings", "Retries must be idempotent", "A retried request ran twice.", when=now - timedelta(days=3))
    repo.capture("patterns", "Wrap outbound calls in a circuit breaker", when=now - timedelta(days=4))
    consolidate(repo)
    return repo


def test_a_superseded_decision_is_absent_from_standard_and_marked_in_exhaustive(replaced: Repo) -> None:
    standard = recall(replaced, "which database do we use for storage", "--mode", "standard")
    summaries = [hit["summary"] for hit in standard]
    assert any("PostgreSQL" in s for s in summaries) and "Use SQLite for storage" not in summaries
    assert {hit["tier"] for hit in standard} <= {"hot", "warm"} and not any(hit["widened"] for hit in standard)
    exhaustive = recall(replaced, "which database do we use for storage", "--mode", "exhaustive")
    old = next(hit for hit in exhaustive if hit["summary"] == "Use SQLite for storage")
    assert old["superseded_by"] and old["superseded_by"].startswith("decisions:")
    assert old["tier"] in ("cold", "archived") and "PostgreSQL" in old["superseded_by_summary"]
    for hit in exhaustive:
        assert {"id", "kind", "namespace", "tier", "widened", "score", "summary", "timestamp",
                "superseded_by"} <= set(hit)
        assert hit["widened"] is False  # an explicit mode is strict: nothing is widened
        assert hit["tier"] in ("hot", "warm", "cold", "archived") and hit["kind"] in ("memory", "summary")


def test_reflexive_mode_returns_only_hot_memories(replaced: Repo) -> None:
    hits = recall(replaced, "storage", "--mode", "reflexive")
    assert hits and {hit["tier"] for hit in hits} == {"hot"}


def test_summaries_rank_alongside_memories(repo: Repo) -> None:
    now = datetime.now(timezone.utc)
    for i, text in enumerate(["Payment webhooks must be idempotent", "Webhook handlers for payments must be idempotent",
                              "Make the payment webhook handler idempotent", "Idempotent payment webhooks: use the event id"]):
        repo.capture("learnings", text, f"Seen in incident {i}.", when=now - timedelta(days=i + 1))
    consolidate(repo)
    hits = recall(repo, "payment webhook idempotency")
    assert {"summary", "memory"} <= {hit["kind"] for hit in hits}
    summary = next(hit for hit in hits if hit["kind"] == "summary")
    assert summary["id"].startswith("summary:") and summary["tier"] == "warm" and len(summary["sources"]) >= 3


def test_returned_memories_are_folded_into_their_metadata_once(replaced: Repo) -> None:
    hits = recall(replaced, "idempotent retries", "--mode", "reflexive", "--limit", "1")
    assert [hit["summary"] for hit in hits] == ["Retries must be idempotent"]
    log = ActivationLog(replaced.path / ".git")
    assert list(log.read()) and len(list(log.directory.glob("*.jsonl"))) == 1
    report = consolidate(replaced)
    assert report["persisted"]
    store = MemoryStore(GitStore(replaced.path))
    meta = next(m for m in store.load_state().meta.values() if m.id == hits[0]["id"])
    assert meta.activation_count == 1 and meta.last_access is not None
    assert list(log.directory.glob("*.jsonl")) == []
    tip = replaced.refs()[META_REF]
    assert not consolidate(replaced)["persisted"] and replaced.refs()[META_REF] == tip  # nothing left to fold


def test_a_use_already_folded_is_not_counted_twice(replaced: Repo) -> None:
    hits = recall(replaced, "idempotent retries", "--mode", "reflexive", "--limit", "1")
    log = ActivationLog(replaced.path / ".git")
    kept = {p.name: p.read_text() for p in log.directory.glob("*.jsonl")}
    consolidate(replaced)
    for name, text in kept.items():  # as if the run had died after persisting, before removing the log
        (log.directory / name).write_text(text)
    consolidate(replaced)
    meta = next(m for m in MemoryStore(GitStore(replaced.path)).load_state().meta.values() if m.id == hits[0]["id"])
    assert meta.activation_count == 1


def test_no_track_records_nothing(replaced: Repo) -> None:
    recall(replaced, "storage", "--no-track")
    assert ActivationLog(replaced.path / ".git").read() == {}


@pytest.mark.parametrize(("args", "message"), [
    (["x" * 100_000], "the limit is 2000"),
    (["   "], "the query is empty"),
    (["storage", "--mode", "psychic"], "invalid choice: 'psychic'"),
    (["storage", "--limit", "0"], "--limit must be at least 1"),
])
def test_bad_input_is_one_clear_line_and_exit_2(replaced: Repo, args: list[str], message: str) -> None:
    result = run_cli("recall", *args, "--repo", str(replaced.path))
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_before_any_consolidation_recall_finds_what_was_captured_and_says_no_run_has_tiered_it(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    result = run_cli("recall", "storage", "--repo", str(repo.path), "--json")
    assert result.returncode == 0 and "no read model yet" in result.stderr
    [hit] = json.loads(result.stdout)
    assert hit["summary"] == "Use SQLite for storage" and hit["new_since_last_run"] and hit["tier"] is None


def test_an_empty_consolidated_store_answers_nothing_relevant(repo: Repo) -> None:
    consolidate(repo)
    answer = recall(repo, "anything at all")
    assert answer["nothing_relevant"] is True and answer["results"] == [] and answer["query"] == "anything at all"


def test_a_question_the_store_does_not_hold_answers_nothing_relevant_and_says_so(tmp_path, git_env) -> None:
    demo = tmp_path / "demo"
    assert run_cli("demo", str(demo)).returncode == 0
    question = "how do we run the tests"  # milestones say "tests green": the word, not the answer
    answer = json.loads(run_cli("recall", question, "--json", "--repo", str(demo)).stdout)
    assert answer["nothing_relevant"] is True and answer["results"] == [] and answer["query"] == question
    assert ActivationLog(demo / ".git").read() == {}  # nothing shown, nothing used
    text = run_cli("recall", question, "--no-track", "--repo", str(demo))
    assert text.returncode == 0 and text.stdout.count("\n") == 1
    assert text.stdout.startswith(f"nothing relevant to {question!r}; the closest, ")
    assert "ask with the project's own words" in text.stdout
    hits = json.loads(run_cli("recall", "which CI runner do we use", "--json", "--no-track", "--repo",
                              str(demo)).stdout)
    assert hits[0]["title"] == "Use GitHub Actions for the CI runner"


def test_each_excerpt_is_the_passage_that_answers_marked_where_it_was_cut(repo: Repo) -> None:
    now = datetime.now(timezone.utc)
    filler = ("We went through the incident timeline with the payments team and wrote down what each of us saw "
              "while the provider was degraded. ")
    body = (filler * 3 + "\n\nRetry schedule for failed payment webhooks:\n- first retry after 30 seconds\n"
            "- then 2 minutes, 10 minutes and 1 hour\n- give up after 5 attempts and page the on-call\n\n"
            "```python\nBACKOFF_SECONDS = [30, 120, 600, 3600]\n```\n\n" + filler * 3)
    repo.capture("decisions", "Retry failed payment webhooks with backoff", body, when=now - timedelta(days=1))
    for i, text in enumerate(["Use SQLite for storage", "Release on Tuesdays", "Lint with ruff"]):
        repo.capture("decisions", text, when=now - timedelta(days=i + 2))
    consolidate(repo)
    hits = recall(repo, "after how many attempts do payment webhook retries give up?")
    hit = next(h for h in hits if h["title"] == "Retry failed payment webhooks with backoff")
    assert "- give up after 5 attempts and page the on-call\n" in hit["excerpt"]  # the list, line by line
    assert "BACKOFF_SECONDS = [30, 120, 600, 3600]" in hit["excerpt"]
    assert hit["excerpt"].startswith("…") and hit["excerpt"].endswith("…")


def test_a_memory_captured_after_the_last_run_is_found_at_once_marked_new(replaced: Repo) -> None:
    replaced.capture("blockers", "CI credentials missing for the deploy job")
    result = run_cli("recall", "credentials", "--repo", str(replaced.path), "--json")
    assert result.returncode == 0 and "not searchable" not in result.stderr
    hits = json.loads(result.stdout)
    assert hits[0]["summary"] == "CI credentials missing for the deploy job" and hits[0]["new_since_last_run"]
    text = run_cli("recall", "credentials", "--repo", str(replaced.path)).stdout
    assert "[new] blockers" in text


def test_without_vectors_recall_matches_words(repo: Repo) -> None:
    repo.capture("decisions", "Use PostgreSQL for storage", when=datetime.now(timezone.utc))
    repo.capture("learnings", "Frontend bundles must stay small", when=datetime.now(timezone.utc))
    consolidate(repo, env={"MEMACTORS_EMBEDDINGS": "none"})
    result = run_cli("recall", "postgresql storage", "--json", "--repo", str(repo.path),
                     env={"MEMACTORS_EMBEDDINGS": "none"})
    assert [hit["summary"] for hit in json.loads(result.stdout)] == ["Use PostgreSQL for storage"]
    assert "matching words only" in result.stderr


# --- --reason ---------------------------------------------------------------------------


def test_when_question_resolves_yesterday_against_the_memorys_own_date(repo: Repo) -> None:
    repo.capture("progress", "Went to the support group", "I went to the support group yesterday.",
                 when=datetime(2023, 5, 8, 15, 0, tzinfo=timezone.utc))
    repo.capture("learnings", "Caching needs versioned keys", when=datetime(2023, 5, 9, tzinfo=timezone.utc))
    consolidate(repo)
    answer = recall(repo, "When did I go to the support group?", env=UTC)
    assert "2023-05-07" in answer["answer"] and answer["confidence"] > 0.5
    resolution = answer["temporal_resolutions"][0]
    assert resolution["original_text"] == "yesterday" and resolution["resolved_date"] == "2023-05-07"
    assert resolution["memory_timestamp"].startswith("2023-05-08")
    assert answer["source_memory_ids"] and answer["source_memory_ids"][0].startswith("progress:")
    assert answer["reasoning"]


def test_a_date_a_memory_states_answers_when_it_happened(repo: Repo) -> None:
    repo.capture("progress", "Billing went live", "We migrated the billing database on March 2 and went live.",
                 when=datetime(2026, 3, 10, 9, 0, tzinfo=timezone.utc))
    repo.capture("learnings", "Caching needs versioned keys", when=datetime(2026, 3, 9, tzinfo=timezone.utc))
    consolidate(repo)
    answer = recall(repo, "When did we migrate the billing database?", env=UTC)
    assert answer["answer"].startswith("2026-03-02")
    assert answer["temporal_resolutions"][0]["original_text"] == "March 2"
    assert answer["source_memory_ids"][0].startswith("progress:")


def test_relative_dates_are_read_in_the_users_time_zone(repo: Repo) -> None:
    # 01:00 UTC on 2 March is still 1 March in California: "yesterday" there is 28 February
    repo.capture("progress", "Deployed the billing service", "We deployed billing yesterday.",
                 when=datetime(2026, 3, 2, 1, 0, tzinfo=timezone.utc))
    consolidate(repo)
    question = "What date did we deploy the billing service?"
    california = recall(repo, question, "--reason", env={"MEMACTORS_TIMEZONE": "America/Los_Angeles"})
    assert california["temporal_resolutions"][0]["resolved_date"] == "2026-02-28"
    assert recall(repo, question, "--reason", env=UTC)["temporal_resolutions"][0]["resolved_date"] == "2026-03-01"


def test_an_unknown_time_zone_is_a_usage_error(repo: Repo) -> None:
    repo.capture("progress", "Deployed billing", "yesterday")
    consolidate(repo)
    result = run_cli("recall", "when did we deploy billing", "--repo", str(repo.path),
                     env={"MEMACTORS_TIMEZONE": "Mars/Olympus"})
    assert result.returncode == 2 and "is not a time zone" in result.stderr


def test_with_an_llm_the_llm_composes_the_answer_from_the_resolved_dates(repo: Repo) -> None:
    repo.capture("progress", "Went to the support group", "I went to the support group yesterday.",
                 when=datetime(2023, 5, 8, 15, 0, tzinfo=timezone.utc))
    consolidate(repo)

    def answer(request: dict[str, Any]) -> str:
        user = request["messages"][-1]["content"]
        assert '"yesterday" -&gt; 2023-05-07' in user  # the resolved date travels with the memory
        label = re.findall(r'label="(E\d+)"', user)[0]
        return json.dumps({"answer": "You went on Sunday 2023-05-07.", "confidence": 0.85,
                           "reasoning": "The memory of 2023-05-08 says yesterday.", "cited": [label]})

    with FakeOpenAI(responder=answer) as server:
        env = {**UTC, "MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "MEMORY_CONSOLIDATION_LLM_BASE_URL":
               server.base_url, "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
        result = recall(repo, "When did I go to the support group?", env=env)
        assert len(server.chat_requests()) == 1
    assert result["answer"] == "You went on Sunday 2023-05-07." and result["provider"] == "openai"
    assert result["temporal_resolutions"][0]["resolved_date"] == "2023-05-07"
    assert result["source_memory_ids"][0].startswith("progress:")


def test_an_llm_that_is_down_leaves_the_offline_answer_and_exit_1(repo: Repo) -> None:
    repo.capture("progress", "Went to the support group", "I went to the support group yesterday.",
                 when=datetime(2023, 5, 8, 15, 0, tzinfo=timezone.utc))
    consolidate(repo)
    with FakeOpenAI() as server:
        for _ in range(12):
            server.fail(500)
        env = {**UTC, "MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "MEMORY_CONSOLIDATION_LLM_BASE_URL":
               server.base_url, "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
        result = run_cli("recall", "When did I go to the support group?", "--json", "--repo", str(repo.path), env=env)
    assert result.returncode == 1 and "offline answer stands" in result.stderr
    assert "sk-test" not in result.stderr
    doc = json.loads(result.stdout)
    assert doc["provider"] == "offline" and "2023-05-07" in doc["answer"]


def test_recall_lists_each_capture_once_by_title_with_the_date_range_of_its_copies(dormant_store) -> None:
    store = dormant_store.store
    result = run_cli("recall", "which database do we use for the index", "--json", "--no-track",
                     "--repo", str(store.path))
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    memories = [h for h in hits if h["kind"] == "memory"]
    titles = [h["title"].casefold() for h in memories]
    assert memories and len(set(titles)) == len(titles)  # no copy, no statement twice
    assert not any(t.startswith("...") or "▶" in t for t in titles)
    copied = [h for h in memories if h.get("copies", 1) > 1]
    assert copied and all(h["first_seen"] <= h["last_seen"] for h in copied)
    # the decision asked about comes first (itself, or the summary it leads), not a fragment mentioning it
    assert hits[0]["title"] == BY_ID["index-sqlite"].summary


@pytest.fixture
def dormant_answer(repo: Repo) -> Repo:
    """Recent decisions, and the only memory about sync captured a year before them: it sits in a cold tier."""
    now = datetime.now(timezone.utc)
    repo.capture("progress", "Implemented memory sync with remote push and fetch",
                 "sync now pushes and fetches refs/notes/mem/* and reindexes what arrived.",
                 when=now - timedelta(days=400))
    repo.commit("later work")
    for i, (summary, body) in enumerate([
        ("Use SQLite for the index", "One file, no server."),
        ("Hooks must finish within 100 milliseconds", "Slow hooks make the agent sluggish."),
        ("Lint with ruff", "One tool for style and imports."),
    ]):
        repo.capture("decisions", summary, body, when=now - timedelta(days=i + 1))
    consolidate(repo)
    return repo


def test_with_no_mode_a_cold_memory_that_answers_fills_the_list_marked_widened(dormant_answer: Repo) -> None:
    hits = recall(dormant_answer, "is sync with the remote implemented yet?")
    sync = next(hit for hit in hits if hit["summary"].startswith("Implemented memory sync"))
    assert sync["widened"] is True and sync["tier"] in ("cold", "archived")
    assert all(not hit["widened"] for hit in hits if hit["tier"] in ("hot", "warm"))
    text = run_cli("recall", "is sync with the remote implemented yet?", "--no-track", "--repo",
                   str(dormant_answer.path)).stdout
    assert "widened" in text and "+[" in text  # the human listing marks and explains it


def test_an_explicit_mode_searches_exactly_its_tiers_and_widens_nothing(dormant_answer: Repo) -> None:
    answer = recall(dormant_answer, "is sync with the remote implemented yet?", "--mode", "standard")
    hits = answer if isinstance(answer, list) else answer["results"]  # hot and warm may hold nothing relevant
    assert not any(hit["summary"].startswith("Implemented memory sync") for hit in hits)
    assert all(hit["tier"] in ("hot", "warm") and hit["widened"] is False for hit in hits)


def test_a_widened_result_counts_as_a_use(dormant_answer: Repo) -> None:
    hits = recall(dormant_answer, "is sync with the remote implemented yet?")
    sync = next(hit for hit in hits if hit["widened"])
    used = ActivationLog(dormant_answer.path / ".git").read()
    keys = {m.key for m in MemoryStore(GitStore(dormant_answer.path)).scan(None).memories if m.id == sync["id"]}
    assert keys and keys <= set(used)


def test_a_rare_word_in_another_form_finds_the_memory_that_holds_it(repo: Repo) -> None:
    now = datetime.now(timezone.utc)
    repo.capture("decisions", "Replace flake8 and isort with ruff", "Two linters disagreed about import order and "
                 "the pre-commit hook took 9 seconds.", when=now - timedelta(days=1))
    for i, text in enumerate(["Ship small pull requests", "Set up the CI cache for dependencies",
                              "The importer reads CSV and JSON", "Release on Tuesdays", "Format dates as ISO 8601"]):
        repo.capture("decisions", text, when=now - timedelta(days=i + 2))
    consolidate(repo)
    hits = recall(repo, "what's our linter setup now?")
    assert hits and hits[0]["summary"] == "Replace flake8 and isort with ruff"


def test_deleting_the_read_model_loses_nothing_a_run_cannot_rebuild(replaced: Repo) -> None:
    before = recall(replaced, "which database do we use for storage", "--no-track")
    directory = replaced.path / ".git" / "memactors"
    removed = [p for p in directory.iterdir() if p.name.startswith(("recall-", "context"))]
    assert {"recall-index.npz", "recall-lexical.sqlite", "context.json"} <= {p.name for p in removed}
    for path in removed:
        path.unlink()
    result = run_cli("recall", "storage", "--repo", str(replaced.path))
    assert result.returncode == 0 and "searched as captured" in result.stderr and "storage" in result.stdout.lower()
    consolidate(replaced)
    after = recall(replaced, "which database do we use for storage", "--no-track")
    assert [(h["id"], h["widened"]) for h in after] == [(h["id"], h["widened"]) for h in before]


def test_a_conditional_when_is_an_ordinary_search(replaced: Repo) -> None:
    hits = recall(replaced, "when a retried request runs twice, does it have to be idempotent?")
    assert isinstance(hits, list) and hits[0]["summary"] == "Retries must be idempotent"


@pytest.fixture(scope="module")
def conversations(tmp_path_factory: pytest.TempPathFactory):
    from tests.conversation_store import build_conversation_store

    store = build_conversation_store(tmp_path_factory.mktemp("talk") / "conversations")
    done = run_cli("consolidate", "--repo", str(store.path))
    assert done.returncode in (0, 1), done.stderr
    return store


def test_when_questions_on_long_conversations_get_the_reported_date_with_alternatives(conversations) -> None:
    chosen = [q for q in conversations.questions if not q.held_out][:6]
    chosen += [q for q in conversations.questions if q.id == "greta-16"]  # its report leads a summary
    for q in chosen:
        doc = recall(conversations, q.question, "--no-track", env=UTC)
        gold = q.start.isoformat() + (f" ({q.start:%A}) to {q.end.isoformat()}" if q.end else "")
        assert doc["answer"].startswith(gold), (q.question, doc["answer"], doc["reasoning"])
        assert doc["alternatives"] and all({"answer", "resolved_date", "confidence", "source_memory_ids"}
                                           <= set(a) for a in doc["alternatives"])


def test_with_an_llm_it_chooses_among_the_candidates_and_the_offline_choice_stays_an_alternative(repo: Repo) -> None:
    repo.capture("progress", "Ana: I'm planning to go to the science museum next week.",
                 when=datetime(2023, 5, 1, 15, 0, tzinfo=timezone.utc))
    repo.capture("progress", "Ana: I went to the science museum yesterday!",
                 when=datetime(2023, 5, 9, 15, 0, tzinfo=timezone.utc))
    repo.capture("progress", "Ana: Remember the science museum? Yesterday the kids asked about it again.",
                 when=datetime(2023, 6, 20, 15, 0, tzinfo=timezone.utc))
    consolidate(repo)
    shown: list[str] = []

    def answer(request: dict[str, Any]) -> str:
        user = request["messages"][-1]["content"]
        shown.append(user)
        blocks = re.findall(r'<memory label="(E\d+)"[^>]*>\n(.*?)\n<resolved>\n(.*?)\n</resolved>', user, re.S)
        mention = next(label for label, text, _ in blocks if "Remember" in text)  # a wrong choice, on purpose
        return json.dumps({"answer": "On 2023-06-19.", "confidence": 0.4, "reasoning": "It says yesterday.",
                           "cited": [mention]})

    with FakeOpenAI(responder=answer) as server:
        env = {**UTC, "MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "MEMORY_CONSOLIDATION_LLM_BASE_URL":
               server.base_url, "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
        result = recall(repo, "When did Ana go to the science museum?", env=env)
    prompt = shown[0]
    assert prompt.count("<memory ") == 3 and "planning" in prompt  # every candidate, the plan too
    assert '"next week" -&gt; 2023-05-08 .. 2023-05-14' in prompt and '"yesterday" -&gt; 2023-05-08' in prompt
    assert result["provider"] == "openai" and result["answer"] == "On 2023-06-19."
    offline = result["alternatives"][0]  # what the offline composer chose: the report
    assert offline["resolved_date"] == "2023-05-08" and offline["source_memory_ids"] != result["source_memory_ids"]


def test_a_date_answer_counts_as_uses_only_the_memories_it_rests_on_and_offers(repo: Repo) -> None:
    repo.capture("progress", "Went to the support group", "I went to the support group yesterday.",
                 when=datetime(2023, 5, 8, 15, 0, tzinfo=timezone.utc))
    repo.capture("progress", "Support group again", "The support group on Sunday was good, I went again.",
                 when=datetime(2023, 5, 10, 15, 0, tzinfo=timezone.utc))  # the same date: weighed, not offered
    for i, text in enumerate(["Use SQLite for storage", "Retries must be idempotent", "Release on Tuesdays",
                              "Lint with ruff", "The support group meets at the library"]):
        repo.capture("decisions", text, when=datetime(2023, 5, 1 + i, 15, 0, tzinfo=timezone.utc))
    consolidate(repo)
    doc = recall(repo, "When did I go to the support group?", env=UTC)
    offered = {*doc["source_memory_ids"], *(m for a in doc["alternatives"] for m in a["source_memory_ids"])}
    memories = MemoryStore(GitStore(repo.path)).scan(None).memories
    used = set(ActivationLog(repo.path / ".git").read())
    assert used == {m.key for m in memories if m.id in offered} and len(used) < len(memories)


def test_widening_lists_memories_worth_reading_never_transcript_windows(dormant_store) -> None:
    from memactors.adapters.models.embeddings import embedder_from_env
    from memactors.adapters.reading.read_cache import ReadCache
    from memactors.adapters.reading.recall import WIDEN_MIN_QUALITY, search

    index = ReadCache(dormant_store.store.path / ".git").load()
    embedder = embedder_from_env()
    questions = ["what happens if a hook crashes?", "where does the time go when the session starts?",
                 "how is the Claude Code transcript file structured?", "why were our metrics duplicated?"]
    widened = [h for q in questions for h in search(index, q, limit=10, embedder=embedder) if h.widened]
    windows = [h for q in questions for h in search(index, q, mode="exhaustive", limit=10, embedder=embedder)
               if h.entry.tier.value in ("cold", "archived") and h.entry.quality < WIDEN_MIN_QUALITY]
    assert widened and windows  # colder tiers were searched, and they hold windows that would rank
    assert all(h.entry.quality >= WIDEN_MIN_QUALITY for h in widened)


@pytest.mark.parametrize("vectors", [True, False])
def test_a_store_of_hundreds_of_memories_that_lacks_a_topic_says_nothing_relevant_with_or_without_vectors(
        dormant_store, vectors: bool) -> None:
    from memactors.adapters.models.embeddings import embedder_from_env
    from memactors.adapters.reading.read_cache import ReadCache
    from memactors.adapters.reading.recall import nothing_relevant, search

    index = ReadCache(dormant_store.store.path / ".git").load()
    embedder = embedder_from_env() if vectors else None
    for absent in ("How do we deploy the web frontend to Vercel?",
                   "Which Android SDK version does the mobile app target?"):
        assert nothing_relevant(search(index, absent, embedder=embedder)), absent
    assert not nothing_relevant(search(index, "why did we pick sqlite-vec over LanceDB or Chroma?", embedder=embedder))


def test_a_long_note_one_line_of_which_holds_the_questions_words_is_listed_though_its_meaning_is_elsewhere(
        repo: Repo) -> None:
    # the survey of the codebase is about many things, so its vector is far from the question; its one line on the
    # vector schema holds the question's words (embedding, model, dimensions, vectors) and answers it
    now = datetime.now(timezone.utc)
    survey = ("## Summary\nRead through the codebase to see where a new capture source would plug in.\n\n"
              "## Service layer\n- Singletons behind a registry with get_default_service()\n"
              "- Constructor injection for tests\n\n"
              "## Storage\n- Notes live under refs/notes/mem/<namespace>, one YAML front matter per entry\n"
              "- Index schema is versioned; migrations run on open\n"
              "- Vectors: 384 dimensions per row, from the all-MiniLM-L6-v2 embedding model\n"
              "- WAL mode so the hooks can read while a sync writes\n\n"
              "## Hooks\n- SessionStart injects context, Stop captures, both time out after 5 seconds\n"
              "- Hook output is JSON on stdout\n\n"
              "## CI\n- Lint, type check and tests on Python 3.11 to 3.13; the release job publishes the wheel\n\n"
              "## Open questions\n- Whether the capture lock should be per namespace\n")
    repo.capture("research", "Surveyed the codebase before adding a capture source", survey,
                 when=now - timedelta(days=3))
    for i, (summary, body) in enumerate([
            ("Load the embedding model lazily", "Importing sentence-transformers to build the embedding model costs "
             "two seconds, so the embedding model loads on the first embed call of the embedding service, not at "
             "import."),
            ("Circuit breaker around the embedding service", "Three failures in a row open it for a minute."),
            ("Release checklist", "Bump the version, tag, push the tag, publish the wheel."),
            ("Retries must be idempotent", "A retried request ran twice."),
            ("Hook timeouts are logged", "A hook that runs past its timeout is logged with its name.")]):
        repo.capture("decisions", summary, body, when=now - timedelta(days=i + 1))
    consolidate(repo)
    titles = [h["title"] for h in recall(repo, "Which embedding model do we use, and how many dimensions are "
                                         "the vectors?", "--no-track")]
    assert "Surveyed the codebase before adding a capture source" in titles


def test_a_far_note_sharing_only_a_words_prefix_with_a_short_question_is_not_listed(repo: Repo) -> None:
    # "retry policy": "Polish" shares only the prefix "poli" of a word no memory holds, far from the question in
    # meaning: it is no result (a long note's one line answering holds two or more of the question's words)
    now = datetime.now(timezone.utc)
    for i, (summary, body) in enumerate([
            ("Phase 5: Tests & Polish", "Polish the docs, raise test coverage to 90 percent, tidy the changelog."),
            ("Retries must be idempotent", "A retried request ran twice, so every retry carries a request id."),
            ("Hook timeouts are logged", "A hook that runs past its timeout is logged with its name."),
            ("Circuit breaker around the embedding service", "Three failures in a row open it for a minute.")]):
        repo.capture("decisions", summary, body, when=now - timedelta(days=i + 1))
    consolidate(repo)
    titles = [h["title"] for h in recall(repo, "retry policy", "--no-track")]
    assert "Retries must be idempotent" in titles and "Phase 5: Tests & Polish" not in titles, titles


#: Notes on other subjects, as a store holds them: beside them the embedding model's words are rare, so heavy.
_UNRELATED = [
    ("decisions", "Retries must be idempotent", "A retried request ran twice, so every retry carries a request id."),
    ("learnings", "Hook timeouts are logged", "A hook that runs past its timeout is logged with its name."),
    ("decisions", "Circuit breaker around outbound calls", "Three failures in a row open it for a minute."),
    ("progress", "Fixed the sync of notes between worktrees", "Each worktree now fetches the notes refs on start."),
    ("learnings", "Git config unset treats the pattern as a regex", "Escape the star, or pass --fixed-value."),
    ("decisions", "Ruff replaces flake8 and isort", "One tool, one config section, ten times faster."),
    ("progress", "Added a Grafana dashboard for hook latency", "Panels for p50, p95 and p99 per hook."),
    ("learnings", "The lock file must be removed on crash", "A stale lock blocked every capture until deleted."),
    ("decisions", "Secrets are redacted before capture", "Tokens and keys are replaced by a marker."),
    ("progress", "CI runs the tests on three Python versions", "3.11, 3.12 and 3.13, on Linux and macOS."),
    ("learnings", "Slash commands need the plugin root", "A command run from another directory found no script."),
    ("decisions", "Team memories live in their own namespace", "Shared through the remote like the code."),
]


def test_a_memory_holding_the_words_that_tell_the_candidates_apart_ranks_above_one_sharing_only_their_topic(
        repo: Repo) -> None:
    # every candidate is about the embedding model; only the survey's line on the vectors says how many dimensions
    # they have (the survey covers many things, so its vector is far from the question)
    now = datetime.now(timezone.utc)
    survey = ("## Summary\nRead through the codebase to see where a new capture source would plug in.\n\n"
              "## Service layer\n- Singletons behind a registry with get_default_service()\n"
              "- Lazy initialisation, so importing a service loads no model\n\n"
              "## Storage\n- Notes live under refs/notes/mem/<namespace>, one YAML front matter per entry\n"
              "- SQLite with sqlite-vec for vector search; the schema is versioned\n"
              "- 384-dimension embeddings (all-MiniLM-L6-v2)\n"
              "- WAL mode so the hooks can read while a sync writes\n\n"
              "## Hooks\n- SessionStart injects context, Stop captures, both time out after 5 seconds\n\n"
              "## Extension points\n- The capture service, for enrichment\n- The session analyzer, for implicit "
              "capture\n")
    for i, (namespace, summary, body) in enumerate([
            ("research", "Surveyed the codebase before adding a capture source", survey),
            ("progress", "Instrumented EmbeddingService with observability",
             "## Summary\nAdded observability to embedding model loading and generation.\n\n## Changes Made\n"
             "- A trace span around loading the embedding model, with the model name as a label\n"
             "- A gauge for the embedding model's load time, a counter of embedding model loads\n"
             "- A counter of embeddings generated, batch aware\n"
             "- Nested trace spans for generate and generate_batch\n"
             "- measure_duration decorators on embed() and embed_batch()\n- All 43 existing tests pass\n\n"
             "## Related Files\n- src/app/embedding.py:114-197 (load instrumentation)\n"),
            ("decisions", "Lazy loading keeps imports fast",
             "Importing sentence-transformers to build the embedding model costs two seconds, so the model loads on "
             "the first embed call, not at import."),
            ("learnings", "The first run needs the network",
             "The first run downloads the model into the cache; after that the embedding model loads offline."),
            ("learnings", "Batching is five times faster",
             "Embedding 32 texts per call of the model beats one at a time; the embedding model is warm after one."),
            ("decisions", "A circuit breaker guards the embed calls",
             "Three failures of the embedding model in a row open it for a minute; captures are kept unembedded."),
            ("decisions", "Release checklist", "Bump the version, tag, push the tag, publish the wheel."),
            *_UNRELATED]):
        repo.capture(namespace, summary, body, when=now - timedelta(days=i + 1))
    consolidate(repo)
    hits = recall(repo, "Which embedding model do we use, and how many dimensions are the vectors?", "--no-track")
    assert hits[0]["title"] == "Surveyed the codebase before adding a capture source", [
        (h["title"], h["score"], h["relevance"]) for h in hits]
