"""The only place that reads the wall clock."""

from __future__ import annotations

from datetime import datetime, timezone


class SystemClock:
    """Aware UTC `now()` from the system clock."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


class FixedClock:
    """A clock that says what it is told: for reproducible runs and tests."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def now(self) -> datetime:
        return self.moment
