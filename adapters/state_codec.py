"""JSON records in our state refs: one note per commit, `schema_version` on every note.

Metadata notes put one memory per line so `git notes --ref=refs/notes/mem-meta
show <commit>` stays readable and diffs stay small.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ValidationError

from memactors.events.edge import EDGE_SCHEMA_VERSION, Edge
from memactors.events.metadata import META_SCHEMA_VERSION, MemoryMeta
from memactors.events.report import RUN_SCHEMA_VERSION, RunReport
from memactors.events.summary import SUMMARY_SCHEMA_VERSION, Summary


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


class _MetaNote(BaseModel):
    schema_version: int
    memories: dict[str, MemoryMeta]


def encode_meta_note(records: Iterable[MemoryMeta]) -> bytes:
    return _encode_keyed(META_SCHEMA_VERSION, "memories", ((m.key, m.model_dump_json()) for m in records))


def decode_meta_note(commit: str, data: bytes) -> list[MemoryMeta]:
    """Records of one metadata note, validated in one pass (100k records load in well under a second)."""
    try:
        note = _MetaNote.model_validate_json(data)
    except ValidationError as exc:
        _decode_keyed(commit, data, META_SCHEMA_VERSION, "memories", "metadata")  # names a version problem
        raise UnreadableState(f"metadata note on {commit[:12]} is malformed: {exc.error_count()} errors") from None
    if note.schema_version > META_SCHEMA_VERSION:
        _check_version({"schema_version": note.schema_version}, META_SCHEMA_VERSION, "metadata")
    return [m if m.commit == commit else m.model_copy(update={"commit": commit}) for m in note.memories.values()]


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


def _encode_keyed(version: int, field: str, records: Iterable[tuple[str, str]]) -> bytes:
    lines = [json.dumps(rid) + ":" + body for rid, body in sorted(records)]
    return (f'{{"schema_version":{version},"{field}":{{\n' + ",\n".join(lines) + "\n}}\n").encode()


def _decode_keyed(commit: str, data: bytes, version: int, field: str, what: str) -> dict[str, Any]:
    try:
        doc = json.loads(data)
    except ValueError:
        raise UnreadableState(f"{what} note on {commit[:12]} is not JSON") from None
    doc = _check_version(doc, version, what)
    records = doc.get(field)
    if not isinstance(records, dict):
        raise UnreadableState(f"{what} note on {commit[:12]} has no {field} object")
    return records


def encode_summaries_note(records: Iterable[Summary]) -> bytes:
    return _encode_keyed(SUMMARY_SCHEMA_VERSION, "summaries", ((s.id, s.model_dump_json()) for s in records))


def decode_summaries_note(commit: str, data: bytes) -> list[Summary]:
    records = _decode_keyed(commit, data, SUMMARY_SCHEMA_VERSION, "summaries", "summary")
    return [Summary.model_validate(fields) for fields in records.values()]


def encode_edges_note(records: Iterable[Edge]) -> bytes:
    return _encode_keyed(
        EDGE_SCHEMA_VERSION, "edges", ((e.id, e.model_dump_json()) for e in records)
    )


def decode_edges_note(commit: str, data: bytes) -> list[Edge]:
    records = _decode_keyed(commit, data, EDGE_SCHEMA_VERSION, "edges", "edge")
    return [Edge.model_validate(fields) for fields in records.values()]
