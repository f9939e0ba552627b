"""Lines that assert nothing: the agent narrating its work, lead-ins, bare headings, empty titles, checklists.

Auto-captured stores are full of them ("Let me check the existing context builder:", "Now I understand the
tracing system.", "What Went Well", "Summary of decision", "[ ] Multi-layer secret detection"). They are
grammatical, so a readability check passes them; `chatter` names what they are so no reader shows them as a
memory's title and no judge treats them as a claim. Pure, standard library only.
"""

from __future__ import annotations

import re

_NARRATION = re.compile(
    r"^(?:let\s+me|(?:let's|let\s+us)(?!\s+(?:use|adopt|switch|standardi[sz]e|stick|always|never|avoid|keep|start\s+"
    r"(?:using|all|our|every)))|now\s+(?:i|let|we'll|i'll|let's)\b|now,\s+(?:let\s+me|let's|let\s+us|i'll|i\s+will|"
    r"i'm|i\s+am|i\s+need\s+to|i\s+(?:see|understand|found|can|have|know|just)|i've|we'll|we\s+(?:need|can|have)|"
    r"the\s+next|it|this|that|moving\s+on|on\s+to|onto)\b|i'll|i\s+will|i'm\s+going|i\s+am\s+going"
    r"|i\s+need\s+to|i\s+found|i\s+see|i\s+can\s+see|i\s+understand|i've\s+(?:found|checked|read|looked|updated|"
    r"added|made|created)|i\s+have\s+(?:found|checked|read|looked)|here\s+is|here's|here\s+are|looking\s+at"
    r"|(?:ok|okay|great|perfect|excellent|done|good|alright|all\s+set)\s*[!,.:—-]|first,\s+(?:i|let)|next,\s+(?:i|let)"
    r"|(?:ok|okay|great|perfect|excellent|done)$)",
    re.IGNORECASE)
#: A line that asks the reader for something ("Now, I want you to end method names with '_n'", "First, please use
#: uv") gives an instruction, however it opens.
_ASKS_READER = re.compile(
    r"\b(?:(?:i|we)\s+(?:want|need|would\s+like|expect)\s+(?:you|us|everyone|all\s+of\s+you)\b|(?:i|we)'d\s+like\s+"
    r"(?:you|us|everyone)\b|please\b|from\s+now\s+on\b|going\s+forward\b|moving\s+forward\b)",
    re.IGNORECASE)
_EMPTY_TITLE = re.compile(
    r"^(?:(?:a\s+)?summary(?:\s+of\s+(?:the\s+)?(?:decision|what\s+was\s+done|changes?|work|session|findings?|"
    r"this|it))?|(?:the\s+)?key\s+(?:insight|takeaway|learning|point|finding)s?|for\s+future\s+reference"
    r"|(?:key\s+)?takeaways?|what\s+went\s+(?:well|wrong)|lessons?\s+learned|next\s+steps?|notes?|overview"
    r"|important|insight|update|context|details|todo|follow[\s-]?up)\s*[:.!]?$",
    re.IGNORECASE)
_CHECKLIST = re.compile(r"^(?:[-*]\s*)?\[[ xX✓]?\]")
_TABLE_ROW = re.compile(r"^\||\|$")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b")
_HEADING_WORD = re.compile(r"[A-Za-z][A-Za-z'&-]*|&|\d+")
_SMALL_WORDS = frozenset("a an and as at by for in of on or the to vs with".split())
#: A Title Case line that starts with one of these is an instruction ("Use PostgreSQL"), not a heading.
_IMPERATIVE = frozenset(
    "use add adopt allow always avoid build bump cache cap keep lock move never pin prefer put raise replace "
    "require retry run ship skip store switch drop disable enable fetch format deploy migrate upgrade".split())


def _bare_heading(line: str) -> bool:
    """A short Title Case phrase with no sentence in it ("What Went Well", "Defense in Depth", "Optimizations")."""
    words = line.split()
    if not 1 <= len(words) <= 6 or not all(_HEADING_WORD.fullmatch(w) for w in words):
        return False
    big = [w for w in words if w.lower() not in _SMALL_WORDS]
    if len(words) == 1:
        return words[0][:1].isupper() and words[0].isalpha()
    return len(big) >= 2 and all(w[:1].isupper() for w in big) and words[0].lower() not in _IMPERATIVE


def chatter(line: str) -> str | None:
    """What `line` is when it asserts nothing (narration, lead-in, heading, empty title, checklist, table row,
    timestamp), or None for a line that may be a statement."""
    text = " ".join(line.replace("**", "").replace("`", "").split()).strip()
    if not text:
        return "empty"
    if _CHECKLIST.match(text):
        return "checklist"
    if _TABLE_ROW.search(text):
        return "table row"
    if _TIMESTAMP.match(text) and len(text.split()) <= 3:
        return "timestamp"
    if _NARRATION.match(text) and not _ASKS_READER.search(text):
        return "narration"
    if text.endswith(":"):
        return "lead-in"
    if _EMPTY_TITLE.match(text.lstrip("#").strip()):
        return "empty title"
    if _bare_heading(text.lstrip("#").strip()):
        return "heading"
    return None
