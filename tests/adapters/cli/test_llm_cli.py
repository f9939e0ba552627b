"""`llm check` and consolidation with the Claude providers, as a user runs them: fresh processes, real
stand-ins (an Anthropic-compatible server on 127.0.0.1, a `claude` executable on PATH)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.actors.test_semantic_pipeline import store_of_facts  # noqa: F401 - fixture
from tests.conftest import Repo, run_cli
from tests.cooperative_model import cooperative
from tests.fake_claude import COST_PER_CALL, install
from tests.fake_openai import FakeOpenAI

KEY = "sk-ant-api03-secret-key-0000000000000000"


@pytest.fixture
def claude_on_path(tmp_path: Path) -> dict[str, str]:
    install(tmp_path / "bin")
    return {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}


def anthropic_env(server: FakeOpenAI) -> dict[str, str]:
    return {"MEMORY_CONSOLIDATION_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": KEY,
            "MEMORY_CONSOLIDATION_LLM_BASE_URL": server.base_url}


def test_check_with_nothing_configured_says_runs_are_offline_and_how_to_name_one(git_env) -> None:
    result = run_cli("llm", "check")
    assert result.returncode == 0
    assert "runs offline" in result.stdout and "MEMORY_CONSOLIDATION_LLM_PROVIDER=claude-code" in result.stdout
    assert json.loads(run_cli("llm", "check", "--json").stdout)["configured"] is False


def test_check_reports_the_anthropic_tool_call_with_tokens_and_cost(git_env) -> None:
    with FakeOpenAI(mode="anthropic", responder=cooperative) as server:
        result = run_cli("llm", "check", "--json", env=anthropic_env(server))
    assert result.returncode == 0, result.stderr
    [checked] = json.loads(result.stdout)["providers"]
    assert checked["ok"] and checked["provider"] == "anthropic" and checked["mode"] == "tool call"
    assert checked["tokens_in"] > 0 and checked["cost_usd"] > 0 and checked["latency_ms"] >= 0
    assert KEY not in result.stdout + result.stderr


def test_check_names_a_schema_the_endpoint_ignored(git_env) -> None:
    with FakeOpenAI(mode="anthropic-text", responder=cooperative) as server:
        result = run_cli("llm", "check", env=anthropic_env(server))
    assert result.returncode == 1
    assert "FAILED: schema ignored or not followed" in result.stdout and "Traceback" not in result.stderr


def test_check_tries_a_provider_before_it_is_configured(git_env, claude_on_path) -> None:
    result = run_cli("llm", "check", "--provider", "claude-code", env=claude_on_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("claude-code") and "CLI schema" in result.stdout and "ok" in result.stdout


@pytest.mark.parametrize(("env", "said"), [
    ({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "anthropic"}, "ANTHROPIC_API_KEY is not set"),
    ({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "claude-code", "FAKE_CLAUDE_MODE": "not-logged-in"}, "/login"),
    ({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "claude-code", "PATH": "/nonexistent"}, "not found on PATH"),
])
def test_check_gives_one_line_and_exit_1_when_a_provider_fails(git_env, claude_on_path, env, said) -> None:
    result = run_cli("llm", "check", env={**claude_on_path, **env})
    assert result.returncode == 1
    assert said in result.stdout and len(result.stdout.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_an_unknown_provider_is_a_usage_error(git_env) -> None:
    result = run_cli("llm", "check", "--provider", "claude")
    assert result.returncode == 2 and "unknown LLM provider 'claude'" in result.stderr


def test_consolidation_through_the_cli_provider_records_its_cost(store_of_facts: Repo, claude_on_path) -> None:  # noqa: F811
    before = store_of_facts.originals()
    result = run_cli("consolidate", "--json", "--repo", str(store_of_facts.path),
                     env={**claude_on_path, "MEMORY_CONSOLIDATION_LLM_PROVIDER": "claude-code"})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["providers"].get("claude-code", 0) >= 1 and report["errors"] == []
    calls = report["token_usage"]["llm_calls"]
    assert calls >= 1 and report["token_usage"]["cost_usd"] == pytest.approx(calls * COST_PER_CALL)
    assert store_of_facts.originals() == before


def test_a_cost_cap_sends_the_rest_offline_and_the_run_record_says_so(store_of_facts: Repo, claude_on_path) -> None:  # noqa: F811
    result = run_cli("consolidate", "--repo", str(store_of_facts.path), "--max-cost-usd", "0.001",
                     env={**claude_on_path, "MEMORY_CONSOLIDATION_LLM_PROVIDER": "claude-code"})
    assert result.returncode == 1, result.stdout
    capped = [line for line in result.stdout.splitlines() if "cost cap of $0.001" in line]
    assert len(capped) == 1 and "handled offline" in capped[0]  # one line, however many clusters it cost
    latest = json.loads(run_cli("status", "--json", "--repo", str(store_of_facts.path)).stdout)["last_run"]
    assert any("cost cap of $0.001" in e for e in latest["errors"])  # the stored run record


def test_a_missing_key_falls_back_offline_with_one_clear_line(store_of_facts: Repo) -> None:  # noqa: F811
    result = run_cli("consolidate", "--repo", str(store_of_facts.path),
                     env={"MEMORY_CONSOLIDATION_LLM_PROVIDER": "anthropic"})
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if line.strip().startswith("error")]
    assert len(errors) == 1 and "ANTHROPIC_API_KEY is not set" in errors[0]
    assert "persisted" in result.stdout and "Traceback" not in result.stderr
