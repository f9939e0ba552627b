"""What a memory's text says once the capture machinery's markup is set aside. Pure, standard library only.

Auto-captured memories are windows cut from transcripts (`...` where cut),
Claude Code's and the plugin's box and block markers, tables, code and
escaped copies of injected context. `display_title` finds the line a person
reads: the summary when it is a whole statement, else the complete version
of a cut summary, else the first complete sentence or heading of the body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memactors.events.chatter import chatter

TITLE_CHARS = 100
_CUT = ("...", "…")
_ESCAPES = (("\\n", "\n"), ('\\"', '"'), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))
#: An echo of context a hook injected: memory tags and attributes, hook output keys.
ECHO = re.compile(r"(?:<|&lt;)/?memory[\w-]*\b|\bnamespace=\\*[\"']|hookSpecificOutput|additionalContext"
                  r"|(?:<|&lt;)/?(?:summary|preview|related_memories)>")
#: Written so that no two parts can match the same blank run: a line of 20,000 spaces is read in linear time.
_BLOCK_MARK = re.compile(r"^\s*(?:`\s*)?[▶★]\s*(?:[\w-][\w -]*?)?─+`?\s*")
_RULE = re.compile(r"^\s*`?[─━═—-]{3,}`?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE = re.compile(r"^\s*\|")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)")  # closing hashes: `heading_text`, not a backtracking regex
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_INLINE = re.compile(r"\*\*|__|`")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_CODEY = re.compile(r"[<>{}=\\|]|\w\(|::|->|;\s*$")
_SPACE = re.compile(r"\s+")
_SYMBOL = re.compile(r"[^\w\s.,;:'\"!?()’/-]")  # a path's slashes are words' glue, not markup
#: Section headings of structured captures: structure, not statements.
GENERIC_HEADINGS = frozenset({
    "context", "decision", "rationale", "consequences", "summary", "details", "notes", "examples", "example",
    "what happened", "learning", "why it matters", "problem", "impact", "next step", "next steps",
    "alternatives", "alternatives considered", "background", "status", "overview", "references", "usage",
    "applies to", "solution", "result", "results", "todo", "key facts", "implementation",
})


@dataclass(frozen=True)
class Title:
    """The line to show for a memory; `readable` False when no complete statement was found."""

    text: str
    readable: bool


def heading_text(text: str) -> str:
    """A heading's text without its closing hashes ("Title ##" -> "Title")."""
    return text.rstrip().rstrip("#").rstrip()


def unescape(text: str) -> str:
    for raw, plain in _ESCAPES:
        text = text.replace(raw, plain)
    return text


def is_cut(text: str) -> bool:
    """True when `text` starts or ends where a window cut it (`...` / `…`)."""
    text = text.strip()
    return text.startswith(_CUT) or text.endswith(_CUT)


def is_echo(text: str) -> bool:
    return bool(ECHO.search(text))


def _trim_cuts(text: str) -> str:
    text = text.strip()
    for mark in _CUT:
        if text.startswith(mark):
            text = text[len(mark):]
        if text.endswith(mark):
            text = text[: -len(mark)]
    return text.strip()


