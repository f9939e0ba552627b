"""A problem later reported fixed: the blocker is no longer current. Pure, standard library only.

"LSP tool unavailable due to a race condition bug" then "LSP tool is now fully functional - race condition bug
resolved"; "Hooks collect metrics but don't push them to OTLP" then "Fixed hook metrics not pushing to OTLP". The
older memory states a problem in the present (a blocker, or "blocking", "unavailable", "doesn't", "fails"), the
newer one says it is fixed, resolved or working now, and most of what the problem is about is named by both. An
explanation of why a fault happened ("commands were not updated") is not a standing problem: a fix leaves it true.
"""

from __future__ import annotations

import re

from memactors.actors.algorithms.change_claim import holds, words

FIXED = re.compile(
    r"\b(?:fixed|resolved|unblocked|now\s+(?:fully\s+)?(?:functional|working|works|passes|passing|running|succeeds)|"
    r"works\s+now|(?:is|are)\s+(?:now\s+)?working|no\s+longer\s+(?:blocked|failing|broken|stale|missing))\b",
    re.IGNORECASE)
_PROBLEM = re.compile(
    r"\b(?:block(?:s|ing|er)?|unavailable|broken|fails?|failing|doesn'?t|don'?t|can'?t|cannot|not\s+working|"
    r"(?:is|are)\s+(?:stale|missing|down)|crash(?:es|ing)?|hangs?|errors?\s+on)\b", re.IGNORECASE)
#: Words that say how things stand, not what the problem is about.
_STATE_WORDS = frozenset(words(
    "block blocks blocking blocker unavailable broken fail fails failing fixed resolved working works functional "
    "running now fully stale missing down crash crashes hang hangs error errors issue issues problem bug due "
    "still cannot can't don't doesn't not all"))
#: Shared words needed, and the share of the problem's words the fix must name.
MIN_SHARED = 2
SHARE = 0.5


def resolved_problem(newer_summary: str, older_summary: str, older_namespace: str) -> tuple[str, ...] | None:
    """The words tying a fix (`newer_summary`) to the standing problem it resolves (`older_summary`), or None."""
    if not FIXED.search(newer_summary) or FIXED.search(older_summary):
        return None
    if older_namespace != "blockers" and not _PROBLEM.search(older_summary):
        return None
    problem = [w for w in dict.fromkeys(words(older_summary)) if w not in _STATE_WORDS and len(w) >= 3]
    fix = set(words(newer_summary))
    shared = tuple(w for w in problem if holds(fix, w))
    if len(shared) < MIN_SHARED or len(shared) < SHARE * len(problem):
        return None
    return shared
