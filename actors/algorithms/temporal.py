"""Dates in memories, relative and absolute, resolved deterministically for `memactors recall --reason`.

A phrase is read against the day the memory was written *in the user's time zone*: the
memory's timestamp (naive = UTC, as upstream stamps it) is converted to `tz` and all
calendar arithmetic happens on that local date, called "the recorded day" below.

Conventions (English, case-insensitive, whole words only; matches are non-overlapping,
reported in order of appearance, and the longest phrase starting earliest wins, so
"the day before yesterday" is one phrase, not "yesterday"):

- today, earlier today, this morning/afternoon/evening, tonight: the recorded day (0.9).
- yesterday (0.9), last night (0.85): the day before. "the day before yesterday": two days
  before (0.9). tomorrow / "the day after tomorrow": one / two days after (0.9); "the" is optional.
- N days/weeks/months/years ago, N = digits (up to 4), one..twelve, a/an (1), "a couple (of)" (2),
  "(a) few" (3): a single day. Months and years move the calendar and clamp the day
  (Mar 31 - 1 month = Feb 28/29; Feb 29 - 1 year = Feb 28). Confidence falls with the unit
  (day 0.9, week 0.75, month 0.65, year 0.6), x0.9 for "a couple", x0.6 for "a few".
- last/this/next week: the ISO week (Monday..Sunday) before / containing / after the
  recorded day (span, 0.7). last/this/next month and year: the calendar month / year
  before / containing / after (span, 0.6 / 0.5).
- last weekend: the Saturday..Sunday ending on the most recent Sunday strictly before the
  recorded day; next weekend: starting on the first Saturday strictly after it; this weekend:
  the Saturday..Sunday of the recorded day's ISO week (span, 0.7). A weekend named without them
  ("over the weekend", "had a super fun weekend"): the nearest one on or before the recorded day
  (0.7), on or after it in the future tense (0.6).
- last <weekday>: the most recent such day strictly before the recorded day; next <weekday>:
  the first strictly after; this <weekday>: that day of the recorded day's ISO week (0.8 each);
  on <weekday>: the most recent such day on or before the recorded day (0.7; memories mostly
  report the past). Only full weekday names count, and a bare weekday ("Monday standup") is
  not resolved, but "on Monday-morning standup" does resolve "on Monday" (hyphen = boundary).
- Absolute dates need no recorded day but are reported the same way: ISO `2023-05-07`
  (0.95); a month name (full, or its three-letter abbreviation, optionally with a dot;
  "Sept" too) with a day, either order, with an optional year: "May 7", "May 7th, 2023",
  "7 May 2023", "the 7th of May" (0.9 with a year; without one, the most recent such day
  on or before the recorded day, 0.75); a month with a year, "March 2024" (the month, a
  span, 0.8). "may" in lower case is the verb, not the month. Numeric forms such as
  05/07 are not read: the US and the rest of the world disagree on them.
- on/by/since the 15th (no month named): the most recent such day on or before the recorded day, or the
  first on or after it when the sentence is in the future tense ("we'll meet on the 15th") (0.7).
- in 2010 (a four-digit year, not inside a date or a number): that calendar year (span, 0.6).
- for (just under / about / ...) N days/weeks/months/years: the span of that length ending on the recorded
  day (0.55; 0.45 when hedged or "a few" / "a couple").
- <month> (of) last/this/next year ("August last year"): that month of the calendar year before / containing /
  after the recorded day; last/next <month>: the most recent such month before the recorded day's month / the
  first after it; this <month>: that month of the recorded day's year (span, 0.7).
- the weekend before: as last weekend (0.65); the <weekday> before: the most recent such day strictly
  before the recorded day (0.7).
- the first/second/third/fourth/last <weekday> of <month> [year] / of this|last|next month (0.75-0.85; a
  month without a year is the nearest one on or before the recorded day, after it in the future tense).
- Not matched: "yesterdays", "weekday", "lastly", "monthly", "Mondays", "05/07", "on the 3rd floor".
A phrase whose date would fall outside year 1..9999, or that names no real day (Feb 30), is
skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo

from memactors.actors.algorithms.event_report import (SAME_REPORT, change_asked, event_sentence,
                                                      matched_event_words, names, plan_asked, report_score,
                                                      reports_change)
from memactors.events.temporal import Alternative, Evidence, ReasonedAnswer, TemporalResolution

__all__ = ["Evidence", "compose_answer", "is_temporal_question", "resolve_relative_dates"]

_NO_ANSWER = "No memory found that answers this."
#: Other answers listed beside the chosen one.
MAX_ALTERNATIVES = 3
#: The most a report score reaches (event_report.report_score), for a change question and for others.
REPORT_MAX, REPORT_MAX_CHANGE = 1.0, 1.3
#: A later mention of an event the evidence already reported counts this much of its score.
LATER_MENTION = 0.5
#: How sure the day a memory was recorded is as the day of what it reports, when it states no date.
RECORDED_DAY = 0.5
#: What a memory holding only some of the event words another holds keeps of its support.
PARTIAL_MATCH = 0.75
#: A question asking when something happened first ("When did Sam first go to the doctor?") is answered by the
#: earliest date among the answers at least this share as sure as the best ("first place" is a rank, not a time).
FIRST_CLOSE = 0.8
_FIRST = re.compile(r"\bfirst\b(?!\s+(?:week|month|day|time|of|place|prize)\b)", re.IGNORECASE)
#: What a turn said by someone other than the people a question asks about loses from its report score.
OTHER_SPEAKER = 0.3
#: How long before an undated turn its speaker's earlier turn may be said to date the story the turn goes on with.
STORY_WINDOW = timedelta(minutes=30)
#: How sure a date taken from the speaker's earlier turn is, as a share of how sure it is there.
STORY_SURE = 0.8
#: A turn of a logged conversation: "Name: what they said".
_SPEAKER = re.compile(r"\A\s*([A-Z][\w.'-]*(?:\s[A-Z][\w.'-]*)?):\s")
#: A turn opening on a new subject ("Oh, and we adopted a puppy") goes on with no story of its speaker's.
_NEW_SUBJECT = re.compile(r"\A\s*[A-Z][\w.'-]*(?:\s[A-Z][\w.'-]*)?:\s+(?:(?:oh|well|so|and|yeah|yes)\b[\s,!.]*)*"
                          r"(?:also|anyway|anyhow|besides|by\s+the\s+way|btw|another\s+thing|one\s+more\s+thing|"
                          r"on\s+another\s+note|in\s+other\s+news|oh,?\s+and)\b", re.IGNORECASE)
#: A turn asking for the other's news ("Anything else new?", "How about you? Anything interesting happening?",
#: "What's been up with you?", "How's work?") hands the talk over: the story told before it is done. A question
#: about the story ("What else did you see up there?", "Did you learn anything new?") is no such turn.
_ASKS_NEWS = re.compile(
    r"\bwhat(?:\s+else)?(?:'s|\s+is|\s+has)\s+(?:been\s+)?(?:up|new)\b(?!\s+(?:there|here))"
    r"|\bwhat\s+(?:else\s+)?have\s+you\s+been\s+up\s+to\b|\bany\s+(?:other\s+)?news\b"
    r"|\b(?:anything|something)\s+(?:else\s+)?(?:new|exciting|interesting|fun|good|cool)\s+"
    r"(?:going\s+on|happening|with\s+you|in\s+your\s+life|lately|recently|for\s+you|on\s+your\s+end)\b"
    r"(?!\s+(?:up\s+|down\s+|over\s+|out\s+)?(?:there|here)\b)"
    r"|\b(?:anything|something)\s+else\s+(?:new|going\s+on|happening)\b"
    r"|(?:^|(?<=[.!?:,]\s))(?:so\s+|and\s+|oh,?\s+)?anything\s+(?:else\s+)?new\s*\?"
    r"|\bany\s+(?:fun\s+)?(?:surprises|updates)\s+(?:lately|recently)\b"
    r"|\b(?:how|what)\s+about\s+you\s*\?"
    # "How's work?", "How have you been?": the other's life apart from the story. Not "How are you (doing)?" or
    # "How's your weekend going?", which ask after the teller within the story ("I ran a marathon" / "How are
    # you doing?" / "Exhausted, my legs cramped")
    r"|\bhow(?:'s|\u2019s|\s+is|\s+are)\s+(?:work|things|life|everything)"
    r"(?:\s+(?:going|been|lately|recently|otherwise|on\s+your\s+end)){0,2}\s*\?"
    r"|\bhow\s+have\s+you\s+been(?:\s+(?:lately|recently|otherwise|doing))?\s*\?",
    re.IGNORECASE)

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
_UNIT_CONFIDENCE = {"day": 0.9, "week": 0.75, "month": 0.65, "year": 0.6}
_OFFSET = {"last": -1, "this": 0, "next": 1}
_SIDE = {"last": "before", "this": "containing", "next": "after"}


@dataclass(frozen=True)
class _Found:
    """A resolved phrase: its dates, confidence and a few words on the rule, for reasoning; `began` when the
    thing it dates began on its start and goes on ("for a month now": an answer names the start)."""

    start: date
    end: date | None
    confidence: float
    how: str
    began: bool = False


@dataclass(frozen=True)
class _Reading:
    """How a memory's date was read (`how`, for reasoning), and whether the answer is its start (`_Found.began`)."""

    how: str = ""
    began: bool = False

    def noting(self, note: str) -> "_Reading":
        """The same reading, with `note` added to its words (where the date was said)."""
        return _Reading(f"{self.how} {note}", self.began)


