"""Retrieval tiers."""

from __future__ import annotations

from enum import StrEnum


class Tier(StrEnum):
    """Where a memory sits for retrieval; lowercase in every JSON output."""

    HOT = "hot"
    WARM = "warm"
    COLD = "cold"
    ARCHIVED = "archived"


TIER_ORDER: tuple[Tier, ...] = (Tier.HOT, Tier.WARM, Tier.COLD, Tier.ARCHIVED)
