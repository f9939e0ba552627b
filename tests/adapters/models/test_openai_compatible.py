"""The real openai SDK against a real HTTP server on 127.0.0.1, under trio."""

from __future__ import annotations

import json

import pytest
import trio
from pydantic import BaseModel, SecretStr

from memactors.actors.algorithms.llm_call import ask
from memactors.actors.ports import InvalidAnswer, LLMUnavailable
from memactors.adapters.models.llm_chain import LLMChain, build_chain
from memactors.adapters.models.llm_config import ProviderConfig, provider_config, resolve_chain
from memactors.adapters.models.openai_compatible import OpenAICompatibleLLM
from tests.fake_openai import FakeOpenAI, HungServer


class Answer(BaseModel):
    text: str
    score: float


def provider(server: FakeOpenAI, *, name: str = "openai", model: str = "gpt-5-nano", **options) -> OpenAICompatibleLLM:
    config = ProviderConfig(name=name, model=model, base_url=server.base_url, api_key=SecretStr("sk-test-key-000"))
    defaults = {"timeout": 2.0, "backoff": 0.01, "max_backoff": 0.05, "requests_per_second": 0}
    return OpenAICompatibleLLM(config, **{**defaults, **options})


async def test_a_structured_answer_is_parsed_and_costed() -> None:
    with FakeOpenAI() as server:
        server.answer({"text": "fine", "score": 0.5})
        llm = provider(server)
        done = await llm.complete("system", "user", Answer)
        await llm.aclose()
    assert done.value == Answer(text="fine", score=0.5)
    assert done.provider == "openai" and done.tokens_out > 0 and done.cost_usd > 0
    sent = server.chat_requests()[0]
    assert "max_completion_tokens" in sent and "temperature" not in sent and "max_tokens" not in sent
    schema = sent["response_format"]["json_schema"]
    assert schema["strict"] is True and schema["schema"]["additionalProperties"] is False


async def test_other_models_get_max_tokens_and_temperature_zero() -> None:
    with FakeOpenAI() as server:
        server.answer({"text": "x", "score": 1})
        llm = provider(server, name="ollama", model="llama3.1")
        done = await llm.complete("s", "u", Answer)
        await llm.aclose()
    sent = server.chat_requests()[0]
    assert sent["temperature"] == 0 and "max_tokens" in sent and done.cost_usd == 0


async def test_secrets_are_redacted_before_anything_is_sent() -> None:
    secret = "sk-proj-abcdefghijklmnopqrstuvwx"
    with FakeOpenAI() as server:
        server.answer({"text": "x", "score": 1})
        llm = provider(server)
        await llm.complete("s", f"deploy with OPENAI key {secret} and password=hunter2hunter", Answer)
        await llm.aclose()
    body = json.dumps(server.chat_requests()[0])
    assert secret not in body and "hunter2hunter" not in body and "[REDACTED:openai_key]" in body
    assert llm.redactions == 2


async def test_a_429_is_retried_then_answered() -> None:
    with FakeOpenAI() as server:
        server.fail(429, retry_after=0)
        server.answer({"text": "after", "score": 1})
        llm = provider(server)
        done = await llm.complete("s", "u", Answer)
        await llm.aclose()
    assert done.value.text == "after" and len(server.chat_requests()) == 2


async def test_a_500_storm_makes_the_provider_unavailable_and_opens_the_breaker() -> None:
    with FakeOpenAI() as server:
        for _ in range(6):
            server.fail(500)
        llm = provider(server, max_attempts=3, breaker_threshold=5, breaker_cooldown=60)
        with pytest.raises(LLMUnavailable, match="3 attempts") as first:
            await llm.complete("s", "u", Answer)
        with pytest.raises(LLMUnavailable, match="circuit opened") as second:  # the fifth failed request
            await llm.complete("s", "u", Answer)
        with pytest.raises(LLMUnavailable, match="circuit open") as third:
            await llm.complete("s", "u", Answer)
        await llm.aclose()
    assert (first.value.requests, second.value.requests, third.value.requests) == (3, 2, 0)
    assert len(server.chat_requests()) == 5  # the open breaker sent nothing


