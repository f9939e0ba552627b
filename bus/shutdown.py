"""Turn SIGINT/SIGTERM into a graceful shutdown request."""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable

import trio

log = logging.getLogger(__name__)


async def watch_signals(
    on_first: Callable[[int], None],
    on_second: Callable[[int], None],
    *,
    quiet_first: bool = False,
    arrived_before: Callable[[], bool] = lambda: False,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Call `on_first` at the first SIGINT/SIGTERM (drain), `on_second` at the next (stop now); `quiet_first`
    when the first stops at once (nothing to announce: the command's exit says it). `arrived_before` says
whether a signal came before the receiver was in place and got lost on its way (it then counts as the first).

    Must run in the main thread; runs until cancelled.
    """
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        seen = 0
        if arrived_before():
            seen = 1
            on_first(signal.SIGINT)
        async for signum in signals:
            seen += 1
            name = signal.Signals(signum).name
            if seen == 1:
                if not quiet_first:
                    log.warning("%s received: finishing the run in flight, then exiting", name)
                on_first(signum)
            else:
                log.warning("%s received again: stopping now", name)
                on_second(signum)
