"""What an LLM request costs, for the run record and the spending caps.

Prices are USD per million tokens (input, output), from the providers'
published price lists (OpenAI's; Anthropic's models overview). A model
matches the longest name it starts with, so dated snapshots
(`claude-haiku-4-5-20251001`) take their family's price. A paid
provider's model that no entry names is priced at that provider's
highest known price, so a spending cap errs towards stopping early
rather than never firing; local providers (lmstudio, ollama) cost 0.
"""

from __future__ import annotations

PRICES: dict[str, tuple[float, float]] = {
    # OpenAI
    "gpt-5": (1.25, 10.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    # Anthropic (aliases and dated IDs share a prefix)
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-haiku": (0.25, 1.25),
    "claude-sonnet-5": (2.00, 10.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-5": (5.00, 25.00),
    "claude-opus-4-5": (5.00, 25.00),
    "claude-opus-4-6": (5.00, 25.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-fable-5": (10.00, 50.00),
}
#: Providers that bill per token, and the prefix their model names share.
PAID = {"openai": "gpt-", "anthropic": "claude-"}


def price_of(provider: str, model: str) -> tuple[tuple[float, float], bool]:
    """(input, output) USD per million tokens, and whether it is a listed price (False: a conservative guess)."""
    names = [name for name in PRICES if model.startswith(name)]
    if names:
        return PRICES[max(names, key=len)], True
    prefix = PAID.get(provider)
    if prefix is None:
        return (0.0, 0.0), True  # a local server: nothing billed
    family = [price for name, price in PRICES.items() if name.startswith(prefix)]
    return max(family, key=lambda p: p[0] + p[1]), False


def estimate_cost(provider: str, model: str, tokens_in: int, tokens_out: int) -> float:
    (per_in, per_out), _listed = price_of(provider, model)
    return round((tokens_in * per_in + tokens_out * per_out) / 1_000_000, 6)
