"""LLM providers through the openai SDK's OpenAI-compatible API, under trio.

`OpenAICompatibleLLM` is one provider with retries (tenacity's backoff,
the SDK's own retries off), a circuit breaker, a rate limit, bounded
concurrency, redaction before sending and token accounting. `LLMChain`
tries providers in order and enforces a per-run call budget.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import openai
import pydantic
import trio
from pydantic import BaseModel
from tenacity import wait_exponential

from memactors.actors.ports import Completion, InvalidAnswer, LLMUnavailable, StructuredLLM
from memactors.adapters.models.llm_config import ProviderConfig, resolve_chain
from memactors.adapters.models.redaction import redact

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)

#: USD per million tokens (input, output), for the run record's cost estimate.
PRICES = {"gpt-5-nano": (0.05, 0.40), "gpt-5-mini": (0.25, 2.00), "gpt-4o-mini": (0.15, 0.60)}
_RETRYABLE = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError)


def estimate_cost(model: str, tokens_in: int, tokens_out: int) -> float:
    price = next((p for name, p in PRICES.items() if model.startswith(name)), None)
    if price is None:
        return 0.0
    return round((tokens_in * price[0] + tokens_out * price[1]) / 1_000_000, 6)


class OpenAICompatibleLLM:
    """One provider. `complete` asks once, retrying only transport failures.

    Raises InvalidAnswer when the reply is not valid against the schema
    (invalid or truncated JSON, refusal) and LLMUnavailable after
    `max_attempts` transport failures or while the breaker is open. Every
    request gets at most `timeout` seconds, whatever the server does (a
    server that accepts and never answers included). The breaker opens after
    `breaker_threshold` consecutive failed requests, for `breaker_cooldown`
    seconds of trio time; opening it cancels the requests in flight and
    refuses those waiting for a slot, so a dead server costs a few timeouts,
    not one per question. Cancellation from outside propagates; a cancelled
    call is neither a success nor a breaker failure.
    """

    def __init__(self, config: ProviderConfig, *, concurrency: int = 4, requests_per_second: float = 5.0,
                 timeout: float = 60.0, max_attempts: int = 3, backoff: float = 1.0, max_backoff: float = 20.0,
                 breaker_threshold: int = 5, breaker_cooldown: float = 30.0, max_output_tokens: int = 2000) -> None:
        self.config = config
        self.provider = config.name
        self.model = config.model
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
        self._breaker_threshold = breaker_threshold
        self._breaker_cooldown = breaker_cooldown
        self._failures = 0
        self._open_until = -1.0
        self._in_flight: set[trio.CancelScope] = set()
        self._max_output_tokens = max_output_tokens
        self.redactions = 0

    def _params(self, model: str) -> dict[str, Any]:
        if model.startswith("gpt-5"):  # gpt-5 rejects temperature and max_tokens
            return {"max_completion_tokens": self._max_output_tokens}
        return {"max_tokens": self._max_output_tokens, "temperature": 0}

    async def _pace(self) -> None:
        now = trio.current_time()
        start = max(now, self._next_start)
        self._next_start = start + self._interval
        if start > now:
            await trio.sleep(start - now)

    def _refuse_if_open(self) -> None:
        if trio.current_time() < self._open_until:
            raise LLMUnavailable(f"{self.provider}: circuit open after {self._failures} failed requests")

    def _failed(self) -> None:
        """One more request without an answer; at the threshold, open the breaker and cut the rest short."""
        self._failures += 1
        if self._failures >= self._breaker_threshold and trio.current_time() >= self._open_until:
            self._open_until = trio.current_time() + self._breaker_cooldown
            log.warning("%s: %d requests failed in a row; no more for %.0f s", self.provider, self._failures,
                        self._breaker_cooldown)
            for scope in self._in_flight:
                scope.cancel()

    async def complete(self, system: str, user: str, schema: type[T], *,
                       deadline: float | None = None) -> Completion[T]:
        self._refuse_if_open()
        system, hidden_a = redact(system)
        user, hidden_b = redact(user)
        self.redactions += hidden_a + hidden_b
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        sent = _Sent()
        with trio.move_on_at(math.inf if deadline is None else deadline):
            async with self._limiter:
                self._refuse_if_open()  # it may have opened while this call waited for a slot
                with trio.CancelScope() as breaker:
                    self._in_flight.add(breaker)
                    try:
                        return await self._ask(messages, schema, sent)
                    finally:
                        self._in_flight.discard(breaker)
                raise LLMUnavailable(f"{self.provider}: circuit opened while this request was in flight",
                                     requests=sent.count)
        raise LLMUnavailable(f"{self.provider}: the run's LLM deadline (MEMACTORS_LLM_DEADLINE) passed",
                             requests=sent.count)

    async def _ask(self, messages: list[dict[str, str]], schema: type[T], sent: _Sent) -> Completion[T]:
        models = list(self._models)
        last = ""
        attempt = 0
        while attempt < self._attempts:
            attempt += 1
            await self._pace()
            await trio.lowlevel.checkpoint()  # a breaker that opened meanwhile stops it here, before sending
            model = models[0]
            sent.count += 1
            response = None
            with trio.move_on_after(self._timeout):  # the SDK's timeout is per read: a trickle never ends
                try:
                    response = await self._client.chat.completions.parse(
                        model=model, messages=messages, response_format=schema, **self._params(model))
                except _RETRYABLE as exc:
                    last = f"{type(exc).__name__} (HTTP {getattr(exc, 'status_code', '-')})"
                    self._failed()
                    if attempt < self._attempts:
                        await trio.sleep(self._delay(exc, attempt))
                    continue
                except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
                    raise InvalidAnswer(f"answer cut short: {type(exc).__name__}", requests=sent.count) from None
                except (pydantic.ValidationError, json.JSONDecodeError, ValueError) as exc:
                    raise InvalidAnswer(f"answer does not match the schema: {str(exc).splitlines()[0]}",
                                        requests=sent.count) from None
                except openai.APIStatusError as exc:
                    if exc.status_code in (400, 404) and len(models) > 1 and "model" in str(exc).lower():
                        log.info("%s rejected model %s; trying %s", self.provider, model, models[1])
                        models.pop(0)
                        attempt -= 1
                        continue
                    self._failed()
                    raise LLMUnavailable(f"{self.provider}: HTTP {exc.status_code}", requests=sent.count) from None
                except openai.OpenAIError as exc:
                    self._failed()
                    raise LLMUnavailable(f"{self.provider}: {type(exc).__name__}", requests=sent.count) from None
            if response is None:
                last = f"no answer within {self._timeout:g} s (MEMACTORS_LLM_TIMEOUT)"
                self._failed()
                continue
            return self._completed(response, model, sent.count)
        raise LLMUnavailable(f"{self.provider}: {self._attempts} attempts failed ({last})", requests=sent.count)

    def _delay(self, exc: Exception, attempt: int) -> float:
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            if header is not None:
                return min(float(header), self._max_backoff)
        except ValueError:
            pass
        return float(self._wait.__call__(_State(attempt)))

    def _completed(self, response: Any, model: str, requests: int) -> Completion[Any]:
        self._failures = 0
        choice = response.choices[0]
        if getattr(choice.message, "refusal", None):
            raise InvalidAnswer(f"the model refused: {choice.message.refusal[:200]}", requests=requests)
        parsed = choice.message.parsed
        if parsed is None:
            raise InvalidAnswer("empty answer", raw=choice.message.content or "", requests=requests)
        usage = response.usage
        tokens_in = usage.prompt_tokens if usage else 0
        tokens_out = usage.completion_tokens if usage else 0
        cost = estimate_cost(model, tokens_in, tokens_out) if self.provider == "openai" else 0.0
        self.model = model
        return Completion(value=parsed, provider=self.provider, model=model, tokens_in=tokens_in,
                          tokens_out=tokens_out, cost_usd=cost, requests=requests)

    async def aclose(self) -> None:
        await self._client.close()


class _Sent:
    """How many requests one question has sent so far (kept outside a scope that may be cancelled)."""

    def __init__(self) -> None:
        self.count = 0


class _State:
    """The bit of tenacity's RetryCallState its wait strategies read."""

    def __init__(self, attempt: int) -> None:
        self.attempt_number = attempt


