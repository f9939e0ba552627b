"""The passage of a memory's body that answers a question: what recall shows as a result's excerpt. Pure.

A body is cut into blocks as a reader sees them: paragraphs (split at blank
lines and at headings), a fenced code block whole, a heading or a lead-in
line ("Options:") with what follows it. Each block is scored by the
question's content words it holds (lightly stemmed; a word weighs more the
fewer blocks of this body hold it, so the memory's own topic word, in every
block, decides nothing; a path or URL, pointing elsewhere, and the summary
the reader has already, hold none). The best block is the anchor; its
neighbours are added, the better-scoring first, while the passage stays
within `limit` characters, and the room left is filled with the next
block's first lines; a block longer than the limit is cut the same way by
its lines, then its sentences, then its words. Line breaks are kept, so a
list or a code block reads as one. The passage is marked where it was cut:
"…" before it when the body goes on above, "…" after it when it goes on
below. A body within the limit is shown whole; a question none of whose
words the body holds gets the body's start. Words only, no model: scoring
each block by its meaning as well cost a second for ten results on two
cores, for 41 labelled passages found of 54 against 39
(bench/relevance_bench.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from memactors.actors.algorithms.event_report import stem as _stem

#: A body's words repeat, and so do the bodies recall shows again: each word is stemmed once.
stem = lru_cache(maxsize=16_384)(_stem)

#: Characters of a passage (the marks aside): a paragraph and its neighbours, a list, a code block of ~10 lines.
PASSAGE_CHARS = 400
ELLIPSIS = "…"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9']*")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_TITLE = re.compile(r"^\s{0,3}#{1,6}\s")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s|^\s*\*\*[^*]+\*\*:?\s*$|.*:\s*$")
#: A file path or URL: "docs/spec/README.md", "src/app/config.py:12", "~/.local/share", "https://x.org/a"
#: (a slash command such as "/memory:status" is not one).
_PATH = re.compile(r"\S*(?:://|[/\\]\S*[/\\.])\S*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING = re.compile(r"[ \t]+\n")

Span = tuple[int, int]


def tidy(text: str) -> str:
    """`text` with trailing spaces and runs of blank lines removed, line breaks kept."""
    return _BLANKS.sub("\n\n", _TRAILING.sub("\n", text)).strip()


def blocks(text: str) -> list[Span]:
    """The blocks of `text` as (start, end) spans: paragraphs, fenced code blocks whole, a heading or lead-in
    line joined to the block after it."""
    spans: list[Span] = []
    pos, start, fenced = 0, None, False
    for line in text.splitlines(keepends=True):
        end = pos + len(line)
        if _FENCE.match(line):
            if not fenced:
                if start is not None:
                    spans.append((start, pos))
                start, fenced = pos, True
            else:
                spans.append((start if start is not None else pos, end))
                start, fenced = None, False
        elif not fenced and not line.strip():
            if start is not None:
                spans.append((start, pos))
                start = None
        elif not fenced and _TITLE.match(line):  # a heading starts a section, blank line or not
            if start is not None:
                spans.append((start, pos))
            start = pos
        elif start is None:
            start = pos
        pos = end
    if start is not None:
        spans.append((start, pos))
    joined: list[Span] = []
    for span in spans:  # a heading or a lead-in ("Options:") belongs to what it introduces
        if joined and _introduces(text[joined[-1][0]:joined[-1][1]]):
            joined[-1] = (joined[-1][0], span[1])
        else:
            joined.append(span)
    return [s for s in joined if text[s[0]:s[1]].strip()]


def _introduces(block: str) -> bool:
    lines = block.strip().splitlines()
    return len(lines) == 1 and len(lines[0]) <= 120 and _HEADING.match(lines[0]) is not None


def _lines(text: str, span: Span) -> list[Span]:
    out, pos = [], span[0]
    for line in text[span[0]:span[1]].splitlines(keepends=True):
        if line.strip():
            out.append((pos, pos + len(line)))
        pos += len(line)
    return out


def _sentences(text: str, span: Span) -> list[Span]:
    out, pos = [], span[0]
    for part in _SENTENCE.split(text[span[0]:span[1]]):
        at = text.index(part, pos)
        out.append((at, at + len(part)))
        pos = at + len(part)
    return out


def _words(text: str, span: Span) -> list[Span]:
    return [(span[0] + m.start(), span[0] + m.end()) for m in re.finditer(r"\S+", text[span[0]:span[1]])]


def _stems(text: str) -> set[str]:
    """The stems of `text`'s words; a path or URL ("docs/spec/secrets-filtering/README.md") points elsewhere and
    says nothing here."""
    return {stem(w) for w in _WORD.findall(_PATH.sub(" ", text)) if len(w) > 1}


def question_stems(words: Sequence[str]) -> set[str]:
    """The stems of a question's content words (as the lexical index reads them: question words left out)."""
    return {stem(w) for w in words if len(w) > 1}