def _add_months(day: date, months: int) -> date:
    """`day` moved by whole calendar months, the day of month clamped to the target month's end."""
    year, month0 = divmod(day.year * 12 + day.month - 1 + months, 12)
    return date(year, month0 + 1, min(day.day, _month_end(year, month0 + 1)))


def _month_end(year: int, month: int) -> int:
    """The number of days in `month` of `year`."""
    following = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return (following - timedelta(days=1)).day


def _units_back(day: date, n: int, unit: str) -> date:
    """`day` moved back `n` days, weeks, or calendar months or years (the day of month clamped)."""
    if unit == "day":
        return day - timedelta(days=n)
    if unit == "week":
        return day - timedelta(weeks=n)
    return _add_months(day, -n * (12 if unit == "year" else 1))


def _same_day(_: re.Match[str], day: date) -> _Found:
    return _Found(day, None, 0.9, "the recorded day itself")


def _days_from(offset: int, confidence: float, how: str) -> Callable[[re.Match[str], date], _Found]:
    def resolve(_: re.Match[str], day: date) -> _Found:
        return _Found(day + timedelta(days=offset), None, confidence, how)
    return resolve


def _ago(match: re.Match[str], day: date) -> _Found:
    quantity = " ".join(match["n"].lower().split())
    unit = match["unit"].lower()
    confidence = _UNIT_CONFIDENCE[unit]
    if quantity.startswith("a couple"):
        n, confidence = 2, confidence * 0.9
    elif quantity in ("a few", "few"):
        # "a few" is anywhere from 2 to 5; 3 is the usual reading, held loosely.
        n, confidence = 3, confidence * 0.6
    else:
        n = int(quantity) if quantity.isdigit() else _NUMBERS[quantity]
    start = _units_back(day, n, unit)
    plural = "" if n == 1 else "s"
    clamp = ", day clamped to the month's end" if unit in ("month", "year") else ""
    return _Found(start, None, round(confidence, 3), f"{n} calendar {unit}{plural} before the recorded day{clamp}")


