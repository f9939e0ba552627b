"""Which LLM providers a run may use, from the environment.

Nothing leaves the machine unless a provider is named: an API key alone
never switches an LLM on. A named provider that cannot be used as
configured (its key missing) stays in the chain with `unusable` saying
why, so its questions fall back offline with that reason on record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, SecretStr

PROVIDERS = ("openai", "anthropic", "claude-code", "lmstudio", "ollama", "offline")
#: How each provider is made to answer in the schema's shape.
StructuredMode = Literal["json_schema", "tool_call", "cli_schema"]


class _Default(BaseModel):
    model_config = ConfigDict(frozen=True)

    base_url: str
    model: str
    fallback_models: tuple[str, ...] = ()
    key_variable: str | None = None  # the environment variable holding the key; None: no key needed
    structured: StructuredMode = "json_schema"


_DEFAULTS = {
    "openai": _Default(base_url="https://api.openai.com/v1", model="gpt-5-nano", fallback_models=("gpt-4o-mini",),
                       key_variable="OPENAI_API_KEY"),
    # Anthropic's OpenAI-compatible endpoint ignores response_format: answers come through a forced tool call
    "anthropic": _Default(base_url="https://api.anthropic.com/v1/", model="claude-haiku-4-5",
                          key_variable="ANTHROPIC_API_KEY", structured="tool_call"),
    # the user's logged-in `claude` CLI; base_url is the command to run
    "claude-code": _Default(base_url="claude", model="haiku", structured="cli_schema"),
    "lmstudio": _Default(base_url="http://localhost:1234/v1", model="local-model"),
    "ollama": _Default(base_url="http://localhost:11434/v1", model="llama3.1"),
}
#: What `llm check` and the docs call each structured-output mode.
MODE_NAMES = {"json_schema": "json_schema", "tool_call": "tool call", "cli_schema": "CLI schema"}


class ProviderConfig(BaseModel):
    """One provider: where, which model, which key (never printed), how it answers in shape."""

    model_config = ConfigDict(frozen=True)

    name: str
    model: str
    base_url: str
    api_key: SecretStr | None = None
    fallback_models: tuple[str, ...] = ()
    structured: StructuredMode = "json_schema"
    unusable: str | None = None  # why it cannot be asked as configured (then it never is)


def key_variable(name: str) -> str | None:
    """The environment variable holding provider `name`'s key; None when it needs none (or is no provider)."""
    default = _DEFAULTS.get(name.strip().lower())
    return default.key_variable if default else None


def provider_config(name: str, env: Mapping[str, str], *, primary: bool = True) -> ProviderConfig | None:
    """The provider `name` as the environment configures it; None for offline.

    Raises ValueError for a name that is no provider. The model and base URL
    variables apply to the primary provider only.
    """
    name = name.strip().lower()
    if name not in PROVIDERS:
        raise ValueError(f"unknown LLM provider {name!r}; use one of: {', '.join(PROVIDERS)}")
    if name == "offline":
        return None
    default = _DEFAULTS[name]
    model, base = default.model, default.base_url
    if primary:
        model = env.get("MEMORY_CONSOLIDATION_LLM_MODEL") or model
        base = env.get("MEMORY_CONSOLIDATION_LLM_BASE_URL") or base
    if name == "claude-code":  # a command, not a URL: a base URL set for another provider must not leak in
        base = env.get("MEMACTORS_CLAUDE_COMMAND") or default.base_url
    unusable = None
    if default.key_variable:
        key = env.get(default.key_variable)
        if not key:
            unusable = f"{default.key_variable} is not set; export it, or name another provider"
    else:  # a local server behind a proxy may want a key; none is needed
        key = env.get("OPENAI_API_KEY") if name != "claude-code" else None
    return ProviderConfig(name=name, model=model, base_url=base, api_key=SecretStr(key) if key else None,
                          fallback_models=tuple(m for m in default.fallback_models if m != model),
                          structured=default.structured, unusable=unusable)


def resolve_chain(env: Mapping[str, str]) -> list[ProviderConfig]:
    """The named provider, then `MEMORY_CONSOLIDATION_LLM_FALLBACK`; empty means offline."""
    named = env.get("MEMORY_CONSOLIDATION_LLM_PROVIDER") or env.get("MEMORY_LLM_PROVIDER") or ""
    if not named.strip():
        return []
    chain = [provider_config(named, env, primary=True)]
    fallback = env.get("MEMORY_CONSOLIDATION_LLM_FALLBACK", "").strip()
    if fallback:
        chain.append(provider_config(fallback, env, primary=False))
    return [p for p in chain if p is not None]
