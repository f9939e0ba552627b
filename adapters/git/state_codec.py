"""JSON records in our state refs: one note per commit, `schema_version` on every note.

Metadata notes put one memory per line so `git notes --ref=refs/notes/mem-meta
show <commit>` stays readable and diffs stay small. A note may hold several
JSON documents one after another: git's default `notes.rewriteMode=concatenate`
joins the notes of commits a rebase squashes. Decoders read them all and
union the records (a record twice merges as sync would merge it); the next
run that touches the note writes it back as one document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memactors.events.edge import EDGE_SCHEMA_VERSION, Edge, merge_edge, note_schema_version
from memactors.events.metadata import META_SCHEMA_VERSION, MemoryMeta, merge_meta
from memactors.events.report import RUN_SCHEMA_VERSION, RunReport
from memactors.events.summary import SUMMARY_SCHEMA_VERSION, Summary

R = TypeVar("R")


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
    # the user's pin is written only where there is one: records without it stay byte-identical
    return _encode_keyed(META_SCHEMA_VERSION, "memories", (
        (m.key, m.model_dump_json(exclude=None if m.pinned_at else {"pin", "pinned_at"})) for m in records))


def decode_meta_note(commit: str, data: bytes) -> list[MemoryMeta]:
    """Records of one metadata note, validated in one pass (100k records load in well under a second)."""
    try:
        notes = [_MetaNote.model_validate_json(data)]
    except ValidationError as exc:
        documents = _documents(data, f"metadata note on {commit[:12]}")
        if len(documents) == 1:
            _decode_keyed(commit, data, META_SCHEMA_VERSION, "memories", "metadata")  # names a version problem
            raise UnreadableState(f"metadata note on {commit[:12]} is malformed: {exc.error_count()} errors") from None
        notes = [_validated_meta(commit, document) for document in documents]
    merged: dict[str, MemoryMeta] = {}
    for note in notes:
        if note.schema_version > META_SCHEMA_VERSION:
            _check_version({"schema_version": note.schema_version}, META_SCHEMA_VERSION, "metadata")
        for key, record in note.memories.items():
            merged[key] = merge_meta(merged[key], record) if key in merged else record
    return [m if m.commit == commit else m.model_copy(update={"commit": commit}) for m in merged.values()]


def _validated_meta(commit: str, document: Any) -> _MetaNote:
    _check_version(document, META_SCHEMA_VERSION, "metadata")
    try:
        return _MetaNote.model_validate(document)
    except ValidationError as exc:
        raise UnreadableState(f"metadata note on {commit[:12]} is malformed: {exc.error_count()} errors") from None


def _documents(data: bytes, where: str) -> list[Any]:
    """The JSON documents of a note, in order; at least one. `where` names the note in errors."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise _not_json(data, where) from None
    decoder, documents, position = json.JSONDecoder(), [], 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            break
        try:
            document, position = decoder.raw_decode(text, position)
        except ValueError:
            raise _not_json(data, where) from None
        documents.append(document)
    if not documents:
        raise UnreadableState(f"{where} is empty")
    return documents


def _not_json(data: bytes, where: str) -> UnreadableState:
    if unsorted_documents(data) is not None:
        return UnreadableState(f"{where} was line-sorted by a merge (cat_sort_uniq); "
                               "`memactors doctor --repair` rebuilds it")
    return UnreadableState(f"{where} is not JSON")


_HEADER = re.compile(rb'\{"schema_version":(\d+),"(memories|summaries|edges|runs)":([\[{])')
_CLOSING = {b"[": b"]}", b"{": b"}}"}


def unsorted_documents(data: bytes) -> bytes | None:
    """A state note a line-sorting merge scrambled, as one JSON document per record; None if it is not one.

    Every encoder here writes an opening line, one record per line and a
    closing line, so `cat_sort_uniq` reorders lines but breaks no record.
    The decoders read the documents returned and merge a record held twice
    (once per side) as sync would. Mixed schema versions are refused: None.
    """
    lines = [line for line in data.split(b"\n") if line.strip()]
    if len(lines) < 3 or any(a >= b for a, b in zip(lines, lines[1:])):  # sorted, each line once
        return None
    openings = {match.groups() for line in lines if (match := _HEADER.fullmatch(line))}
    if len(openings) != 1:
        return None
    [(version, field, bracket)] = openings
    closing = _CLOSING[bracket]
    records = [line.rstrip(b",") for line in lines if not _HEADER.fullmatch(line) and line != closing]
    if not records:
        return None
    return b"".join(b'{"schema_version":%s,"%s":%s%s%s\n' % (version, field, bracket, record, closing)
                    for record in records)


