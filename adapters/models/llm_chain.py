"""The providers a run asks, in order, within the run's spending caps.

`LLMChain` tries providers in order. Before each question it checks the
caps: requests sent this run (`max_calls`; failed requests count), cost
this run (`max_cost_usd`) and cost today (`daily_limit`, kept in a
SpendLedger across runs and processes). A reached cap raises
LLMUnavailable naming the cap, so the caller falls back offline and the
run record carries the reason. Providers that take an `admit` hook
(both of ours) ask the chain again once a request has its slot, just
before sending it, so questions queued behind a slow provider are stopped
too; requests already sent finish, so a cap is overshot by at most the
answers in flight (the provider's concurrency).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from memactors.actors.ports import Completion, InvalidAnswer, LLMUnavailable, StructuredLLM
from memactors.adapters.models.llm_config import ProviderConfig, resolve_chain
from memactors.adapters.models.spend_ledger import SpendLedger

T = TypeVar("T", bound=BaseModel)


class LLMChain:
    """Providers in order: the first that answers wins; InvalidAnswer is the caller's to handle.

    `begin_run()` resets the per-run counts (a daemon's chain lives across runs).
    """

    def __init__(self, providers: Sequence[StructuredLLM], *, max_calls: int | None = None,
                 max_cost_usd: float | None = None, ledger: SpendLedger | None = None,
                 daily_limit: float | None = None) -> None:
        self.providers = list(providers)
        self.max_calls = max_calls
        self.max_cost_usd = max_cost_usd
        self.ledger = ledger
        self.daily_limit = daily_limit
        self.requests = 0
        self.spent = 0.0
        self.by_provider: Counter[str] = Counter()
        self.provider = self.providers[0].provider if self.providers else "offline"
        self.model = self.providers[0].model if self.providers else ""
        self._admitting = set()
        for provider in self.providers:
            if hasattr(provider, "admit"):
                provider.admit = self._admit  # type: ignore[attr-defined]
                self._admitting.add(id(provider))

    def begin_run(self) -> None:
        self.requests = 0
        self.spent = 0.0

    def _refuse_past_caps(self) -> None:
        if self.max_calls is not None and self.requests >= self.max_calls:
            raise LLMUnavailable(f"LLM call budget of {self.max_calls} reached (--max-llm-calls); "
                                 "the rest of the run is handled offline")
        if self.max_cost_usd is not None and self.spent >= self.max_cost_usd:
            raise LLMUnavailable(f"cost cap of ${self.max_cost_usd:g} for this run reached (spent "
                                 f"${self.spent:.4f}; --max-cost-usd, MEMACTORS_MAX_COST_USD); the rest of the "
                                 "run is handled offline")
        if self.ledger is not None and self.daily_limit is not None:
            today = self.ledger.spent_today()
            if today >= self.daily_limit:
                raise LLMUnavailable(f"daily cost cap of ${self.daily_limit:g} reached (spent ${today:.4f} "
                                     "today; MEMACTORS_MAX_COST_USD_PER_DAY); the rest of the run is handled "
                                     "offline")

    def _admit(self) -> None:
        """A provider is about to send one request: refuse it past a cap, else count it."""
        self._refuse_past_caps()
        self.requests += 1

    def _settle(self, provider: StructuredLLM, requests: int, cost: float) -> None:
        if id(provider) not in self._admitting:  # it did not count its requests as it sent them
            self.requests += requests
        self.spent = round(self.spent + cost, 6)
        if self.ledger is not None and cost > 0:
            self.ledger.add(cost)

    async def complete(self, system: str, user: str, schema: type[T], *,
                       deadline: float | None = None) -> Completion[T]:
        failures = []
        sent = 0  # requests earlier providers sent for this question
        for provider in self.providers:
            try:
                self._refuse_past_caps()
            except LLMUnavailable as exc:
                exc.requests = sent
                raise
            self.by_provider[provider.provider] += 1
            try:
                done = await provider.complete(system, user, schema, deadline=deadline)
            except LLMUnavailable as exc:
                self._settle(provider, exc.requests, 0.0)
                failures.append(str(exc))
                sent += exc.requests
                continue
            except InvalidAnswer as exc:
                self._settle(provider, exc.requests, exc.cost_usd)
                exc.requests += sent
                raise
            self._settle(provider, done.requests, done.cost_usd)
            self.provider, self.model = done.provider, done.model
            return dataclasses.replace(done, requests=done.requests + sent) if sent else done
        raise LLMUnavailable("; ".join(failures) or "no LLM provider", requests=sent)

    async def aclose(self) -> None:
        for provider in self.providers:
            await provider.aclose()


def provider_for(config: ProviderConfig, **options: Any) -> StructuredLLM:
    """The adapter that speaks to `config`'s provider. `options` tune it (timeout, concurrency, ...);
    the claude-code adapter takes `timeout` and `cli_concurrency` only. Imports only what it needs."""
    if config.structured == "cli_schema":
        from memactors.adapters.models.claude_cli import ClaudeCodeLLM

        return ClaudeCodeLLM(config, timeout=options.get("timeout", 60.0),
                             concurrency=options.get("cli_concurrency", 1))
    from memactors.adapters.models.openai_compatible import OpenAICompatibleLLM

    options.pop("cli_concurrency", None)
    return OpenAICompatibleLLM(config, **options)


def build_chain(environ: Mapping[str, str], *, max_calls: int | None = None, max_cost_usd: float | None = None,
                ledger: SpendLedger | None = None, daily_limit: float | None = None,
                **options: Any) -> LLMChain | None:
    """The providers the environment names, or None (offline)."""
    configs = resolve_chain(environ)
    if not configs:
        return None
    return LLMChain([provider_for(c, **options) for c in configs], max_calls=max_calls,
                    max_cost_usd=max_cost_usd, ledger=ledger, daily_limit=daily_limit)
