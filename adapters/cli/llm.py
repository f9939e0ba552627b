"""The LLM providers: `llm check` asks each configured one (or a named one) one tiny structured question."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any, Literal

from pydantic import BaseModel

from memactors.adapters.cli.common import EXIT_ERRORS, EXIT_OK, Parents, UsageError, emit, load_settings

NOTHING_CONFIGURED = (
    "no LLM provider is named: consolidation runs offline (extractive summaries, heuristic judge) and nothing "
    "leaves this machine.\n"
    "  Claude with an API key:  export MEMORY_CONSOLIDATION_LLM_PROVIDER=anthropic ANTHROPIC_API_KEY=...\n"
    "  your logged-in Claude Code:  export MEMORY_CONSOLIDATION_LLM_PROVIDER=claude-code  (no key; uses `claude`)\n"
    "  others: openai (OPENAI_API_KEY), lmstudio, ollama; then `memactors llm check`")
CHECK_SYSTEM = "You verify that structured answers work. Answer only through the structure you are given."
CHECK_USER = 'Set status to "ok" and echo to the word pong.'


class LinkCheck(BaseModel):
    """The answer `llm check` asks for: small, but a real schema with a constrained field."""

    status: Literal["ok"]
    echo: str


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    p = commands.add_parser("llm", help="check the LLM providers consolidation would use",
                            description="check: send one tiny structured request to each provider the environment "
                            "names (MEMORY_CONSOLIDATION_LLM_PROVIDER, then MEMORY_CONSOLIDATION_LLM_FALLBACK), or "
                            "to --provider NAME to try one before configuring it. Prints provider, model, how it "
                            "answers in shape (json_schema, tool call, CLI schema), latency, tokens and cost, or "
                            "the one-line reason it failed.",
                            epilog="Exit codes: 0 every provider answered (or none is configured: runs are "
                            "offline), 1 a provider failed, 2 usage error.",
                            parents=[parents.verbose, parents.reporting])
    p.add_argument("action", choices=["check"])
    p.add_argument("--provider", metavar="NAME",
                   help="try this provider (anthropic, claude-code, openai, lmstudio, ollama) instead of the "
                   "configured chain; MEMORY_CONSOLIDATION_LLM_MODEL / _BASE_URL still apply")
    return {"llm": _cmd_llm}


def _cmd_llm(args: argparse.Namespace) -> int:
    import trio

    from memactors.adapters.models.llm_config import provider_config, resolve_chain

    settings = load_settings()
    try:
        if args.provider:
            one = provider_config(args.provider, os.environ, primary=True)
            configs = [one] if one is not None else []
        else:
            configs = resolve_chain(os.environ)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not configs:
        emit(args, {"configured": False, "providers": [], "message": NOTHING_CONFIGURED.splitlines()[0]},
             f"memactors llm: {NOTHING_CONFIGURED}")
        return EXIT_OK
    results = [trio.run(_check, config, settings.llm_timeout) for config in configs]
    lines = [_line(r) for r in results]
    emit(args, {"configured": True, "providers": results}, "\n".join(lines))
    return EXIT_OK if all(r["ok"] for r in results) else EXIT_ERRORS


async def _check(config, timeout: float) -> dict[str, Any]:
    from memactors.actors.ports import InvalidAnswer, LLMUnavailable
    from memactors.adapters.models.llm_chain import provider_for
    from memactors.adapters.models.llm_config import MODE_NAMES

    provider = provider_for(config, timeout=timeout, max_attempts=1, requests_per_second=0)
    result: dict[str, Any] = {"provider": config.name, "model": config.model, "mode": MODE_NAMES[config.structured],
                              "ok": False, "latency_ms": None, "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0,
                              "error": None}
    started = time.perf_counter()
    try:
        done = await provider.complete(CHECK_SYSTEM, CHECK_USER, LinkCheck)
    except LLMUnavailable as exc:
        result["error"] = _without_provider(str(exc), config.name)
    except InvalidAnswer as exc:
        result["error"] = f"schema ignored or not followed: {_without_provider(str(exc), config.name)}"
        result.update(tokens_in=exc.tokens_in, tokens_out=exc.tokens_out, cost_usd=exc.cost_usd)
    else:
        result.update(ok=True, model=done.model, tokens_in=done.tokens_in, tokens_out=done.tokens_out,
                      cost_usd=done.cost_usd)
    finally:
        result["latency_ms"] = round((time.perf_counter() - started) * 1000)
        await provider.aclose()
    return result


def _without_provider(message: str, name: str) -> str:
    prefix = f"{name}: "
    return message[len(prefix):] if message.startswith(prefix) else message


def _line(result: dict[str, Any]) -> str:
    head = f"{result['provider']}  model {result['model']}  {result['mode']}  {result['latency_ms']} ms"
    if not result["ok"]:
        return f"{head}  FAILED: {result['error']}"
    cost = f"  ~${result['cost_usd']:.5f}" if result["cost_usd"] else "  $0"
    return f"{head}  {result['tokens_in']} tokens in / {result['tokens_out']} out{cost}  ok"
