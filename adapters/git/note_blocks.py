"""Where a memory note's entries start, and their front matter in the subset of YAML `yaml.dump` writes.

Standard library only: the SessionStart hook reads the notes written since the last run with it.
adapters/git/note_format.py parses whole notes (with PyYAML for the rest of YAML) on the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: How far to look for the closing `---` of a front matter block.
MAX_FRONT_MATTER_LINES = 200

_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*):(?: (.*))?$")
_FM_LINE = re.compile(r"^(?:[A-Za-z_][\w-]*\s*:|\s|-(?: |$)|#)")
_IDENTITY_KEYS = ("type:", "timestamp:")
_YAML_WORDS = frozenset(
    "null ~ true false yes no on off y n".split()
)
_PLAIN_BAD_START = frozenset("[]{}&*!|>%@`,?:-#'\"")


@dataclass(frozen=True)
class _Block:
    start: int  # line of the opening ---
    close: int  # line of the closing ---


def _is_delimiter(line: str) -> bool:
    return line.rstrip() == "---"


def _looks_like_front_matter(lines: list[str]) -> bool:
    if not any(line.startswith(_IDENTITY_KEYS) for line in lines):
        return False
    return all(not line.strip() or _FM_LINE.match(line) for line in lines)


def _find_blocks(lines: list[str]) -> list[_Block]:
    """Entry starts: a `---` line opening a front-matter-like block.

    After the first entry, a start must follow a blank line (the append
    separator), so `---` rules and fenced YAML inside bodies stay body.
    """
    return list(iter_blocks(lines))


def iter_blocks(lines: list[str], delimiters: list[int] | None = None) -> Iterator[_Block]:
    """`_find_blocks` one entry at a time (a reader wanting the third entry stops there); `delimiters`: the
    numbers of the `---` lines, when the caller found them already (`delimiter_lines`)."""
    if delimiters is None:
        delimiters = [i for i, line in enumerate(lines) if line[:3] == "---" and line.rstrip() == "---"]
    after, found = 0, False  # where the next entry may start: past the last front matter found
    for at, i in enumerate(delimiters):
        if i < after or (found and (i == 0 or lines[i - 1].strip())):
            continue
        close = delimiters[at + 1] if at + 1 < len(delimiters) else None
        if close is not None and close <= i + MAX_FRONT_MATTER_LINES and _looks_like_front_matter(lines[i + 1 : close]):
            yield _Block(i, close)
            after, found = close + 1, True


_DELIMITER = re.compile(r"^---[^\S\n]*$", re.MULTILINE)


def delimiter_lines(text: str) -> list[int]:
    """The numbers of `text`'s `---` lines (split at newlines, trailing whitespace allowed), by one regex."""
    found, line, pos = [], 0, 0
    for match in _DELIMITER.finditer(text):
        line += text.count("\n", pos, match.start())
        pos = match.start()
        found.append(line)
    return found


def _plain_scalar(raw: str) -> str | None:
    """A YAML scalar read as a string, or None when only a real YAML parser can tell."""
    raw = raw.rstrip()
    if not raw:
        return None
    first = raw[0]
    if first == "'":
        if len(raw) < 2 or raw[-1] != "'":
            return None
        inner = raw[1:-1]
        if "'" in inner.replace("''", ""):
            return None
        return inner.replace("''", "'")
    if first == '"':
        inner = raw[1:-1]
        if len(raw) < 2 or raw[-1] != '"' or '"' in inner or "\\" in inner:
            return None
        return inner
    if first in _PLAIN_BAD_START or first.isdigit() or first in "+.":
        return None
    if ": " in raw or " #" in raw or raw.endswith(":") or raw.lower() in _YAML_WORDS:
        return None
    return raw


def _fast_front_matter(lines: list[str]) -> dict[str, Any] | None:
    """The subset of YAML that `yaml.dump` writes for front matter; None means 'ask PyYAML'.

    Handles `key: scalar` (plain or quoted, folded over indented
    continuation lines as `yaml.dump` wraps at 80 columns), `key: []` and
    `key:` followed by `- item` lines.
    """
    raw: dict[str, str | list[str]] = {}
    key: str | None = None
    for line in lines:
        if not line.strip():
            return None
        if line.startswith("- "):
            if key is None or not isinstance(raw[key], list):
                return None
            raw[key].append(line[2:])  # type: ignore[union-attr]
            continue
        if line[0] in " \t":
            if key is None or not isinstance(raw[key], str) or not raw[key]:
                return None
            raw[key] = f"{raw[key]} {line.strip()}"
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            return None
        key, value = match.group(1), match.group(2)
        if key in raw:
            return None
        raw[key] = [] if value is None or not value.strip() else value
    result: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, list):
            items = [_plain_scalar(item) for item in value]
            if any(item is None for item in items):
                return None
            result[key] = items if items else None  # `key:` with no items is YAML null
        elif value.strip() == "[]":
            result[key] = []
        else:
            scalar = _plain_scalar(value)
            if scalar is None:
                return None
            result[key] = scalar
    return result
