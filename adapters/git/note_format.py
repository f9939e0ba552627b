"""The git-notes-memory note format: split, parse and write entries.

A note holds entries separated by a blank line; an entry is a `---` line,
YAML front matter, a `---` line, a blank line and an optional markdown
body. Parsing never fails: what cannot be read is counted by reason.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from itertools import islice
from typing import Any

import yaml

from memactors.adapters.git.note_blocks import (  # noqa: F401 - notes_merge and the tests read them here
    MAX_FRONT_MATTER_LINES,
    _Block,
    _fast_front_matter,
    _find_blocks,
    _is_delimiter,
    _looks_like_front_matter,
    _plain_scalar,
    delimiter_lines,
    iter_blocks,
)
from memactors.events.memory import Memory, memory_key

#: Front matter larger than this is refused.
MAX_FRONT_MATTER_CHARS = 64 * 1024
#: Front matter nested deeper than this is refused: libyaml's composer recurses, and a few
#: thousand levels (well within the size limit) crash the process.
MAX_FRONT_MATTER_DEPTH = 16
#: Notes larger than this are not read at all (counted as `note_too_large`): memory stays bounded.
MAX_NOTE_BYTES = 32 * 1024 * 1024
#: The separator git-notes-memory counts to number entries.
_UPSTREAM_SEPARATOR = "\n---\n"
#: Bodies are kept up to this many characters for processing; the key hashes the whole body.
MAX_BODY_CHARS = 1_000_000
try:  # libyaml when present: same results, ten times faster
    _YamlLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML wheel
    _YamlLoader = yaml.SafeLoader


@dataclass
class NoteParse:
    """What one note yielded: memories in entry order, and what was skipped or repaired on read."""

    memories: list[Memory] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: Counter[str] = field(default_factory=Counter)


def _refuse_hazards(text: str) -> None:
    """Raise ValueError (`yaml_alias`, `yaml_too_deep`, `invalid_yaml`) before anything is built.

    Reads the YAML event stream only (linear in the text, nothing expanded): an anchor or alias
    can multiply a few hundred bytes into gigabytes once the value is turned into strings, and
    deep nesting overflows libyaml's recursive composer.
    """
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_YamlLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise ValueError("yaml_alias")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_FRONT_MATTER_DEPTH:
                    raise ValueError("yaml_too_deep")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as exc:
        raise ValueError(_yaml_error_reason(exc)) from None


def _yaml_error_reason(exc: yaml.YAMLError) -> str:
    """The skip reason for a YAML error: `yaml_too_deep` when libyaml refused the nesting itself.

    libyaml (0.2.5 and later) refuses deep flow nesting in its scanner, which reads ahead of the
    events our own depth check counts: the same hostile entry must get the same reason whichever
    layer stops it.
    """
    problem = str(getattr(exc, "problem", "") or "")
    return "yaml_too_deep" if "nesting depth" in problem else "invalid_yaml"


def parse_front_matter(text: str) -> dict[str, Any]:
    """Front matter as a mapping. Raises ValueError naming the skip reason."""
    if len(text) > MAX_FRONT_MATTER_CHARS:
        raise ValueError("front_matter_too_large")
    lines = text.split("\n")
    fast = _fast_front_matter(lines)
    if fast is not None:
        return fast
    _refuse_hazards(text)
    try:
        loaded = yaml.load(text, Loader=_YamlLoader)
    except yaml.YAMLError as exc:
        raise ValueError(_yaml_error_reason(exc)) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValueError("front_matter_not_mapping")
    return loaded


def _timestamp(value: Any) -> tuple[datetime, bool]:
    """(aware datetime, assumed_utc). Raises ValueError naming the skip reason."""
    if value is None:
        raise ValueError("missing_timestamp")
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        try:
            moment = datetime.fromisoformat(str(value).strip())
        except ValueError:
            raise ValueError("invalid_timestamp") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc), True
    return moment, False


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(str(item) for item in value if item is not None)
    return tuple(part.strip() for part in str(value).split(",") if part.strip())


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


def _separator_ends(text: str) -> list[int]:
    """End offsets of the separators `str.count` finds (left to right, non-overlapping), in order.

    The separators `text[:p].count(...)` counts are exactly those ending at or before `p`, so one
    pass answers every entry's upstream index (counting each prefix anew is quadratic).
    """
    ends, at = [], text.find(_UPSTREAM_SEPARATOR)
    while at != -1:
        ends.append(at + len(_UPSTREAM_SEPARATOR))
        at = text.find(_UPSTREAM_SEPARATOR, at + len(_UPSTREAM_SEPARATOR))
    return ends


def _line_offsets(lines: list[str]) -> list[int]:
    offsets, total = [], 0
    for line in lines:
        offsets.append(total)
        total += len(line) + 1
    return offsets


def parse_note(namespace: str, commit: str, data: bytes) -> NoteParse:
    """Every entry of one note blob, parsed as far as is safe.

    Never raises for bad content and never changes it: undecodable bytes
    are replaced on read (counted as `non_utf8`), unreadable entries are
    skipped and counted by reason.
    """
    result = NoteParse()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        result.warnings["non_utf8"] += 1
    lines = text.split("\n")
    blocks = _find_blocks(lines)
    if not blocks:
        if text.strip():
            result.skipped["no_front_matter"] += 1
        return result
    if any(line.strip() for line in lines[: blocks[0].start]):
        result.skipped["no_front_matter"] += 1
    offsets = _line_offsets(lines)
    separator_ends = _separator_ends(text)
    for index, block in enumerate(blocks):
        end = blocks[index + 1].start if index + 1 < len(blocks) else len(lines)
        if index == 0:
            upstream_index = 0
        else:
            # git-notes-memory numbered this entry from the note as it was before the append
            upstream_index = bisect_right(separator_ends, max(0, offsets[block.start] - 1)) // 2 + 1
        try:
            front = parse_front_matter("\n".join(lines[block.start + 1 : block.close]))
            moment, assumed_utc = _timestamp(front.get("timestamp"))
        except ValueError as reason:
            result.skipped[str(reason)] += 1
            continue
        if assumed_utc:
            result.warnings["timestamp_without_offset"] += 1
        body = "\n".join(lines[block.close + 1 : end]).strip("\n").rstrip()
        summary = _optional(front.get("summary")) or ""
        if not summary.strip():
            first_line = next((line.strip() for line in body.split("\n") if line.strip()), "")
            if not first_line:
                result.skipped["empty_entry"] += 1
                continue
            summary = first_line[:100]
            result.warnings["summary_from_body"] += 1
        key = memory_key(namespace, moment.isoformat(), summary, body)
        if len(body) > MAX_BODY_CHARS:
            body = body[:MAX_BODY_CHARS]
            result.warnings["body_truncated"] += 1
        result.memories.append(
            Memory(
                key=key,
                namespace=namespace,
                commit=commit,
                index=index,
                upstream_index=upstream_index,
                timestamp=moment,
                summary=summary,
                body=body,
                tags=_strings(front.get("tags")),
                spec=_optional(front.get("spec")),
                phase=_optional(front.get("phase")),
                status=_optional(front.get("status")),
                relates_to=_strings(front.get("relates_to")),
            )
        )
    return result


def entry_body(data: bytes, index: int) -> str | None:
    """The body of a note's `index`-th entry (a memory ID's last part) as `parse_note` reads it, its front
    matter and the entries after it left unread: for reading one memory's body fast. None when there is none."""
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    blocks = list(islice(iter_blocks(lines, delimiter_lines(text)), index + 2))
    if index >= len(blocks):
        return None
    end = blocks[index + 1].start if index + 1 < len(blocks) else len(lines)
    return "\n".join(lines[blocks[index].close + 1 : end]).strip("\n").rstrip()[:MAX_BODY_CHARS]


