"""Which LLM providers a run may use, from the environment (DESIGN.md §5).

Nothing leaves the machine unless a provider is named: an API key alone
never switches an LLM on.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, SecretStr

PROVIDERS = ("openai", "lmstudio", "ollama", "offline")
_DEFAULTS = {
    "openai": ("https://api.openai.com/v1", "gpt-5-nano", ("gpt-4o-mini",)),
    "lmstudio": ("http://localhost:1234/v1", "local-model", ()),
    "ollama": ("http://localhost:11434/v1", "llama3.1", ()),
}


class ProviderConfig(BaseModel):
    """One OpenAI-compatible provider: where, which model, which key (never printed)."""

    model_config = ConfigDict(frozen=True)

    name: str
    model: str
    base_url: str
    api_key: SecretStr | None = None
    fallback_models: tuple[str, ...] = ()


def _provider(name: str, env: Mapping[str, str], *, primary: bool) -> ProviderConfig | None:
    name = name.strip().lower()
    if name not in PROVIDERS:
        raise ValueError(f"unknown LLM provider {name!r}; use one of: {', '.join(PROVIDERS)}")
    if name == "offline":
        return None
    base, model, fallbacks = _DEFAULTS[name]
    if primary:
        model = env.get("MEMORY_CONSOLIDATION_LLM_MODEL") or model
        base = env.get("MEMORY_CONSOLIDATION_LLM_BASE_URL") or base
    key = env.get("OPENAI_API_KEY")
    if name == "openai" and not key:
        raise ValueError("MEMORY_CONSOLIDATION_LLM_PROVIDER=openai needs OPENAI_API_KEY")
    return ProviderConfig(name=name, model=model, base_url=base, api_key=SecretStr(key) if key else None,
                          fallback_models=fallbacks)


def resolve_chain(env: Mapping[str, str]) -> list[ProviderConfig]:
    """The named provider, then `MEMORY_CONSOLIDATION_LLM_FALLBACK`; empty means offline."""
    named = env.get("MEMORY_CONSOLIDATION_LLM_PROVIDER") or env.get("MEMORY_LLM_PROVIDER") or ""
    if not named.strip():
        return []
    chain = [_provider(named, env, primary=True)]
    fallback = env.get("MEMORY_CONSOLIDATION_LLM_FALLBACK", "").strip()
    if fallback:
        chain.append(_provider(fallback, env, primary=False))
    return [p for p in chain if p is not None]
