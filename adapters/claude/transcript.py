"""Reading a Claude Code session transcript (`<session>.jsonl`) as the conversation it holds.

A transcript is one JSON object per line: `user`, `assistant`, `system`,
`summary` and bookkeeping types. Messages form a tree through `parentUuid`:
an edited prompt or a retry starts a new branch and leaves the old one in the
file, so the conversation is the path from the newest main-chain message back
to the root, not every line. Compaction writes a `system` line of subtype
`compact_boundary` whose `parentUuid` is null and whose `logicalParentUuid`
names the last message before it; the next user line is the compacted
summary (`isCompactSummary`), a restatement, not a turn. Older versions (2.1.78)
chain `progress` lines (hook output) from the tool call they report on, and the
next turn continues from the last of them: such a chain is read as following
the message written before it, not as a branch. Subagents' lines carry
`isSidechain: true` (in the session's file or their own). Tool calls and tool
results (`tool_use` blocks, `tool_result` blocks with `toolUseResult`),
thinking, `isMeta` lines, slash-command wrappers (not the words typed after
the command, which are the user's), system reminders, task
notifications (a background task or subagent reporting back, as a user turn
or a `queued_command` attachment) and limit or error banners are machinery,
not what anyone said.

Some decisions live in the machinery, and are read from it as turns with a
`source`: the user's answers to the agent's AskUserQuestion (`answer`: each
question with the option chosen, and the option the agent recommended when
another was chosen), a plan the user approved through ExitPlanMode (`plan`:
the plan's text), the reason the user gave for rejecting a tool call
(`rejection`: the user's own words, a reason or what to do instead), and what the user typed while the agent
worked (`queued`: a `queued_command` attachment from a human, its prompt a string or
a list of text blocks; or a message the user queued whose words survive only in an `enqueue`
`queue-operation` line, no user line or attachment in the file saying the same, read as following
the main-chain message written before it).

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
_WRAPPER = re.compile(r"<(command-name|command-message|local-command-stdout|local-command-stderr"
                      r"|system-reminder|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr"
                      # what an IDE extension adds to a message (the file open, the lines selected, diagnostics)
                      r"|ide_opened_file|ide_selection|ide_diagnostics)>.*?</\1>",
                      re.DOTALL)
#: What the user typed after a slash command (`/apply-grant explain why ...`): their words, kept without the tag.
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_NOISE_TURNS = ("[Request interrupted by user", "No response requested.", "Caveat: The messages below were generated",
                "You've hit your session limit", "You’ve hit your session limit", "Credit balance is too low",
                "Not logged in", "API Error:", "Invalid API key", "Prompt is too long")
_TASK_NOTIFICATION = re.compile(r"<task-notification>.*?(?:</task-notification>|\Z)", re.DOTALL)
#: How a rejected tool call gives the user's words: with a reason, or (2.1.81) with what to do instead.
_REJECTIONS = ("The user provided the following reason for the rejection:", "To tell you how to proceed, the user said:")
_RECOMMENDED = re.compile(r"\s*\(recommended\)\s*$", re.IGNORECASE)
_ANSWERED = re.compile(r'"((?:[^"\\]|\\.)+?)"="((?:[^"\\]|\\.)*?)"(?=,\s*"|\.\s|\.?$)', re.DOTALL)
#: Sources of turns read from the machinery (see the module).
ANSWER, PLAN, REJECTION, QUEUED = "answer", "plan", "rejection", "queued"


@dataclass(frozen=True)
class Turn:
    """What the user or the agent said in one message on the conversation's path."""

    uuid: str
    role: str  # "user" | "assistant"
    text: str
    line: int  # 1-based line number in the file
    timestamp: str
    session_id: str
    source: str = ""  # "" for what was said; else ANSWER, PLAN, REJECTION or QUEUED


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
    waiting: bool = False  # the last line has no newline yet: being written, read next time