def encode_runs(runs: Iterable[Mapping[str, Any]]) -> bytes:
    """A run note holding `runs` in the given order, one record per line."""
    body = ",\n".join(json.dumps(run, sort_keys=True) for run in runs)
    return f'{{"schema_version":{RUN_SCHEMA_VERSION},"runs":[\n{body}\n]}}\n'.encode()


def encode_runs_note(existing: bytes | None, report: RunReport) -> bytes:
    runs = decode_runs_note(existing) if existing else []
    runs.append(json.loads(report.model_dump_json()))
    return encode_runs(runs)


_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


def started(run: Mapping[str, Any]) -> datetime:
    """When a run record says its run started (the earliest time if unreadable): the order of a run note."""
    try:
        moment = datetime.fromisoformat(str(run.get("started_at")))
    except ValueError:
        return _EPOCH
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def decode_runs_note(data: bytes) -> list[dict[str, Any]]:
    """The run records of one note, oldest document first, each run ID once."""
    runs: list[dict[str, Any]] = []
    seen: set[Any] = set()
    for document in _documents(data, "run note"):
        document = _check_version(document, RUN_SCHEMA_VERSION, "run")
        listed = document.get("runs")
        if not isinstance(listed, list):
            raise UnreadableState("run note has no runs list")
        for run in listed:
            run_id = run.get("run_id") if isinstance(run, dict) else None
            if run_id is None or run_id not in seen:
                seen.add(run_id)
                runs.append(run)
    return runs


def _encode_keyed(version: int, field: str, records: Iterable[tuple[str, str]]) -> bytes:
    lines = [json.dumps(rid) + ":" + body for rid, body in sorted(records)]
    return (f'{{"schema_version":{version},"{field}":{{\n' + ",\n".join(lines) + "\n}}\n").encode()


def _decode_keyed(commit: str, data: bytes, version: int, field: str, what: str) -> list[dict[str, Any]]:
    """The records of every document of a keyed note, in order (an ID may repeat across documents)."""
    records: list[dict[str, Any]] = []
    for document in _documents(data, f"{what} note on {commit[:12]}"):
        document = _check_version(document, version, what)
        listed = document.get(field)
        if not isinstance(listed, dict):
            raise UnreadableState(f"{what} note on {commit[:12]} has no {field} object")
        records.extend(listed.values())
    return records


def _union(records: Iterable[R], key: Callable[[R], str], merge: Callable[[R, R], R]) -> list[R]:
    merged: dict[str, R] = {}
    for record in records:
        rid = key(record)
        merged[rid] = merge(merged[rid], record) if rid in merged else record
    return list(merged.values())


def encode_summaries_note(records: Iterable[Summary]) -> bytes:
    return _encode_keyed(SUMMARY_SCHEMA_VERSION, "summaries", ((s.id, s.model_dump_json()) for s in records))


def decode_summaries_note(commit: str, data: bytes) -> list[Summary]:
    records = _decode_keyed(commit, data, SUMMARY_SCHEMA_VERSION, "summaries", "summary")
    # Two documents only summarise one cluster twice when both commits saw the same run: keep the first.
    return _union((Summary.model_validate(fields) for fields in records), lambda s: s.id, lambda a, _: a)


def encode_edges_note(records: Iterable[Edge]) -> bytes:
    """An edge note; an edge without `found_by` is written as before links existed (byte for byte)."""
    records = list(records)
    return _encode_keyed(note_schema_version(records), "edges",
                         ((e.id, e.model_dump_json(exclude=None if e.found_by else {"found_by"})) for e in records))


def decode_edges_note(commit: str, data: bytes) -> list[Edge]:
    records = _decode_keyed(commit, data, EDGE_SCHEMA_VERSION, "edges", "edge")
    return _union((Edge.model_validate(fields) for fields in records), lambda e: e.id, merge_edge)
