"""The same piece of work at a later stage, said without a word of change. Pure, standard library only.

What a progress log records of one item goes stale when a later note records the item further along:
- a spec (the same `spec/<state>/<date>-<slug>/` directory of a project's docs, the same `slug:` or `created:`
  value of its front matter, or `expires:` with `tags:`, the same GitHub issue, unless each names a different spec
  directory)
  at a later stage:
  draft < in review < approved < started < completed, read from `status: ...` / "status to `in-review`",
  "approved for implementation", `approved: <date>`, `started: <date>`, `completed: <date>` (a `null` date says
  not yet; never a bare "completed", which any note says of its own work); a decision (the approval) is carried
  out by a later stage, never replaced;
- the same spec directory's plan given another size ("5 phases, 24 tasks" then "6 phases, 29 tasks"), or a
  phase added past its count ("Renumbered Phase 4 (Tests) to Phase 5" after "4 phases, 14 tasks");
- a pull request (the same "PR #30") merged after it was opened;
- a counter of the same total moved on ("Tasks Completed: 25/220" then "Tasks Completed: 210/220");
- a row of a task table (the same id and task) whose status moved on ("pending" then "done");
- the items a note lists as remaining ("## Remaining\\n- 42 MEDIUM priority findings") that a later note says
  are all done ("Completed all 42 MEDIUM priority findings"): every item named, or some (replaced in part).
A front-matter block or a table row cut from a file asserts the fields it holds: these rules read such fragments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memactors.actors.algorithms.change_claim import words

_SPEC_DIR = re.compile(r"docs/spec/[\w-]+/(?:\d{4}-\d{2}-\d{2}-)?(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)+)", re.IGNORECASE)
_FIELD = re.compile(r"^[\s*_-]*(?P<key>[A-Za-z][\w -]{0,30}?)\s*:\s*(?P<value>\S[^\n]*?)[\s*_]*$", re.MULTILINE)
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?Z?$")
#: A slug alone on the first line of a cut front matter ("...multi-worktree-sync-fix").
_SLUG_LINE = re.compile(r"^(?:\.\.\.|…)?(?P<slug>[a-z0-9]+(?:-[a-z0-9]+){2,})\s*$")
_ISSUE = re.compile(r"\b(?:github\s+)?issue\s+#(?P<n>\d+)\b|github\.com/[\w.-]+/[\w.-]+/issues/(?P<u>\d+)\b",
                    re.IGNORECASE)
_PR = re.compile(r"\b(?:PR|pull\s+request)\s+#(?P<n>\d+)\b", re.IGNORECASE)
#: Stages of a spec, by what a note says of it.
_STAGE_WORDS = {"draft": 0, "in-review": 1, "in review": 1, "review": 1, "approved": 2, "in-progress": 3,
                "in progress": 3, "active": 3, "completed": 4, "complete": 4, "done": 4}
_STATUS = re.compile(r"\bstatus\b(?:\s+(?:to|of|is|was|now|set\s+to|updated\s+to|with))*\s*[:=]?\s*[`'\"*]*"
                     r"(?P<s>draft|in[- ]review|approved|in[- ]progress|completed)\b", re.IGNORECASE)
_APPROVED = re.compile(r"\bapproved\s+for\s+implementation\b|^\W*approved\s+(?:the\s+)?(?:[\w-]+\s+){0,4}?"
                       r"(?:spec|specification)\b|^\W*approved\s+SPEC-",
                       re.IGNORECASE | re.MULTILINE)
_READY_FOR_REVIEW = re.compile(r"\bready\s+for\s+(?:\w+\s+)?review\b", re.IGNORECASE)
_DATED = re.compile(r"^[\s*_-]*(?P<key>approved|started|completed)\s*:\s*(?P<value>\S+)", re.IGNORECASE | re.MULTILINE)
_DATED_STAGE = {"approved": 2, "started": 3, "completed": 4}
_PR_OPENED = re.compile(r"\b(?:created|opened|open|raised|submitted)\b", re.IGNORECASE)
_PR_MERGED = re.compile(r"\bmerged?\b", re.IGNORECASE)
#: "Tasks Completed: 25/220": a counter's name (two words at least) and its count of a total.
_COUNTER = re.compile(r"(?P<key>[A-Za-z][A-Za-z ]{3,40}?)\s*:\s*\**\s*(?P<n>\d+)\s*/\s*(?P<total>\d+)\b")
_ROW = re.compile(r"^\|(?P<cells>(?:[^|\n]*\|){3,})\s*$", re.MULTILINE)
_ROW_STATES = {"pending": 0, "todo": 0, "to do": 0, "not started": 0, "planned": 0, "in progress": 1,
               "in-progress": 1, "wip": 1, "started": 1, "done": 2, "complete": 2, "completed": 2, "finished": 2}
_REMAINING = re.compile(r"^\W*(?:remaining|still\s+to\s+do|left\s+to\s+do|outstanding|not\s+yet\s+done)\W*$",
                        re.IGNORECASE | re.MULTILINE)
_ITEM = re.compile(r"^\s*[-*]\s+(?P<item>.+)$")
_ALL_DONE = re.compile(
    r"\b(?:complet\w*|resolv\w*|finish\w*|fix\w*|address\w*|clos\w*)\s+all\s+(?P<a>[^.,;:\n]{2,60})|"
    r"\ball\s+(?P<b>[^.,;:\n]{2,60}?)\s+(?:are\s+|were\s+|have\s+been\s+|now\s+)*(?:resolved|completed|done|fixed|"
    r"addressed|closed)\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
#: A plan's size: "5 phases, 24 tasks", "220 tasks across 7 phases".
_PLAN = re.compile(r"(?P<p>\d+)\s+phases?,?\s+(?:and\s+|with\s+)?(?P<t>\d+)\s+(?:\w+\s+)?tasks\b|"
                   r"(?P<t2>\d+)\s+(?:\w+\s+)?tasks\s+(?:across|in|over)\s+(?P<p2>\d+)\s+phases\b", re.IGNORECASE)


@dataclass(frozen=True)
class Later:
    """The newer memory records the older's item further along; `partial` when only some of it."""

    reason: str
    partial: bool = False