def _week(match: re.Match[str], day: date) -> _Found:
    relation = match["rel"].lower()
    start = day - timedelta(days=day.weekday()) + timedelta(weeks=_OFFSET[relation])
    return _Found(start, start + timedelta(days=6), 0.7,
                  f"the ISO week (Monday to Sunday) {_SIDE[relation]} the recorded day")


def _month(match: re.Match[str], day: date) -> _Found:
    relation = match["rel"].lower()
    start = _add_months(day.replace(day=1), _OFFSET[relation])
    end = start.replace(day=_month_end(start.year, start.month))
    return _Found(start, end, 0.6, f"the calendar month {_SIDE[relation]} the recorded day")


def _year(match: re.Match[str], day: date) -> _Found:
    relation = match["rel"].lower()
    year = day.year + _OFFSET[relation]
    return _Found(date(year, 1, 1), date(year, 12, 31), 0.5, f"the calendar year {_SIDE[relation]} the recorded day")


def _weekend(match: re.Match[str], day: date) -> _Found:
    relation = match["rel"].lower()
    if relation == "last":
        sunday = day - timedelta(days=(day.weekday() - 6 - 1) % 7 + 1)
        start, how = sunday - timedelta(days=1), "the weekend ending on the last Sunday before the recorded day"
    elif relation == "next":
        start = day + timedelta(days=(5 - day.weekday() - 1) % 7 + 1)
        how = "the weekend starting on the first Saturday after the recorded day"
    else:
        start, how = day + timedelta(days=5 - day.weekday()), "the weekend of the recorded day's ISO week"
    return _Found(start, start + timedelta(days=1), 0.7, how)


def _the_weekend(match: re.Match[str], day: date) -> _Found:
    """A weekend named without "last" or "next" ("I had a super fun weekend", "over the weekend"): the nearest one
    on or before the recorded day, or after it in a sentence about the future."""
    if _future(match):
        start = day + timedelta(days=(5 - day.weekday()) % 7)
        return _Found(start, start + timedelta(days=1), 0.6, "the weekend on or after the recorded day")
    start = day - timedelta(days=(day.weekday() - 5) % 7)
    return _Found(start, start + timedelta(days=1), 0.7, "the nearest weekend on or before the recorded day")


def _weekday(match: re.Match[str], day: date) -> _Found:
    relation = match["rel"].lower()
    target = _WEEKDAYS.index(match["weekday"].lower())
    name = _WEEKDAYS[target].capitalize()
    if relation == "last":
        found = day - timedelta(days=(day.weekday() - target - 1) % 7 + 1)
        return _Found(found, None, 0.8, f"the most recent {name} strictly before the recorded day")
    if relation == "next":
        found = day + timedelta(days=(target - day.weekday() - 1) % 7 + 1)
        return _Found(found, None, 0.8, f"the first {name} strictly after the recorded day")
    if relation == "this":
        found = day + timedelta(days=target - day.weekday())
        return _Found(found, None, 0.8, f"the {name} of the recorded day's ISO week")
    found = day - timedelta(days=(day.weekday() - target) % 7)
    return _Found(found, None, 0.7, f"the most recent {name} on or before the recorded day")


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?")
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\b"
_YEAR = r"(?:,?\s+(?P<year>\d{4})\b)?"


def _month_number(match: re.Match[str]) -> int:
    name = match["month"]
    if name == "may":  # the verb: "we may 3x it"
        raise ValueError("not a month")
    return _MONTHS.index(name[:3].lower()) + 1


def _iso_date(match: re.Match[str], _: date) -> _Found:
    return _Found(date.fromisoformat(match.group(0)), None, 0.95, "the date it states")


def _month_day(match: re.Match[str], day: date) -> _Found:
    month, number = _month_number(match), int(match["day"])
    if match["year"]:
        return _Found(date(int(match["year"]), month, number), None, 0.9, "the date it states")
    for year in range(day.year, day.year - 9, -1):  # Feb 29 may be up to 8 years back
        try:
            found = date(year, month, number)
        except ValueError:
            continue
        if found <= day:
            return _Found(found, None, 0.75, "the date it states, in the most recent year that puts it on or "
                                             "before the recorded day")
    raise ValueError("no such day")


def _month_of_year(match: re.Match[str], _: date) -> _Found:
    month, year = _month_number(match), int(match["year"])
    return _Found(date(year, month, 1), date(year, month, _month_end(year, month)), 0.8, "the month it states")


def _month_relative(match: re.Match[str], day: date) -> _Found:
    """"August last year", "March of this year", "last August", "next March": that calendar month."""
    month, relation = _month_number(match), match["rel"].lower()
    if match["unit"]:  # <month> of last/this/next year
        year, how = day.year + _OFFSET[relation], f"that month of the calendar year {_SIDE[relation]} the recorded day"
    elif relation == "last":
        year, how = day.year - (month >= day.month), "the most recent such month before the recorded day's"
    elif relation == "next":
        year, how = day.year + (month <= day.month), "the first such month after the recorded day's"
    else:
        year, how = day.year, "that month of the recorded day's year"
    return _Found(date(year, month, 1), date(year, month, _month_end(year, month)), 0.7, how)