@dataclass
class _Node:
    parent: str | None
    line: int
    main: bool  # a user or assistant message of the main chain (a possible leaf)
    progress: bool = False  # a `progress` line: its parent is the tool call it reports on, not the last message


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
    text = _TASK_NOTIFICATION.sub("", _WRAPPER.sub("", _COMMAND_ARGS.sub(r"\1", "\n\n".join(parts)))).strip()
    if text.startswith(_NOISE_TURNS):
        return ""
    return text[:MAX_TURN_CHARS]


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _answers(asked: dict[str, Any], result: str, recorded: Any) -> str:
    """The answers to an AskUserQuestion as lines `question<TAB>answer<TAB>recommended option` (the last empty
    unless the user chose another option than the one recommended)."""
    pairs: list[tuple[str, str]] = []
    if isinstance(recorded, dict) and isinstance(recorded.get("answers"), dict):
        pairs = [(str(q), str(a)) for q, a in recorded["answers"].items()]
    if not pairs:
        pairs = [(q.replace('\\"', '"'), a.replace('\\"', '"')) for q, a in _ANSWERED.findall(result)]
    questions = asked.get("questions") if isinstance(asked.get("questions"), list) else []
    lines = []
    for question, answer in pairs:
        asked_one = next((q for q in questions if isinstance(q, dict) and q.get("question") == question), {})
        options = [o.get("label", "") for o in asked_one.get("options", []) if isinstance(o, dict)]
        recommended = next((o for o in options if isinstance(o, str) and _RECOMMENDED.search(o)), "")
        chosen = _RECOMMENDED.sub("", answer).strip()
        overridden = _RECOMMENDED.sub("", recommended).strip() if recommended and recommended != answer else ""
        header = asked_one.get("header") if isinstance(asked_one.get("header"), str) else ""
        lines.append("\t".join(" ".join(x.split()) for x in (question, chosen, overridden, header)))
    return "\n".join(lines)


def _machinery_turns(doc: dict[str, Any], tools: dict[str, tuple[str, Any]]) -> list[tuple[str, str]]:
    """(source, text) of the decisions a user line's tool results carry (see the module)."""
    message = doc.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    found: list[tuple[str, str]] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        text = _result_text(block)
        asked = tools.get(block.get("tool_use_id", ""))
        marker = next((m for m in _REJECTIONS if m in text), None)
        if marker:
            reason = text.split(marker, 1)[1].strip()
            if reason:
                found.append((REJECTION, reason[:MAX_TURN_CHARS]))
        elif asked is not None and not block.get("is_error"):
            name, given = asked
            if name == "AskUserQuestion" and isinstance(given, dict):
                answers = _answers(given, text, doc.get("toolUseResult"))
                if answers:
                    found.append((ANSWER, answers[:MAX_TURN_CHARS]))
            elif name == "ExitPlanMode" and isinstance(given, dict) and isinstance(given.get("plan"), str) \
                    and "approved" in text.lower():
                found.append((PLAN, given["plan"][:MAX_TURN_CHARS]))
    return found


def _queued(doc: dict[str, Any]) -> str:
    """What a human typed while the agent worked (a `queued_command` attachment), or ""."""
    attachment = doc.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return ""
    origin = attachment.get("origin")
    if attachment.get("commandMode", "prompt") != "prompt" or (isinstance(origin, dict)
                                                                 and origin.get("kind") not in (None, "human")):
        return ""
    prompt = attachment.get("prompt")  # a string, or (2.1.178) a list of content blocks
    return _text_of({"content": prompt}, "user") if isinstance(prompt, (str, list)) else ""


def _typed_key(text: str) -> str:
    """What two records of one typed message share: its words, whitespace aside."""
    return " ".join(text.split())


def _enqueued(doc: dict[str, Any]) -> str:
    """What a human queued while the agent worked, from an `enqueue` queue-operation line, or "" (a task
    notification, a slash command or a shell command typed with `!` is not a message)."""
    if doc.get("operation") != "enqueue":
        return ""
    content = doc.get("content")
    text = _text_of({"content": content}, "user") if isinstance(content, (str, list)) else ""
    return "" if text.startswith(("/", "!")) else text


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