@lru_cache(maxsize=1 << 14)
def _fields(text: str) -> dict[str, str]:
    return {m["key"].strip().lower(): m["value"].strip().strip("`'\".") for m in _FIELD.finditer(text)}


@lru_cache(maxsize=1 << 14)
def identities(text: str) -> frozenset[str]:
    """What names the piece of work a text is about: spec slugs, issue and PR numbers, front-matter dates."""
    found = {f"spec:{m['slug'].lower()}" for m in _SPEC_DIR.finditer(text)}
    found |= {f"issue:{m['n'] or m['u']}" for m in _ISSUE.finditer(text)}
    found |= {f"pr:{m['n']}" for m in _PR.finditer(text)}
    fields = _fields(text)
    if _TIMESTAMP.match(fields.get("created", "")):
        found.add(f"created:{fields['created']}")
    if _TIMESTAMP.match(fields.get("expires", "")) and fields.get("tags"):
        # the expiry alone does not name a spec (two specs created the same minute share it): with its tags it does
        found.add(f"expires:{fields['expires']}|{fields['tags']}")
    if re.match(r"^[a-z0-9]+(?:-[a-z0-9]+)+$", fields.get("slug", "")):
        found.add(f"spec:{fields['slug']}")
    first = text.strip().split("\n", 1)[0].strip()
    if (m := _SLUG_LINE.match(first)) is not None:
        found.add(f"spec:{m['slug']}")
    return frozenset(found)


@lru_cache(maxsize=1 << 14)
def _specs(text: str) -> frozenset[str]:
    return frozenset(i for i in identities(text) if not i.startswith("pr:"))


@lru_cache(maxsize=1 << 14)
def spec_stage(text: str) -> int | None:
    """The furthest stage a text gives its spec (0 draft ... 4 completed), or None when it names none."""
    stages = [_STAGE_WORDS[m["s"].lower().replace(" ", "-") if m["s"].lower() != "in review" else "in-review"]
              for m in _STATUS.finditer(text)]
    stages += [2] if _APPROVED.search(text) else []
    stages += [1] if _READY_FOR_REVIEW.search(text) else []
    for m in _DATED.finditer(text):
        value = m["value"].strip("`'\"")
        if value.lower() in ("null", "none", "~", "-"):
            stages.append(0)  # not approved, started or completed yet: at most a draft in review
        elif re.match(r"\d{4}-\d{2}-\d{2}", value):
            stages.append(_DATED_STAGE[m["key"].lower()])
    return max(stages) if stages else None


