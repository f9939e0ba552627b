"""One LLM provider through the openai SDK's OpenAI-compatible API, under trio.

`OpenAICompatibleLLM` serves openai, lmstudio, ollama and anthropic
(Anthropic's OpenAI-compatible endpoint). Structured answers come either
through `response_format` (json_schema, checked by the SDK's `parse`) or,
where the endpoint ignores `response_format` (Anthropic), through a forced
call of one function whose parameters are the answer's JSON schema
(tool_call), validated with the same pydantic model. Retries with
tenacity's backoff (the SDK's own retries off), a circuit breaker, a rate
limit, bounded concurrency, redaction before sending, token accounting.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, TypeVar

import openai
import pydantic
import trio
from pydantic import BaseModel
from tenacity import wait_exponential

from memactors.actors.ports import Completion, InvalidAnswer, LLMUnavailable
from memactors.adapters.models.circuit_breaker import CircuitBreaker
from memactors.adapters.models.llm_config import ProviderConfig
from memactors.adapters.models.llm_pricing import estimate_cost
from memactors.adapters.models.redaction import redact

T = TypeVar("T", bound=BaseModel)

_RETRYABLE = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError)
#: The one function the model is made to call in tool_call mode; its arguments are the answer.
ANSWER_TOOL = "record_answer"


class OpenAICompatibleLLM:
    """One provider. `complete` asks once, retrying only transport failures.

    Raises InvalidAnswer when the reply is not valid against the schema
    (invalid or truncated JSON, refusal, text where a tool call was forced)
    and LLMUnavailable after `max_attempts` transport failures, while the
    breaker is open, or at once when the provider is unusable as configured
    (no key). Every request gets at most `timeout` seconds, whatever the
    server does. The breaker opens after `breaker_threshold` consecutive
    failed requests (or at once on a refused key), for `breaker_cooldown`
    seconds of trio time; opening it cancels the requests in flight and
    refuses those waiting for a slot. Cancellation from outside propagates;
    a cancelled call is neither a success nor a breaker failure.
    """

    def __init__(self, config: ProviderConfig, *, concurrency: int = 4, requests_per_second: float = 5.0,
                 timeout: float = 60.0, max_attempts: int = 3, backoff: float = 1.0, max_backoff: float = 20.0,
                 breaker_threshold: int = 5, breaker_cooldown: float = 30.0, max_output_tokens: int = 2000) -> None:
        self.config = config
        self.provider = config.name
        self.model = config.model
        self.mode = config.structured
        self._models = (config.model, *config.fallback_models)
        key = config.api_key.get_secret_value() if config.api_key else "not-needed"
        self._timeout = timeout
        self._client = openai.AsyncOpenAI(base_url=config.base_url, api_key=key, max_retries=0, timeout=timeout)
        self._limiter = trio.CapacityLimiter(concurrency)
        self._interval = 1.0 / requests_per_second if requests_per_second > 0 else 0.0
        self._next_start = 0.0
        self._attempts = max_attempts
        self._wait = wait_exponential(multiplier=backoff, max=max_backoff)
        self._max_backoff = max_backoff
        self.breaker = CircuitBreaker(config.name, threshold=breaker_threshold, cooldown=breaker_cooldown)
        self._max_output_tokens = max_output_tokens
        self.redactions = 0
        #: Called once a request has its slot, just before it is sent (the chain's caps); raises LLMUnavailable.
        self.admit: Callable[[], None] | None = None

    def _params(self, model: str) -> dict[str, Any]:
        if model.startswith("gpt-5"):  # gpt-5 rejects temperature and max_tokens
            return {"max_completion_tokens": self._max_output_tokens}
        return {"max_tokens": self._max_output_tokens, "temperature": 0}  # Anthropic takes 0..1

    async def _pace(self) -> None:
        now = trio.current_time()
        start = max(now, self._next_start)
        self._next_start = start + self._interval
        if start > now:
            await trio.sleep(start - now)

    async def complete(self, system: str, user: str, schema: type[T], *,
                       deadline: float | None = None) -> Completion[T]:
        if self.config.unusable:
            raise LLMUnavailable(f"{self.provider}: {self.config.unusable}")
        self.breaker.refuse_if_open()
        system, hidden_a = redact(system)
        user, hidden_b = redact(user)
        self.redactions += hidden_a + hidden_b
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        sent = _Sent()
        with trio.move_on_at(math.inf if deadline is None else deadline):
            async with self._limiter:
                self.breaker.refuse_if_open()  # it may have opened while this call waited for a slot
                with self.breaker.guard():
                    return await self._ask(messages, schema, sent)
                raise LLMUnavailable(f"{self.provider}: circuit opened while this request was in flight",
                                     requests=sent.count)
        raise LLMUnavailable(f"{self.provider}: the run's LLM deadline (MEMACTORS_LLM_DEADLINE) passed",
                             requests=sent.count)

    async def _send(self, model: str, messages: list[dict[str, str]], schema: type[T]) -> tuple[Any, T]:
        """One request; the raw response and the answer validated against `schema`."""
        if self.mode == "tool_call":
            response = await self._client.chat.completions.create(
                model=model, messages=messages, tools=[_answer_tool(schema)],
                tool_choice={"type": "function", "function": {"name": ANSWER_TOOL}}, **self._params(model))
            try:
                return response, _tool_answer(response, schema)
            except InvalidAnswer as exc:  # an unusable answer was still billed
                exc.tokens_in, exc.tokens_out = _tokens(response)
                exc.cost_usd = estimate_cost(self.provider, model, exc.tokens_in, exc.tokens_out)
                raise
        response = await self._client.chat.completions.parse(
            model=model, messages=messages, response_format=schema, **self._params(model))
        choice = response.choices[0]
        if getattr(choice.message, "refusal", None):
            raise InvalidAnswer(f"the model refused: {choice.message.refusal[:200]}")
        if choice.message.parsed is None:
            raise InvalidAnswer("empty answer", raw=choice.message.content or "")
        return response, choice.message.parsed

    async def _ask(self, messages: list[dict[str, str]], schema: type[T], sent: _Sent) -> Completion[T]:
        models = list(self._models)
        last = ""
        attempt = 0
        while attempt < self._attempts:
            attempt += 1
            await self._pace()
            await trio.lowlevel.checkpoint()  # a breaker that opened meanwhile stops it here, before sending
            model = models[0]
            if self.admit is not None:
                try:
                    self.admit()
                except LLMUnavailable as exc:
                    exc.requests = sent.count
                    raise
            sent.count += 1
            answered = None
            with trio.move_on_after(self._timeout):  # the SDK's timeout is per read: a trickle never ends
                try:
                    answered = await self._send(model, messages, schema)
                except _RETRYABLE as exc:
                    last = _transport_reason(exc, self.config.base_url)
                    self.breaker.failed()
                    if attempt < self._attempts:
                        await trio.sleep(self._delay(exc, attempt))
                    continue
                except InvalidAnswer as exc:
                    exc.requests = sent.count
                    raise
                except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
                    raise InvalidAnswer(f"answer cut short: {type(exc).__name__}", requests=sent.count) from None
                except (pydantic.ValidationError, json.JSONDecodeError, ValueError) as exc:
                    raise InvalidAnswer(f"answer does not match the schema: {str(exc).splitlines()[0]}",
                                        requests=sent.count) from None
                except openai.APIStatusError as exc:
                    if exc.status_code in (400, 404) and len(models) > 1 and "model" in str(exc).lower():
                        models.pop(0)
                        attempt -= 1
                        continue
                    why = _status_reason(exc, model, self.config)
                    self.breaker.failed(fatal=why if exc.status_code in (401, 403, 404) else None)
                    raise LLMUnavailable(f"{self.provider}: {why}", requests=sent.count) from None
                except openai.OpenAIError as exc:
                    self.breaker.failed()
                    raise LLMUnavailable(f"{self.provider}: {type(exc).__name__}", requests=sent.count) from None
            if answered is None:
                last = f"no answer within {self._timeout:g} s (MEMACTORS_LLM_TIMEOUT)"
                self.breaker.failed()
                continue
            return self._completed(*answered, model, sent.count)
        tries = "1 attempt" if self._attempts == 1 else f"{self._attempts} attempts"
        raise LLMUnavailable(f"{self.provider}: {tries} failed ({last})", requests=sent.count)

    def _delay(self, exc: Exception, attempt: int) -> float:
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            if header is not None:
                return min(float(header), self._max_backoff)
        except ValueError:
            pass
        return float(self._wait.__call__(_State(attempt)))

    def _completed(self, response: Any, value: T, model: str, requests: int) -> Completion[T]:
        self.breaker.succeeded()
        tokens_in, tokens_out = _tokens(response)
        self.model = model
        return Completion(value=value, provider=self.provider, model=model, tokens_in=tokens_in,
                          tokens_out=tokens_out, cost_usd=estimate_cost(self.provider, model, tokens_in, tokens_out),
                          requests=requests)

    async def aclose(self) -> None:
        await self._client.close()


def _tokens(response: Any) -> tuple[int, int]:
    usage = getattr(response, "usage", None)
    return (usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else (0, 0)


def _answer_tool(schema: type[BaseModel]) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": ANSWER_TOOL, "description": "Record your answer. Every argument must follow the schema.",
        "parameters": schema.model_json_schema()}}


def _tool_answer(response: Any, schema: type[T]) -> T:
    """The forced tool call's arguments, validated; an answer in text instead is used only if it validates."""
    choice = response.choices[0]
    if choice.finish_reason == "length":
        raise InvalidAnswer("answer cut short: the output token limit was reached")
    calls = [c for c in (choice.message.tool_calls or []) if getattr(c, "function", None) is not None]
    call = next((c for c in calls if c.function.name == ANSWER_TOOL), None)
    if call is None:
        text = choice.message.content or ""
        try:
            return schema.model_validate_json(text)
        except (pydantic.ValidationError, ValueError):
            raise InvalidAnswer(f"the model answered in text instead of calling {ANSWER_TOOL} (the tool call was "
                                "forced): the schema was ignored", raw=text[:2000]) from None
    try:
        return schema.model_validate_json(call.function.arguments or "")
    except pydantic.ValidationError as exc:
        raise InvalidAnswer(f"the tool call's arguments do not match the schema: {str(exc).splitlines()[0]}"
                            f" {_first_error(exc)}", raw=call.function.arguments or "") from None


