"""pynndescent's numba compile, paid once in a daemon's background instead of in a run.

Compiling costs ~20-30 s of one core per process, so it only starts once a
completed run showed a store big enough for the approximate kNN to pay off,
and never on the path of a run or a hook. Until it is done, full kNN builds
use the one-shot crossover (exact below it); after, the lower warm crossover.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum

import trio

from memactors.actors.algorithms.clustering import warm_up_approximate
from memactors.bus.supervisor import describe

log = logging.getLogger("memactors.daemon")


class WarmState(StrEnum):
    """Where the compile is: not started, running, done, or failed (then never retried)."""

    COLD = "cold"
    WARMING = "warming"
    WARM = "warm"
    FAILED = "failed"


class KnnWarmup:
    """Decides when to compile pynndescent and which kNN crossover applies meanwhile.

    `crossover()` is what a clusterer asks at each full build: `cold_crossover`
    until the compile finished, then the lower of the two. `should_warm(n)` is
    true once, when the store has `warm_crossover` memories (and the warm
    crossover is below the cold one: otherwise warming buys nothing).
    `warm()` compiles in a worker thread that a cancellation abandons, so a
    daemon stopping mid-compile exits at once.
    """

    def __init__(self, *, cold_crossover: int, warm_crossover: int,
                 compile: Callable[[], None] = warm_up_approximate) -> None:
        self.cold_crossover = cold_crossover
        self.warm_crossover = warm_crossover
        self._compile = compile
        self.state = WarmState.COLD

    def _compile_natively(self) -> None:
        from memactors.adapters.system.process_exit import native_work

        with native_work():  # abandoned on a stop: the process must not finalise numba under it
            self._compile()

    def crossover(self) -> int:
        """Memories from which a full kNN build uses pynndescent (thread-safe: one attribute read)."""
        if self.state is WarmState.WARM:
            return min(self.cold_crossover, self.warm_crossover)
        return self.cold_crossover

    def should_warm(self, memories: int) -> bool:
        """True when a store of `memories` (embedded) is worth the compile and it has not started."""
        return (self.state is WarmState.COLD and self.warm_crossover < self.cold_crossover
                and memories >= self.warm_crossover)

    async def warm(self) -> None:
        """Compile in a worker thread; log the outcome. Never raises (a failure keeps the exact path)."""
        if self.state is not WarmState.COLD:
            return
        self.state = WarmState.WARMING
        log.info("compiling the approximate kNN (pynndescent) in the background")
        try:
            started = trio.current_time()
            await trio.to_thread.run_sync(self._compile_natively, abandon_on_cancel=True)
        except trio.Cancelled:
            self.state = WarmState.COLD
            raise
        except Exception as exc:  # noqa: BLE001 - a missing or broken pynndescent only costs speed
            self.state = WarmState.FAILED
            log.warning("approximate kNN unavailable, staying exact: %s", describe(exc))
            return
        self.state = WarmState.WARM
        log.info("approximate kNN ready after %.0f s: full builds from %d memories use it",
                 trio.current_time() - started, self.crossover())
