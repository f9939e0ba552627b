"""The claude-code provider against a stand-in `claude` on PATH (tests/fake_claude.py), under trio."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import trio
from pydantic import BaseModel

from memactors.actors.algorithms.llm_call import ask
from memactors.actors.ports import InvalidAnswer, LLMUnavailable
from memactors.adapters.claude.inbox import Inbox
from memactors.adapters.models.claude_cli import ClaudeCodeLLM
from memactors.adapters.models.llm_config import provider_config
from tests.conftest import Repo
from tests.fake_claude import COST_PER_CALL, MODEL_ID, install


class LinkCheck(BaseModel):
    status: str
    echo: str


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-in first on PATH; returns the log file each call appends to."""
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    return log


def calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def llm(**options) -> ClaudeCodeLLM:
    config = provider_config("claude-code", {})
    assert config is not None
    return ClaudeCodeLLM(config, **{"timeout": 20.0, **options})


async def test_the_answer_tokens_and_cost_come_from_the_envelope(stand_in: Path) -> None:
    done = await llm().complete("Answer in shape.", 'Set status to "ok" and echo to pong.', LinkCheck)
    assert done.value == LinkCheck(status="ok", echo="pong")
    assert done.provider == "claude-code" and done.model == MODEL_ID
    assert done.cost_usd == COST_PER_CALL and done.tokens_in > 0 and done.tokens_out > 0
    [call] = calls(stand_in)
    assert call["prompt"].startswith("Set status")  # on stdin, not in argv where `ps` shows it
    schema = json.loads(call["argv"][call["argv"].index("--json-schema") + 1])
    assert schema["title"] == "LinkCheck"


async def test_the_sub_session_runs_quiet_in_an_empty_directory_outside_the_repository(stand_in: Path) -> None:
    await llm().complete("s", "u", LinkCheck)
    [call] = calls(stand_in)
    argv = call["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"]
    assert argv[argv.index("--tools") + 1] == ""  # every built-in tool off
    for flag in ("--safe-mode", "--no-session-persistence", "--strict-mcp-config", "--disable-slash-commands"):
        assert flag in argv
    assert json.loads(argv[argv.index("--settings") + 1]) == {"disableAllHooks": True}
    assert call["listing"] == [] and not Path(call["cwd"]).exists()  # empty, and gone afterwards
    assert not any((parent / ".git").exists() for parent in Path(call["cwd"]).parents)
    assert call["MEMACTORS_HOOKS"] == "off" and call["HOOK_ENABLED"] == "false"


async def test_what_the_sub_session_leaves_in_its_directory_is_removed(stand_in: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "trace")
    await llm().complete("s", "u", LinkCheck)
    [call] = calls(stand_in)
    assert not Path(call["cwd"]).exists()


async def test_a_hook_inside_the_sub_session_queues_nothing(stand_in: Path, repo: Repo, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "recurse")
    monkeypatch.setenv("FAKE_CLAUDE_REPO", str(repo.path))
    await llm().complete("s", "u", LinkCheck)
    inbox = Inbox(repo.path / ".git")
    assert inbox.pending() == ([], [])
    # the same hook command outside a sub-session does queue: the silence above is the marker's doing
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "ok")
    import subprocess
    import sys
    subprocess.run([sys.executable, "-m", "memactors.adapters.cli", "publish", "session-end"], check=True,
                   input=json.dumps({"hook_event_name": "SessionEnd", "cwd": str(repo.path)}), text=True)
    assert len(inbox.pending()[0]) == 1


async def test_an_answer_given_as_result_text_is_accepted_when_it_fits(stand_in: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "text-json")
    done = await llm().complete("s", "u", LinkCheck)
    assert done.value.echo == "pong"


async def test_an_answer_that_fails_the_schema_is_invalid_and_retried_with_the_error(stand_in: Path,
                                                                                     monkeypatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "invalid")
    with pytest.raises(InvalidAnswer, match="does not match the schema") as caught:
        await llm().complete("s", "u", LinkCheck)
    assert caught.value.cost_usd == COST_PER_CALL  # an unusable answer still cost something
    asked = await ask(llm(), "s", "u", LinkCheck, lambda _answer: None)
    assert asked.answer is None and "invalid answer twice" in (asked.why or "")
    assert "previous answer was rejected" in calls(stand_in)[-1]["prompt"]
    assert asked.usage.cost_usd == pytest.approx(2 * COST_PER_CALL)


@pytest.mark.parametrize(("mode", "said"), [
    ("not-logged-in", "not logged in"),
    ("exit", "exited with status 2 without its JSON envelope"),
    ("garbage", "without its JSON envelope (printed: Welcome to Claude Code"),
])
async def test_each_failure_is_one_line_saying_what_happened(stand_in: Path, monkeypatch, mode: str,
                                                             said: str) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", mode)
    with pytest.raises(LLMUnavailable) as caught:
        await llm().complete("s", "u", LinkCheck)
    assert said in str(caught.value) and "\n" not in str(caught.value)


async def test_a_login_problem_stops_further_calls_at_once(stand_in: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "not-logged-in")
    provider = llm()
    with pytest.raises(LLMUnavailable, match="/login"):
        await provider.complete("s", "u", LinkCheck)
    with pytest.raises(LLMUnavailable, match="/login") as second:
        await provider.complete("s", "u", LinkCheck)
    assert second.value.requests == 0 and len(calls(stand_in)) == 1


async def test_a_missing_cli_is_named_and_costs_no_more_tries(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    provider = llm()
    with pytest.raises(LLMUnavailable, match="not found on PATH.*MEMACTORS_CLAUDE_COMMAND"):
        await provider.complete("s", "u", LinkCheck)
    with pytest.raises(LLMUnavailable, match="not found on PATH"):
        await provider.complete("s", "u", LinkCheck)


async def test_a_cli_that_hangs_is_stopped_at_the_timeout(stand_in: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "hang")
    started = trio.current_time()
    with pytest.raises(LLMUnavailable, match="no answer within 1 s"):
        await llm(timeout=1.0).complete("s", "u", LinkCheck)
    assert trio.current_time() - started < 10
    [call] = calls(stand_in)
    with pytest.raises(ProcessLookupError):
        os.kill(call["pid"], 0)  # killed and reaped, not left behind


async def test_secrets_are_redacted_before_the_cli_sees_them(stand_in: Path) -> None:
    secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz"
    await llm().complete("s", f"the key is {secret}", LinkCheck)
    [call] = calls(stand_in)
    assert secret not in call["prompt"] and secret not in json.dumps(call["argv"])


@pytest.mark.parametrize("concurrency", [1, 3])
async def test_concurrency_is_bounded(stand_in: Path, tmp_path: Path, monkeypatch, concurrency: int) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_LATENCY", "0.5")
    monkeypatch.setenv("FAKE_CLAUDE_RUNDIR", str(tmp_path))
    provider = llm(concurrency=concurrency)
    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(provider.complete, "s", "u", LinkCheck)
    seen = [c["running"] for c in calls(stand_in)]
    assert len(seen) == 3 and max(seen) <= concurrency