def flat(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _mostly_words(text: str, share: float = 0.6) -> bool:
    tokens = text.split()
    if not tokens:
        return False
    words = sum(bool(_WORD.fullmatch(t.strip(".,;:()[]'\"!?"))) for t in tokens)
    return words / len(tokens) >= share and not _CODEY.search(text)


def prose_lines(text: str) -> list[tuple[str, bool]]:
    """(line, is_heading) for every line of prose: fences, code, tables, rules and markers dropped,
    bullets and inline markup stripped."""
    out: list[tuple[str, bool]] = []
    in_code = False
    for raw in unescape(text).split("\n"):
        if _FENCE.match(raw):
            in_code = not in_code
            continue
        if in_code or _TABLE.match(raw) or _RULE.match(raw):
            continue
        line = _BLOCK_MARK.sub("", raw)
        heading = _HEADING.match(line)
        if heading:
            line = heading_text(heading.group(1))
        line = _INLINE.sub("", _BULLET.sub("", line)).strip()
        if line:
            out.append((line, heading is not None))
    return out


def markup_share(text: str) -> float:
    """Share of the text's characters in code, tables, rules, block markers or symbol-heavy lines."""
    total = marked = 0
    in_code = False
    for raw in unescape(text).split("\n"):
        line = raw.strip()
        size = len(line)
        total += size
        if _FENCE.match(raw):
            in_code = not in_code
            marked += size
        elif in_code or _TABLE.match(raw) or _RULE.match(raw) or _BLOCK_MARK.match(raw) \
                or (size and len(_SYMBOL.findall(line)) > 0.12 * size and not _HEADING.match(raw)):
            marked += size
    return marked / total if total else 0.0


def sentences(text: str, lines: list[tuple[str, bool]] | None = None) -> list[str]:
    """Complete statements of `text`, in order: whole sentences (not where a window cut), and whole
    lines that read as statements (a block's title line). Code, tables and echoes give none.
    `lines` are `prose_lines(text)` when the caller has them already."""
    if not text.strip():
        return []
    lines = prose_lines(text) if lines is None else lines
    cut_start, cut_end = text.strip().startswith(_CUT), text.strip().endswith(_CUT)
    found: list[str] = []
    for n, (line, heading) in enumerate(lines):
        if heading:
            if line.casefold() not in GENERIC_HEADINGS and len(line.split()) >= 3 and _mostly_words(line) \
                    and not is_echo(line) and chatter(line) is None:
                found.append(line)
            continue
        parts = _SENTENCE_END.split(line)
        for i, part in enumerate(parts):
            part = part.strip()
            first_cut = cut_start and n == 0 and i == 0
            last_cut = cut_end and n == len(lines) - 1 and i == len(parts) - 1
            if first_cut or last_cut or part.endswith(_CUT) or part.startswith(_CUT):
                continue
            whole_line = len(parts) == 1
            ends = part.endswith((".", "!", "?")) or whole_line
            if ends and (part[:1].isupper() or part[:1].isdigit()) and len(part.split()) >= 4 \
                    and _mostly_words(part) and not is_echo(part) and chatter(part) is None:
                found.append(part)
    return found


#: The agent announcing its next step ("Let me update the collector config:", "Now I'll run the tests").
_NEXT_STEP = re.compile(
    r"^(?:(?:now|next|first|then|so|ok|okay|great|perfect|excellent|good|alright)[,!.]?\s+)?"
    r"(?:let\s+me|let's|let\s+us|i'll|i\s+will|i'm\s+going\s+to|i\s+am\s+going\s+to|i\s+need\s+to|we'll"
    r"|we\s+need\s+to)\b", re.IGNORECASE)
#: A guess, not a finding ("The fix is likely to add ...", "The task may have completed", "I suspect").
_GUESS = re.compile(
    r"\b(?:likely|probably|possibly|perhaps|maybe|might|(?:may|could)\s+(?:be|have|not)|i\s+(?:think|suspect"
    r"|guess|believe)|seems?|appears?\s+to|not\s+sure)\b", re.IGNORECASE)
#: A courtesy to the user ("You're absolutely right", "I apologize for the confusion"): nothing about the work.
_COURTESY = re.compile(
    r"^(?:(?:you're|you\s+are)\s+(?:absolutely\s+|completely\s+|quite\s+)?right|i\s+apologi[sz]e|sorry"
    r"|my\s+apologies|thanks|thank\s+you|understood|got\s+it|good\s+(?:catch|point|question))\b", re.IGNORECASE)


def narrates_only(summary: str, body: str, body_lines: list[tuple[str, bool]] | None = None) -> bool:
    """True when the prose announces the agent's next step ("Let me update the collector config:") around guesses
    or courtesies that pass for statements ("The fix is likely to ..."), and states no fact, decision or result.
    `body_lines` are `prose_lines(body)` when the caller has them already."""
    lines = prose_lines(body) if body_lines is None else body_lines
    if summary.strip() and not is_cut(summary):
        lines = [*lines, *prose_lines(summary)]
    narrates = hedges = False  # bare narration is unreadable already (`chatter`): only a hedged one passes
    for line, _heading in lines:
        for part in _SENTENCE_END.split(line):
            said = chatter(part)
            if said == "narration":
                if _NEXT_STEP.match(part.strip()):
                    narrates = True
                elif len(part.split()) >= 4:  # "I've updated the hook to retry" may report a result
                    return False
            elif said is None:
                if not _COURTESY.match(part.strip()) and not _GUESS.search(part):
                    return False
                hedges = True
    return narrates and hedges


def _fit(text: str) -> str:
    text = flat(text)
    if len(text) <= TITLE_CHARS:
        return text
    cut = text[: TITLE_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > TITLE_CHARS // 2 else cut).rstrip(",;: ") + "…"


def display_title(summary: str, body: str, body_lines: list[tuple[str, bool]] | None = None) -> Title:
    """The line to show for a memory: see the module docstring. At most 100 characters.
    `body_lines` are `prose_lines(body)` when the caller has them already."""
    plain = flat(" ".join(line for line, _ in prose_lines(summary)))
    if summary.strip() and not is_cut(summary) and not is_echo(summary) and plain and _mostly_words(plain, 0.5) \
            and not _BLOCK_MARK.match(summary) and not _FENCE.match(summary) and chatter(summary) is None:
        return Title(_fit(plain), True)
    lines = prose_lines(body) if body_lines is None else body_lines
    start = _trim_cuts(plain)
    if len(start) >= 12:  # a cut summary: the body may hold the whole line it was cut from
        for line, _ in lines:
            if flat(line).startswith(start) and _mostly_words(line) and not is_echo(line) \
                    and not flat(line).endswith(_CUT) and chatter(line) is None:
                return Title(_fit(line), True)
    found = sentences(body, lines) or sentences(summary)
    for sentence in found:
        if len(sentence) <= TITLE_CHARS:
            return Title(_fit(sentence), True)
    if found:
        return Title(_fit(found[0]), True)
    return Title(_fit(start or _trim_cuts(flat(unescape(summary))) or flat(body)[:TITLE_CHARS]), False)