_FUTURE = re.compile(r"\b(?:will|shall|going\s+to|gonna|plan(?:ning)?\s+to|hope\s+to|want\s+to|'ll)\b[^.!?]*$",
                     re.IGNORECASE)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}


def _future(match: re.Match[str]) -> bool:
    """Whether the phrase sits in a sentence about the future ("we'll meet on the 15th")."""
    return _FUTURE.search(match.string[max(0, match.start() - 80):match.start()]) is not None


def _day_of_month(match: re.Match[str], day: date) -> _Found:
    number, later = int(match["day"]), _future(match)
    for step in range(0, 14):  # a 31st can be two months away
        month = _add_months(day.replace(day=1), step if later else -step)
        try:
            found = month.replace(day=number)
        except ValueError:
            continue
        if (found >= day) if later else (found <= day):
            how = "on or after" if later else "on or before"
            return _Found(found, None, 0.7, f"the {number} of the nearest month that puts it {how} the recorded day")
    raise ValueError("no such day")


def _in_year(match: re.Match[str], _: date) -> _Found:
    year = int(match["year"])
    return _Found(date(year, 1, 1), date(year, 12, 31), 0.6, "the year it states")


def _for_span(match: re.Match[str], day: date) -> _Found:
    quantity = " ".join(match["n"].lower().split())
    unit = match["unit"].lower()
    n = 2 if quantity.startswith("a couple") else 3 if quantity in ("a few", "few") else (
        int(quantity) if quantity.isdigit() else _NUMBERS[quantity])
    start = _units_back(day, n, unit)
    vague = bool(match["about"]) or quantity in ("a few", "few") or quantity.startswith("a couple")
    # an answer names the span's start: "I've been playing for a month now" began then
    return _Found(start, day, 0.45 if vague else 0.55,
                  f"a span of {n} {unit}{'s' if n != 1 else ''} ending on the recorded day", began=True)


def _weekend_before(_: re.Match[str], day: date) -> _Found:
    sunday = day - timedelta(days=(day.weekday() - 6 - 1) % 7 + 1)
    return _Found(sunday - timedelta(days=1), sunday, 0.65, "the weekend ending on the last Sunday before the recorded day")


def _weekday_before(match: re.Match[str], day: date) -> _Found:
    target = _WEEKDAYS.index(match["weekday"].lower())
    found = day - timedelta(days=(day.weekday() - target - 1) % 7 + 1)
    return _Found(found, None, 0.7, f"the most recent {_WEEKDAYS[target].capitalize()} strictly before the recorded day")


def _nth_weekday(year: int, month: int, target: int, ordinal: int) -> date:
    if ordinal > 0:
        first = date(year, month, 1)
        found = first + timedelta(days=(target - first.weekday()) % 7 + 7 * (ordinal - 1))
        if found.month != month:
            raise ValueError("no such day")
        return found
    last = date(year, month, _month_end(year, month))
    return last - timedelta(days=(last.weekday() - target) % 7)


def _ordinal_weekday(match: re.Match[str], day: date) -> _Found:
    target, ordinal = _WEEKDAYS.index(match["weekday"].lower()), _ORDINALS[match["ord"].lower()]
    name = f"the {match['ord'].lower()} {_WEEKDAYS[target].capitalize()}"
    if match["rel"]:
        month = _add_months(day.replace(day=1), _OFFSET[match["rel"].lower()])
        return _Found(_nth_weekday(month.year, month.month, target, ordinal), None, 0.8,
                      f"{name} of the month {_SIDE[match['rel'].lower()]} the recorded day")
    number = _month_number(match)
    if match["year"]:
        return _Found(_nth_weekday(int(match["year"]), number, target, ordinal), None, 0.85, f"{name} of that month")
    later = _future(match)
    for year in (range(day.year, day.year + 2) if later else range(day.year, day.year - 2, -1)):
        found = _nth_weekday(year, number, target, ordinal)
        if (found >= day) if later else (found <= day):
            return _Found(found, None, 0.75, f"{name} of that month, in the nearest year that puts it "
                                             f"{'on or after' if later else 'on or before'} the recorded day")
    raise ValueError("no such day")


