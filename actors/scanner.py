"""Scanner: reads the memory store and the prior state for each requested run."""

from __future__ import annotations

import logging

import trio

from memactors.actors.ports import ActivationSource, MemorySource
from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.events.pipeline import MemoriesScanned, RunRequested

progress = logging.getLogger("memactors.progress")
log = logging.getLogger(__name__)


class Scanner(Actor):
    """On RunRequested: scan the memories in scope, load prior state and recorded uses, publish MemoriesScanned.

    A dry run does not read the uses (it must not consume them). A run scoped
    to some namespaces still finds the store's newest memory (the store clock).
    """

    name = "scanner"
    subscribes = (RunRequested,)
    publishes = (MemoriesScanned,)

    def __init__(self, bus: Bus, source: MemorySource, activations: ActivationSource | None = None) -> None:
        super().__init__(bus)
        self._source = source
        self._activations = activations

    async def handle(self, event: RunRequested) -> None:  # type: ignore[override]
        progress.info("scanning memories...")
        outcome, prior, head, uses, newest, rules, abandoned = await trio.to_thread.run_sync(self._read, event)
        for reason in outcome.unreadable_refs.values():
            log.warning("%s", reason)
        progress.info("scanned %d memories (%d entries skipped)", len(outcome.memories), sum(outcome.skipped.values()))
        await self.bus.publish(
            MemoriesScanned(
                run_id=event.run_id,
                request=event,
                memories=tuple(outcome.memories),
                skipped=dict(outcome.skipped),
                warnings=dict(outcome.warnings),
                prior=prior,
                head=head,
                memory_tips=outcome.tips,
                activations=uses,
                unreadable_refs=outcome.unreadable_refs,
                newest=newest,
                prior_judge_rules=rules,
                abandoned=frozenset(abandoned),
            )
        )

    def _read(self, request: RunRequested):
        # worker thread: the store is used by one thread at a time
        prior = self._source.load_state()
        scan = self._source.scan(request.namespaces, remember=not request.dry_run, reparse=request.full)
        uses = self._activations.read() if self._activations is not None and not request.dry_run else {}
        everything = scan if request.namespaces is None else self._source.scan(None, remember=False)
        newest = max((m.timestamp for m in everything.memories), default=None)
        abandoned = self._source.abandoned(scan.memories)
        return scan, prior, self._source.head(), uses, newest, self._source.judge_rules(), abandoned
