"""When a scheduled run is due: a cron expression read in the user's time zone (croniter), and whether
anything was captured since the last run (a run with nothing new is skipped)."""

from __future__ import annotations

import json
from datetime import datetime, tzinfo
from pathlib import Path

from croniter import croniter

from memactors.actors.ports import Clock


class BadSchedule(ValueError):
    """The expression is not a cron expression; the message says so in one line."""


class CronSchedule:
    """Seconds until the next time `expression` (five fields: minute hour day month weekday) matches in
    `zone`, by `clock` (daylight-saving changes follow the zone)."""

    def __init__(self, expression: str, zone: tzinfo, clock: Clock) -> None:
        expression = " ".join(expression.split())
        if len(expression.split()) != 5 or not croniter.is_valid(expression):
            raise BadSchedule(f"{expression!r} is not a cron expression of five fields (minute hour day month "
                              "weekday), e.g. \"0 3 * * *\" for 03:00 every day")
        self.expression = expression
        self._zone = zone
        self._clock = clock

    def next_time(self) -> datetime:
        now = self._clock.now().astimezone(self._zone)
        return croniter(self.expression, now).get_next(datetime)

    def delay(self) -> float:
        """Seconds from now until the next match (never negative)."""
        return max(0.0, (self.next_time() - self._clock.now()).total_seconds())


def captured_since_last_run(common_dir: Path, memory_tips: dict[str, str]) -> bool:
    """Whether the memory refs moved past the tips the last run read (`memory_tips`: the refs as they are now);
    True when no run has recorded its tips yet."""
    try:
        recorded = json.loads((common_dir / "memactors" / "context.json").read_text())["memory_tips"]
    except (OSError, ValueError, KeyError, TypeError):
        return True
    return dict(recorded) != dict(memory_tips)