async def test_a_server_that_accepts_and_never_answers_costs_a_few_timeouts_not_one_per_question() -> None:
    """Eight questions, four at a time, to a server that never says a word: the breaker opens on the
    fifth failed request, cancels the requests in flight and refuses the questions still waiting."""
    with HungServer() as hung:
        config = ProviderConfig(name="lmstudio", model="m", base_url=hung.base_url)
        llm = OpenAICompatibleLLM(config, timeout=0.5, max_attempts=3, backoff=0.01, max_backoff=0.05,
                                  requests_per_second=0, concurrency=4, breaker_threshold=5)
        outcomes: list[LLMUnavailable] = []

        async def question() -> None:
            try:
                await llm.complete("s", "u", Answer)
            except LLMUnavailable as exc:
                outcomes.append(exc)

        async with trio.open_nursery() as nursery:
            for _ in range(8):
                nursery.start_soon(question)
        await llm.aclose()
    assert len(outcomes) == 8
    connections = hung.settled_connections()  # everything is done: a blocking wait holds up nothing
    assert 5 <= connections <= 8 and sum(e.requests for e in outcomes) == connections
    assert sum("circuit open" in str(e) for e in outcomes) >= 4  # cut short or refused, not timed out


async def test_a_slow_answer_times_out_and_is_retried() -> None:
    with FakeOpenAI() as server:
        server.slow(1.5)
        server.answer({"text": "late", "score": 1})
        server.answer({"text": "second", "score": 1})
        llm = provider(server, timeout=0.5, max_attempts=2)
        done = await llm.complete("s", "u", Answer)
        await llm.aclose()
    assert done.value.text in {"late", "second"}


@pytest.mark.parametrize("bad", ["not json at all", '{"text": "x"}', '{"text": "x", "score": "high"}'])
async def test_an_answer_that_breaks_the_schema_is_invalid_not_retried(bad: str) -> None:
    with FakeOpenAI() as server:
        server.answer(bad)
        llm = provider(server)
        with pytest.raises(InvalidAnswer):
            await llm.complete("s", "u", Answer)
        await llm.aclose()
    assert len(server.chat_requests()) == 1


async def test_a_truncated_answer_is_invalid() -> None:
    with FakeOpenAI() as server:
        server.truncated('{"text": "cut')
        llm = provider(server)
        with pytest.raises(InvalidAnswer, match="cut short"):
            await llm.complete("s", "u", Answer)
        await llm.aclose()


async def test_the_chain_falls_back_to_the_next_provider_and_caps_calls() -> None:
    with FakeOpenAI() as down, FakeOpenAI() as up:
        for _ in range(6):
            down.fail(500)
        up.answer({"text": "from lmstudio", "score": 1})
        # the failed requests count: three to the provider that is down, one answered
        chain = LLMChain([provider(down, max_attempts=3), provider(up, name="lmstudio", model="m")], max_calls=4)
        done = await chain.complete("s", "u", Answer)
        assert done.provider == "lmstudio" and chain.by_provider == {"openai": 1, "lmstudio": 1}
        assert chain.requests == 4
        with pytest.raises(LLMUnavailable, match="budget of 4"):
            await chain.complete("s", "u", Answer)
        await chain.aclose()


