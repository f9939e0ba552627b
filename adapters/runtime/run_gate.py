"""The daemon's side of the run lock: held for each run only, so other commands get their turn between runs."""

from __future__ import annotations

import logging
from pathlib import Path

import trio

from memactors.adapters.git.repo_lock import RepoLock

log = logging.getLogger("memactors.daemon")
#: How often the daemon tries again while a one-shot command holds the repository.
RETRY_SECONDS = 0.2


class DaemonRunGate:
    """`RunGate` on `<common dir>/memactors/run.lock`, marked as the daemon's while it holds it.

    `acquire` waits (cancellably, polling) while a `consolidate`, `sync` or `doctor --repair` runs,
    and logs once whom it waits for. Raises LockUnavailable when the lock file cannot be created.
    """

    def __init__(self, common_dir: Path) -> None:
        self._lock = RepoLock(common_dir, role="daemon")

    async def acquire(self) -> None:
        waiting = False
        while not await trio.to_thread.run_sync(self._lock.try_acquire):
            if not waiting:
                log.info("waiting: %s", self._lock.holder())
                waiting = True
            await trio.sleep(RETRY_SECONDS)

    def release(self) -> None:
        self._lock.release()