def _first_error(exc: pydantic.ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return ""
    where = ".".join(str(part) for part in errors[0].get("loc", ()))
    return f"({where}: {errors[0].get('msg', '')})"


def _transport_reason(exc: Exception, base_url: str) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot connect to {base_url}; is the server running and reachable?"
    return f"{type(exc).__name__} (HTTP {getattr(exc, 'status_code', '-')})"


def _status_reason(exc: openai.APIStatusError, model: str, config: ProviderConfig) -> str:
    """One line for a refused request: what it means for the user, never the key."""
    status = exc.status_code
    if status in (401, 403):
        where = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}.get(config.name, "the key")
        return f"the key was refused (HTTP {status}); check {where}"
    if status == 404:
        return f"model {model!r} or the endpoint was not found (HTTP 404); check MEMORY_CONSOLIDATION_LLM_MODEL"
    message = ""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        message = str(error.get("message", "")) if isinstance(error, dict) else str(error)
    message, _hidden = redact(message.splitlines()[0][:200] if message else "")
    return f"HTTP {status}" + (f": {message}" if message else "")


class _Sent:
    """How many requests one question has sent so far (kept outside a scope that may be cancelled)."""

    def __init__(self) -> None:
        self.count = 0


class _State:
    """The bit of tenacity's RetryCallState its wait strategies read."""

    def __init__(self, attempt: int) -> None:
        self.attempt_number = attempt
