"""Inbox reader: hook events dropped on disk become triggers, in order, each once."""

from __future__ import annotations

import logging

import trio

from memactors.actors.ports import REQUEST_KINDS, HookInbox
from memactors.bus.actor import LoopActor
from memactors.bus.bus import Bus
from memactors.events.pipeline import Event
from memactors.events.trigger import InboxConsumed, TriggerFired

log = logging.getLogger(__name__)


class InboxReader(LoopActor):
    """Polls the inbox every `interval` seconds; removes files once told they were consumed.

    A file is published once per process; if the daemon dies before the
    run it triggered completes, the file stays and the next reader (or
    `consolidate`) picks it up. Corrupt files are moved aside by the inbox
    and logged once. An inbox that cannot be read or cleaned is logged once
    per streak and polled again, never a crash loop.
    """

    name = "inbox"
    subscribes = (InboxConsumed,)
    publishes = (TriggerFired,)

    def __init__(self, bus: Bus, inbox: HookInbox, *, interval: float = 1.0) -> None:
        super().__init__(bus)
        self._inbox = inbox
        self._interval = interval
        self._seen: set[str] = set()
        self._requests: set[str] = set()  # files whose sender waits for the report
        self._failing = False

    async def run_loop(self) -> None:
        while True:
            try:
                events, corrupt = await trio.to_thread.run_sync(self._inbox.pending)
            except OSError as exc:
                if not self._failing:
                    log.warning("cannot read the hook inbox (%s); will keep trying", exc)
                self._failing = True
                await trio.sleep(self._interval)
                continue
            self._failing = False
            for path in corrupt:
                log.warning("moved a corrupt inbox file aside: %s", path)
            for event in events:
                path = str(event.path)
                if path not in self._seen:
                    self._seen.add(path)
                    if event.kind in REQUEST_KINDS:
                        self._requests.add(path)
                    await self.bus.publish(TriggerFired(kind=event.kind, full=bool(event.payload.get("full")),
                                                        inbox_paths=(path,)))
            await trio.sleep(self._interval)

    async def handle(self, event: Event) -> None:
        if isinstance(event, InboxConsumed):
            requests = [p for p in event.inbox_paths if p in self._requests]
            if requests and event.report is not None:
                document = event.report.model_dump(mode="json")
                for path in requests:
                    try:
                        await trio.to_thread.run_sync(self._inbox.answer, path, document)
                    except OSError as exc:  # the sender stops waiting once its file is gone, answer or not
                        log.warning("could not leave the run's report for %s (%s)", path, exc)
                self._requests.difference_update(requests)
            try:
                await trio.to_thread.run_sync(self._inbox.ack_paths, list(event.inbox_paths))
            except OSError as exc:
                # kept as seen: this process will not publish them again; a restart costs one extra run
                log.warning("could not remove consumed hook files (%s)", exc)
                return
            self._seen.difference_update(event.inbox_paths)
