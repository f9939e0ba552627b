"""The offline supersession judge: newer + near-identical subject + change markers.

Honest about being a heuristic: its verdicts carry low confidence and
`provider="offline"`. It never says `contradictory` without an explicit
negation of the other memory's claim.
"""

from __future__ import annotations

import re

from memactors.events.memory import Memory
from memactors.events.verdict import Relation, Verdict

CHANGE_MARKERS = re.compile(
    r"\b(instead of|replac\w*|switch\w*|migrat(?:e|ed|es|ing)\b|mov(?:e|ed|ing) (?:from|to|away)|no longer|deprecat\w*|"
    r"(?:move|change|upgrade|downgrade|convert|port)\w* [^.]{0,60}?\bfrom\b [^.]{1,60}?\bto\b|"
    r"supersed\w*|rather than|chang\w* (?:to|from)|revert\w*|drop(?:ped)?|abandon\w*|now use[sd]?|"
    r"from now on|not anymore|obsolete)\b",
    re.IGNORECASE,
)
NEGATION = re.compile(r"\b(do not|don't|never|must not|avoid|stop using|not use)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z0-9]+")
#: Near-identical: one restates the other.
RESTATEMENT = 0.93


def _tokens(memory: Memory) -> set[str]:
    return set(_TOKEN.findall(f"{memory.summary} {memory.body}".casefold()))


def judge_pair(newer: Memory, older: Memory, similarity: float) -> Verdict:
    """Classify `newer` against `older` (same cluster, so already about the same subject)."""
    base = {"newer": newer.key, "older": older.key, "provider": "offline"}
    new_text, old_text = f"{newer.summary}\n{newer.body}", f"{older.summary}\n{older.body}"
    marker = CHANGE_MARKERS.search(new_text)
    if marker and newer.namespace == older.namespace and not CHANGE_MARKERS.search(old_text):
        partial = newer.namespace != "decisions"
        return Verdict(**base, relation=Relation.SUPERSEDES, partial=partial, confidence=0.5,
                       reason=f"newer {newer.namespace} memory on the same subject says '{marker.group(0)}'")
    if bool(NEGATION.search(new_text)) != bool(NEGATION.search(old_text)) and similarity >= 0.6:
        return Verdict(**base, relation=Relation.CONTRADICTORY, confidence=0.4,
                       reason="one memory negates what the other asserts on the same subject")
    new_tokens, old_tokens = _tokens(newer), _tokens(older)
    if similarity >= RESTATEMENT or (old_tokens and old_tokens <= new_tokens):
        return Verdict(**base, relation=Relation.SUBSUMES, container=newer.key, confidence=0.55,
                       reason=f"near-identical content (cosine {similarity:.2f}); the newer restates the older")
    if new_tokens and new_tokens <= old_tokens:
        return Verdict(**base, relation=Relation.SUBSUMES, container=older.key, confidence=0.5,
                       reason="the older memory already says everything the newer one does")
    return Verdict(**base, relation=Relation.COMPATIBLE, confidence=0.45,
                   reason="same subject, no change marker: both stand")
