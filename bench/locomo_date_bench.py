"""Benchmark: date questions over long conversations nobody here wrote (the public LoCoMo benchmark).

Run by hand on a copy of LoCoMo's `data/locomo10.json` (github.com/snap-research/LoCoMo; CC BY-NC 4.0: read for
evaluation only, never shipped or committed):

    python bench/locomo_date_bench.py PATH/locomo10.json [--misses] [--json] [--stores DIR]

Only conversations 6-10 are read (1-5 are kept for checking by others and never opened). Each conversation
becomes one repository: one memory per turn (namespace `progress`, the speaker's words, a shared photo's caption
in brackets), stamped with its session's date and time, a minute apart. Consolidated offline (local MiniLM, no
LLM); every temporal question (category 2) is asked the way `memactors recall --reason` asks it: recall's best
hits in exhaustive mode as evidence, the offline answer composed from them, in UTC.

The gold answers are free text ("The week before March 27, 2023", "first week of May 2023", "2020", "around
April 2, 2023", "the Friday before 22 August, 2023"): this bench reads them into a range of days with its own
small parser (independent of the code under test). A gold that is not a date (a place, a duration, "No") is not
scored and counted apart. An answer names the gold date when the day it gives lies in the gold range (two days
either side for "around"), or when at least half of the span it gives does.

Building and consolidating the five stores takes most of the run (about 5 minutes on 2 shared cores); with
`--stores DIR` they are kept in DIR and read again by the next run (under a minute), for tuning the answer path
(recall, evidence, composition). Remove DIR after a change to capture, consolidation or the recall index they
hold: the stores are not rebuilt.
"""

from __future__ import annotations

import argparse
import calendar
import json
import re
import shutil
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.actors.algorithms.temporal import compose_answer  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.note_format import append_entry, serialize_entry  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.reading.date_answer import EVIDENCE_DEPTH, evidence_of  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.adapters.reading.recall import search  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.realistic_store import new_repository  # noqa: E402

#: Conversations this bench reads (1-based, as the data set numbers them); 1-5 are held out for checking.
MINE = range(6, 11)
TEMPORAL = 2
MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_M = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_D = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_Y = r"(?P<year>(?:19|20)\d{2})"
_DATE = re.compile(rf"(?:{_D}\s+{_M},?\s*{_Y}|{_M.replace('month', 'month2')}\s+"
                   rf"{_D.replace('day', 'day2')},?\s*{_Y.replace('year', 'year2')})", re.IGNORECASE)
_ANSWER_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def session_time(text: str) -> datetime:
    """"1:10 pm on 27 March, 2023" -> an aware UTC datetime."""
    found = re.match(r"\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", text, re.IGNORECASE)
    if found is None:
        raise ValueError(f"unreadable session time {text!r}")
    hour, minute = int(found[1]) % 12 + (12 if found[3].lower() == "pm" else 0), int(found[2])
    return datetime(int(found[6]), MONTHS[found[5].lower()], int(found[4]), hour, minute, tzinfo=timezone.utc)


def _one_date(match: re.Match[str]) -> date:
    if match.groupdict().get("year2"):
        return date(int(match["year2"]), MONTHS[match["month2"].lower()], int(match["day2"]))
    return date(int(match["year"]), MONTHS[match["month"].lower()], int(match["day"]))