def _rule(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], date], _Found]], ...] = (
    (_rule(r"\b(?:earlier\s+today|today|this\s+(?:morning|afternoon|evening)|tonight)\b"), _same_day),
    (_rule(r"\byesterday\b"), _days_from(-1, 0.9, "the day before the recorded day")),
    (_rule(r"\blast\s+night\b"), _days_from(-1, 0.85, "the night before the recorded day")),
    (_rule(r"\b(?:the\s+)?day\s+before\s+yesterday\b"), _days_from(-2, 0.9, "two days before the recorded day")),
    (_rule(r"\btomorrow\b"), _days_from(1, 0.9, "the day after the recorded day")),
    (_rule(r"\b(?:the\s+)?day\s+after\s+tomorrow\b"), _days_from(2, 0.9, "two days after the recorded day")),
    (_rule(r"\b(?P<n>\d{1,4}|a\s+couple(?:\s+of)?|(?:a\s+)?few|an?|one|two|three|four|five|six|seven|eight|nine"
           r"|ten|eleven|twelve)\s+(?P<unit>day|week|month|year)s?\s+ago\b"), _ago),
    (_rule(r"\b(?P<rel>last|this|next)\s+week\b"), _week),
    (_rule(r"\b(?P<rel>last|this|next)\s+month\b"), _month),
    (_rule(r"\b(?P<rel>last|this|next)\s+year\b"), _year),
    (_rule(r"\b(?P<rel>last|this|next)\s+weekend\b"), _weekend),
    (_rule(r"\b(?:over|during|on)\s+the\s+weekend\b(?!\s+(?:before|after))"
           r"|\b(?:had|spent|enjoyed)\s+(?:a|an|my|the)\s+(?:[a-z-]+\s+){0,3}?weekend\b"), _the_weekend),
    (_rule(rf"\b(?P<rel>last|this|next|on)\s+(?P<weekday>{'|'.join(_WEEKDAYS)})\b"), _weekday),
    (_rule(r"(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])"), _iso_date),
    (_rule(rf"\b{_MONTH}\s+{_DAY}(?!\s*[:%])(?!-){_YEAR}"), _month_day),
    (_rule(rf"\b(?:the\s+)?(?<![\w:/.-]){_DAY}(?:\s+of)?\s+{_MONTH}{_YEAR}"), _month_day),
    (_rule(rf"\b{_MONTH}\s+(?P<year>\d{{4}})\b"), _month_of_year),
    (_rule(rf"\b(?:on|by|since)\s+the\s+{_DAY}(?!\s*(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
           r"[a-z]*\b)(?!\s*(?:century|floor|time|place|row|round|anniversary|birthday))"), _day_of_month),
    (_rule(r"\bin\s+(?P<year>1[89]\d\d|20\d\d)\b(?![-/.]\d)"), _in_year),
    (_rule(r"\bfor\s+(?P<about>(?:just\s+)?(?:under|over)\s+|almost\s+|nearly\s+|about\s+|around\s+"
           r"|more\s+than\s+|less\s+than\s+)?(?P<n>\d{1,3}|a\s+couple(?:\s+of)?|(?:a\s+)?few|an?|one|two|three|four"
           r"|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?P<unit>day|week|month|year)s?\b"), _for_span),
    (_rule(rf"\b{_MONTH}\s+(?:of\s+)?(?P<rel>last|this|next)\s+(?P<unit>year)\b"), _month_relative),
    (_rule(rf"\b(?P<rel>last|this|next)\s+{_MONTH}(?P<unit>)(?!\s*\d)"), _month_relative),
    (_rule(r"\bthe\s+weekend\s+before\b"), _weekend_before),
    (_rule(rf"\bthe\s+(?P<weekday>{'|'.join(_WEEKDAYS)})\s+before\b"), _weekday_before),
    (_rule(rf"\b(?:the\s+)?(?P<ord>first|second|third|fourth|last)\s+(?P<weekday>{'|'.join(_WEEKDAYS)})\s+"
           rf"(?:of|in)\s+(?:(?P<rel>this|last|next)\s+month\b|{_MONTH}(?:,?\s+(?P<year>\d{{4}})\b)?)"),
     _ordinal_weekday),
)


def _as_aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment


def _local_day(moment: datetime, tz: tzinfo) -> date:
    return _as_aware(moment).astimezone(tz).date()


def _scan(text: str, local_day: date) -> list[tuple[re.Match[str], _Found]]:
    """Every resolvable phrase in `text`, leftmost-longest and non-overlapping, in order."""
    candidates: list[tuple[re.Match[str], _Found]] = []
    for pattern, resolve in _RULES:
        for match in pattern.finditer(text):
            try:
                candidates.append((match, resolve(match, local_day)))
            except (OverflowError, ValueError):
                continue  # outside date's range (year 1..9999): nothing sensible to say
    candidates.sort(key=lambda c: (c[0].start(), -(c[0].end() - c[0].start())))
    chosen: list[tuple[re.Match[str], _Found]] = []
    covered = 0
    for match, found in candidates:
        if match.start() >= covered:
            chosen.append((match, found))
            covered = match.end()
    return chosen


def _resolutions(text: str, memory_id: str, recorded_at: datetime,
                 tz: tzinfo) -> list[tuple[TemporalResolution, _Reading]]:
    stamp = _as_aware(recorded_at)
    return [
        (TemporalResolution(original_text=match.group(0), memory_id=memory_id, memory_timestamp=stamp,
                            resolved_date=found.start, resolved_end=found.end, confidence=found.confidence),
         _Reading(found.how, found.began))
        for match, found in _scan(text, _local_day(stamp, tz))
    ]


def resolve_relative_dates(text: str, *, memory_id: str, recorded_at: datetime, tz: tzinfo) -> list[TemporalResolution]:
    """Every supported date phrase in `text`, in order, resolved against the local
    date (in `tz`) of `recorded_at` (naive = UTC); conventions in the module docstring."""
    return [resolution for resolution, _ in _resolutions(text, memory_id, recorded_at, tz)]


_TEMPORAL_QUESTION = _rule(
    r"\bwhen\s+(?:did|was|were|is|are|will|would|do|does|have|has|had|can|could|should)\b|\bwhen's\b"
    r"|\b(?:remember|recall|know|me)\s+when\b"
    r"|\b(?:what|which)\s+(?:date|day|time|year|month|week)\b"
    r"|\bhow\s+long\s+(?:ago|since)\b|\bhow\s+long\s+has\s+it\s+been\b"
    r"|\bhow\s+many\s+(?:days|weeks|months|years)\s+ago\b"
    r"|\b(?:since|until|till)\s+when\b"
)
_DISTANCE_QUESTION = _rule(
    r"\bhow\s+long\s+(?:ago|since)\b|\bhow\s+long\s+has\s+it\s+been\b|\bhow\s+many\s+(?:days|weeks|months|years)\s+ago\b"
)


