"""One structured question to an LLM: checked, retried once with the error, or given up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from memactors.actors.algorithms.prompts import retry_prompt
from memactors.actors.ports import InvalidAnswer, LLMUnavailable, StructuredLLM
from memactors.events.report import TokenUsage

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Asked(Generic[T]):
    """`answer` is None when the caller must fall back; `why` then says why."""

    answer: T | None
    usage: TokenUsage
    provider: str = "offline"
    model: str = ""
    why: str | None = None


async def ask(
    llm: StructuredLLM, system: str, user: str, schema: type[T], check: Callable[[T], None],
    *, deadline: float | None = None,
) -> Asked[T]:
    """Ask; an answer that fails the schema or `check` (ValueError) is asked again once, with the error.

    `deadline` (trio time) ends the question: the LLM sends nothing past it and abandons a request
    in flight, and the caller falls back.
    """
    usage = TokenUsage()
    prompt = user
    error = ""
    for _attempt in range(2):
        try:
            done = await llm.complete(system, prompt, schema, deadline=deadline)
        except InvalidAnswer as exc:
            usage += TokenUsage(llm_calls=exc.requests, llm_failed=exc.requests - 1, tokens_in=exc.tokens_in,
                                tokens_out=exc.tokens_out, cost_usd=exc.cost_usd)
            error = str(exc)
            prompt = retry_prompt(user, error)
            continue
        except LLMUnavailable as exc:
            usage += TokenUsage(llm_calls=exc.requests, llm_failed=exc.requests)
            return Asked(None, usage, why=f"LLM unavailable: {exc}")
        usage += TokenUsage(llm_calls=done.requests, llm_failed=max(0, done.requests - 1),
                            tokens_in=done.tokens_in, tokens_out=done.tokens_out, cost_usd=done.cost_usd)
        try:
            check(done.value)
        except ValueError as exc:
            error = str(exc)
            prompt = retry_prompt(user, error)
            continue
        return Asked(done.value, usage, provider=done.provider, model=done.model)
    return Asked(None, usage, why=f"invalid answer twice: {error[:200]}")
