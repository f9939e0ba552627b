"""A statement revised without a word of change. Pure, standard library only.

- A diagnosis revised: "LSP tool is functional but requires language server configuration" then, in the same
  investigation (within `SAME_INVESTIGATION`), "LSP tool failure is race condition bug in Claude Code": two
  learnings about the same thing (their summaries open with the same two words), the newer naming a cause ("due
  to", "caused by", "failure is") the older does not name, the older naming none of its own (two causes stated
  of one thing may be two faults).
- Numbers changed deep in a body: "Updated test thresholds: standard 1500→1700 tokens, detailed 2500→2800
  tokens" replaces, in part, an older note one line of which states every old value ("limits (500/1500/2500)")
  and two words of what they are (tokens, limits, tests): at least `MIN_CHANGED` numbers moved, not one, which any
  table arrow or version bump shows.
- A retraction: "I was wrong when I said Phase 5 wasn't implemented. The OTLP exporter code exists" replaces the
  note of the same investigation that said it: a sentence holding the claim's last word with the claim's polarity
  ("The OTLP export functionality hasn't been implemented yet") and a word the retraction names besides (OTLP).
  A fragment cut from a longer note takes part: what it says is what was retracted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from memactors.actors.algorithms.change_claim import words

#: A diagnosis is revised within one investigation: a cause named weeks later is about another failure.
SAME_INVESTIGATION = timedelta(days=1)
#: Numbers a note must change (each "a→b") for a line of an older note stating them all to be replaced.
MIN_CHANGED = 2
#: Words of what the numbers are (tokens, limits, tests) the moving line and the stating line share.
MIN_ABOUT = 2
_CAUSE = re.compile(r"\b(?:due\s+to|caused\s+by|because\s+of|(?:failure|problem|issue|error|crash)\s+is|"
                    r"root\s+cause\s+is)\s+(?:a\s+|an\s+|the\s+)?(?P<cause>[^.,;:()\n]{3,80})", re.IGNORECASE)
_BLOCK_MARKER = re.compile(r"^\s*(?:▶|[─━-]{3,})")
_ARROW = re.compile(r"(?<![\w.])(?P<a>\d+(?:\.\d+)?)\s*(?:→|->|=>)\s*(?P<b>\d+(?:\.\d+)?)(?![\w.])")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


@dataclass(frozen=True)
class Revised:
    """The newer memory revises the older; `partial` when only some of the older is replaced."""

    reason: str
    partial: bool = False


def _headline(summary: str) -> str:
    return next((line for line in summary.splitlines() if line.strip() and not _BLOCK_MARKER.match(line)), summary)


@lru_cache(maxsize=1 << 14)
def subject(summary: str) -> tuple[str, ...] | None:
    """The thing a summary is about: its first two content words ("LSP tool"), or None."""
    found = words(_headline(summary))[:2]
    return found if len(found) == 2 else None


@lru_cache(maxsize=1 << 14)
def cause(summary: str) -> tuple[str, ...]:
    """The content words of the cause a summary names ("due to race condition bug": race, condition, bug)."""
    m = _CAUSE.search(_headline(summary))
    return words(m["cause"]) if m else ()


def revised_diagnosis(newer_summary: str, older_summary: str, apart: timedelta) -> Revised | None:
    """A later learning naming the cause of a thing the older learning explained otherwise (see the module)."""
    if apart > SAME_INVESTIGATION or subject(newer_summary) is None or subject(newer_summary) != subject(
            older_summary):
        return None
    named, before = cause(newer_summary), set(words(older_summary))
    if not named or cause(older_summary) or any(w in before for w in named[:2]):
        return None
    said = _CAUSE.search(_headline(newer_summary))
    return Revised(f"a later diagnosis of {' '.join(subject(newer_summary) or ())}: "
                   f"{said['cause'].strip() if said else ' '.join(named)}, which the older memory did not name")


@lru_cache(maxsize=1 << 14)
def changed_numbers(text: str) -> tuple[tuple[tuple[tuple[str, str], ...], frozenset[str]], ...]:
    """Per line changing `MIN_CHANGED` numbers at least: ((old, new) pairs, the line's other words)."""
    found = []
    for line in text.splitlines():
        moved = tuple((m["a"], m["b"]) for m in _ARROW.finditer(line) if m["a"] != m["b"])
        if len(moved) >= MIN_CHANGED:
            found.append((moved, frozenset(w for w in words(_ARROW.sub(" ", line)) if not w[0].isdigit())))
    return tuple(found)


def numbers_changed(newer: str, older: str) -> Revised | None:
    """A newer line moving numbers every old value of which one line of the older states, about the same thing."""
    for moved, about in changed_numbers(newer):
        old = {a for a, _ in moved}
        for line in older.splitlines():
            stated = set(_NUMBER.findall(_ARROW.sub(" ", line)))
            if old <= stated and len(about & set(words(line))) >= MIN_ABOUT:
                return Revised("changes values the older memory states: " + ", ".join(f"{a} -> {b}"
                                                                                         for a, b in moved),
                               partial=True)
    return None


@lru_cache(maxsize=1 << 14)
def numbers_in(text: str) -> frozenset[str]:
    """Every number a text states, as the keys `number_keys` gives the values a memory changes."""
    return frozenset(f"number:{n}" for n in _NUMBER.findall(text))


def number_keys(text: str) -> frozenset[str]:
    """What pairs a memory with earlier ones `numbers_changed` may compare it to: the old values it changes."""
    return frozenset(f"number:{a}" for moved, _ in changed_numbers(text) for a, _ in moved)


_RETRACTION = re.compile(r"\bI\s+was\s+(?:wrong|mistaken|incorrect)\s+(?:when\s+I\s+(?:said|stated|claimed|wrote)|"
                         r"to\s+(?:say|claim)|in\s+saying)\s+(?:that\s+)?(?P<claim>[^.!?\n*]{3,120})",
                         re.IGNORECASE)
_NEGATED = re.compile(r"n't\b|\b(?:not|never|no)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def _content(text: str) -> list[str]:
    return [w for w in words(_NEGATED.sub(" ", text)) if len(w) >= 4 and w.isalpha()]


def retraction(text: str) -> str | None:
    """The claim a text retracts ("Phase 5 wasn't implemented"), or None; said twice (a summary cut short, then
    the body), the longer."""
    claims = [m["claim"].strip() for m in _RETRACTION.finditer(text) if _content(m["claim"])]
    return max(claims, key=len) if claims else None


def retracted(newer: str, older: str, apart: timedelta) -> Revised | None:
    """The older text says what the newer retracts, in the same investigation (see the module)."""
    claim = retraction(newer) if apart <= SAME_INVESTIGATION else None
    if claim is None:
        return None
    said = _content(claim)[-1]
    rest = set(_content(_RETRACTION.sub(" ", newer))) - {said}
    negated = _NEGATED.search(claim) is not None
    for sentence in _SENTENCES.split(older):
        held = set(_content(sentence))
        if said in held and (_NEGATED.search(sentence) is not None) == negated and held & rest \
                and retraction(sentence) is None:
            return Revised(f"retracts what the older memory said: \"{claim}\"")
    return None