def gold_range(answer: str, year_hint: int) -> tuple[date, date, int] | None:
    """(first day, last day, tolerance in days) the gold answer names, or None when it names no date."""
    text = str(answer).strip().rstrip(".").lower()
    if m := re.search(rf"between\s+(?P<d1>\d{{1,2}})\s+(?P<m1>\w+)\s+and\s+{_D}\s+{_M},?\s+{_Y}", text):
        start = date(int(m["year"]), MONTHS[m["m1"]], int(m["d1"]))
        return start, _one_date(m), 0
    if m := re.search(rf"(?:between\s+)?{_M}\s+(?P<d1>\d{{1,2}})\s*(?:-|–|and|to)\s*{_D},?\s+{_Y}", text):
        month = MONTHS[m["month"].lower()]
        return date(int(m["year"]), month, int(m["d1"])), date(int(m["year"]), month, int(m["day"])), 0
    relative = re.search(r"(?P<n>(?:a\s+)?few\s+days|(?:the\s+)?week(?:end)?|(?:the\s+)?(?P<wd>monday|tuesday|wednesday|"
                         r"thursday|friday|saturday|sunday)|(?:the\s+)?day)\s+(?P<dir>before|after)\s+", text)
    if relative is not None and (anchor := _DATE.search(text, relative.end())) is not None:
        day = _one_date(anchor)
        sign = -1 if relative["dir"] == "before" else 1
        kind = relative["n"]
        if relative["wd"]:
            step = day + timedelta(days=sign)
            while step.weekday() != WEEKDAYS[relative["wd"]]:
                step += timedelta(days=sign)
            return step, step, 0
        if "weekend" in kind:  # the Saturday and Sunday nearest before (after) the day, up to the day
            step = day + timedelta(days=sign)
            while step.weekday() != (6 if sign < 0 else 5):
                step += timedelta(days=sign)
            other = step + timedelta(days=sign)
            edge = day + timedelta(days=sign)
            return (min(other, edge), max(other, edge), 0)
        if "day" == kind.split()[-1] and "few" not in kind:
            one = day + timedelta(days=sign)
            return one, one, 0
        span = 5 if "few" in kind else 7
        near, far = day + timedelta(days=sign), day + timedelta(days=sign * span)
        return min(near, far), max(near, far), 0
    if m := re.search(rf"(?P<which>first|second|third|fourth|last)\s+week\s+of\s+{_M},?\s+{_Y}", text):
        year, month = int(m["year"]), MONTHS[m["month"].lower()]
        last = calendar.monthrange(year, month)[1]
        if m["which"] == "last":
            return date(year, month, last - 6), date(year, month, last), 0
        first = {"first": 1, "second": 8, "third": 15, "fourth": 22}[m["which"]]
        return date(year, month, first), date(year, month, first + 6), 0
    if m := re.search(rf"week\s+of\s+{_M}\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+to\s+(?P<d2>\d{{1,2}})", text):
        month = MONTHS[m["month"].lower()]
        return date(year_hint, month, int(m["d1"])), date(year_hint, month, int(m["d2"])), 0
    if (m := _DATE.search(text)) is not None:
        day = _one_date(m)
        return day, day, (2 if re.search(r"\b(?:around|about|approximately)\b", text) else 0)
    if m := re.search(rf"{_M},?\s+{_Y}", text):
        year, month = int(m["year"]), MONTHS[m["month"].lower()]
        return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]), 0
    if m := re.fullmatch(rf"(?:in\s+)?{_Y}", text):
        year = int(m["year"])
        return date(year, 1, 1), date(year, 12, 31), 0
    return None


def answer_days(answer: str) -> tuple[date, date] | None:
    days = [date(int(y), int(m), int(d)) for y, m, d in _ANSWER_DAY.findall(answer)]
    if not days:
        return None
    return days[0], days[-1] if len(days) > 1 else days[0]


def names_gold(days: tuple[date, date], start: date, end: date) -> bool:
    """A day inside the gold range; a span mostly inside it ("last week" read as Monday to Sunday against a gold
    "the week before Thursday 16 May": at least half of the answer's days are gold days)."""
    first, last = days
    inside = (min(last, end) - max(first, start)).days + 1
    return inside > 0 and inside * 2 >= (last - first).days + 1


