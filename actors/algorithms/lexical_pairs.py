"""Pairs worth judging that embedding clusters miss: the newer names what it replaced, or the same task.

"Use flake8 for linting" and "Switch linting from flake8 to ruff" sit below any sensible cosine threshold, so
clusters alone never put them side by side. Here a statement that claims a change is paired with the older
statements holding a word of what it replaced (rarest word first), a statement filling a slot with the latest
earlier statements of the same slot (actors/algorithms/slot_change.py), and progress notes with the earlier notes
naming the same task. Pure: the judge decides what each pair is.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from memactors.actors.algorithms.change_claim import changes, words
from memactors.actors.algorithms.heuristic_judge import MAX_TEXT, STAGED, family, prose, raw
from memactors.actors.algorithms.lifecycle import later_stage, pairing_keys
from memactors.actors.algorithms.resolution import (FIXED, MIN_SHARED, blocker_subject, fix_sentences, resolved_in_body,
                                                  resolved_problem)
from memactors.actors.algorithms.revision import (SAME_INVESTIGATION, cause, number_keys, numbers_changed, numbers_in,
                                                retracted, retraction, subject)
from memactors.actors.algorithms.slot_change import frame_keys
from memactors.actors.algorithms.task_progress import task_of
from memactors.events.memory import Memory

#: Older memories paired with one claimed change, and earlier notes with one progress note: the most recent.
PER_MEMORY = 12
#: Earlier statements of the same slot paired with a newer one (the most recent: a chain links the rest).
SLOT_PAIRS = 3
#: Earlier memories naming the same piece of work read for a later stage of it (the most recent; bounded cost).
STAGE_LOOKBACK = 60
#: A word held by more memories than this says nothing about which one was replaced.
COMMON = 400


def lexical_pairs(statements: Sequence[Memory], first_seen: Mapping[str, datetime]) -> list[tuple[Memory, Memory]]:
    """(newer, older) pairs among `statements` (canonical memories that assert something), older by `first_seen`."""
    texts = {m.key: prose(m) for m in statements}
    holders: dict[str, list[Memory]] = defaultdict(list)
    for m in statements:
        for word in set(words(texts[m.key])):
            holders[word].append(m)
    tasks: dict[str, list[Memory]] = defaultdict(list)
    for m in statements:
        if family(m.namespace) == "work" and (task := task_of(m.summary)) is not None:
            tasks[task].append(m)
    slots: dict[frozenset[str], list[Memory]] = defaultdict(list)
    for m in statements:
        if family(m.namespace) == "knowledge":
            for frame in frame_keys(m.summary, m.body[:MAX_TEXT]):
                slots[frame].append(m)
    pairs: dict[tuple[str, str], tuple[Memory, Memory]] = {}

    def before(newer: Memory, candidates: Sequence[Memory]) -> list[Memory]:
        earlier = [o for o in candidates if o.key != newer.key and (first_seen[o.key], o.key) < (first_seen[newer.key],
                                                                                                 newer.key)]
        return sorted(earlier, key=lambda o: first_seen[o.key], reverse=True)[:PER_MEMORY]

    for m in statements:
        if family(m.namespace) == "work":
            continue
        for change in changes(texts[m.key]):
            known = [w for w in dict.fromkeys(words(change.old)) if 0 < len(holders.get(w, ())) <= COMMON]
            if not known:
                continue
            rarest = min(known, key=lambda w: (len(holders[w]), w))
            for older in before(m, [o for o in holders[rarest] if family(o.namespace) == "knowledge"]):
                pairs.setdefault((m.key, older.key), (m, older))
    by_key = {m.key: m for m in statements}
    ended: set[str] = set()  # a problem is fixed once: a later fix of the same area ends another problem
    for m in sorted(statements, key=lambda m: (first_seen[m.key], m.key)):
        # a fix with the latest earlier problems it resolves (two words of its summary at least)
        if FIXED.search(m.summary):
            held: Counter[str] = Counter()
            for w in dict.fromkeys(words(m.summary)):
                if 0 < len(holders.get(w, ())) <= COMMON:
                    held.update(o.key for o in holders[w])
            candidates = [by_key[k] for k, n in held.items() if n >= MIN_SHARED]
            found = 0
            for older in sorted(candidates, key=lambda o: first_seen[o.key], reverse=True):
                if found < PER_MEMORY and older.key not in ended \
                        and (first_seen[older.key], older.key) < (first_seen[m.key], m.key) \
                        and resolved_problem(m.summary, older.summary, older.namespace) is not None:
                    pairs.setdefault((m.key, older.key), (m, older))
                    found += 1
                    ended.add(older.key)
    for holders_of_slot in slots.values():  # the same slot: the latest earlier statements of it
        for m in holders_of_slot:
            for older in before(m, holders_of_slot)[:SLOT_PAIRS]:
                pairs.setdefault((m.key, older.key), (m, older))
    for notes in tasks.values():
        for m in notes:
            for older in before(m, notes):
                pairs.setdefault((m.key, older.key), (m, older))
    for m, older in _revisions(statements, first_seen):
        pairs.setdefault((m.key, older.key), (m, older))
    return list(pairs.values())


def _revisions(statements: Sequence[Memory], first_seen: Mapping[str, datetime]) -> list[tuple[Memory, Memory]]:
    """A learning naming a cause with the earlier learnings about the same thing, a note moving numbers with the
    earlier notes stating every old value (actors/algorithms/revision.py), a fix told in a body with the earlier
    blockers it names (actors/algorithms/resolution.py), the most recent first."""
    order = {m.key: (first_seen[m.key], m.key) for m in statements}
    found: list[tuple[Memory, Memory]] = []
    about: dict[tuple[str, ...], list[Memory]] = defaultdict(list)
    for m in statements:
        if m.namespace == "learnings" and (thing := subject(m.summary)) is not None:
            about[thing].append(m)
    for group in about.values():
        for m in group:
            if cause(m.summary):
                earlier = sorted((o for o in group if order[o.key] < order[m.key]), key=lambda o: order[o.key])
                found += [(m, o) for o in earlier[-PER_MEMORY:]]
    texts = {m.key: raw(m) for m in statements}
    numbers: dict[str, list[Memory]] = defaultdict(list)
    movers = [m for m in statements if number_keys(texts[m.key])]
    if movers:
        for m in statements:
            for key in numbers_in(texts[m.key]):
                numbers[key].append(m)
    for m in movers:
        keys = sorted(number_keys(texts[m.key]), key=lambda k: len(numbers.get(k, ())))
        held = [o for o in numbers.get(keys[0], ()) if order[o.key] < order[m.key]]
        held = [o for o in sorted(held, key=lambda o: order[o.key], reverse=True)
                if numbers_changed(texts[m.key], texts[o.key]) is not None]
        found += [(m, o) for o in held[:PER_MEMORY]]
    blockers = [m for m in statements if m.namespace == "blockers" and blocker_subject(m.summary)]
    for m in statements if blockers else ():
        if not fix_sentences(text := prose(m)):
            continue
        ended = [o for o in blockers if order[o.key] < order[m.key]
                 and resolved_in_body(text, o.summary, o.namespace) is not None]
        found += [(m, o) for o in sorted(ended, key=lambda o: order[o.key], reverse=True)[:PER_MEMORY]]
    return found


def stage_pairs(memories: Sequence[Memory], first_seen: Mapping[str, datetime]) -> list[tuple[Memory, Memory]]:
    """(newer, older) pairs naming the same piece of work (a spec, a PR, a counter, a task row, what remained) where
    the newer records it further along (actors/algorithms/lifecycle.py); `memories` may hold front matter and
    table rows cut from files."""
    texts = {m.key: raw(m) for m in memories}
    holders: dict[str, list[Memory]] = defaultdict(list)
    for m in memories:
        for key in pairing_keys(texts[m.key]):
            holders[key].append(m)
    order = {m.key: (first_seen[m.key], m.key) for m in memories}
    pairs: dict[tuple[str, str], tuple[Memory, Memory]] = {}
    for group in holders.values():
        group.sort(key=lambda m: order[m.key])
        for at, m in enumerate(group):
            found = 0
            for older in reversed(group[max(0, at - STAGE_LOOKBACK):at]):
                if found < PER_MEMORY and older.namespace not in STAGED \
                        and later_stage(texts[m.key], texts[older.key]) is not None:
                    pairs.setdefault((m.key, older.key), (m, older))
                    found += 1
    return list(pairs.values())


def retraction_pairs(memories: Sequence[Memory], first_seen: Mapping[str, datetime]) -> list[tuple[Memory, Memory]]:
    """(retraction, what it retracts): a note saying "I was wrong when I said X" with the notes of the same
    investigation, captured before it or with it, that said X (actors/algorithms/revision.py); `memories` may hold
    fragments cut from longer notes."""
    texts = {m.key: raw(m) for m in memories}
    pairs = []
    for m in memories:
        if retraction(texts[m.key]) is None:
            continue
        for older in memories:
            apart = first_seen[m.key] - first_seen[older.key]
            if older.key != m.key and timedelta(0) <= apart <= SAME_INVESTIGATION \
                    and retracted(texts[m.key], texts[older.key], apart) is not None:
                pairs.append((m, older))
    return pairs
