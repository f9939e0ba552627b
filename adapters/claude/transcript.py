"""Reading a Claude Code session transcript (`<session>.jsonl`) as the conversation it holds.

A transcript is one JSON object per line: `user`, `assistant`, `system`,
`summary` and bookkeeping types. Messages form a tree through `parentUuid`:
an edited prompt or a retry starts a new branch and leaves the old one in the
file, so the conversation is the path from the newest main-chain message back
to the root, not every line. Compaction writes a `system` line of subtype
`compact_boundary` whose `parentUuid` is null and whose `logicalParentUuid`
names the last message before it; the next user line is the compacted
summary (`isCompactSummary`), a restatement, not a turn. Subagents' lines carry
`isSidechain: true` (in the session's file or their own). Tool calls and tool
results (`tool_use` blocks, `tool_result` blocks with `toolUseResult`),
thinking, `isMeta` lines, slash-command wrappers and system reminders are
machinery, not what anyone said.

Standard library only. Streams the file: memory is bounded by the number of
lines (a small record each) plus the text of the new turns (each cut at
MAX_TURN_CHARS), whatever the size of tool output. A line longer than
MAX_LINE_BYTES, or one that is not a JSON object, is skipped and counted; a
last line without its newline is being written and is left for the next read.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: A line longer than this is skipped (counted), never held in memory whole.
MAX_LINE_BYTES = 32 * 1024 * 1024
#: What is kept of one turn's text.
MAX_TURN_CHARS = 16_000
_CHUNK = 1024 * 1024
_WRAPPER = re.compile(r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr"
                      r"|system-reminder|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr)>.*?</\1>",
                      re.DOTALL)
_NOISE_TURNS = ("[Request interrupted by user", "No response requested.", "Caveat: The messages below were generated")


@dataclass(frozen=True)
class Turn:
    """What the user or the agent said in one message on the conversation's path."""

    uuid: str
    role: str  # "user" | "assistant"
    text: str
    line: int  # 1-based line number in the file
    timestamp: str
    session_id: str


@dataclass
class TranscriptRead:
    """The new turns on the conversation's path, and where the next read starts.

    `end_offset`: the byte just past the last complete line read. `path_uuids`: every message on
    the path now (old and new), so proposals from a branch since abandoned can be withdrawn.
    """

    turns: list[Turn] = field(default_factory=list)
    end_offset: int = 0
    lines_read: int = 0
    skipped: int = 0
    first_line: int = 1
    session_id: str = ""
    path_uuids: set[str] = field(default_factory=set)
    compactions: int = 0
    sidechain_lines: int = 0


@dataclass
class _Node:
    parent: str | None
    line: int
    main: bool  # a user or assistant message of the main chain (a possible leaf)


def _text_of(message: Any, role: str) -> str:
    """The words of a message: its text blocks (or string content); tool calls, results and thinking dropped."""
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        if role == "user" and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return ""  # a tool's output coming back, not the user speaking
        parts = [b.get("text", "") for b in content
                 if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    else:
        return ""
    text = _WRAPPER.sub("", "\n\n".join(parts)).strip()
    if text.startswith(_NOISE_TURNS):
        return ""
    return text[:MAX_TURN_CHARS]


def _lines(path: Path, limit: int):
    """(offset, line number, raw line or None when longer than `limit`, complete) for every line; streamed."""
    number = 0
    offset = 0
    with path.open("rb") as handle:
        while True:
            raw = handle.readline(limit)
            if not raw:
                return
            number += 1
            if len(raw) >= limit and not raw.endswith(b"\n"):
                size = len(raw)
                while True:  # skip the rest of the oversized line without holding it
                    rest = handle.readline(_CHUNK)
                    size += len(rest)
                    if not rest or rest.endswith(b"\n"):
                        break
                yield offset, number, None, bool(rest)
                offset += size
                continue
            yield offset, number, raw, raw.endswith(b"\n")
            offset += len(raw)


def read_transcript(path: Path, start: int = 0, *, max_line_bytes: int = MAX_LINE_BYTES) -> TranscriptRead:
    """The turns on the conversation's path whose lines begin at or after byte `start`.

    Raises OSError when the file cannot be read. `start` past the end (the file was replaced by a
    shorter one) reads from the beginning. A message whose parent was on a line that could not be read
    continues from the main-chain message before it.
    """
    size = path.stat().st_size
    if start > size:
        start = 0
    nodes: dict[str, _Node] = {}
    pending: dict[str, Turn] = {}
    out = TranscriptRead(end_offset=start)
    first_new: int | None = None
    for offset, number, raw, complete in _lines(path, max_line_bytes):
        if not complete:
            break  # being written: the next read takes it whole
        out.end_offset = offset + (len(raw) if raw is not None else 0)
        if raw is None:
            if offset >= start:
                out.skipped += 1
            continue
        if offset >= start:
            out.lines_read += 1
            if first_new is None:
                first_new = number
        try:
            doc = json.loads(raw)
        except ValueError:
            if offset >= start:
                out.skipped += 1
            continue
        if not isinstance(doc, dict):
            if offset >= start:
                out.skipped += 1
            continue
        uuid = doc.get("uuid")
        kind = doc.get("type")
        if not isinstance(uuid, str):
            continue  # summaries, snapshots, queue operations: not messages
        if not out.session_id and isinstance(doc.get("sessionId"), str):
            out.session_id = doc["sessionId"]
        parent = doc.get("parentUuid")
        if kind == "system" and doc.get("subtype") == "compact_boundary":
            parent = doc.get("logicalParentUuid") or parent  # the conversation goes on across compaction
            if offset >= start:
                out.compactions += 1
        sidechain = bool(doc.get("isSidechain"))
        if sidechain and offset >= start:
            out.sidechain_lines += 1
        main = kind in ("user", "assistant") and not sidechain
        nodes[uuid] = _Node(parent if isinstance(parent, str) else None, number, main)
        if offset < start or not main or doc.get("isMeta") or doc.get("isCompactSummary") \
                or doc.get("isVisibleInTranscriptOnly"):
            continue
        message = doc.get("message")
        role = message.get("role", kind) if isinstance(message, dict) else kind
        text = _text_of(message, role)
        if text:
            stamp = doc.get("timestamp")
            pending[uuid] = Turn(uuid=uuid, role=role, text=text, line=number,
                                 timestamp=stamp if isinstance(stamp, str) else "",
                                 session_id=doc.get("sessionId") if isinstance(doc.get("sessionId"), str) else "")
    out.first_line = first_new or 1
    leaf = max((n for n in nodes.items() if n[1].main), key=lambda item: item[1].line, default=None)
    mains = sorted((node.line, uuid) for uuid, node in nodes.items() if node.main)
    path_uuids: set[str] = set()
    current = leaf[0] if leaf else None
    while current is not None and current not in path_uuids:
        path_uuids.add(current)
        node = nodes[current]
        parent = node.parent
        if parent is not None and parent not in nodes:  # its parent's line was unreadable: bridge the gap
            before = bisect.bisect_left(mains, (node.line, "")) - 1
            parent = mains[before][1] if before >= 0 else None
        current = parent
    out.path_uuids = path_uuids
    out.turns = sorted((t for u, t in pending.items() if u in path_uuids), key=lambda t: t.line)
    return out


def project_folder_name(path: str) -> str:
    """The folder Claude Code keeps a project's sessions in, under `~/.claude/projects/`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)