def _written_before(nodes: dict[str, _Node], mains: list[tuple[int, str]], line: int, origin: str) -> str:
    """The newest main-chain message written before `line` that descends from `origin` (the tool call a
    progress chain reports on), or `origin` when none does: the conversation a progress chain continues."""
    low = nodes[origin].line
    for at in range(bisect.bisect_left(mains, (line, "")) - 1, -1, -1):
        if mains[at][0] <= low:
            break
        current: str | None = mains[at][1]
        while current is not None and current in nodes and nodes[current].line > low:
            current = nodes[current].parent
        if current == origin:
            return mains[at][1]
    return origin


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
    asides: list[tuple[Turn, str | None]] = []  # machinery turns, kept when they or their parent are on the path
    tools: dict[str, tuple[str, Any]] = {}  # tool_use id -> (tool name, input) for the tools decisions come from
    typed_before: set[int] = set()  # hashes of what user lines and queued attachments say (any branch, any offset)
    enqueued: list[tuple[int, str, str, str]] = []  # (line, text, timestamp, session) of new enqueue operations
    out = TranscriptRead(end_offset=start)
    first_new: int | None = None
    for offset, number, raw, complete in _lines(path, max_line_bytes):
        if not complete:
            out.waiting = True
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
        if kind == "queue-operation" and offset >= start:
            typed = _enqueued(doc)
            if typed:
                stamp = doc.get("timestamp")
                enqueued.append((number, typed, stamp if isinstance(stamp, str) else "",
                                 doc["sessionId"] if isinstance(doc.get("sessionId"), str) else ""))
        if kind == "user" and not doc.get("isSidechain"):
            typed_before.add(hash(_typed_key(_text_of(doc.get("message"), "user"))))
        elif kind == "attachment":
            typed_before.add(hash(_typed_key(_queued(doc))))
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
        nodes[uuid] = _Node(parent if isinstance(parent, str) else None, number, main, kind == "progress")
        message = doc.get("message")
        if kind == "assistant" and not sidechain and isinstance(message, dict) \
                and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_use" \
                        and block.get("name") in ("AskUserQuestion", "ExitPlanMode"):
                    tools[str(block.get("id"))] = (block["name"], block.get("input"))
        if offset < start or sidechain:
            continue
        stamp = doc.get("timestamp")
        session = doc.get("sessionId") if isinstance(doc.get("sessionId"), str) else ""
        if kind == "attachment":
            typed = _queued(doc)
            if typed:
                asides.append((Turn(uuid=uuid, role="user", text=typed, line=number,
                                    timestamp=stamp if isinstance(stamp, str) else "", session_id=session,
                                    source=QUEUED), parent if isinstance(parent, str) else None))
            continue
        if kind == "user":
            for i, (source, said) in enumerate(_machinery_turns(doc, tools)):
                pending[uuid if i == 0 else f"{uuid}#{i}"] = Turn(
                    uuid=uuid, role="user", text=said, line=number, timestamp=stamp if isinstance(stamp, str) else "",
                    session_id=session, source=source)
        if not main or doc.get("isMeta") or doc.get("isCompactSummary") or doc.get("isVisibleInTranscriptOnly"):
            continue
        role = message.get("role", kind) if isinstance(message, dict) else kind
        text = _text_of(message, role)
        if text:
            pending[uuid] = Turn(uuid=uuid, role=role, text=text, line=number,
                                 timestamp=stamp if isinstance(stamp, str) else "", session_id=session)
    out.first_line = first_new or 1
    leaf = max((n for n in nodes.items() if n[1].main), key=lambda item: item[1].line, default=None)
    mains = sorted((node.line, uuid) for uuid, node in nodes.items() if node.main)
    path_uuids: set[str] = set()
    current = leaf[0] if leaf else None
    while current is not None and current not in path_uuids:
        path_uuids.add(current)
        node = nodes[current]
        parent = node.parent
        # its parent's line was unreadable, or a compaction names as its parent a line written after it (seen in
        # real transcripts): bridge the gap to the main-chain message before it
        if parent is not None and (parent not in nodes or nodes[parent].line >= node.line):
            before = bisect.bisect_left(mains, (node.line, "")) - 1
            parent = mains[before][1] if before >= 0 else None
        elif node.progress and parent is not None and not nodes[parent].progress:
            parent = _written_before(nodes, mains, node.line, parent)
        current = parent
    out.path_uuids = path_uuids
    for number, typed, stamp, session in enqueued:
        before = bisect.bisect_left(mains, (number, "")) - 1
        if hash(_typed_key(typed)) not in typed_before and before >= 0:  # the turn it follows stands for it on the path
            asides.append((Turn(uuid=mains[before][1], role="user", text=typed, line=number, timestamp=stamp,
                                session_id=session or out.session_id, source=QUEUED), None))
    on_path = [t for t in pending.values() if t.uuid in path_uuids]
    on_path += [t for t, parent in asides if t.uuid in path_uuids or parent in path_uuids]
    out.turns = sorted(on_path, key=lambda t: t.line)
    return out


def project_folder_name(path: str) -> str:
    """The folder Claude Code keeps a project's sessions in, under `~/.claude/projects/`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)
