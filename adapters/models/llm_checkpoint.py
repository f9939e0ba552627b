"""LLM answers checkpointed on disk as they arrive, so a killed run never pays for them twice."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TypeVar

import trio
from pydantic import BaseModel, ValidationError

from memactors.actors.ports import Completion, StructuredLLM

T = TypeVar("T", bound=BaseModel)


class CheckpointedLLM:
    """A StructuredLLM that replays answers to questions already asked since the last completed run.

    Each validated answer is appended (one JSON line, flushed) to `path`
    the moment it arrives; a run killed midway leaves them there, and the
    next run — asking the same questions about the same clusters — gets
    them back with zero tokens spent. `clear()` after a run persisted.
    """

    def __init__(self, inner: StructuredLLM, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.replayed = 0
        self._answers: dict[str, dict[str, str]] = {}
        try:
            for line in path.read_text().splitlines():
                record = json.loads(line)
                self._answers[record["key"]] = record
        except (OSError, ValueError, KeyError, TypeError):
            self._answers = {}

    @property
    def provider(self) -> str:
        return self.inner.provider

    @property
    def model(self) -> str:
        return self.inner.model

    @staticmethod
    def _key(system: str, user: str, schema: type[BaseModel]) -> str:
        digest = hashlib.sha256()
        for part in (schema.__name__, system, user):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        return digest.hexdigest()

    async def complete(self, system: str, user: str, schema: type[T], *,
                       deadline: float | None = None) -> Completion[T]:
        key = self._key(system, user, schema)
        record = self._answers.get(key)
        if record is not None:
            try:
                value = schema.model_validate_json(record["answer"])
            except ValidationError:
                pass
            else:
                self.replayed += 1
                return Completion(value=value, provider=record["provider"], model=record["model"], tokens_in=0,
                                  tokens_out=0, requests=0)
        done = await self.inner.complete(system, user, schema, deadline=deadline)
        record = {"key": key, "provider": done.provider, "model": done.model, "answer": done.value.model_dump_json()}
        self._answers[key] = record
        await trio.to_thread.run_sync(self._append, record)
        return done

    def _append(self, record: dict[str, str]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as handle:
                handle.write(json.dumps(record) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError:
            pass  # a checkpoint that cannot be written only costs a repeat on a crash

    def begin_run(self) -> None:
        begin = getattr(self.inner, "begin_run", None)
        if callable(begin):
            begin()

    def clear(self) -> None:
        self._answers = {}
        try:
            self.path.unlink()
        except OSError:
            pass

    async def aclose(self) -> None:
        await self.inner.aclose()
