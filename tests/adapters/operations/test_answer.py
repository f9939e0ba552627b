"""`memactors recall --answer`: an answer composed from the memories, each cited by id, on real git stores."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from tests.conftest import Repo, run_cli
from tests.fake_openai import FakeOpenAI

UTC = {"MEMACTORS_TIMEZONE": "UTC"}


def consolidate(repo: Repo) -> None:
    result = run_cli("consolidate", "--json", "--repo", str(repo.path), env=UTC)
    assert result.returncode in (0, 1), result.stderr


def ask(repo: Repo, question: str, *args: str, env: dict[str, str] | None = None, code: int = 0) -> dict[str, Any]:
    result = run_cli("recall", question, "--answer", "--json", "--no-track", *args, "--repo", str(repo.path),
                     env={**UTC, **(env or {})})
    assert result.returncode == code, result.stderr
    return json.loads(result.stdout)


def memory_id(repo: Repo, summary: str) -> str:
    result = run_cli("recall", summary, "--json", "--no-track", "--mode", "exhaustive", "--repo", str(repo.path),
                     env=UTC)
    hits = json.loads(result.stdout)
    return next(h["id"] for h in hits if h["title"] == summary)


@pytest.fixture
def project(repo: Repo) -> Repo:
    """Decisions and learnings captured as the plugin captures them, one storage decision replaced by another."""
    now = datetime.now(timezone.utc)
    repo.capture("decisions", "Use SQLite for storage", "We chose SQLite: simplest thing that works.",
                 when=now - timedelta(days=30))
    repo.commit("more")
    repo.capture("decisions", "Switch storage from SQLite to PostgreSQL",
                 "Replaces SQLite: we need concurrent writers from the worker pool.", when=now - timedelta(days=2))
    repo.capture("learnings", "Hooks must finish within 100 milliseconds",
                 "Slow hooks make the agent sluggish. We measured the session start hook yesterday and it took "
                 "400 ms, so the embedding model now loads lazily.", when=now - timedelta(days=3))
    repo.capture("patterns", "Wrap outbound HTTP calls in a circuit breaker",
                 "After three failures in a row the breaker opens for thirty seconds.", when=now - timedelta(days=4))
    repo.capture("learnings", "Retries must be idempotent", "A retried webhook request charged a card twice.",
                 when=now - timedelta(days=5))
    consolidate(repo)
    return repo


def test_an_answer_quotes_the_supporting_memory_and_cites_its_id(project: Repo) -> None:
    doc = ask(project, "How long may the hooks take to finish?")
    answer = doc["answer"]
    hooks = memory_id(project, "Hooks must finish within 100 milliseconds")
    assert answer["answered"] is True and answer["provider"] == "offline"
    assert answer["citations"][0]["id"] == hooks
    short = ":".join([hooks.split(":")[0], hooks.split(":")[1][:7], hooks.split(":")[2]])
    assert "100 milliseconds" in answer["text"] and f"[{short}]" in answer["text"]
    assert 0 < answer["confidence"] <= 1 and answer["reasoning"]
    assert all(c["id"] in {r["id"] for r in doc["results"]} for c in answer["citations"])


def test_a_relative_date_in_a_quoted_sentence_is_resolved(project: Repo) -> None:
    answer = ask(project, "How long did the session start hook take when we measured it?")["answer"]
    recorded = (datetime.now(timezone.utc) - timedelta(days=3)).date()
    assert f"yesterday ({(recorded - timedelta(days=1)).isoformat()})" in answer["text"]


def test_the_text_answer_names_the_sources_and_the_confidence(project: Repo) -> None:
    result = run_cli("recall", "How long may the hooks take to finish?", "--answer", "--no-track",
                     "--repo", str(project.path), env=UTC)
    assert result.returncode == 0, result.stderr
    first, *rest = result.stdout.splitlines()
    assert "100 milliseconds" in first and re.search(r"\[learnings:[0-9a-f]{7}:\d+\]", first)
    assert re.match(r"  confidence 0\.\d\d \(offline\)", rest[0])


def test_a_question_the_memories_do_not_answer_gets_do_not_say(project: Repo) -> None:
    doc = ask(project, "Which Kubernetes autoscaling policy do the API pods use?")
    assert doc["answer"]["text"] == "The memories do not say."
    assert doc["answer"]["answered"] is False and doc["answer"]["citations"] == []
    assert doc["answer"]["confidence"] == 0.0


def test_a_replaced_memory_is_not_the_answer(project: Repo) -> None:
    doc = ask(project, "Which database do we use for storage?", "--mode", "exhaustive")
    answer = doc["answer"]
    old = memory_id(project, "Use SQLite for storage")
    new = memory_id(project, "Switch storage from SQLite to PostgreSQL")
    assert old in {r["id"] for r in doc["results"]}  # recall listed it (marked replaced) ...
    cited = [c["id"] for c in answer["citations"]]
    assert cited[0] == new and old not in cited  # ... the answer rests on what replaced it
    assert "PostgreSQL" in answer["text"] and "We chose SQLite" not in answer["text"]
    assert old in answer["left_out"] and "replaced" in answer["reasoning"]


def test_an_llm_composes_the_answer_citing_only_the_memories_it_was_given(project: Repo) -> None:
    prompts: list[str] = []

    def respond(body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        prompts.append(user)
        labels = re.findall(r'<memory label="(M\d+)"', user)
        hooks = next(label for label, text in re.findall(r'<memory label="(M\d+)"[^>]*>\n(.*?)\n</memory>', user,
                                                          re.S) if "100 milliseconds" in text)
        if len(prompts) == 1:  # first: a label it was not given; refused and asked again
            return json.dumps({"answer": f"Within 100 ms [{hooks}] [M99].", "confidence": 0.9,
                               "reasoning": "The learning says so.", "cited": [hooks, "M99"]})
        assert "not among the memories given" in user and labels
        return json.dumps({"answer": f"Hooks must finish within 100 ms [{hooks}].", "confidence": 0.8,
                           "reasoning": "One learning states the limit.", "cited": [hooks]})

    with FakeOpenAI(responder=respond) as server:
        env = {"MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "MEMORY_CONSOLIDATION_LLM_BASE_URL": server.base_url,
               "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
        doc = ask(project, "How long may the hooks take to finish?", env=env)
        assert len(server.chat_requests()) == 2
    answer = doc["answer"]
    hooks = memory_id(project, "Hooks must finish within 100 milliseconds")
    assert answer["provider"] == "openai" and [c["id"] for c in answer["citations"]] == [hooks]
    assert "[M" not in answer["text"] and re.search(r"\[learnings:[0-9a-f]{7}:\d+\]", answer["text"])
    assert "<memory " in prompts[0] and "Hooks must finish within 100 milliseconds" in prompts[0]


def test_an_llm_that_keeps_citing_unknown_memories_leaves_the_offline_answer(project: Repo) -> None:
    with FakeOpenAI(responder=lambda body: json.dumps({"answer": "Per [M42].", "confidence": 0.9,
                                                       "reasoning": "x", "cited": ["M42"]})) as server:
        env = {"MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "MEMORY_CONSOLIDATION_LLM_BASE_URL": server.base_url,
               "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
        result = run_cli("recall", "How long may the hooks take to finish?", "--answer", "--json", "--no-track",
                         "--repo", str(project.path), env={**UTC, **env})
    assert result.returncode == 1 and "offline answer stands" in result.stderr
    answer = json.loads(result.stdout)["answer"]
    assert answer["provider"] == "offline" and "M42" not in answer["text"] and answer["citations"]


def test_a_secret_in_a_memory_never_reaches_the_llm(repo: Repo) -> None:
    repo.capture("learnings", "The staging deploy token lives in the vault",
                 "The staging deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 and rotates monthly.")
    consolidate(repo)
    with FakeOpenAI(responder=lambda body: json.dumps({"answer": "The memories do not say.", "confidence": 0.1,
                                                       "reasoning": "Nothing.", "cited": []})) as server:
        env = {"MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "MEMORY_CONSOLIDATION_LLM_BASE_URL": server.base_url,
               "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
        doc = ask(repo, "Where does the staging deploy token live and how often does it rotate?", env=env)
        sent = json.dumps(server.chat_requests())
    assert "deploy token" in sent and "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in sent
    assert doc["answer"]["answered"] is False and doc["answer"]["provider"] == "openai"


def test_a_running_daemon_answers_a_recall_request_asking_for_the_answer(project: Repo) -> None:
    from memactors.adapters.operations.recall import answer_request

    got = answer_request(project.path, None, {"op": "recall", "args": {
        "query": "How long may the hooks take to finish?", "answer": True, "track": False}})
    assert got["code"] == 0, got
    assert got["document"]["answer"]["answered"] and "100 milliseconds" in got["document"]["answer"]["text"]
    assert got["text"].splitlines()[1].startswith("  confidence ")


def test_bad_input_to_an_answer_is_one_line_and_exit_2(project: Repo) -> None:
    for args in (["   "], ["hooks", "--limit", "0"]):
        result = run_cli("recall", *args, "--answer", "--no-track", "--repo", str(project.path), env=UTC)
        assert result.returncode == 2 and result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
