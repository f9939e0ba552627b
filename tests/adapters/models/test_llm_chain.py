"""The chain's spending caps, per run and per day, against a real server on 127.0.0.1."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from pydantic import BaseModel

from memactors.actors.ports import LLMUnavailable
from memactors.adapters.models.llm_chain import LLMChain, build_chain
from memactors.adapters.models.llm_config import provider_config
from memactors.adapters.models.llm_pricing import estimate_cost, price_of
from memactors.adapters.models.openai_compatible import OpenAICompatibleLLM
from memactors.adapters.models.spend_ledger import KEEP_DAYS, SpendLedger
from tests.fake_openai import FakeOpenAI


class Answer(BaseModel):
    text: str
    score: float


def claude(server: FakeOpenAI) -> OpenAICompatibleLLM:
    config = provider_config("anthropic", {"ANTHROPIC_API_KEY": "sk-ant-api03-test-0000000000000000",
                                           "MEMORY_CONSOLIDATION_LLM_BASE_URL": server.base_url})
    assert config is not None
    return OpenAICompatibleLLM(config, timeout=2.0, requests_per_second=0, backoff=0.01, max_backoff=0.02)


PROMPT = "Summarize these memories about payment webhooks and their retries. " * 20


async def test_a_run_cost_cap_stops_asking_once_reached_and_says_which_cap() -> None:
    with FakeOpenAI(mode="anthropic", responder=lambda _r: '{"text": "ok", "score": 1}') as server:
        chain = LLMChain([claude(server)], max_cost_usd=0.0001)
        first = await chain.complete("s", PROMPT, Answer)
        assert first.cost_usd > 0.0001  # one answer may overshoot: questions in flight finish
        with pytest.raises(LLMUnavailable, match=r"cost cap of \$0.0001 for this run reached.*MEMACTORS_MAX_COST_USD"):
            await chain.complete("s", PROMPT, Answer)
        assert len(server.chat_requests()) == 1
        chain.begin_run()  # the daemon's next run starts afresh
        await chain.complete("s", PROMPT, Answer)
        await chain.aclose()


async def test_the_daily_cap_counts_every_run_of_the_day(tmp_path: Path) -> None:
    today = date(2026, 11, 24)
    ledger = SpendLedger(tmp_path / "spend.json", lambda: today)
    with FakeOpenAI(mode="anthropic", responder=lambda _r: '{"text": "ok", "score": 1}') as server:
        morning = LLMChain([claude(server)], ledger=ledger, daily_limit=0.0002)
        await morning.complete("s", PROMPT, Answer)
        spent = ledger.spent_today()
        assert spent > 0
        await morning.aclose()
        evening = LLMChain([claude(server)], ledger=SpendLedger(tmp_path / "spend.json", lambda: today),
                           daily_limit=spent)  # another process, the same day: the cap is already reached
        with pytest.raises(LLMUnavailable, match="daily cost cap.*MEMACTORS_MAX_COST_USD_PER_DAY"):
            await evening.complete("s", PROMPT, Answer)
        tomorrow = LLMChain([claude(server)], ledger=SpendLedger(tmp_path / "spend.json", lambda: date(2026, 11, 25)),
                            daily_limit=spent)
        await tomorrow.complete("s", PROMPT, Answer)
        await evening.aclose()
        await tomorrow.aclose()
    assert len(server.chat_requests()) == 2


def test_the_ledger_keeps_a_week_and_survives_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "spend.json"
    for day in range(1, 12):
        SpendLedger(path, lambda day=day: date(2026, 11, day)).add(0.01)
    ledger = SpendLedger(path, lambda: date(2026, 11, 11))
    ledger.add(0.005)
    assert ledger.spent_today() == pytest.approx(0.015)
    assert len(__import__("json").loads(path.read_text())["days"]) == KEEP_DAYS
    path.write_text("{not json")
    assert ledger.spent_today() == 0.0
    ledger.add(0.002)
    assert ledger.spent_today() == pytest.approx(0.002)


def test_claude_models_are_priced_and_an_unknown_paid_model_errs_high() -> None:
    assert price_of("anthropic", "claude-haiku-4-5-20251001") == ((1.00, 5.00), True)
    assert price_of("anthropic", "claude-sonnet-4-5") == ((3.00, 15.00), True)
    assert estimate_cost("anthropic", "claude-haiku-4-5", 1_000_000, 0) == 1.00
    (unknown_in, unknown_out), listed = price_of("anthropic", "claude-someday-9")
    assert not listed and unknown_in >= 10 and unknown_out >= 50  # a cap must fire, not sleep at $0
    assert price_of("ollama", "llama3.1") == ((0.0, 0.0), True)


def test_a_named_provider_without_its_key_is_kept_to_fall_back_with_the_reason() -> None:
    chain = build_chain({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "anthropic"})
    assert chain is not None and chain.providers[0].config.unusable.startswith("ANTHROPIC_API_KEY is not set")
    assert build_chain({"ANTHROPIC_API_KEY": "sk-ant-x"}) is None  # a key alone never switches an LLM on
    with pytest.raises(ValueError, match="unknown LLM provider"):
        build_chain({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "claude"})


def test_the_claude_command_is_its_own_setting_not_the_base_url() -> None:
    env = {"MEMORY_CONSOLIDATION_LLM_PROVIDER": "claude-code", "MEMORY_CONSOLIDATION_LLM_BASE_URL": "http://x/v1",
           "MEMORY_CONSOLIDATION_LLM_MODEL": "sonnet"}
    config = provider_config("claude-code", env)
    assert config is not None and (config.base_url, config.model) == ("claude", "sonnet")
    config = provider_config("claude-code", {**env, "MEMACTORS_CLAUDE_COMMAND": "/opt/claude/bin/claude"})
    assert config is not None and config.base_url == "/opt/claude/bin/claude"
