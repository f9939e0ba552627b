"""A problem later reported fixed: the blocker is no longer current. Pure, standard library only.

"LSP tool unavailable due to a race condition bug" then "LSP tool is now fully functional - race condition bug
resolved"; "Hooks collect metrics but don't push them to OTLP" then "Fixed hook metrics not pushing to OTLP". The
older memory states a problem in the present (a blocker, or "blocking", "unavailable", "fails"; "doesn't" only in a
blocker or a learning), the newer one says it is fixed ("Fixed ...", "is fixed", not "a fixed size"), resolved or
working now, and most of what the problem is about is named by both. An explanation of why a fault happened
("commands were not updated") is not a standing problem: a fix leaves it true; nor is a decision or a pattern: a
fix carries it out, unless it says it holds only until the problem is fixed ("stick with X until LSP is
fixed"): then the fix naming what it waits on ends it. A blocker is also ended by a fix told in a sentence of a
later body ("The plugin cache structure was resolved with ...") that names all of what the blocker is about, the
words before its state ("Plugin cache" of "Plugin cache is stale"; two words at least).
"""

from __future__ import annotations

import re
from datetime import timedelta
from functools import lru_cache

from memactors.actors.algorithms.change_claim import holds, words

FIXED = re.compile(
    r"(?:^|\n)[^\w\n]*fixed\b|\b(?:is|are|was|were|been|got)\s+(?:now\s+)?(?:fixed|resolved)\b|\bresolved\b|"
    r"\bunblocked\b|\bnow\s+(?:fully\s+)?(?:functional|working|works|passes|passing|running|succeeds)\b|"
    r"\bworks\s+now\b|\b(?:is|are)\s+(?:now\s+)?working\b|\bno\s+longer\s+(?:blocked|failing|broken|stale|missing)\b",
    re.IGNORECASE)
#: A fix made, not a thing found working.
_FIX_MADE = re.compile(r"(?:^|\n)[^\w\n]*fixed\b|\b(?:is|are|was|were|been|got)\s+(?:now\s+)?(?:fixed|resolved)\b|"
                       r"\bresolved\b", re.IGNORECASE)
#: A problem stated as how things stand ("blocking", "unavailable", "fails").
_PROBLEM = re.compile(
    r"\b(?:block(?:s|ing|er)?|unavailable|broken|fails?|failing|not\s+working|(?:is|are)\s+(?:stale|missing|down)|"
    r"crash(?:es|ing)?|hangs?|errors?\s+on)\b", re.IGNORECASE)
#: "doesn't push", "can't reach": a problem only where problems are recorded (blockers, learnings); in a decision
#: or a plan it is a rule ("don't use mocks").
_NOT_DOING = re.compile(r"\b(?:doesn'?t|don'?t|can'?t|cannot)\b", re.IGNORECASE)
_PROBLEM_NAMESPACES = frozenset({"blockers", "learnings"})
#: What was decided is never made stale by a fix: the fix carries it out ("Fixed flaky tests by removing mocks").
_DECIDED = frozenset({"decisions", "patterns"})


#: A decision held only while a problem lasts: "Stick with hooks-based type checking until LSP is fixed".
_UNTIL = re.compile(r"\buntil\s+(?P<what>[^,.;:()]{1,60}?)\s+(?:is|are|gets?|has\s+been)\s+(?:fixed|resolved|"
                    r"working|available|functional|stable|supported)\b", re.IGNORECASE)


def _condition_met(newer_summary: str, older_summary: str) -> tuple[str, ...] | None:
    """The words of what a decision waits on ("until LSP is fixed") when the fix names every one of them."""
    until = _UNTIL.search(older_summary)
    if until is None:
        return None
    what = [w for w in dict.fromkeys(words(until["what"])) if w not in _STATE_WORDS]
    fix = set(words(newer_summary))
    return tuple(what) if what and all(holds(fix, w) for w in what) else None


