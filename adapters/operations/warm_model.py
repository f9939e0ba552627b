"""The local embedding model, loaded once in the background by a long-lived process (the MCP server, the viewer)."""

from __future__ import annotations

import logging
from typing import Any

import trio

log = logging.getLogger(__name__)


class WarmModel:
    """`embedder` is None until `load` finished (and stays None when embeddings are off or loading failed: a caller
    then loads the model itself for its one query). `ready` is set once `load` finished, either way."""

    def __init__(self) -> None:
        self.embedder: Any = None
        self.ready = trio.Event()

    async def load(self, limiter: trio.CapacityLimiter | None = None) -> None:
        try:
            from memactors.adapters.operations.store import load_settings

            if load_settings().embeddings != "none":
                from memactors.adapters.models.embeddings import embedder_from_env

                embedder = embedder_from_env()
                await trio.to_thread.run_sync(embedder.embed, ["memactors warm-up"], limiter=limiter)
                self.embedder = embedder
        except Exception as exc:  # noqa: BLE001 - see the class docstring
            log.warning("could not load the embedding model ahead of time: %s", exc)
        finally:
            self.ready.set()