@lru_cache(maxsize=1 << 14)
def _prs(text: str) -> frozenset[str]:
    return frozenset(m["n"] for m in _PR.finditer(text))


@lru_cache(maxsize=1 << 14)
def _pr_stage(text: str, number: str) -> int | None:
    """0 opened, 2 merged: what the sentences naming PR #number say of it."""
    stage = None
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        if any(m["n"] == number for m in _PR.finditer(sentence)):
            if _PR_MERGED.search(sentence):
                stage = 2
            elif _PR_OPENED.search(sentence) and stage is None:
                stage = 0
    return stage


def _conflicting(newer: str, older: str) -> bool:
    """Front matter of two documents: the same field (created, slug) with different values."""
    a, b = _fields(newer), _fields(older)
    return any(a.get(k) and b.get(k) and a[k] != b[k] and not a[k].endswith("...") and not b[k].endswith("...")
               for k in ("created", "slug", "github_issue"))


def _later_spec(newer: str, older: str) -> Later | None:
    a, b = _specs(newer), _specs(older)
    shared = a & b
    slugs_a, slugs_b = {i for i in a if i.startswith("spec:")}, {i for i in b if i.startswith("spec:")}
    if not shared or _conflicting(newer, older) or (slugs_a and slugs_b and not slugs_a & slugs_b):
        return None  # two specs' directories: an issue one only mentions ("as in Issue #18") names no spec
    new, old = spec_stage(newer), spec_stage(older)
    if new is None or old is None or new <= old:
        return None
    names = ("not approved", "in review", "approved", "started", "completed")
    return Later(f"the same spec ({', '.join(sorted(shared))}) at a later stage: {names[old]} -> {names[new]}")


#: A plan's phases changed: "Added Phase 6 (Local Stack)", "Renumbered Phase 4 (Tests) to Phase 5".
_PHASE_ADDED = re.compile(r"\b(?:added|renumbered|inserted)\s+phase\s+\d+[^.\n]*", re.IGNORECASE)
_PHASE_NUMBER = re.compile(r"\bphase\s+(\d+)\b", re.IGNORECASE)


@lru_cache(maxsize=1 << 14)
def _plan(text: str) -> tuple[int, int] | None:
    m = _PLAN.search(text)
    return None if m is None else (int(m["p"] or m["p2"]), int(m["t"] or m["t2"]))


def _resized(newer: str, older: str) -> Later | None:
    """The same spec directory, its plan given another size ("5 phases, 24 tasks" then "6 phases, 29 tasks"), or
    a phase added past the older's count ("4 phases" then "Renumbered Phase 4 (Tests) to Phase 5")."""
    shared = {i for i in _specs(newer) & _specs(older) if i.startswith("spec:")}
    new, old = _plan(newer), _plan(older)
    if not shared or old is None or new == old:
        return None
    if new is None:
        added = _phases_added(newer)
        if not added or max(added) <= old[0]:
            return None
        return Later(f"the same spec ({', '.join(sorted(shared))}) planned anew: phase {max(added)} added to its "
                     f"{old[0]} phases")
    return Later(f"the same spec ({', '.join(sorted(shared))}) planned anew: {old[0]} phases, {old[1]} tasks -> "
                 f"{new[0]} phases, {new[1]} tasks")


def _later_pr(newer: str, older: str) -> Later | None:
    for number in sorted(_prs(newer) & _prs(older)):
        if _pr_stage(newer, number) == 2 and _pr_stage(older, number) == 0:
            return Later(f"PR #{number} merged after the older memory recorded it opened")
    return None


@lru_cache(maxsize=1 << 14)
def _counters(text: str) -> dict[tuple[str, str], tuple[int, str]]:
    """(the counter's words, its total) -> (its count, its name as written)."""
    return {(" ".join(words(m["key"])), m["total"]): (int(m["n"]), m["key"].strip()) for m in _COUNTER.finditer(text)
            if len(words(m["key"])) >= 2}


def _later_counter(newer: str, older: str) -> Later | None:
    a, b = _counters(newer), _counters(older)
    shared = sorted(a.keys() & b.keys())
    moved = [k for k in shared if a[k][0] > b[k][0]]
    if not moved or any(a[k][0] < b[k][0] for k in shared):
        return None
    (_, total), (before, name), (after, _) = moved[0], b[moved[0]], a[moved[0]]
    return Later(f"the same counter moved on ({name}: {before}/{total} -> {after}/{total})")


