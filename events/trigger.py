"""Why a run should happen: the events trigger actors publish for the coordinator."""

from __future__ import annotations

from memactors.events.pipeline import Event
from memactors.events.report import RunReport


class TriggerFired(Event):
    """Something happened that may call for a run.

    `kind`: `notes` (a memory ref changed), `commit`, `stop` (an agent turn
    ended: activity, coalesced), `session-end`, `schedule` (periodic full run),
    `consolidate` (a `memactors consolidate` handed to the daemon: run now).
    `inbox_paths` are the hook files this trigger came from, removed once a
    run that started after them completed.
    """

    kind: str
    full: bool = False
    inbox_paths: tuple[str, ...] = ()


class InboxConsumed(Event):
    """A run completed after these inbox files arrived: they can go (and requests among them get `report`)."""

    inbox_paths: tuple[str, ...]
    report: RunReport | None = None


class DrainRequested(Event):
    """Stop starting runs; say `Drained` once the run in flight (if any) has ended."""


class Drained(Event):
    """No run is in flight and none will start."""