class LLMChain:
    """Providers in order: the first that answers wins; InvalidAnswer is the caller's to handle.

    After `max_calls` calls every further call raises LLMUnavailable, so a
    run's spend is capped. Counts calls and errors per provider.
    """

    def __init__(self, providers: Sequence[StructuredLLM], *, max_calls: int | None = None) -> None:
        self.providers = list(providers)
        self.max_calls = max_calls
        self.calls = 0
        self.by_provider: Counter[str] = Counter()
        self.errors: list[str] = []
        self.provider = self.providers[0].provider if self.providers else "offline"
        self.model = self.providers[0].model if self.providers else ""

    async def complete(self, system: str, user: str, schema: type[T], *,
                       deadline: float | None = None) -> Completion[T]:
        failures = []
        sent = 0  # requests earlier providers sent for this question
        for provider in self.providers:
            if self.max_calls is not None and self.calls >= self.max_calls:
                raise LLMUnavailable(f"LLM call budget of {self.max_calls} reached", requests=sent)
            self.calls += 1
            self.by_provider[provider.provider] += 1
            try:
                done = await provider.complete(system, user, schema, deadline=deadline)
            except LLMUnavailable as exc:
                failures.append(str(exc))
                self.errors.append(str(exc))
                sent += exc.requests
                continue
            except InvalidAnswer as exc:
                exc.requests += sent
                raise
            self.provider, self.model = done.provider, done.model
            return dataclasses.replace(done, requests=done.requests + sent) if sent else done
        raise LLMUnavailable("; ".join(failures) or "no LLM provider", requests=sent)

    async def aclose(self) -> None:
        for provider in self.providers:
            await provider.aclose()


def build_chain(environ: Mapping[str, str], *, max_calls: int | None = None, **options: Any) -> LLMChain | None:
    """The providers the environment names, or None (offline)."""
    configs = resolve_chain(environ)
    if not configs:
        return None
    return LLMChain([OpenAICompatibleLLM(c, **options) for c in configs], max_calls=max_calls)