def test_nothing_is_enabled_without_a_named_provider() -> None:
    assert resolve_chain({"OPENAI_API_KEY": "sk-x"}) == []
    assert build_chain({"OPENAI_API_KEY": "sk-x"}) is None
    chain = resolve_chain({"MEMORY_LLM_PROVIDER": "ollama", "MEMORY_CONSOLIDATION_LLM_FALLBACK": "lmstudio"})
    assert [(c.name, c.base_url) for c in chain] == [("ollama", "http://localhost:11434/v1"),
                                                     ("lmstudio", "http://localhost:1234/v1")]
    named = resolve_chain({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-secret",
                           "MEMORY_CONSOLIDATION_LLM_MODEL": "gpt-5-mini"})
    assert named[0].model == "gpt-5-mini" and "sk-secret" not in repr(named)
    with pytest.raises(ValueError, match="unknown LLM provider"):
        resolve_chain({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "skynet"})
    keyless = resolve_chain({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai"})
    assert keyless[0].unusable and "OPENAI_API_KEY" in keyless[0].unusable


async def test_cancelling_a_call_is_not_counted_as_a_failure() -> None:
    with FakeOpenAI() as server:
        server.slow(2)
        llm = provider(server, breaker_threshold=1, timeout=5)
        with trio.move_on_after(0.2):
            await llm.complete("s", "u", Answer)
        server.answer({"text": "ok", "score": 1})
        done = await llm.complete("s", "u", Answer)
        await llm.aclose()
    assert done.value.text == "ok"


# --- anthropic: the OpenAI-compatible endpoint that ignores response_format ---------------------------


def anthropic(server: FakeOpenAI, *, model: str = "claude-haiku-4-5", **options) -> OpenAICompatibleLLM:
    config = provider_config("anthropic", {"ANTHROPIC_API_KEY": "sk-ant-api03-test-0000000000000000",
                                           "MEMORY_CONSOLIDATION_LLM_BASE_URL": server.base_url,
                                           "MEMORY_CONSOLIDATION_LLM_MODEL": model})
    assert config is not None and config.structured == "tool_call"
    defaults = {"timeout": 2.0, "backoff": 0.01, "max_backoff": 0.05, "requests_per_second": 0}
    return OpenAICompatibleLLM(config, **{**defaults, **options})


async def test_anthropic_answers_through_a_forced_tool_call_priced_as_haiku() -> None:
    with FakeOpenAI(mode="anthropic") as server:
        server.answer({"text": "fine", "score": 0.5})
        llm = anthropic(server)
        done = await llm.complete("system", "user", Answer)
        await llm.aclose()
    assert done.value == Answer(text="fine", score=0.5) and done.provider == "anthropic"
    sent = server.chat_requests()[0]
    assert "response_format" not in sent  # the endpoint ignores it: it is not relied on
    [tool] = sent["tools"]
    assert tool["function"]["parameters"] == Answer.model_json_schema()
    assert sent["tool_choice"] == {"type": "function", "function": {"name": tool["function"]["name"]}}
    assert sent["temperature"] == 0 and sent["max_tokens"] > 0
    assert server.requests[0]["authorization"] == "Bearer sk-ant-api03-test-0000000000000000"
    expected = (done.tokens_in * 1.00 + done.tokens_out * 5.00) / 1_000_000
    assert done.cost_usd == pytest.approx(expected) and done.cost_usd > 0


async def test_asking_anthropic_for_response_format_gets_prose_not_json() -> None:
    with FakeOpenAI(mode="anthropic") as server:  # why the tool call: json_schema mode gets talk back
        server.answer({"text": "fine", "score": 0.5})
        llm = provider(server, name="openai", model="gpt-4o-mini")
        with pytest.raises(InvalidAnswer, match="does not match the schema"):
            await llm.complete("s", "u", Answer)
        await llm.aclose()


async def test_text_instead_of_the_tool_call_is_an_invalid_answer_that_says_so() -> None:
    with FakeOpenAI(mode="anthropic-text") as server:
        server.answer({"text": "fine", "score": 0.5})
        llm = anthropic(server)
        with pytest.raises(InvalidAnswer, match="in text instead of calling") as caught:
            await llm.complete("Summarize the cluster.", "Three memories about webhook retries.", Answer)
        await llm.aclose()
    assert caught.value.tokens_in > 0 and caught.value.cost_usd > 0  # the unusable answer was billed


async def test_tool_arguments_that_fail_the_schema_are_asked_again_with_the_error() -> None:
    with FakeOpenAI(mode="anthropic") as server:
        server.answer({"text": "no score"})
        server.answer({"text": "fixed", "score": 1})
        llm = anthropic(server)
        asked = await ask(llm, "s", "u", Answer, lambda _answer: None)
        await llm.aclose()
    assert asked.answer == Answer(text="fixed", score=1)
    retry = server.chat_requests()[1]["messages"][-1]["content"]
    assert "previous answer was rejected" in retry and "score" in retry


@pytest.mark.parametrize(("status", "said"), [(401, "key was refused (HTTP 401); check ANTHROPIC_API_KEY"),
                                              (404, "model 'claude-nonexistent-1' or the endpoint was not found")])
async def test_a_refused_key_or_unknown_model_is_one_line_and_stops_the_provider(status: int, said: str) -> None:
    with FakeOpenAI(mode="anthropic") as server:
        server.fail(status)
        llm = anthropic(server, model="claude-nonexistent-1")
        with pytest.raises(LLMUnavailable) as first:
            await llm.complete("s", "u", Answer)
        with pytest.raises(LLMUnavailable) as second:
            await llm.complete("s", "u", Answer)
        await llm.aclose()
    assert said in str(first.value) and second.value.requests == 0 and len(server.chat_requests()) == 1
    assert "sk-ant" not in str(first.value)


async def test_a_missing_key_sends_nothing_and_names_the_variable() -> None:
    config = provider_config("anthropic", {})
    assert config is not None
    llm = OpenAICompatibleLLM(config)
    with pytest.raises(LLMUnavailable, match="ANTHROPIC_API_KEY is not set") as caught:
        await llm.complete("s", "u", Answer)
    await llm.aclose()
    assert caught.value.requests == 0
