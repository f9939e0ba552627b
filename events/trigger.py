"""Why a run should happen: the events trigger actors publish for the coordinator."""

from __future__ import annotations

from memactors.events.pipeline import Event


class TriggerFired(Event):
    """Something happened that may call for a run.

    `kind`: `notes` (a memory ref changed), `commit`, `stop` (an agent turn
    ended: activity, coalesced), `session-end`, `schedule` (periodic full run).
    `inbox_paths` are the hook files this trigger came from, removed once a
    run that started after them completed.
    """

    kind: str
    full: bool = False
    inbox_paths: tuple[str, ...] = ()


class InboxConsumed(Event):
    """A run completed after these inbox files arrived: they can go."""

    inbox_paths: tuple[str, ...]


class DrainRequested(Event):
    """Stop starting runs; say `Drained` once the run in flight (if any) has ended."""


class Drained(Event):
    """No run is in flight and none will start."""