def best_passage(body: str, wanted: set[str], *, limit: int = PASSAGE_CHARS, shown: str = "") -> str:
    """The passage of `body` that best answers a question whose content-word stems are `wanted` (see the
    module), at most `limit` characters plus its marks. `shown`: text the reader has already (the memory's
    summary, which bodies often repeat as their first line): its words count for nothing."""
    text = tidy(body)
    if len(text) <= limit:
        return text
    seen = shown.strip()
    words = text.replace(seen, " " * len(seen)) if len(seen) > 3 else text  # same offsets, the summary blanked
    start, end = _choose(text, words, blocks(text), wanted, limit)
    return (ELLIPSIS if start > 0 else "") + text[start:end].strip() + (ELLIPSIS if end < len(text) else "")


def _scores(words: str, units: Sequence[Span], wanted: set[str]) -> list[float]:
    """Each unit's share of the question's words it holds, a word weighing more the fewer units hold it."""
    held = [_stems(words[a:b]) & wanted for a, b in units]
    counts: dict[str, int] = {}
    for found in held:
        for word in found:
            counts[word] = counts.get(word, 0) + 1
    weight = {w: math.log(1 + len(units) / n) for w, n in counts.items()}
    whole = sum(weight.values())
    return [sum(weight[w] for w in found) / whole if whole else 0.0 for found in held]


def _choose(text: str, words: str, units: Sequence[Span], wanted: set[str], limit: int) -> Span:
    """The best run of `units` within `limit` characters: the best-scoring unit (the first when none scores),
    its neighbours added, the better-scoring first, while they fit; a unit longer than the limit is chosen
    from by its lines, else its sentences, else its words."""
    scores = _scores(words, units, wanted)
    anchor = max(range(len(units)), key=lambda i: (scores[i], -i))
    a, b = units[anchor]
    if b - a > limit:
        for split in (_lines, _sentences, _words):
            parts = split(text, (a, b))
            if len(parts) > 1:
                return _choose(text, words, parts, wanted, limit)
        return a, a + limit  # one "word" longer than the passage: its start
    lo = hi = anchor
    while True:
        options = [i for i in (lo - 1, hi + 1) if 0 <= i < len(units)
                   and max(b, units[i][1]) - min(a, units[i][0]) <= limit]
        if not options:
            return a, _filled(text, units, hi, a, b, limit)
        # the better-scoring neighbour first; of equals, the one after (what a lead-in introduces comes next)
        pick = max(options, key=lambda i: (scores[i], i > hi))
        lo, hi = min(lo, pick), max(hi, pick)
        a, b = min(a, units[pick][0]), max(b, units[pick][1])


def _filled(text: str, units: Sequence[Span], last: int, a: int, b: int, limit: int) -> int:
    """Where a passage ending at `b` ends once the room left is filled with the next unit's first lines (or
    sentences) that fit whole: what follows is read next."""
    if last + 1 >= len(units):
        return b
    nxt = units[last + 1]
    for split in (_lines, _sentences):
        parts = split(text, nxt)
        fitting = [end for _, end in parts if end - a <= limit]
        if fitting and len(parts) > 1:
            return max(b, fitting[-1])
    return b