_YEAR_QUESTION = _rule(r"\b(?:which|what)\s+year\b")


def is_temporal_question(question: str) -> bool:
    """Whether `question` asks for a date or time (when, what date/day/time, how long ago, since when...)."""
    # By its form: "when" counts before an auxiliary ("when did ..."), so neither "what happens when the cache
    # fills" nor a conditional "when a hook throws, does it block?" is one.
    return _TEMPORAL_QUESTION.search(question) is not None


def _day_label(day: date) -> str:
    return f"{day.isoformat()} ({day.strftime('%A')})"


def _span_label(start: date, end: date | None) -> str:
    return _day_label(start) if end is None else f"{_day_label(start)} to {_day_label(end)}"


def _days_ago(today: date, day: date) -> str:
    days = (today - day).days
    if days == 0:
        return "today"
    unit = "day" if abs(days) == 1 else "days"
    return f"{days} {unit} ago" if days > 0 else f"in {-days} {unit}"


def _distance_label(today: date, start: date, end: date | None) -> str:
    if end is None:
        return _days_ago(today, start)
    return f"{_days_ago(today, start)} to {_days_ago(today, end)}"


def _zone_name(tz: tzinfo) -> str:
    return getattr(tz, "key", None) or tz.tzname(None) or str(tz)


_Scored = tuple[float, "TemporalResolution | None", _Reading]


def _candidate(question: str, item: Evidence, tz: tzinfo) -> _Scored:
    """(report score, the date the memory gives, how it was read) for one recalled memory: its most
    confident date phrase on or before the day it was recorded (the first of equals; a later date is a
    plan, not a report; for a question about a plan, one on or after it), else its most confident one, else
    none (its recorded day stands in). A later date said in another sentence than the one telling the event
    is no date of it ("It was great for skiing! Can't wait to go back next year!")."""
    found = _resolutions(item.text, item.memory_id, item.timestamp, tz)
    recorded = _local_day(item.timestamp, tz)
    # a question about a plan is answered by the date planned: any date counts, a later one first
    if plan_asked(question):  # a question about a plan is answered by the date planned, on or after that day
        happened = [f for f in found if (f[0].resolved_end or f[0].resolved_date) >= recorded]
    else:
        happened = [f for f in found if f[0].resolved_date <= recorded]
        told = event_sentence(question, item.text)
        if not happened and told is not item.text:  # the sentence telling the event is known: a plan elsewhere
            found = [f for f in found if f[0].original_text in told]
    best = max(happened or found, key=lambda f: f[0].confidence, default=None)
    score = report_score(question, item.text, item.relevance, dated=bool(happened), context=_context(item),
                         when=best[0].original_text if best else None)
    return score, best[0] if best else None, best[1] if best else _Reading()


def _supports(question: str, scores: Sequence[float], recorded: Sequence[float],
              texts: Sequence[str] | None = None, told: Sequence[str] | None = None) -> list[float]:
    """How well each candidate supports an answer (0..1): its report score over the most a score can be, halved
    for a later mention (an earlier candidate scores about as well and, unless the question asks about a change,
    holds every event word of the question the later one holds, which holds one at least: it reports the same
    event, the first report dates it; a memory holding none shares only names with it)."""
    change = change_asked(question) is not None
    most = REPORT_MAX_CHANGE if change else REPORT_MAX
    # a change question's report is the memory claiming the change, whatever words a later mention shares
    held = [matched_event_words(question, t) for t in texts] if texts is not None and not change else None
    some = [bool(matched_event_words(question, t)) for t in told or texts or ()]
    out = []
    for i, score in enumerate(scores):
        later = any(recorded[j] < recorded[i] and scores[j] >= score - SAME_REPORT
                    and (held is None or some[i] and held[i] <= held[j]) for j in range(len(scores)))
        out.append(max(0.0, min(1.0, score / most)) * (LATER_MENTION if later else 1.0))
    return out


def speaker_of(text: str) -> str | None:
    """The speaker of a logged conversation turn ("Audrey: Last week I ..." -> "audrey"), None for other text."""
    found = _SPEAKER.match(text)
    return found[1].lower() if found else None


def _context(item: Evidence) -> tuple[str, ...]:
    """The turns around a turn of a logged conversation that tell its event in other words: the question another
    speaker asked just before it ("How long have you been playing?" before "For a month now"), with the turn of
    its own speaker the question asks about ("I play drums too!" before that), and the reply another speaker
    gave just after it ("Sorry to hear about your job"). None for other memories."""
    own = speaker_of(item.text)
    if own is None:
        return ()
    said = [(t, speaker_of(t)) for t in (item.before, item.after)]
    (before, by), (after, replier) = said
    asked = by not in (None, own) and "?" in before
    # an answer names its event no more than the question does: "Last week." to "When was that?" after
    # "We moved the CI to GitHub Actions."
    told = (item.earlier[1][0] if asked and len(item.earlier) > 1 and item.earlier[0][0] == before
            and speaker_of(item.earlier[1][0]) == own else "")
    return tuple(t for t, ok in ((before, asked), (told, bool(told)), (after, replier not in (None, own))) if ok)


