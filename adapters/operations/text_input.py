"""Text in: whatever bytes arrive on argv or stdin become valid text, and the user is told what changed.

Python hands argv over with undecodable bytes as lone surrogates (`surrogateescape`); written
into a note they become text no later reader accepts. Here each invalid byte becomes U+FFFD,
NULs and other control characters go, and the caller says how many on stderr.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

#: C0 controls but tab and newline, DEL, C1 controls; and the characters YAML or git read as line
#: breaks inside one line (NEL, line and paragraph separators), and byte-order marks.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


@dataclass
class Cleaned:
    """What cleaning changed, summed over every value of one command."""

    replaced: int = 0
    removed: int = 0
    fields: list[str] = field(default_factory=list)

    def note(self, what: str, replaced: int, removed: int) -> None:
        if replaced or removed:
            self.replaced += replaced
            self.removed += removed
            self.fields.append(what)

    def describe(self) -> str | None:
        """One line for stderr, or None when nothing changed."""
        if not self.fields:
            return None
        parts = []
        if self.replaced:
            parts.append(f"{self.replaced} invalid byte{'s' if self.replaced != 1 else ''} replaced by U+FFFD")
        if self.removed:
            parts.append(f"{self.removed} control character{'s' if self.removed != 1 else ''} removed")
        return f"{' and '.join(parts)} in {', '.join(dict.fromkeys(self.fields))}"


def valid_text(value: str) -> tuple[str, int]:
    """`value` with every byte argv could not decode (and any other lone surrogate) as U+FFFD."""
    if not _LONE_SURROGATE.search(value):
        return value, 0
    # bytes escaped by surrogateescape are decoded again, so a multi-byte character split by the
    # escape survives; any other lone surrogate cannot be encoded and is replaced outright
    other = _LONE_SURROGATE.sub(lambda m: m.group() if _ESCAPED_BYTE.fullmatch(m.group()) else "\ufffd", value)
    text = other.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text, max(1, text.count("\ufffd") - value.count("\ufffd"))


def clean_line(value: str, what: str, cleaned: Cleaned) -> str:
    """One line of text (a summary, a tag): valid, without control characters; newlines kept for the caller."""
    text, replaced = valid_text(value)
    kept = _CONTROL.sub("", text)
    cleaned.note(what, replaced, len(text) - len(kept))
    return kept


def clean_body(value: str, what: str, cleaned: Cleaned) -> str:
    """A markdown body: valid text, line breaks as `\\n`, no control characters but tabs."""
    text, replaced = valid_text(value)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    kept = _CONTROL.sub("", text)
    cleaned.note(what, replaced, len(text) - len(kept))
    return kept


#: How long reading standard input may wait silently before the command says what it waits for.
STDIN_NOTICE_SECONDS = 2.0


def read_stdin_text(waiting_for: str = "the content") -> str:
    """All of stdin as text, whatever its bytes (invalid ones as lone surrogates, for `clean_body`). When nothing
    has ended it after STDIN_NOTICE_SECONDS (a pipe left open), one line on stderr says what it waits for."""
    import threading

    notice = threading.Timer(STDIN_NOTICE_SECONDS, lambda: print(
        f"memactors: waiting for {waiting_for} on standard input (end it with Ctrl-D or close the pipe; "
        "or pass --content)",
        file=sys.stderr, flush=True))
    notice.daemon = True
    notice.start()
    try:
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode(
            "utf-8", "surrogateescape")
    finally:
        notice.cancel()
    return data.decode("utf-8", "surrogateescape")