@lru_cache(maxsize=1 << 14)
def _rows(text: str) -> dict[tuple[str, str], int]:
    found = {}
    for m in _ROW.finditer(text):
        cells = [c.strip().strip("`*").lower() for c in m["cells"].split("|")[:-1]]
        if len(cells) < 3 or not cells[0] or len(words(cells[1])) < 2:
            continue
        state = next((_ROW_STATES[c] for c in cells[2:] if c in _ROW_STATES), None)
        if state is not None:
            found[(cells[0], cells[1])] = state
    return found


def _later_row(newer: str, older: str) -> Later | None:
    a, b = _rows(newer), _rows(older)
    shared = a.keys() & b.keys()
    moved = sorted(k for k in shared if a[k] > b[k])
    if not moved or any(a[k] < b[k] for k in shared):
        return None
    return Later(f"the same task table row ({moved[0][0]}: {moved[0][1]}) at a later status")


@lru_cache(maxsize=1 << 14)
def _remaining(text: str) -> tuple[str, ...]:
    """The items listed under a "Remaining" heading or line."""
    m = _REMAINING.search(text)
    if m is None:
        return ()
    items = []
    for line in text[m.end():].split("\n")[1:]:
        item = _ITEM.match(line)
        if item is None:
            if line.strip():
                break
            continue
        items.append(item["item"])
    return tuple(items)


def _covers(done: str, item: str, largest: int) -> bool:
    """Whether "all <done>" names the item: its words are the item's, and its count is the item's or a total."""
    said = [w for w in words(done) if not w.isdigit()]
    held = set(words(item))
    counts = _DIGITS.findall(done)
    if not said or not all(w in held for w in said):
        return False
    return not counts or counts[0] in _DIGITS.findall(item) or int(counts[0]) > largest


@lru_cache(maxsize=1 << 14)
def _all_done(text: str) -> tuple[str, ...]:
    """What a text says is all done ("Completed all 42 MEDIUM priority findings": "42 MEDIUM priority findings")."""
    return tuple(m["a"] or m["b"] for m in _ALL_DONE.finditer(text))


@lru_cache(maxsize=1 << 14)
def _phases_added(text: str) -> tuple[int, ...]:
    return tuple(int(n) for m in _PHASE_ADDED.finditer(text) for n in _PHASE_NUMBER.findall(m.group(0)))


def _remaining_done(newer: str, older: str) -> Later | None:
    items = _remaining(older)
    if not items:
        return None
    largest = max((int(n) for item in items for n in _DIGITS.findall(item)), default=0)
    done = _all_done(newer)
    covered = [item for item in items if any(_covers(d, item, largest) for d in done)]
    if not covered:
        return None
    partial = len(covered) < len(items)
    return Later(f"reports done what the older memory lists as remaining ({'; '.join(covered)})"
                 + ("; the rest still stands" if partial else ""), partial=partial)


def later_stage(newer: str, older: str) -> Later | None:
    """How the newer text (summary and body) records the older's item further along, or None."""
    return (_later_spec(newer, older) or _resized(newer, older) or _later_pr(newer, older)
            or _later_counter(newer, older)
            or _later_row(newer, older) or _remaining_done(newer, older))


def pairing_keys(text: str) -> frozenset[str]:
    """What pairs a memory with earlier ones these rules may compare it to (see `later_stage`)."""
    keys = set(identities(text))
    keys |= {f"counter:{k}/{t}" for k, t in _counters(text)}
    keys |= {f"row:{k[0]}|{k[1]}" for k in _rows(text)}
    # the thing counted ("findings") ties a list of what remains to a report of all of it done
    keys |= {f"remaining:{w[-1]}" for item in _remaining(text) if (w := words(item))}
    keys |= {f"remaining:{w[-1]}" for done in _all_done(text) if (w := words(done))}
    return frozenset(keys)


@lru_cache(maxsize=1 << 14)
def is_record(text: str) -> bool:
    """Front matter, a counter or a task table row: a fragment whose fields assert the state of an item."""
    fields = _fields(text)
    return len(fields) >= 2 and any(k in fields for k in ("status", "approved", "started", "completed")) \
        or bool(_counters(text)) or bool(_rows(text))
