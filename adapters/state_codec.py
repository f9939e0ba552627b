"""JSON records in our state refs: one note per commit, `schema_version` on every note.

Metadata notes put one memory per line so `git notes --ref=refs/notes/mem-meta
show <commit>` stays readable and diffs stay small.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from memactors.events.metadata import META_SCHEMA_VERSION, MemoryMeta
from memactors.events.report import RUN_SCHEMA_VERSION, RunReport


class UnreadableState(ValueError):
    """A state note this version cannot read (corrupt, or from a newer schema)."""


def _check_version(doc: Any, supported: int, what: str) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise UnreadableState(f"{what} note is not a JSON object")
    version = doc.get("schema_version")
    if not isinstance(version, int) or version > supported:
        raise UnreadableState(
            f"{what} note has schema_version {version!r}; this memactors reads up to {supported}: upgrade memactors"
        )
    return doc


def encode_meta_note(records: Iterable[MemoryMeta]) -> bytes:
    lines = [
        json.dumps(meta.key) + ":" + meta.model_dump_json(exclude={"key", "commit"})
        for meta in sorted(records, key=lambda m: m.key)
    ]
    return (
        f'{{"schema_version":{META_SCHEMA_VERSION},"memories":{{\n' + ",\n".join(lines) + "\n}}\n"
    ).encode()


def decode_meta_note(commit: str, data: bytes) -> list[MemoryMeta]:
    try:
        doc = json.loads(data)
    except ValueError:
        raise UnreadableState(f"metadata note on {commit[:12]} is not JSON") from None
    doc = _check_version(doc, META_SCHEMA_VERSION, "metadata")
    memories = doc.get("memories")
    if not isinstance(memories, dict):
        raise UnreadableState(f"metadata note on {commit[:12]} has no memories object")
    return [MemoryMeta(key=key, commit=commit, **fields) for key, fields in memories.items()]


def encode_runs_note(existing: bytes | None, report: RunReport) -> bytes:
    runs = decode_runs_note(existing) if existing else []
    runs.append(json.loads(report.model_dump_json()))
    body = ",\n".join(json.dumps(run, sort_keys=True) for run in runs)
    return f'{{"schema_version":{RUN_SCHEMA_VERSION},"runs":[\n{body}\n]}}\n'.encode()


def decode_runs_note(data: bytes) -> list[dict[str, Any]]:
    try:
        doc = json.loads(data)
    except ValueError:
        raise UnreadableState("run note is not JSON") from None
    doc = _check_version(doc, RUN_SCHEMA_VERSION, "run")
    runs = doc.get("runs")
    if not isinstance(runs, list):
        raise UnreadableState("run note has no runs list")
    return runs
