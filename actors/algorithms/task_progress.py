"""Which task a progress note is about, and how far along it says the task is. Pure, standard library only.

A later progress note replaces an earlier one only on the same task ("Task 2.1", "Phase 3", "PROJ-12", "#42")
of the same area (the same "topic:" lead, or a word naming the area in common: a task or spec id, a phase or
milestone number is reused by different work) at the same or a later state (started < in progress < done): never
because of a change word.
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


#: Words that name no area: what any progress note says.
_GENERIC = frozenset("""task phase step milestone story ticket issue stage spec specification project work note notes
update updated status progress complete completed completion done finished finish closed close closing out started
start starting begin in of for the a an and to on with all tasks implementation implemented plan planning approved
review reviewed created test tests testing fix fixes fixed api code""".split())
_TOPIC = re.compile(r"^\s*([\w .-]{1,40}?)\s*:\s")


def subject_words(line: str) -> set[str]:
    """What area a progress line is about: its words without the task id, states and generic words."""
    line = _TASK.sub(" ", line)
    for _, pattern in _STATES:
        line = pattern.sub(" ", line)
    return {w for w in re.findall(r"[a-z][a-z0-9_-]{2,}", line.lower()) if w not in _GENERIC}


def same_area(newer: str, older: str) -> bool:
    """Two notes naming one task id are about the same work only when their areas agree: a "topic:" lead is the
    same, or they share a word naming the area ("auth: milestone 4" is not "billing: milestone 4"; a spec id
    reused by two specs names two pieces of work)."""
    first_new, first_old = newer.strip().split("\n", 1)[0], older.strip().split("\n", 1)[0]
    topic_new, topic_old = _TOPIC.match(first_new), _TOPIC.match(first_old)
    if topic_new and topic_old and not _TASK.search(topic_new[1]) and not _TASK.search(topic_old[1]):
        return topic_new[1].strip().lower() == topic_old[1].strip().lower()
    new_words, old_words = subject_words(first_new), subject_words(first_old)
    if not new_words and not old_words:
        return True  # "Task 2.1 in progress" then "Task 2.1 complete": nothing names another area
    return bool(new_words & old_words)


def later_state(newer: str, older: str) -> str | None:
    """The task both notes are about when the newer says the same or a later state of it, else None."""
    task = task_of(newer)
    if task is None or task != task_of(older) or not same_area(newer, older):
        return None
    new_state, old_state = state_of(newer), state_of(older)
    if new_state is None or old_state is None or new_state < old_state:
        return None
    return task