#: Words that say how things stand, not what the problem is about.
_STATE_WORDS = frozenset(words(
    "block blocks blocking blocker unavailable broken fail fails failing fixed resolved working works functional "
    "running now fully stale missing down crash crashes hang hangs error errors issue issues problem bug due "
    "still cannot can't don't doesn't not all"))
#: A learning captured this close to its fix was written with it: the lesson of the fix ("Port conflict blocking
#: Docker Compose services", saved with "Fixed Docker Compose stack"), never a problem the fix then ended.
WRITTEN_WITH_FIX = timedelta(minutes=1)


def written_with_fix(older_namespace: str, apart: timedelta) -> bool:
    """Whether an older learning was captured with the fix that names its problem (see WRITTEN_WITH_FIX)."""
    return older_namespace == "learnings" and apart < WRITTEN_WITH_FIX


#: Shared words needed, and the share of the problem's words the fix must name.
MIN_SHARED = 2
SHARE = 0.5


def resolved_problem(newer_summary: str, older_summary: str, older_namespace: str) -> tuple[str, ...] | None:
    """The words tying a fix (`newer_summary`) to the standing problem it resolves (`older_summary`), or None."""
    if not FIXED.search(newer_summary) or FIXED.search(older_summary) and not _UNTIL.search(older_summary):
        return None
    if older_namespace in _DECIDED:
        return _condition_met(newer_summary, older_summary)
    # "X doesn't accumulate pushed metrics" in a learning may be how X behaves: only a fix said so ends it, not
    # "the pipeline is working"
    standing = older_namespace == "blockers" or _PROBLEM.search(older_summary) is not None or (
        older_namespace in _PROBLEM_NAMESPACES and _NOT_DOING.search(older_summary) is not None
        and _FIX_MADE.search(newer_summary) is not None)
    if not standing:
        return None
    problem = [w for w in dict.fromkeys(words(older_summary)) if w not in _STATE_WORDS and len(w) >= 3]
    fix = set(words(newer_summary))
    shared = tuple(w for w in problem if holds(fix, w))
    if len(shared) < MIN_SHARED or len(shared) < SHARE * len(problem):
        return None
    return shared


#: Where a blocker's summary turns from what it is about to how it stands ("Plugin cache | is stale").
_STATE = re.compile(r"\s(?:is|are|was|were|has|have|fails?|failing|doesn'?t|don'?t|can'?t|cannot|not|lacks?|"
                    r"unavailable|blocked|blocking|broken|missing)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_MARKER = re.compile(r"^\s*(?:▶|[─━-]{3,})")
#: A fix wondered about, not told: "to verify if the bug is resolved", "may be resolved".
_HEDGED = re.compile(r"\b(?:if|whether|may|might|could|should|would|verify|check|maybe|perhaps|not|unless)\b",
                     re.IGNORECASE)
#: Words a blocker must be about for a fix told in passing to end it.
MIN_SUBJECT = 2


@lru_cache(maxsize=1 << 14)
def blocker_subject(summary: str) -> tuple[str, ...]:
    """What a blocker is about: the words of its summary's first line before its state, or () when too few."""
    line = next((line for line in summary.splitlines() if line.strip() and not _MARKER.match(line)), summary)
    state = _STATE.search(line)
    found = words(line[:state.start()]) if state else ()
    return found if len(found) >= MIN_SUBJECT else ()


@lru_cache(maxsize=1 << 14)
def fix_sentences(text: str) -> tuple[frozenset[str], ...]:
    """The words of each sentence of `text` that tells a fix made ("... was resolved", "Fixed ...")."""
    return tuple(frozenset(words(s)) for s in _SENTENCE.split(text)
                 if _FIX_MADE.search(s) and not _HEDGED.search(s))


def resolved_in_body(newer_text: str, older_summary: str, older_namespace: str) -> tuple[str, ...] | None:
    """The words of a blocker (`older_summary`) a sentence of `newer_text` names in telling it fixed, or None."""
    about = blocker_subject(older_summary) if older_namespace == "blockers" else ()
    if not about or FIXED.search(older_summary):
        return None
    return about if any(all(holds(set(s), w) for w in about) for s in fix_sentences(newer_text)) else None
