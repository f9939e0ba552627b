"""Which task a progress note is about, and how far along it says the task is. Pure, standard library only.

A later progress note replaces an earlier one only on the same task ("Task 2.1", "Phase 3", "PROJ-12", "#42")
at the same or a later state (started < in progress < done): never because of a change word.
"""

from __future__ import annotations

import re

_TASK = re.compile(r"\b(task|phase|step|milestone|story|ticket|issue|stage)\s*#?\s*(\d+(?:\.\d+)*)\b|\b([A-Z][A-Z0-9]+-\d+)\b"
                   r"|(?<![\w#])#(\d+)\b", re.IGNORECASE)
_STATES = (
    (2, re.compile(r"\b(?:complet\w*|finish\w*|done|closed|merged|shipped|resolved|fixed|landed|delivered)\b", re.I)),
    (1, re.compile(r"\b(?:in\s+progress|working\s+on|wip|continu\w*|halfway|partly|partially)\b", re.I)),
    (0, re.compile(r"\b(?:start\w*|begin\w*|began|kick(?:ed)?\s+off|ready\s+to|planned|todo|next\s+up)\b", re.I)),
)


def task_of(text: str) -> str | None:
    """The task the text's first line names first (lowercase, "task 2.1"), or None."""
    match = _TASK.search(text.strip().split("\n", 1)[0])
    if match is None:
        return None
    if match.group(1):
        return f"{match.group(1).lower()} {match.group(2)}"
    return (match.group(3) or f"#{match.group(4)}").lower()


def state_of(text: str) -> int | None:
    """0 started, 1 in progress, 2 done (the furthest state the first line names), or None."""
    line = text.strip().split("\n", 1)[0]
    return next((state for state, pattern in _STATES if pattern.search(line)), None)


def later_state(newer: str, older: str) -> str | None:
    """The task both notes are about when the newer says the same or a later state of it, else None."""
    task = task_of(newer)
    if task is None or task != task_of(older):
        return None
    new_state, old_state = state_of(newer), state_of(older)
    if new_state is None or old_state is None or new_state < old_state:
        return None
    return task