# --- writing, exactly as git-notes-memory 0.12 does ---------------------------------


def serialize_entry(front_matter: dict[str, Any], body: str = "") -> str:
    """One entry in git-notes-memory's layout (its `serialize_note`)."""
    dumped = yaml.dump(
        front_matter, default_flow_style=False, allow_unicode=True, sort_keys=False
    ).rstrip()
    if body and body.strip():
        return f"---\n{dumped}\n---\n\n{body}"
    return f"---\n{dumped}\n---\n"


def read_back_problem(namespace: str, entry: str, summary: str, tags: list[str], body: str) -> str | None:
    """Why `entry` would not read back as the one memory it was built from, or None when it would.

    A capture must never write what the scanner then skips or reads differently (a body whose
    `---` block looks like another entry's front matter, a value YAML turns into something else).
    """
    parsed = parse_note(namespace, "0" * 40, stripspace(entry).encode("utf-8"))
    if parsed.skipped or len(parsed.memories) != 1:
        reasons = ", ".join(parsed.skipped) or f"{len(parsed.memories)} entries"
        return f"it would not read back as one memory ({reasons})"
    memory = parsed.memories[0]
    if memory.summary != summary:
        return "its summary would read back differently"
    if list(memory.tags) != tags:
        return "its tags would read back differently"
    if memory.body != stripspace(body).strip("\n").rstrip():
        return "its body would read back differently (a `---` block inside it looks like front matter)"
    return None


def stripspace(text: str) -> str:
    """git's message cleanup for `git notes append -m`: trailing blanks off, blank runs collapsed."""
    out: list[str] = []
    blank = False
    for line in text.split("\n"):
        line = line.rstrip(" \t\n\v\f\r")
        if not line:
            blank = bool(out)
            continue
        if blank:
            out.append("")
            blank = False
        out.append(line)
    return "\n".join(out) + "\n" if out else ""


def append_entry(existing: bytes | None, entry: str) -> bytes:
    """The note after `git notes append -m <entry>`: old bytes, a blank line, the cleaned entry."""
    message = stripspace(entry).encode("utf-8")
    if existing:
        return existing + b"\n" + message
    return message


def upstream_next_index(existing: bytes | None) -> int:
    """The index git-notes-memory gives the next entry appended to this note."""
    if not existing:
        return 0
    return existing.decode("utf-8", errors="replace").count(_UPSTREAM_SEPARATOR) // 2 + 1
