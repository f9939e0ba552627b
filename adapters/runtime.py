"""Compose adapters and actors into a running pipeline and drive runs through it.

`consolidate` is what `memactors consolidate` does; the daemon starts the
same `pipeline_children` under the same supervisor.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import trio

from memactors.actors.persister import Persister
from memactors.actors.ports import Clock
from memactors.actors.scanner import Scanner
from memactors.actors.tierer import Tierer
from memactors.adapters.memory_store import MemoryStore
from memactors.adapters.settings import Settings
from memactors.bus.bus import Bus
from memactors.bus.shutdown import watch_signals
from memactors.bus.supervisor import ChildSpec, Supervisor
from memactors.events.pipeline import RunCompleted, RunFailed, RunRequested
from memactors.events.report import RunReport

log = logging.getLogger(__name__)

#: How often a run that lost a compare-and-swap race starts over on the new state.
CONFLICT_RETRIES = 3


@dataclass(frozen=True)
class RunOptions:
    """What a caller asks of one consolidation run."""

    trigger: str = "manual"
    namespaces: tuple[str, ...] | None = None
    dry_run: bool = False
    full: bool = False


def new_run_id(moment: datetime) -> str:
    return f"{moment:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def pipeline_children(store: MemoryStore, settings: Settings, clock: Clock) -> list[ChildSpec]:
    """The consolidation actors, in pipeline order."""
    policy = settings.retention_policy()
    return [
        ChildSpec("scanner", lambda bus: Scanner(bus, store)),
        ChildSpec("tierer", lambda bus: Tierer(bus, policy)),
        ChildSpec("persister", lambda bus: Persister(bus, store, clock)),
    ]


async def drive_run(
    bus: Bus, outcomes: trio.MemoryReceiveChannel, options: RunOptions, clock: Clock
) -> RunReport:
    """Request one run and wait for its outcome; restart it on a lost race."""
    errors: list[str] = []
    for _attempt in range(CONFLICT_RETRIES + 1):
        started = clock.now()
        request = RunRequested(
            run_id=new_run_id(started),
            trigger=options.trigger,
            started_at=started,
            namespaces=options.namespaces,
            dry_run=options.dry_run,
            full=options.full,
        )
        await bus.publish(request)
        log.info("run %s started (%s)", request.run_id, options.trigger)
        async for event in outcomes:
            if getattr(event, "run_id", None) == request.run_id:
                break
        else:
            raise RuntimeError("the bus closed before the run ended")
        if isinstance(event, RunCompleted):
            report = event.report
            return report.model_copy(update={"errors": errors + report.errors}) if errors else report
        assert isinstance(event, RunFailed)
        if not event.conflict:
            return RunReport(
                run_id=request.run_id,
                trigger=options.trigger,
                started_at=started,
                completed_at=clock.now(),
                phase="failed",
                namespaces=options.namespaces,
                errors=errors + [f"{event.actor}: {event.error}"],
            )
        log.info("run %s lost a race (%s); retrying on the new state", request.run_id, event.error)
        errors.append(f"retried after a concurrent write: {event.error}")
    return RunReport(
        run_id=request.run_id,
        trigger=options.trigger,
        started_at=started,
        completed_at=clock.now(),
        phase="failed",
        namespaces=options.namespaces,
        errors=errors + ["gave up: the state refs kept moving"],
    )


async def consolidate(
    store: MemoryStore,
    settings: Settings,
    clock: Clock,
    options: RunOptions,
    *,
    handle_signals: bool = False,
    children: Callable[[MemoryStore, Settings, Clock], list[ChildSpec]] = pipeline_children,
) -> RunReport:
    """Start the actors, drive one run to its end, shut the actors down.

    With `handle_signals`, a first SIGINT/SIGTERM lets the run in flight
    finish and persist; a second stops at once (refs stay at old or new).
    """
    bus = Bus()
    outcomes = bus.subscribe("driver", (RunCompleted, RunFailed))
    supervisor = Supervisor(bus, children(store, settings, clock))
    report: RunReport | None = None
    async with trio.open_nursery() as nursery:
        if handle_signals:
            await nursery.start(watch_signals, lambda _sig: None, lambda _sig: nursery.cancel_scope.cancel())
        await nursery.start(supervisor.run)
        report = await drive_run(bus, outcomes, options, clock)
        bus.close()
        nursery.cancel_scope.cancel()
    if report is None:  # pragma: no cover - only when cancelled by a second signal
        raise KeyboardInterrupt
    return report