def _other_speakers(question: str, candidates: list[_Scored], texts: Sequence[str]) -> list[_Scored]:
    """In turns of a logged conversation, an event the question asks of a speaker is told by that speaker: a
    turn said by another ("Evan: Hey Sam, I started lifting ...") loses OTHER_SPEAKER, however it names them."""
    speakers = {s for t in texts if (s := speaker_of(t)) is not None}
    asked = {n for n in names(question) if n in speakers}
    if not asked:
        return candidates
    return [(round(c[0] - OTHER_SPEAKER, 4), c[1], c[2]) if (s := speaker_of(t)) is not None and s not in asked else c
            for c, t in zip(candidates, texts)]


def _dated_by_retelling(question: str, candidates: list[_Scored], evidence: Sequence[Evidence],
                        tz: tzinfo) -> list[_Scored]:
    """A report that states no date takes the date of a later memory the same day that retells the same event
    with one ("I started a yoga class in the neighborhood", then "I hosted a class for them on Friday"): it holds
    only event words of the question the report holds, at least one, and says when."""
    if change_asked(question) is not None:
        return candidates
    held = [matched_event_words(question, e.text) for e in evidence]
    days = [_local_day(e.timestamp, tz) for e in evidence]
    out = list(candidates)
    for i, (score, resolution, _) in enumerate(candidates):
        if resolution is not None or not held[i]:
            continue
        retold = [j for j in range(len(evidence)) if candidates[j][1] is not None and days[j] == days[i]
                  and evidence[j].timestamp > evidence[i].timestamp and held[j] and held[j] <= held[i]
                  and candidates[j][1].resolved_date <= days[j]]
        if retold:
            j = min(retold, key=lambda j: evidence[j].timestamp)
            out[i] = (score, candidates[j][1], candidates[j][2].noting("(said when the event was retold)"))
    return out


def _handed_over(text: str, said: list[tuple[TemporalResolution, _Reading]]) -> bool:
    """Whether a dated turn asks for the other's news after its last date ("... last Friday. How about you?")."""
    ends = [text.rfind(told.original_text) + len(told.original_text) for told, _ in said]
    return _ASKS_NEWS.search(text, max(ends)) is not None


def _dated_by_story(question: str, candidates: list[_Scored], evidence: Sequence[Evidence],
                    tz: tzinfo) -> list[_Scored]:
    """An undated turn of a logged conversation goes on with its speaker's story: it takes the date of the
    speaker's last turn before it that says when something happened, with another speaker's undated turn
    and only undated turns of theirs between, within STORY_WINDOW ("Guess what I organised with my friends yesterday!" / "A new
    game?" / "No, a charity tournament!"), held STORY_SURE as surely. A turn of theirs naming a later day ends it, and
    so does a new subject: a turn opening "Oh, and" / "also" / "by the way", or a question between asking for news
    ("Anything else new?"; the teller's own "How about you?" unless the other then asks about the story)."""
    if change_asked(question) is not None:
        return candidates
    out = list(candidates)
    for i, (score, resolution, _) in enumerate(candidates):
        item = evidence[i]
        own = speaker_of(item.text)
        if resolution is not None or own is None:
            continue
        if _NEW_SUBJECT.search(item.text):
            continue  # "Oh, and we adopted a puppy": a new subject, not the story before
        replied = False  # a story goes on across another speaker's turn; a run of one label's notes is no story
        asked = False  # the other speaker asked something, so the talk stayed on the teller's story
        for text, when in item.earlier:
            when = _as_aware(when)
            if _as_aware(item.timestamp) - when > STORY_WINDOW or speaker_of(text) is None:
                break
            if speaker_of(text) != own:
                if _ASKS_NEWS.search(text):
                    break  # "Anything else new?": the other asked for news, the story is done
                if any(f[0].resolved_date <= _local_day(when, tz) for f in _resolutions(text, item.memory_id, when, tz)):
                    break  # "I bought a bike last week!": the other's own dated news; a reply is about that
                replied, asked = True, asked or "?" in text
                continue
            found = _resolutions(text, item.memory_id, when, tz)
            said = [f for f in found if f[0].resolved_date <= _local_day(when, tz)]
            if said and replied and (asked or not _handed_over(text, said)):
                told, how = max(said, key=lambda f: f[0].confidence)
                told = told.model_copy(update={"confidence": round(told.confidence * STORY_SURE, 3)})
                out[i] = (score, told, how.noting(f"(said in {own.capitalize()}'s turn before, the story this one "
                                                  "goes on with)"))
            if found or _ASKS_NEWS.search(text):
                break  # an undated "What about you?" of theirs between hands the talk over as well
    return out


def _partial(question: str, support: list[float], texts: Sequence[str]) -> list[float]:
    """A memory holding only some of the event words another holds ("a yoga class" against "a yoga class in the
    neighborhood") tells a like event, not the one asked about: it counts PARTIAL_MATCH of its support."""
    if change_asked(question) is not None:
        return support
    held = [matched_event_words(question, t) for t in texts]
    return [s * PARTIAL_MATCH if any(held[i] < held[j] for j in range(len(texts))) else s
            for i, s in enumerate(support)]


