"""What LLM requests cost per calendar day, kept under git's common dir for the daily spending cap.

One small JSON file (`{"days": {"2026-11-24": 0.0123}}`, the last week
kept), rewritten atomically after every answer that cost something, so a
killed run has already counted what it spent. An unreadable file counts
as nothing spent (and is replaced at the next write): the cap is a guard
against runaway spend, not an invoice.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path

KEEP_DAYS = 7
SPEND_FILE = "llm-spend.json"


class SpendLedger:
    """`spent_today()` and `add(cost)` for the day `today()` names (the user's calendar day)."""

    def __init__(self, path: Path, today: Callable[[], date]) -> None:
        self.path = path
        self._today = today

    def _days(self) -> dict[str, float]:
        try:
            document = json.loads(self.path.read_text())
            days = document["days"]
            return {str(k): float(v) for k, v in days.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def spent_today(self) -> float:
        return self._days().get(self._today().isoformat(), 0.0)

    def add(self, cost: float) -> None:
        if cost <= 0:
            return
        days = self._days()
        key = self._today().isoformat()
        days[key] = round(days.get(key, 0.0) + cost, 6)
        kept = dict(sorted(days.items())[-KEEP_DAYS:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps({"days": kept}))
            os.replace(temporary, self.path)
        except OSError:
            pass  # an unwritable ledger must not stop a run; the per-run cap still holds
