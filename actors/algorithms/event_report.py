"""Which recalled memory *reports* the event a date question asks about (`recall --reason`).

A question's event words are its content words, minus question words and the
names it shares with the memory (capitalised words: people and projects
already matched by the search), lightly stemmed (plural, -ed, -ing and a
small table of irregular past forms, so "went" meets "go"). A memory reports
the event when it holds those words and says it happened: a date on or
before the day it was written, or a verb in the past tense — a plan in the
same words ("I'm planning to go next week") does not. Later mentions of the same event ("remember the
museum?") hold fewer of the words and rarely a date; among reports that
score alike, the earliest recorded one is the report (`first_report`).
Standard library only, no parser: recall's latency stays what it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_STOP = frozenset(
    "a about after again all also am an and any are as at be been before being both but by can could did do does "
    "doing during each few for from had has have having he her here hers him his how i if in into is it its just "
    "me more most my no nor not now of off on once only or other our ours out over own same she should so some "
    "such than that the their them then there these they this those through to too under until up very was we "
    "were what when where which while who whom why will with would you your yours date day time long ago since "
    "happen happened happens remember tell know".split())
_IRREGULAR = {
    "went": "go", "gone": "go", "saw": "see", "seen": "see", "took": "take", "taken": "take", "got": "get",
    "bought": "buy", "ran": "run", "met": "meet", "gave": "give", "given": "give", "found": "find",
    "began": "begin", "begun": "begin", "came": "come", "left": "leave", "made": "make", "had": "have",
    "did": "do", "done": "do", "wrote": "write", "written": "write", "told": "tell", "won": "win", "lost": "lose",
    "flew": "fly", "flown": "fly", "drove": "drive", "driven": "drive", "ate": "eat", "eaten": "eat",
    "sang": "sing", "sung": "sing", "taught": "teach", "caught": "catch", "held": "hold", "felt": "feel",
    "kept": "keep", "sold": "sell", "spent": "spend", "built": "build", "threw": "throw", "grew": "grow",
    "knew": "know", "broke": "break", "broken": "break", "chose": "choose", "fell": "fall", "rode": "ride",
    "swam": "swim", "wore": "wear", "thought": "think", "brought": "bring", "heard": "hear", "sent": "send",
    "paid": "pay", "led": "lead",
    "shot": "shoot", "slept": "sleep", "spoke": "speak", "stole": "steal", "stood": "stand", "swore": "swear",
    "understood": "understand", "woke": "wake", "adopted": "adopt", "drew": "draw", "drawn": "draw",
}
_PAST = re.compile(r"\b(?:was|were|had|did|went|got|came|saw|made|took|[a-z]{2,}ed)\b", re.IGNORECASE)
_PLAN = re.compile(r"\b(?:plan(?:ning)?\s+to|going\s+to|gonna|will|shall|want\s+to|hope\s+to|I'll|we'll|"
                   r"can't\s+wait\s+to)\b", re.IGNORECASE)
#: How close (in report score) a report must be to the best to count as the same report; the earliest wins.
SAME_REPORT = 0.1


def stem(word: str) -> str:
    """A word's light stem: lowercase, irregular past forms to their base, common suffixes off."""
    word = word.lower().strip("'-")
    if word in _IRREGULAR:
        word = _IRREGULAR[word]
    else:
        for suffix, keep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)] + keep
                break
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":  # shipp -> ship
            word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word  # hike and hiked meet at "hik"


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text) if w.lower() not in _STOP}


def names(question: str) -> set[str]:
    """The names a question mentions: its capitalised words after the first, lowercased."""
    return {w.lower() for w in _WORD.findall(question)[1:] if w[0].isupper() and w.lower() not in _STOP}


def name_share(question: str, text: str) -> float:
    """The share (0..1) of the question's names `text` holds; 1 when it names none."""
    wanted = names(question)
    return len(wanted & {w.lower() for w in _WORD.findall(text)}) / len(wanted) if wanted else 1.0


def event_words(question: str, text: str) -> set[str]:
    """The question's event words for `text`: content stems, minus names the text shares with the question."""
    shared = names(question) & {w.lower() for w in _WORD.findall(text)}
    return {stem(w) for w in _WORD.findall(question) if w.lower() not in _STOP and w.lower() not in shared}


def event_share(question: str, text: str) -> float:
    """The share (0..1) of the question's event words that `text` holds."""
    wanted = event_words(question, text)
    return len(wanted & _stems(text)) / len(wanted) if wanted else 0.0


def past_tense(text: str) -> bool:
    """Whether `text` has a verb in the past tense (regular -ed, or a common irregular one)."""
    return _PAST.search(text) is not None


def planned(text: str) -> bool:
    """Whether `text` speaks of something still to come ("I'm planning to ...", "we'll ...")."""
    return _PLAN.search(text) is not None


def report_score(question: str, text: str, relevance: float, dated: bool) -> float:
    """How well `text` reports the event `question` asks about (at most 1): its event words and names first, then
    whether it says it happened (`dated`: a date on or before its own day; or the past tense) — a plan
    in the same words does not."""
    happened = (dated or past_tense(text)) and not planned(text)
    # a memory naming none of the people the question names reports someone else's event
    return round(0.5 * event_share(question, text) + 0.2 * relevance + 0.15 * happened
                 + 0.15 * (dated and happened) - 0.3 * (1 - name_share(question, text)), 4)


def first_report(scores: Sequence[float], recorded: Sequence[float]) -> int:
    """The index of the report: among scores within SAME_REPORT of the best, the earliest `recorded`
    (then the caller's order)."""
    best = max(scores)
    close = [i for i, s in enumerate(scores) if s >= best - SAME_REPORT]
    return min(close, key=lambda i: (recorded[i], i))