def build(path: Path, conversation: dict) -> datetime:
    """One memory per turn, a note per session; returns the moment the store is read (a day after the last)."""
    repo, sig, tree = new_repository(path, b"conversation\n")
    notes: dict[str, bytes] = {}
    parent: list = []
    last = None
    sessions = sorted((int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k)))
    for n in sessions:
        turns = conversation[f"session_{n}"]
        if not turns:
            continue
        start = session_time(conversation[f"session_{n}_date_time"])
        oid = repo.create_commit("refs/heads/main", sig, sig, f"session {n}", tree, parent)
        parent, commit = [oid], str(oid)
        for i, turn in enumerate(turns):
            stamp = start + timedelta(minutes=i)
            text = turn["text"] + (f" [photo: {turn['blip_caption']}]" if turn.get("blip_caption") else "")
            said = f"{turn['speaker']}: {text}"
            summary = said if len(said) <= 100 else said[:100].rsplit(" ", 1)[0]
            entry = serialize_entry({"type": "progress", "timestamp": stamp.isoformat(), "summary": summary}, said)
            notes[commit] = append_entry(notes.get(commit), entry)
            last = stamp
    git = GitStore(path)
    ref = "refs/notes/mem/progress"
    git.move_refs({ref: git.build_notes_commit(None, notes, "capture")}, {ref: None}, "capture")
    assert last is not None
    return last + timedelta(days=1)


def _store(conversation: dict, number: int, tmp: Path, stores: Path | None) -> tuple[Path, datetime, bool]:
    """(repository, the moment it is read, whether it was consolidated now): built in `tmp`, or in `stores` once
    and reused from there (a `read_at` file beside it marks a finished build)."""
    if stores is None:
        path = tmp / "repo"
        return path, build(path, conversation), True
    home = stores / f"conversation-{number}"
    path, read_at = home / "repo", home / "read_at"
    if read_at.is_file():
        return path, datetime.fromisoformat(read_at.read_text().strip()), False
    if home.exists():  # an interrupted build: start again
        shutil.rmtree(home)
    home.mkdir(parents=True)
    return path, build(path, conversation), True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="LoCoMo's data/locomo10.json")
    parser.add_argument("--misses", action="store_true", help="list the questions answered wrong")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stores", type=Path, metavar="DIR",
                        help="keep the consolidated stores in DIR and reuse them on the next run")
    args = parser.parse_args()
    if args.stores is not None and args.stores.exists() and not args.stores.is_dir():
        print(f"locomo_date_bench: --stores {args.stores} is not a directory", file=sys.stderr)
        return 2
    try:
        data = json.loads(args.path.read_text())
    except (OSError, ValueError) as exc:
        print(f"locomo_date_bench: cannot read {args.path}: {exc}", file=sys.stderr)
        return 2
    results: dict = {"machine": machine(), "conversations": []}
    right = asked = not_dates = 0
    misses = []
    started = time.perf_counter()
    for number in MINE:
        conversation = data[number - 1]
        questions = [q for q in conversation["qa"] if q.get("category") == TEMPORAL]
        with TemporaryDirectory() as tmp:
            path, now, fresh = _store(conversation["conversation"], number, Path(tmp), args.stores)
            services = build_services(MemoryStore(GitStore(path)), Settings(), FixedClock(now))
            if fresh:
                trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
                if args.stores is not None:
                    (path.parent / "read_at").write_text(now.isoformat())
            index = ReadCache(GitStore(path).common_dir).load()
            store = MemoryStore(GitStore(path))
            mine = good = 0
            for q in questions:
                gold = gold_range(q["answer"], now.year)
                if gold is None:
                    not_dates += 1
                    continue
                mine += 1
                hits = search(index, q["question"], mode="exhaustive", limit=EVIDENCE_DEPTH,
                              embedder=services.embedder)
                answer = compose_answer(q["question"], evidence_of(store, hits, index), now=now, tz=timezone.utc)
                days = answer_days(answer.answer)
                start, end, tolerance = gold
                ok = days is not None and names_gold(days, start - timedelta(days=tolerance),
                                                     end + timedelta(days=tolerance))
                good += ok
                if not ok:
                    misses.append({"conversation": number, "q": q["question"], "gold": q["answer"],
                                   "answer": answer.answer, "confidence": answer.confidence,
                                   "reasoning": answer.reasoning})
        results["conversations"].append({"conversation": number, "date_questions": mine, "right": good})
        right += good
        asked += mine
    results |= {"date_questions": asked, "not_a_date": not_dates, "right": right,
                "gold_date_named": round(right / asked, 3) if asked else None,
                "seconds": round(time.perf_counter() - started, 1)}
    if args.misses or args.json:
        results["misses"] = misses
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