def compose_answer(question: str, evidence: Sequence[Evidence], *, now: datetime, tz: tzinfo) -> ReasonedAnswer:
    """Offline answer to a date question from ranked evidence.

    Each recalled memory is a candidate: how well it reports the event (actors/algorithms/event_report.py: the
    question's event words, with a date or in the past tense, the change a change question asks about; a later
    mention of the same event counts half; one holding only some of the event words another holds, PARTIAL_MATCH;
    a conversation turn by another speaker than the one asked about, OTHER_SPEAKER less; a conversation turn holds
    the event words of another speaker's question just before it and reply just after it ("Where did you find
    this car?" / "I found it last week"); an undated report takes the date of its retelling the same day, an undated
    turn the date its speaker said in the story it goes on with (turns before); "when did X first ..." takes the
    earliest nearly as sure answer) times how sure its date is (the date it states on or before the day
    it was written — on or after it for a question about a plan — else that day, held less surely). A "which
    year" question is answered with the calendar year of that date (of a span's start); a "for N units" span ("I've
    been playing for a month now") with its start, the day the thing began. The answer is the candidate with the
    highest confidence (the earliest of equals); candidates with another date are its `alternatives`, each less
    confident: the choice, its confidence and its reasoning never disagree."""
    if not evidence:
        return ReasonedAnswer(question=question, answer=_NO_ANSWER, confidence=0.0,
                              reasoning="No memory was recalled for this question.")
    today = _local_day(now, tz)
    wants_distance = _DISTANCE_QUESTION.search(question) is not None
    wants_year = _YEAR_QUESTION.search(question) is not None
    zone = _zone_name(tz)
    candidates = _other_speakers(question, [_candidate(question, item, tz) for item in evidence],
                                 [e.text for e in evidence])
    recorded = [_as_aware(e.timestamp).timestamp() for e in evidence]
    candidates = _dated_by_retelling(question, candidates, evidence, tz)
    candidates = _dated_by_story(question, candidates, evidence, tz)
    support = _supports(question, [c[0] for c in candidates], recorded, [e.text for e in evidence],
                        ["\n".join((e.text, *_context(e))) for e in evidence])
    # a like event is told with fewer of the event words, counting those of the turns that ask and retell it
    support = _partial(question, support, ["\n".join((e.text, *_context(e))) for e in evidence])

    def answered(i: int) -> tuple[date, date | None, float, str]:
        item, (_, resolution, how) = evidence[i], candidates[i]
        if resolution is not None:
            start, end, sure = resolution.resolved_date, resolution.resolved_end, resolution.confidence
            if how.began:  # "I've been playing for a month now": it began on the span's start
                end = None
        else:  # the recording day is only a proxy for the event's day, below a stated date
            start, end, sure = _local_day(item.timestamp, tz), None, RECORDED_DAY
        label = _span_label(start, end)
        if wants_year:  # the year the date (a span's start: "for 3 years" began then) falls in
            start, end = date(start.year, 1, 1), date(start.year, 12, 31)
            label = f"{start.year} ({_span_label(start, end)})"
        if wants_distance:
            label = f"{label}, {_distance_label(today, start, end)}"
        return start, end, round(support[i] * sure, 3), label

    answers = [answered(i) for i in range(len(evidence))]
    chosen_at = min(range(len(evidence)), key=lambda i: (-answers[i][2], recorded[i], i))
    if _FIRST.search(question):  # "when did X first ...": the earliest of the answers nearly as sure as the best
        close = [i for i in range(len(evidence)) if answers[i][2] >= FIRST_CLOSE * answers[chosen_at][2]]
        chosen_at = min(close, key=lambda i: (answers[i][0], recorded[i], i))
    start, end, confidence, answer = answers[chosen_at]
    item, (_, chosen, how) = evidence[chosen_at], candidates[chosen_at]
    recorded_day = _local_day(item.timestamp, tz)
    alternatives: list[Alternative] = []
    seen = {(start, end)}
    for i in sorted(range(len(evidence)), key=lambda i: (-answers[i][2], recorded[i], i)):
        alt_start, alt_end, alt_confidence, alt_answer = answers[i]
        if (alt_start, alt_end) not in seen and len(alternatives) < MAX_ALTERNATIVES:
            seen.add((alt_start, alt_end))
            alternatives.append(Alternative(answer=alt_answer, resolved_date=alt_start, resolved_end=alt_end,
                                            confidence=alt_confidence, source_memory_ids=(evidence[i].memory_id,)))
    if chosen is not None:
        when = _span_label(chosen.resolved_date, chosen.resolved_end)
        reasoning = (f'Memory {item.memory_id}, recorded on {_day_label(recorded_day)} in {zone}, says '
                     f'"{chosen.original_text}", read as {how.how}: {when}.')
    else:
        reasoning = (f"Memory {item.memory_id} reports this best but states no date, so this is the day it was "
                     f"recorded ({_day_label(recorded_day)}, {zone}); what it describes may have happened "
                     "earlier.")
    why = ["it holds the question's words" if candidates[chosen_at][0] > 0 else "it was recalled first"]
    if reports_change(question, item.text):
        why.append("it states the change asked about")
    if chosen is not None:
        why.append("it says when")
    if not any(recorded[j] < recorded[chosen_at] for j in range(len(evidence))):
        why.append("it came first")
    reasoning += f" Confidence {confidence:.2f}: {', '.join(why)}."
    if alternatives:
        count = len(alternatives)
        reasoning += (f" {count} other date{'s' if count != 1 else ''} in the evidence "
                      f"{'are' if count != 1 else 'is'} less supported (alternatives, best "
                      f"{alternatives[0].confidence:.2f}).")
    rest = tuple(r for c in candidates for r in [c[1]] if r is not None and r is not chosen)
    return ReasonedAnswer(question=question, answer=answer, confidence=confidence, reasoning=reasoning,
                          temporal_resolutions=((chosen,) if chosen else ()) + rest,
                          source_memory_ids=(item.memory_id,), alternatives=tuple(alternatives))
