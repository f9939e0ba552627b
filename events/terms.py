"""The words and path parts that tie a memory to a coding session. Standard library only.

Both sides use `terms`: the persister on each memory's text, the SessionStart
hook on the working directory and recently changed files, so
`adapters/git_store.py` in a session meets "git_store" or "store" in a memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]")
_PARTS = re.compile(r"[./_-]+")
_STOP = frozenset(
    "the and for with that this from into when then than have has had not but are was were will "
    "should would could must can use used using make made also only more most some such very just "
    "about after before over under again every each other been being which while where what there "
    "their them they its it's our your you all any new old now one two done todo fix fixed add added "
    "src lib test tests py md json txt yaml yml toml main index init".split()
)
MIN_LENGTH = 3


def terms(text: str, limit: int = 48) -> tuple[str, ...]:
    """Lowercase words and path parts of `text` (whole paths, their parts, file stems), first seen first."""
    found: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        candidates = [token] if ("/" in token or "." in token or "_" in token or "-" in token) else []
        candidates += _PARTS.split(token)
        for word in candidates:
            if len(word) >= MIN_LENGTH and word not in _STOP and not word.isdigit():
                found.setdefault(word, None)
                if len(found) >= limit:
                    return tuple(found)
    return tuple(found)


def overlap(entry_terms: Iterable[str], session_terms: frozenset[str], saturation: int = 3) -> float:
    """Relevance in [0, 1]: shared terms, saturating at `saturation` matches."""
    shared = sum(1 for t in set(entry_terms) if t in session_terms)
    return min(1.0, shared / saturation)
