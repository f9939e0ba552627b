"""Relative dates resolved against each memory's own timestamp in the user's zone, and the offline composer."""

from __future__ import annotations

import calendar
from datetime import date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from memactors.actors.algorithms.temporal import compose_answer, is_temporal_question, resolve_relative_dates
from memactors.events.temporal import Evidence, TemporalResolution

UTC = timezone.utc
LA = ZoneInfo("America/Los_Angeles")
TOKYO = ZoneInfo("Asia/Tokyo")
WEDNESDAY = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def d(text: str) -> date:
    return date.fromisoformat(text)


def resolve(text: str, recorded_at: datetime = WEDNESDAY, tz: tzinfo = UTC) -> list[TemporalResolution]:
    return resolve_relative_dates(text, memory_id="m1", recorded_at=recorded_at, tz=tz)


def only(text: str, recorded_at: datetime = WEDNESDAY, tz: tzinfo = UTC) -> TemporalResolution:
    found = resolve(text, recorded_at, tz)
    assert len(found) == 1, found
    return found[0]


def span(resolution: TemporalResolution) -> tuple[date, date | None]:
    return resolution.resolved_date, resolution.resolved_end


# --- every supported phrase, recorded on Wednesday 2026-03-04 (UTC) ---------------------------

@pytest.mark.parametrize(("phrase", "start", "end"), [
    ("today", "2026-03-04", None),
    ("earlier today", "2026-03-04", None),
    ("this morning", "2026-03-04", None),
    ("this afternoon", "2026-03-04", None),
    ("this evening", "2026-03-04", None),
    ("tonight", "2026-03-04", None),
    ("yesterday", "2026-03-03", None),
    ("last night", "2026-03-03", None),
    ("the day before yesterday", "2026-03-02", None),
    ("day before yesterday", "2026-03-02", None),
    ("tomorrow", "2026-03-05", None),
    ("the day after tomorrow", "2026-03-06", None),
    ("3 days ago", "2026-03-01", None),
    ("three days ago", "2026-03-01", None),
    ("twelve days ago", "2026-02-20", None),
    ("a day ago", "2026-03-03", None),
    ("a couple of days ago", "2026-03-02", None),
    ("a couple days ago", "2026-03-02", None),
    ("a few days ago", "2026-03-01", None),
    ("a week ago", "2026-02-25", None),
    ("2 weeks ago", "2026-02-18", None),
    ("one month ago", "2026-02-04", None),
    ("2 months ago", "2026-01-04", None),
    ("a year ago", "2025-03-04", None),
    ("last week", "2026-02-23", "2026-03-01"),
    ("this week", "2026-03-02", "2026-03-08"),
    ("next week", "2026-03-09", "2026-03-15"),
    ("last month", "2026-02-01", "2026-02-28"),
    ("this month", "2026-03-01", "2026-03-31"),
    ("next month", "2026-04-01", "2026-04-30"),
    ("last year", "2025-01-01", "2025-12-31"),
    ("this year", "2026-01-01", "2026-12-31"),
    ("next year", "2027-01-01", "2027-12-31"),
    ("last weekend", "2026-02-28", "2026-03-01"),
    ("this weekend", "2026-03-07", "2026-03-08"),
    ("next weekend", "2026-03-07", "2026-03-08"),
])
def test_each_supported_phrase_resolves_against_the_recorded_day(phrase: str, start: str, end: str | None) -> None:
    resolution = only(f"We did it {phrase}, as planned.")
    assert resolution.original_text == phrase
    assert span(resolution) == (d(start), d(end) if end else None)


@pytest.mark.parametrize(("phrase", "expected"), [
    # recorded Wednesday 2026-03-04
    ("last Sunday", "2026-03-01"),
    ("last Tuesday", "2026-03-03"),
    ("last Wednesday", "2026-02-25"),   # strictly before: never the recorded day itself
    ("last Thursday", "2026-02-26"),
    ("next Friday", "2026-03-06"),
    ("next Tuesday", "2026-03-10"),
    ("next Wednesday", "2026-03-11"),   # strictly after
    ("this Monday", "2026-03-02"),      # the recorded day's ISO week, even when already past
    ("this Friday", "2026-03-06"),
    ("this Sunday", "2026-03-08"),
    ("on Monday", "2026-03-02"),
    ("on Wednesday", "2026-03-04"),     # on or before: the recorded day counts
    ("on Thursday", "2026-02-26"),
])
def test_weekday_phrases_follow_the_documented_conventions(phrase: str, expected: str) -> None:
    resolution = only(f"The release went out {phrase}.")
    assert resolution.original_text == phrase
    assert resolution.resolved_date == d(expected) and resolution.resolved_end is None


def test_matching_ignores_case_but_keeps_the_phrase_as_written() -> None:
    found = resolve("YESTERDAY we argued; Last Sunday we agreed; a Few Days Ago nothing.")
    assert [r.original_text for r in found] == ["YESTERDAY", "Last Sunday", "a Few Days Ago"]
    assert [r.resolved_date for r in found] == [d("2026-03-03"), d("2026-03-01"), d("2026-03-01")]


def test_several_phrases_come_back_in_order_of_appearance_without_overlap() -> None:
    text = "The day before yesterday it broke, last weekend we noticed, and tomorrow we ship; see last Monday night."
    found = resolve(text)
    assert [r.original_text for r in found] == ["The day before yesterday", "last weekend", "tomorrow", "last Monday"]
    assert [r.resolved_date for r in found] == [d("2026-03-02"), d("2026-02-28"), d("2026-03-05"), d("2026-03-02")]
    assert all(r.memory_id == "m1" and r.memory_timestamp == WEDNESDAY for r in found)


def test_earlier_today_is_one_phrase_not_today_alone() -> None:
    assert [r.original_text for r in resolve("Earlier today the tests went green.")] == ["Earlier today"]


@pytest.mark.parametrize("text", [
    "the yesterdays of this project",
    "runs every weekday",
    "lastly, the cache",
    "monthly reports",
    "standups on Mondays",
    "the Monday-morning standup",
    "every Monday we deploy",
    "in the last weekday slot",
    "days ago, maybe",
    "several days ago",
    "thirteen days ago",
    "12345 days ago",
    "todays build",
    "nextweek",
    "the weekend",
    "in 2 days",
    "we may 3x the throughput",
    "released on 05/07",
    "build 2026-03-04-rc1",
    "Feb 30",
    "May 32nd",
    "the 10:30 March meeting",
])
def test_words_that_only_contain_a_phrase_do_not_match(text: str) -> None:
    assert resolve(text) == []


@pytest.mark.parametrize(("phrase", "start", "end", "confidence"), [
    ("2025-11-30", "2025-11-30", None, 0.95),
    ("May 7", "2025-05-07", None, 0.75),  # recorded 2026-03-04: the most recent May 7 is last year's
    ("March 4", "2026-03-04", None, 0.75),  # the recorded day itself counts
    ("Feb 28th", "2026-02-28", None, 0.75),
    ("Feb. 28", "2026-02-28", None, 0.75),
    ("Sept 3", "2025-09-03", None, 0.75),
    ("Feb 29", "2024-02-29", None, 0.75),  # the most recent leap day
    ("May 7, 2023", "2023-05-07", None, 0.9),
    ("May 7th 2023", "2023-05-07", None, 0.9),
    ("7 May 2023", "2023-05-07", None, 0.9),
    ("the 7th of May", "2025-05-07", None, 0.75),
    ("1 December", "2025-12-01", None, 0.75),
    ("March 2024", "2024-03-01", "2024-03-31", 0.8),
    ("Feb 2028", "2028-02-01", "2028-02-29", 0.8),
])
def test_absolute_dates_resolve_to_the_day_they_state(phrase: str, start: str, end: str | None,
                                                      confidence: float) -> None:
    found = only(f"We shipped it {phrase} after review.")
    assert found.original_text == phrase
    assert span(found) == (d(start), d(end) if end else None) and found.confidence == confidence


def test_an_absolute_date_does_not_depend_on_the_zone_but_a_yearless_one_on_the_recorded_day() -> None:
    new_year_utc = datetime(2026, 1, 1, 3, 0, tzinfo=UTC)  # still 2025-12-31 in Los Angeles
    assert only("May 7, 2023", new_year_utc, LA).resolved_date == d("2023-05-07")
    assert only("Jan 1", new_year_utc, UTC).resolved_date == d("2026-01-01")
    assert only("Jan 1", new_year_utc, LA).resolved_date == d("2025-01-01")


def test_on_weekday_before_a_hyphen_matches_the_weekday_as_documented() -> None:
    assert only("Raised on Monday-morning standup.").original_text == "on Monday"


def test_exact_day_phrases_are_held_more_confidently_than_spans_and_vague_counts() -> None:
    by_phrase = {r.original_text: r.confidence for r in resolve(
        "yesterday; 3 days ago; a few days ago; last week; last month; last year; 2 months ago")}
    assert by_phrase["yesterday"] >= 0.85 and by_phrase["3 days ago"] >= 0.85
    assert by_phrase["a few days ago"] < by_phrase["3 days ago"]
    assert by_phrase["last week"] < by_phrase["yesterday"]
    assert by_phrase["last year"] < by_phrase["last month"] < by_phrase["yesterday"]
    assert by_phrase["2 months ago"] < by_phrase["3 days ago"]
    assert all(0 <= c <= 1 for c in by_phrase.values())


# --- month, year and leap-year boundaries ------------------------------------------------------

@pytest.mark.parametrize(("recorded", "phrase", "start", "end"), [
    # recorded Sunday 2026-03-01
    ("2026-03-01", "yesterday", "2026-02-28", None),
    ("2026-03-01", "the day before yesterday", "2026-02-27", None),
    ("2026-03-01", "2 days ago", "2026-02-27", None),
    ("2026-03-01", "tomorrow", "2026-03-02", None),
    ("2026-03-01", "last week", "2026-02-16", "2026-02-22"),
    ("2026-03-01", "this week", "2026-02-23", "2026-03-01"),
    ("2026-03-01", "last month", "2026-02-01", "2026-02-28"),
    ("2026-03-01", "last Sunday", "2026-02-22", None),
    ("2026-03-01", "on Sunday", "2026-03-01", None),
    ("2026-03-01", "last weekend", "2026-02-21", "2026-02-22"),
    ("2026-03-01", "next weekend", "2026-03-07", "2026-03-08"),
    # recorded Thursday 2026-01-01
    ("2026-01-01", "yesterday", "2025-12-31", None),
    ("2026-01-01", "last week", "2025-12-22", "2025-12-28"),
    ("2026-01-01", "this week", "2025-12-29", "2026-01-04"),
    ("2026-01-01", "last month", "2025-12-01", "2025-12-31"),
    ("2026-01-01", "last year", "2025-01-01", "2025-12-31"),
    ("2026-01-01", "2 weeks ago", "2025-12-18", None),
    ("2026-01-01", "last Friday", "2025-12-26", None),
    ("2026-01-01", "next month", "2026-02-01", "2026-02-28"),
    ("2025-12-31", "tomorrow", "2026-01-01", None),
    ("2025-12-31", "next year", "2026-01-01", "2026-12-31"),
    # leap years
    ("2024-03-01", "yesterday", "2024-02-29", None),
    ("2023-03-01", "yesterday", "2023-02-28", None),
    ("2024-03-15", "last month", "2024-02-01", "2024-02-29"),
    ("2024-02-28", "tomorrow", "2024-02-29", None),
])
def test_calendar_boundaries(recorded: str, phrase: str, start: str, end: str | None) -> None:
    recorded_at = datetime.fromisoformat(recorded).replace(hour=12, tzinfo=UTC)
    assert span(only(phrase, recorded_at)) == (d(start), d(end) if end else None)


@pytest.mark.parametrize(("recorded", "phrase", "expected"), [
    ("2026-03-31", "a month ago", "2026-02-28"),
    ("2024-03-31", "1 month ago", "2024-02-29"),
    ("2026-05-31", "3 months ago", "2026-02-28"),
    ("2026-01-31", "2 months ago", "2025-11-30"),
    ("2024-02-29", "a year ago", "2023-02-28"),
    ("2024-02-29", "4 years ago", "2020-02-29"),
])
def test_months_and_years_ago_clamp_the_day_to_the_target_months_end(recorded: str, phrase: str, expected: str) -> None:
    recorded_at = datetime.fromisoformat(recorded).replace(hour=12, tzinfo=UTC)
    assert only(phrase, recorded_at).resolved_date == d(expected)


def test_a_phrase_that_would_leave_the_calendar_is_skipped_not_raised() -> None:
    assert resolve("yesterday", datetime(1, 1, 1, 12, tzinfo=UTC)) == []
    assert resolve("next year", datetime(9999, 6, 1, tzinfo=UTC)) == []


# --- time zones --------------------------------------------------------------------------------

@pytest.mark.parametrize(("instant", "zone", "yesterday"), [
    ("2026-03-02T01:00:00+00:00", UTC, "2026-03-01"),
    ("2026-03-02T01:00:00+00:00", LA, "2026-02-28"),     # 2026-03-01 17:00 in California
    ("2026-03-02T01:00:00+00:00", TOKYO, "2026-03-01"),
    ("2026-03-01T20:00:00+00:00", UTC, "2026-02-28"),
    ("2026-03-01T20:00:00+00:00", LA, "2026-02-28"),
    ("2026-03-01T20:00:00+00:00", TOKYO, "2026-03-01"),  # 2026-03-02 05:00 in Tokyo
])
def test_yesterday_is_read_in_the_users_time_zone_not_utc(instant: str, zone: tzinfo, yesterday: str) -> None:
    assert only("yesterday", datetime.fromisoformat(instant), zone).resolved_date == d(yesterday)


def test_the_same_instant_gives_different_weeks_either_side_of_the_date_line() -> None:
    instant = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)  # Sunday in UTC and California, Monday in Tokyo
    assert span(only("last week", instant, UTC)) == (d("2026-02-16"), d("2026-02-22"))
    assert span(only("last week", instant, LA)) == (d("2026-02-16"), d("2026-02-22"))
    assert span(only("last week", instant, TOKYO)) == (d("2026-02-23"), d("2026-03-01"))


def test_the_zone_is_applied_with_its_daylight_saving_offset_on_the_day() -> None:
    # 07:30Z on 2026-03-09 is 00:30 PDT (UTC-7): a fixed PST offset would put it on the 8th.
    assert only("yesterday", datetime(2026, 3, 9, 7, 30, tzinfo=UTC), LA).resolved_date == d("2026-03-08")


def test_a_naive_timestamp_is_taken_as_utc_and_stored_aware() -> None:
    resolution = only("yesterday", datetime(2026, 3, 2, 1, 0), LA)
    assert resolution.resolved_date == d("2026-02-28")
    assert resolution.memory_timestamp == datetime(2026, 3, 2, 1, 0, tzinfo=UTC)


def test_the_memory_timestamp_is_kept_as_stored_not_converted() -> None:
    stamp = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)
    assert only("yesterday", stamp, TOKYO).memory_timestamp.utcoffset() == timedelta(0)


# --- models ------------------------------------------------------------------------------------

def test_resolved_dates_serialise_as_iso_days() -> None:
    resolution = only("yesterday", datetime(2023, 5, 8, 9, 0, tzinfo=UTC))
    dumped = resolution.model_dump(mode="json")
    assert dumped["resolved_date"] == "2023-05-07" and dumped["resolved_end"] is None
    assert TemporalResolution.model_validate(dumped) == resolution


def test_models_are_frozen_and_validated() -> None:
    resolution = only("last week")
    with pytest.raises(ValidationError):
        resolution.confidence = 0.1  # type: ignore[misc]
    with pytest.raises(ValidationError):  # a span cannot end before it starts
        TemporalResolution.model_validate(
            {**resolution.model_dump(), "resolved_end": resolution.resolved_date - timedelta(days=1)})
    with pytest.raises(ValidationError):  # the memory's timestamp must carry its zone
        TemporalResolution(original_text="today", memory_id="m", memory_timestamp=datetime(2026, 1, 1),
                           resolved_date=date(2026, 1, 1), confidence=0.9)
    with pytest.raises(ValidationError):
        Evidence(memory_id="m", text="t", timestamp=WEDNESDAY, relevance=1.5)


def test_evidence_with_a_naive_timestamp_is_read_as_utc() -> None:
    assert Evidence(memory_id="m", text="t", timestamp=datetime(2026, 1, 1), relevance=0.5).timestamp.tzinfo == UTC


# --- is_temporal_question ----------------------------------------------------------------------

@pytest.mark.parametrize("question", [
    "When did I go to the support group?",
    "when was the retry policy added",
    "So when is the freeze?",
    "What date did we ship 1.0?",
    "What day was the retro?",
    "Which day did we deploy?",
    "How long ago did we switch to Postgres?",
    "Since when do we use Redis?",
    "How many days ago was the outage?",
    "What time does the nightly build run?",
    "Do you remember when we moved to trio?",
    "How long has it been since the migration?",
])
def test_date_questions_are_temporal(question: str) -> None:
    assert is_temporal_question(question)


@pytest.mark.parametrize("question", [
    "How does caching work?",
    "What did we decide about storage?",
    "What happens when the cache is full?",
    "How long does the build take?",
    "Which database do we use?",
    "What timeout do we use for retries?",
    "Why is the weekday job slow?",
    "when secrets filtering finds a credential, does it block the capture?",
    "When a hook throws an exception, does it block the agent?",
    "When two machines capture on the same commit, how are the notes merged?",
    "",
])
def test_other_questions_are_not_temporal(question: str) -> None:
    assert not is_temporal_question(question)


# --- compose_answer ----------------------------------------------------------------------------

def evidence(memory_id: str, text: str, when: datetime, relevance: float = 0.8) -> Evidence:
    return Evidence(memory_id=memory_id, text=text, timestamp=when, relevance=relevance)


def test_the_support_group_went_the_day_before_the_memory_was_recorded() -> None:
    """The canonical example: "yesterday" in a memory recorded 2023-05-08 (UTC) is 2023-05-07."""
    memory = evidence("mem-1", "I went to the support group yesterday", datetime(2023, 5, 8, tzinfo=UTC))
    answer = compose_answer("When did I go to the support group?", [memory],
                            now=datetime(2023, 5, 23, 12, tzinfo=UTC), tz=UTC)
    assert "2023-05-07" in answer.answer and "Sunday" in answer.answer
    assert answer.temporal_resolutions[0].resolved_date == date(2023, 5, 7)
    assert answer.temporal_resolutions[0].original_text == "yesterday"
    assert answer.source_memory_ids == ("mem-1",) and answer.provider == "offline"
    assert "mem-1" in answer.reasoning and "2023-05-08" in answer.reasoning and '"yesterday"' in answer.reasoning
    assert "ago" not in answer.answer  # only asked when, not how long ago
    assert answer.model_dump(mode="json")["temporal_resolutions"][0]["resolved_date"] == "2023-05-07"


def test_how_long_ago_questions_also_get_the_distance_from_now() -> None:
    memory = evidence("mem-1", "I went to the support group yesterday", datetime(2023, 5, 8, tzinfo=UTC))
    answer = compose_answer("How long ago did I go to the support group?", [memory],
                            now=datetime(2023, 5, 23, 12, tzinfo=UTC), tz=UTC)
    assert answer.answer == "2023-05-07 (Sunday), 16 days ago"


def test_the_distance_from_now_is_counted_in_the_users_zone() -> None:
    # Recorded 2026-03-01 local in California ("yesterday" = 02-28); now is 2026-03-09 local, 03-10 in UTC.
    memory = evidence("m", "Rotated the keys yesterday", datetime(2026, 3, 2, 1, 0, tzinfo=UTC))
    answer = compose_answer("How many days ago did we rotate the keys?", [memory],
                            now=datetime(2026, 3, 10, 3, 0, tzinfo=UTC), tz=LA)
    assert answer.answer == "2026-02-28 (Saturday), 9 days ago"
    assert "2026-03-01" in answer.reasoning and "America/Los_Angeles" in answer.reasoning


def test_a_span_is_answered_with_both_ends() -> None:
    memory = evidence("m", "We benchmarked the index last week", datetime(2026, 3, 4, tzinfo=UTC))
    answer = compose_answer("When did we benchmark the index?", [memory], now=WEDNESDAY, tz=UTC)
    assert answer.answer == "2026-02-23 (Monday) to 2026-03-01 (Sunday)"
    assert answer.temporal_resolutions[0].resolved_end == date(2026, 3, 1)


def test_a_stated_relative_date_beats_a_more_relevant_memory_without_one() -> None:
    plain = evidence("plain", "The support group meets at the library", datetime(2023, 5, 1, tzinfo=UTC), 0.95)
    dated = evidence("dated", "Went to the support group yesterday", datetime(2023, 5, 8, tzinfo=UTC), 0.6)
    answer = compose_answer("When did I go to the support group?", [plain, dated], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("dated",)
    assert answer.answer.startswith("2023-05-07")


def test_among_resolutions_support_times_date_confidence_decides_and_all_are_reported() -> None:
    vague = evidence("vague", "We tried the cache a few weeks ago", datetime(2026, 3, 4, tzinfo=UTC), 0.9)
    exact = evidence("exact", "Cache enabled yesterday", datetime(2026, 3, 4, tzinfo=UTC), 0.7)
    answer = compose_answer("When was the cache enabled?", [vague, exact], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("exact",)
    assert answer.answer.startswith("2026-03-03")
    assert answer.confidence > answer.alternatives[0].confidence > 0
    assert [r.memory_id for r in answer.temporal_resolutions] == ["exact", "vague"]  # the one relied on first
    assert "1 other date" in answer.reasoning


def test_equal_scores_keep_the_callers_ranking() -> None:
    first = evidence("first", "Deployed yesterday", datetime(2026, 3, 4, tzinfo=UTC), 0.8)
    second = evidence("second", "Deployed yesterday", datetime(2026, 3, 10, tzinfo=UTC), 0.8)
    answer = compose_answer("When did we deploy?", [first, second], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("first",) and answer.answer.startswith("2026-03-03")


def test_without_a_relative_phrase_the_top_memorys_local_date_is_given_less_confidently() -> None:
    memory = evidence("m", "Switched storage to PostgreSQL", datetime(2026, 3, 2, 1, 0, tzinfo=UTC), 0.9)
    answer = compose_answer("When did we switch to PostgreSQL?", [memory], now=WEDNESDAY, tz=LA)
    assert answer.answer == "2026-03-01 (Sunday)"  # the local recording day, not the UTC one
    assert answer.source_memory_ids == ("m",) and answer.temporal_resolutions == ()
    assert "states no date" in answer.reasoning
    dated = compose_answer("When did we switch to PostgreSQL?",
                           [evidence("m", "Switched storage to PostgreSQL today", memory.timestamp, 0.9)],
                           now=WEDNESDAY, tz=LA)
    assert 0 < answer.confidence < dated.confidence


def test_no_evidence_means_no_answer() -> None:
    answer = compose_answer("When did I go to the support group?", [], now=WEDNESDAY, tz=UTC)
    assert answer.answer == "No memory found that answers this." and answer.confidence == 0.0
    assert answer.source_memory_ids == () and answer.temporal_resolutions == () and answer.reasoning


# --- properties --------------------------------------------------------------------------------

instants = st.datetimes(min_value=datetime(1900, 3, 1), max_value=datetime(2200, 1, 1), timezones=st.timezones())
zones = st.timezones()


def local_day(instant: datetime, zone: tzinfo) -> date:
    return instant.astimezone(zone).date()


@given(instants, zones)
def test_yesterday_is_always_one_local_day_before_the_recorded_day(instant: datetime, zone: tzinfo) -> None:
    assert only("yesterday", instant, zone).resolved_date == local_day(instant, zone) - timedelta(days=1)


@given(instants, zones, st.integers(min_value=0, max_value=9999))
def test_n_days_ago_is_always_n_local_days_before(instant: datetime, zone: tzinfo, n: int) -> None:
    assert only(f"{n} days ago", instant, zone).resolved_date == local_day(instant, zone) - timedelta(days=n)


@given(instants, zones, st.integers(min_value=1, max_value=120))
def test_n_months_ago_moves_exactly_n_months_and_clamps_the_day(instant: datetime, zone: tzinfo, n: int) -> None:
    day = local_day(instant, zone)
    found = only(f"{n} months ago", instant, zone).resolved_date
    assert (day.year * 12 + day.month) - (found.year * 12 + found.month) == n
    assert found.day == min(day.day, calendar.monthrange(found.year, found.month)[1])


@given(instants, zones, st.sampled_from(WEEKDAYS))
def test_weekday_phrases_land_on_that_weekday_within_a_week(instant: datetime, zone: tzinfo, name: str) -> None:
    day = local_day(instant, zone)
    last, this, nxt, on = (only(f"{rel} {name}", instant, zone).resolved_date for rel in ("last", "this", "next", "on"))
    assert {last.strftime("%A"), this.strftime("%A"), nxt.strftime("%A"), on.strftime("%A")} == {name}
    assert 1 <= (day - last).days <= 7
    assert 1 <= (nxt - day).days <= 7
    assert 0 <= (day - on).days <= 6
    assert this.isocalendar()[:2] == day.isocalendar()[:2]


@given(instants, zones)
def test_this_week_month_and_year_contain_the_recorded_day_and_last_ones_end_just_before(
        instant: datetime, zone: tzinfo) -> None:
    day = local_day(instant, zone)
    for unit in ("week", "month", "year"):
        this = only(f"this {unit}", instant, zone)
        last = only(f"last {unit}", instant, zone)
        assert this.resolved_end is not None and last.resolved_end is not None
        assert this.resolved_date <= day <= this.resolved_end
        assert last.resolved_end == this.resolved_date - timedelta(days=1)
    week = only("this week", instant, zone)
    assert week.resolved_date.weekday() == 0 and week.resolved_end == week.resolved_date + timedelta(days=6)


# --- more date forms (issue 15), each read in several zones ---------------------------------------

ZONES = [UTC, LA, TOKYO]
#: Recorded at noon local time on Wednesday 2026-03-04, whatever the zone.
LOCAL_NOON = {UTC: WEDNESDAY, LA: datetime(2026, 3, 4, 20, 0, tzinfo=UTC), TOKYO: datetime(2026, 3, 4, 3, 0, tzinfo=UTC)}


@pytest.mark.parametrize("tz", ZONES, ids=["utc", "los_angeles", "tokyo"])
@pytest.mark.parametrize(("text", "start", "end"), [
    ("we go the day after tomorrow", "2026-03-06", None),
    ("it happened the day before yesterday", "2026-03-02", None),
    ("the parcel dropped on the 11th", "2026-02-11", None),
    ("it arrived on the 4th", "2026-03-04", None),
    ("we'll meet on the 15th", "2026-03-15", None),
    ("I moved here in 2010", "2010-01-01", "2010-12-31"),
    ("I started three years ago", "2023-03-04", None),
    ("she left 2 months ago", "2026-01-04", None),
    ("I've been painting for just under a year", "2025-03-04", "2026-03-04"),
    ("we dated for three months", "2025-12-04", "2026-03-04"),
    ("I saw it a couple of days ago", "2026-03-02", None),
    ("we went camping the weekend before", "2026-02-28", "2026-03-01"),
    ("the Friday before, we packed", "2026-02-27", None),
    ("the first Saturday of February was rainy", "2026-02-07", None),
    ("the last Friday of last month", "2026-02-27", None),
    ("the second Monday of next month", "2026-04-13", None),
])
def test_each_new_form_resolves_against_the_local_recorded_day(text: str, start: str, end: str | None,
                                                              tz: tzinfo) -> None:
    found = only(text, LOCAL_NOON[tz], tz)
    assert span(found) == (d(start), d(end) if end else None)


def test_a_day_of_month_is_the_most_recent_one_or_the_next_in_the_future_tense() -> None:
    assert only("it dropped on the 31st").resolved_date == d("2026-01-31")  # February has none
    assert only("we will ship on the 31st").resolved_date == d("2026-03-31")
    assert resolve("on the 7th of May")[0].original_text == "the 7th of May"  # a month named is a full date
    assert resolve("on the 3rd floor") == []


def test_a_year_inside_a_date_or_a_number_is_not_a_year() -> None:
    assert [r.original_text for r in resolve("in 2024-05-01 we shipped")] == ["2024-05-01"]
    assert resolve("in 20100 ms") == [] and resolve("in 2010.5 seconds") == []


# --- the memory that reports the event -------------------------------------------------------------

def test_the_reported_event_beats_a_later_mention_of_it() -> None:
    report = evidence("report", "Ana: I went to the science museum yesterday with my kids!",
                      datetime(2023, 5, 8, 15, tzinfo=UTC), 0.7)
    mention = evidence("mention", "Ana: Remember the science museum? Yesterday the kids talked about it all evening.",
                       datetime(2023, 6, 20, 15, tzinfo=UTC), 0.85)
    answer = compose_answer("When did Ana go to the science museum?", [mention, report], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("report",) and answer.answer.startswith("2023-05-07")
    alternative = answer.alternatives[0]
    assert alternative.source_memory_ids == ("mention",) and alternative.resolved_date == d("2023-06-19")
    assert {"answer", "resolved_date", "confidence", "source_memory_ids"} <= set(alternative.model_dump())


def test_a_turn_about_the_same_people_and_topic_without_the_event_does_not_answer() -> None:
    distractor = evidence("topic", "Ben: Ana, do you still like pottery? I bought clay last Friday.",
                          datetime(2023, 5, 3, 15, tzinfo=UTC), 0.9)
    report = evidence("event", "Ana: I signed up for a pottery class two days ago, so excited",
                      datetime(2023, 5, 10, 15, tzinfo=UTC), 0.75)
    answer = compose_answer("When did Ana sign up for a pottery class?", [distractor, report],
                            now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("event",) and answer.answer.startswith("2023-05-08")


def test_of_two_reports_of_one_event_the_first_is_the_answer() -> None:
    first = evidence("first", "We migrated the billing database yesterday", datetime(2026, 2, 10, tzinfo=UTC), 0.7)
    again = evidence("again", "We migrated the billing database yesterday, again", datetime(2026, 2, 20, tzinfo=UTC),
                     0.8)
    answer = compose_answer("When did we migrate the billing database?", [again, first], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("first",) and answer.answer.startswith("2026-02-09")


def test_a_plan_in_the_same_words_is_not_the_report() -> None:
    plan = evidence("plan", "Ana: I'm planning to go to the science museum next week.",
                    datetime(2023, 5, 1, 15, tzinfo=UTC), 0.9)
    report = evidence("report", "Ana: I went to the science museum on Saturday!", datetime(2023, 5, 9, 15, tzinfo=UTC),
                      0.8)
    answer = compose_answer("When did Ana go to the science museum?", [plan, report], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("report",) and answer.answer.startswith("2023-05-06")


def test_the_same_event_told_by_someone_else_is_not_the_answer() -> None:
    other = evidence("chloe", "Chloe: I sold my old car yesterday.", datetime(2023, 3, 13, 15, tzinfo=UTC), 0.85)
    dev = evidence("dev", "Dev: I sold my old car last weekend.", datetime(2023, 4, 24, 15, tzinfo=UTC), 0.8)
    answer = compose_answer("When did Dev get rid of the old car?", [other, dev], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("dev",) and answer.answer.startswith("2023-04-22")


def test_a_change_question_is_answered_by_the_memory_that_reports_the_change() -> None:
    adopted = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
    dropped = datetime(2026, 4, 20, 10, 0, tzinfo=UTC)
    found = [evidence("decisions:a:0", "Use PostgreSQL for the main database\nJSONB columns.", adopted, 0.9),
             evidence("decisions:b:0", "Moved off PostgreSQL to SQLite for the single-user build", dropped, 0.6)]
    for question in ("How long ago did we drop PostgreSQL?", "When did we switch to SQLite?"):
        answer = compose_answer(question, found, now=datetime(2026, 5, 1, tzinfo=UTC), tz=UTC)
        assert answer.answer.startswith("2026-04-20"), (question, answer.answer)
        assert answer.source_memory_ids == ("decisions:b:0",)


def test_the_chosen_date_has_the_highest_confidence_and_the_reasoning_agrees() -> None:
    said = datetime(2026, 4, 20, 10, 0, tzinfo=UTC)
    found = [evidence("progress:a:0", "We switched the payment provider to Paddle yesterday.", said, 0.7),
             evidence("progress:b:0", "Remember when we switched the payment provider to Paddle? Last Tuesday a "
                                      "customer asked about Stripe.", said + timedelta(days=9), 0.9),
             evidence("progress:c:0", "Should we switch the payment provider to Paddle next month?",
                      said - timedelta(days=10), 0.8)]
    answer = compose_answer("When did we switch the payment provider to Paddle?", found,
                            now=datetime(2026, 5, 10, tzinfo=UTC), tz=UTC)
    assert answer.answer.startswith("2026-04-19")
    assert answer.alternatives and all(a.confidence <= answer.confidence for a in answer.alternatives)
    assert f"Confidence {answer.confidence:.2f}" in answer.reasoning
    assert "states no date" not in answer.reasoning


def test_without_a_stated_date_the_reasoning_says_so_and_never_claims_one() -> None:
    when = datetime(2026, 4, 20, 10, 0, tzinfo=UTC)
    answer = compose_answer("When did we drop flake8?", [evidence("decisions:a:0", "Switch linting from flake8 to ruff",
                                                                  when)], now=when + timedelta(days=3), tz=UTC)
    assert answer.answer.startswith("2026-04-20") and "states no date" in answer.reasoning
    assert "says when" not in answer.reasoning


# --- long conversations: plans, years, the sentence that tells the event (issue 32) --------------

def test_a_which_year_question_is_answered_with_the_year_a_span_began() -> None:
    had = evidence("had", "Ana: I've had my dogs for 3 years! Their names are Pepper and Panda.",
                   datetime(2023, 3, 27, 15, tzinfo=UTC), 0.8)
    answer = compose_answer("Which year did Ana adopt her dogs?", [had], now=WEDNESDAY, tz=UTC)
    assert answer.answer == "2020 (2020-01-01 (Wednesday) to 2020-12-31 (Thursday))"
    assert answer.temporal_resolutions[0].original_text == "for 3 years"


def test_a_turn_saying_how_long_something_has_gone_on_dates_it_from_the_day_it_began() -> None:
    # "for a month now", said on 29 April: James began on 29 March, not somewhere in the month up to 29 April
    told = Evidence(memory_id="told", text="James: Been playing it for a month now - it's really challenged my skills.",
                    timestamp=datetime(2022, 4, 29, 14, 37, tzinfo=UTC), relevance=0.5,
                    before="John: How long have you been playing this game?")
    answer = compose_answer("When did James start playing Civilization VI?", [told],
                            now=datetime(2022, 5, 1, tzinfo=UTC), tz=UTC)
    assert answer.answer == "2022-03-29 (Tuesday)"
    assert answer.temporal_resolutions[0].original_text == "for a month"


def test_an_answer_to_a_question_holds_the_event_words_of_the_turn_the_question_asks_about() -> None:
    # "For a month now" answers "How long have you been playing?", which asks about "I play drums too!": the drums
    # are its event as much as the later turn that names them
    said = datetime(2022, 3, 27, 0, 40, tzinfo=UTC)
    told = "John: Thanks, James! I play drums too! Here's a pic of my set."
    asked = "James: Wow, looking good! How long have you been playing?"
    answer_turn = Evidence(memory_id="answer", text="John: I've been playing for a month now, it's been tough but fun.",
                           timestamp=said + timedelta(minutes=2), relevance=0.5, before=asked,
                           earlier=((asked, said + timedelta(minutes=1)), (told, said)))
    later = evidence("later", "John: Playing drums when I was younger was a fun way to let off steam.",
                     datetime(2022, 9, 18, 14, tzinfo=UTC), 0.59)
    answer = compose_answer("When did John resume playing drums in his adulthood?", [later, answer_turn],
                            now=datetime(2022, 11, 1, tzinfo=UTC), tz=UTC)
    assert answer.source_memory_ids == ("answer",)
    assert answer.answer == "2022-02-27 (Sunday)"


def test_a_question_about_a_plan_is_answered_by_the_date_planned() -> None:
    plan = evidence("plan", "Ben: Great news - my girlfriend and I are going to the beach next month!",
                    datetime(2023, 10, 1, 15, tzinfo=UTC), 0.6)
    past = evidence("past", "Ben: Last weekend my girlfriend and I went fishing at the lake.",
                    datetime(2023, 8, 24, 15, tzinfo=UTC), 0.9)
    answer = compose_answer("When is Ben planning to go to the beach with his girlfriend?", [past, plan],
                            now=datetime(2024, 1, 5, tzinfo=UTC), tz=UTC)
    assert answer.source_memory_ids == ("plan",)
    assert answer.answer == "2023-11-01 (Wednesday) to 2023-11-30 (Thursday)"


def test_an_earlier_memory_without_the_event_word_the_later_one_holds_does_not_make_it_a_later_mention() -> None:
    # the earlier turn holds "park" but no accident; its score comes close only by its relevance
    bumps = evidence("bumps", "Cleo: Had some bumps last Friday at the park, my pup pulled and the leash broke.",
                     datetime(2023, 9, 24, 15, tzinfo=UTC), 1.0)
    report = evidence("report", "Cleo: I had an accident at the park yesterday and hurt my knee.",
                      datetime(2023, 10, 24, 15, tzinfo=UTC), 0.2)
    answer = compose_answer("When did Cleo have an accident in the park?", [bumps, report],
                            now=datetime(2023, 11, 1, tzinfo=UTC), tz=UTC)
    assert answer.source_memory_ids == ("report",) and answer.answer.startswith("2023-10-23")


def test_a_plan_in_another_sentence_does_not_unsay_the_reported_event() -> None:
    report = evidence("report", "Jo: We tried a scuba diving lesson last Friday! We'll go again next month.",
                      datetime(2023, 9, 17, 15, tzinfo=UTC), 0.9)
    reply = evidence("reply", "Deb: That sounds amazing, Jo! I was always curious about scuba diving and tried "
                              "snorkelling yesterday.", datetime(2023, 9, 17, 15, 1, tzinfo=UTC), 0.6)
    answer = compose_answer("When did Jo try scuba diving lessons?", [reply, report],
                            now=datetime(2023, 10, 1, tzinfo=UTC), tz=UTC)
    assert answer.source_memory_ids == ("report",) and answer.answer.startswith("2023-09-15")


def test_the_parts_of_a_hyphenated_word_are_event_words() -> None:
    # "card-night" reports a "card-playing night"; the earlier turn only shares "friends"
    shop = evidence("shop", "Dave: I opened my car shop last week! Invited some friends over to celebrate.",
                    datetime(2023, 5, 16, 15, tzinfo=UTC), 0.9)
    cards = evidence("cards", "Dave: Last Friday I had a card-night with my friends, so much fun.",
                     datetime(2023, 8, 22, 15, tzinfo=UTC), 0.8)
    answer = compose_answer("When did Dave host a card-playing night with his friends?", [shop, cards],
                            now=datetime(2023, 9, 1, tzinfo=UTC), tz=UTC)
    assert answer.source_memory_ids == ("cards",) and answer.answer.startswith("2023-08-18")


@pytest.mark.parametrize(("text", "start", "end"), [
    ("I finished it few days ago", "2026-03-01", None),
    ("It all started August last year", "2025-08-01", "2025-08-31"),
    ("back in March of this year", "2026-03-01", "2026-03-31"),
    ("we met last August", "2025-08-01", "2025-08-31"),
    ("we met last March", "2025-03-01", "2025-03-31"),
    ("we fly next March", "2027-03-01", "2027-03-31"),
    ("we fly next May", "2026-05-01", "2026-05-31"),
])
def test_month_phrases_relative_to_the_recorded_year_and_a_bare_few(text: str, start: str, end: str | None) -> None:
    found = only(text)
    assert (found.resolved_date, found.resolved_end) == (d(start), d(end) if end else None)


def test_get_is_no_event_word() -> None:
    # "get into an accident": the accident is the event; a turn that only got something is not its report
    got = evidence("got", "Cleo: I got my pup a new leash last Friday, and we went to the park.",
                   datetime(2023, 9, 24, 15, tzinfo=UTC), 1.0)
    report = evidence("report", "Cleo: I had an accident at the park yesterday and hurt my knee.",
                      datetime(2023, 10, 24, 15, tzinfo=UTC), 0.4)
    answer = compose_answer("When did Cleo get into an accident in the park?", [got, report],
                            now=datetime(2023, 11, 1, tzinfo=UTC), tz=UTC)
    assert answer.source_memory_ids == ("report",) and answer.answer.startswith("2023-10-23")


def test_a_weekend_named_without_last_or_next_is_the_nearest_one_before_or_after_in_the_future_tense() -> None:
    monday = datetime(2022, 11, 7, 12, tzinfo=UTC)
    had = resolve_relative_dates("I had a super fun weekend - I worked with a game developer", memory_id="m",
                                 recorded_at=monday, tz=UTC)
    assert [(r.resolved_date, r.resolved_end) for r in had] == [(date(2022, 11, 5), date(2022, 11, 6))]
    will = resolve_relative_dates("We'll fix it over the weekend", memory_id="m", recorded_at=monday, tz=UTC)
    assert [(r.resolved_date, r.resolved_end) for r in will] == [(date(2022, 11, 12), date(2022, 11, 13))]
    assert resolve_relative_dates("the weekend before the launch", memory_id="m", recorded_at=monday,
                                  tz=UTC)[0].original_text == "the weekend before"


def test_an_event_asked_of_one_speaker_is_told_in_that_speakers_turn_not_in_one_addressed_to_them() -> None:
    other = evidence("evan", "Evan: Hey Sam! I started going to the gym yesterday.", datetime(2023, 3, 2, tzinfo=UTC))
    own = evidence("sam", "Sam: I started going to the gym last week.", datetime(2023, 3, 9, tzinfo=UTC))
    answer = compose_answer("When did Sam start going to the gym?", [other, own], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("sam",)
    assert answer.answer.startswith("2023-02-27")


def test_a_memory_holding_only_some_of_the_event_words_another_holds_tells_a_like_event() -> None:
    like = evidence("like", "Deborah: This is where I taught a yoga class yesterday.", datetime(2023, 2, 4, tzinfo=UTC))
    full = evidence("full", "Deborah: I started a yoga class in the neighborhood last month.",
                    datetime(2023, 3, 13, tzinfo=UTC))
    answer = compose_answer("When did Deborah start the yoga class in the neighborhood?", [like, full],
                            now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("full",)
    assert answer.answer.startswith("2023-02-01")


def test_an_undated_report_takes_the_date_of_its_retelling_later_the_same_day() -> None:
    report = evidence("report", "Deborah: I started this yoga class in the neighborhood, such a good feeling.",
                      datetime(2023, 3, 13, 10, tzinfo=UTC))
    retold = evidence("retold", "Deborah: My neighbors wanted to try yoga, so I hosted a class for them on Friday.",
                      datetime(2023, 3, 13, 10, 2, tzinfo=UTC))
    answer = compose_answer("When did Deborah start the yoga class in the neighborhood?", [report, retold],
                            now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("report",)
    assert answer.answer == "2023-03-10 (Friday)"
    assert "retold" in answer.reasoning


def test_a_question_about_the_first_time_is_answered_by_the_earliest_of_nearly_as_sure_reports() -> None:
    early = evidence("early", "Sam: I had a check-up with my doctor last Friday, the weight wasn't great.",
                     datetime(2023, 5, 24, tzinfo=UTC))
    later = evidence("later", "Sam: I went to a weight-loss meeting yesterday.",
                     datetime(2023, 12, 5, tzinfo=UTC))
    answer = compose_answer("When did Sam first go to the doctor about his weight?", [early, later],
                            now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("early",)
    assert answer.answer == "2023-05-19 (Friday)"


def test_a_turn_answering_another_speakers_question_holds_the_questions_words() -> None:
    # "I found it last week" names no car: the question before it does, and a car show elsewhere names one
    show = evidence("show", "Dave: Last Friday I went to the car show and saw some great cars.",
                    datetime(2023, 10, 8, 15, tzinfo=UTC))
    asked = "Calvin: That red car looks amazing! Where did you find this car?"
    reply = Evidence(memory_id="reply", text="Dave: I came across it last week, it was in bad shape.",
                     timestamp=datetime(2023, 11, 2, 15, 1, tzinfo=UTC), relevance=0.5, before=asked)
    answer = compose_answer("When did Dave find the car he repaired?", [show, reply], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("reply",)
    assert answer.answer.startswith("2023-10-23")


def test_another_speakers_reply_retelling_a_turn_lends_it_the_event_words() -> None:
    # "lost my job" is told in the turn; the reply names the job again, a like turn names neither
    told = Evidence(memory_id="told", text="Evan: It's been a tough time since we last caught up; I lost it all last month.",
                    timestamp=datetime(2023, 11, 9, 21, tzinfo=UTC), relevance=0.4,
                    after="Sam: Sorry to hear about your job, Evan. What happened?")
    like = evidence("like", "Evan: I lost my keys yesterday, so annoying.", datetime(2023, 8, 15, tzinfo=UTC), 0.6)
    answer = compose_answer("When did Evan lose his job?", [like, told], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("told",)
    assert answer.answer.startswith("2023-10-01")


def test_the_turns_around_count_only_from_another_speaker_and_a_turn_before_only_when_it_asks() -> None:
    # the same speaker's next turn, and another's remark before, are other news: they lend no words
    said = datetime(2023, 3, 20, 12, tzinfo=UTC)
    spanish = Evidence(memory_id="spanish", text="Chloe: Yesterday I started learning Spanish online.",
                       timestamp=said, relevance=1.0, after="Chloe: I sang at the charity gala three days ago!")
    coffee = Evidence(memory_id="coffee", text="Chloe: Yesterday I had coffee with my sister.",
                      timestamp=said + timedelta(minutes=1), relevance=1.0,
                      before="Dev: I hope to sing at a charity gala one day.")
    report = evidence("report", "Chloe: I sang at the charity gala three days ago!", said + timedelta(minutes=2), 0.6)
    answer = compose_answer("When did Chloe sing at the charity gala?", [spanish, coffee, report],
                            now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("report",)
    assert answer.answer.startswith("2023-03-17")


def test_first_place_is_a_rank_not_the_first_time() -> None:
    # the earlier tournament is nearly as sure an answer: "first" here asks for no earliest one
    early = evidence("early", "Hugo: Last Sunday I took part in the chess tournament at the club.",
                     datetime(2023, 7, 4, tzinfo=UTC), 0.9)
    won = evidence("won", "Hugo: Yesterday I took first place in the chess tournament!", datetime(2023, 9, 8, tzinfo=UTC))
    answer = compose_answer("When did Hugo take first place in the chess tournament at the club?", [early, won],
                            now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("won",)
    assert answer.answer.startswith("2023-09-07")


def test_with_no_event_word_in_a_turn_its_tense_is_read_in_the_sentence_that_says_when() -> None:
    # "will lift your mood" is no plan to buy the car: the sentence saying "Last week" tells what happened
    told = evidence("told", "Calvin: Keep going! Last week, I got a new Ferrari. A photo of it will lift your mood.",
                    datetime(2023, 10, 15, tzinfo=UTC))
    other = evidence("other", "Calvin: I went to the Ferrari dealership and saw a lot of cars.",
                     datetime(2023, 8, 3, tzinfo=UTC))
    answer = compose_answer("When did Calvin buy his second Ferrari?", [other, told], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("told",)
    assert answer.answer.startswith("2023-10-02")


def test_an_agent_noun_meets_its_verb_as_an_event_word() -> None:
    # "programmer friends" tells the programming contest; a later turn naming programming and a contest is no report
    report = evidence("report", "John: Last Friday my programmer friends and I ran an online contest.",
                      datetime(2022, 10, 13, tzinfo=UTC))
    later = evidence("later", "John: Yesterday I joined a programming group and we talked about a contest.",
                     datetime(2022, 10, 20, tzinfo=UTC))
    answer = compose_answer("When did John host the programming contest?", [report, later], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("report",)
    assert answer.answer.startswith("2022-10-07")


def test_an_undated_turn_takes_the_date_of_the_story_its_speaker_began_turns_before() -> None:
    # the kite festival is named two turns after "yesterday": the speaker goes on with the story they began
    said = datetime(2024, 6, 10, 9, 0, tzinfo=UTC)
    began = ("Tom: I spent all of yesterday outdoors with my cousins, guess where!", said - timedelta(minutes=2))
    asked = ("Mia: At the beach? The zoo?", said - timedelta(minutes=1))
    told = Evidence(memory_id="told", text="Tom: Nope, we went to the kite festival by the harbour!",
                    timestamp=said, relevance=0.8, before=asked[0], earlier=(asked, began))
    like = evidence("like", "Tom: Last Saturday I bought a new kite.", datetime(2024, 5, 20, tzinfo=UTC))
    answer = compose_answer("When did Tom go to the kite festival?", [told, like], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("told",)
    assert answer.answer.startswith("2024-06-09") and "turn before" in answer.reasoning
    # a turn of theirs naming a later day ends the story; one said long before is no part of it
    plan = ("Tom: Tomorrow I'm off with my cousins, guess where!", said - timedelta(minutes=2))
    for earlier in ((asked, plan, began), (asked, (began[0], said - timedelta(hours=3)))):
        alone = told.model_copy(update={"earlier": earlier})
        answer = compose_answer("When did Tom go to the kite festival?", [alone], now=WEDNESDAY, tz=UTC)
        assert answer.answer.startswith("2024-06-10")  # the day the turn was said


def test_a_later_day_said_in_another_sentence_than_the_event_is_no_date_of_it() -> None:
    # "next year" is when Raj hopes to go back, not when he tried the climbing wall
    told = evidence("told", "Raj: Yes, the climbing wall was great fun! I hope to go back there next year.",
                    datetime(2024, 3, 14, 18, tzinfo=UTC))
    answer = compose_answer("When did Raj try the climbing wall?", [told], now=WEDNESDAY, tz=UTC)
    assert answer.answer.startswith("2024-03-14")
    # said in the sentence telling the event, a later day is still the one it gives
    plan = evidence("plan", "Raj: I will try the climbing wall next Friday.", datetime(2024, 3, 14, 18, tzinfo=UTC))
    assert compose_answer("When did Raj try the climbing wall?", [plan], now=WEDNESDAY,
                          tz=UTC).answer.startswith("2024-03-15")


def test_a_memory_holding_no_event_word_is_no_later_mention_of_an_earlier_one() -> None:
    # neither names a trip: the later one shares only the name with the earlier, and is not halved for it
    early = evidence("early", "Omar: Oslo was lovely last week, the fjords!", datetime(2024, 2, 5, 12, tzinfo=UTC))
    later = evidence("later", "Omar: Back in Oslo yesterday, the fjords again!", datetime(2024, 4, 10, 12, tzinfo=UTC))
    question = "When did Omar travel to Oslo the second time?"
    answer = compose_answer(question, [early, later], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("later",) and answer.answer.startswith("2024-04-09")
    # the reply just after it naming the flight makes it a later mention of the flight all the same
    flew = evidence("flew", "Omar: I flew to Oslo last month, the fjords!", datetime(2024, 2, 5, 12, tzinfo=UTC))
    told = later.model_copy(update={"after": "Lea: You flew there again? Lucky you!"})
    answer = compose_answer("When did Omar fly to Oslo?", [flew, told], now=WEDNESDAY, tz=UTC)
    assert answer.source_memory_ids == ("flew",) and answer.answer.startswith("2024-01-01")


def test_a_run_of_notes_under_one_label_is_no_story_their_dates_pass_along() -> None:
    # "Decision:" is a label, not a speaker: the Postgres note's "last week" is no date of adopting pnpm
    said = datetime(2024, 6, 14, 9, 0, tzinfo=UTC)
    other = ("Decision: Last week the team chose Postgres over MySQL.", said - timedelta(minutes=3))
    told = Evidence(memory_id="told", text="Decision: Adopted pnpm workspaces for the monorepo.", timestamp=said,
                    relevance=0.8, earlier=(other,))
    answer = compose_answer("When did we adopt pnpm workspaces?", [told], now=WEDNESDAY, tz=UTC)
    assert answer.answer.startswith("2024-06-14")


def test_a_turn_on_a_new_subject_takes_its_own_moment_not_the_story_before() -> None:
    # the puppy is news of its own: "yesterday" was the hiking day, not the day Tom adopted it
    said = datetime(2024, 6, 10, 9, 0, tzinfo=UTC)
    hiked = ("Tom: I went hiking yesterday up the ridge trail.", said - timedelta(minutes=2))
    question = "When did Tom adopt the puppy?"
    cases = [("Mia: Nice! Anything else new?", "Tom: Oh, and we adopted a puppy!"),  # asked for other news
             ("Mia: Nice! What's new with you otherwise?", "Tom: We adopted a puppy!"),  # the same, other words
             ("Mia: Nice, sounds lovely.", "Tom: By the way, we adopted a puppy!")]  # a new subject opened
    for reply, text in cases:
        told = Evidence(memory_id="told", text=text, timestamp=said, relevance=0.8, before=reply,
                        earlier=((reply, said - timedelta(minutes=1)), hiked))
        answer = compose_answer(question, [told], now=WEDNESDAY, tz=UTC)
        assert answer.answer.startswith("2024-06-10"), (reply, text, answer.answer)  # the day the turn was said
    # the same trail named again goes on with the hiking story
    told = Evidence(memory_id="told", text="Tom: The ridge trail had a waterfall too.", timestamp=said,
                    relevance=0.8, earlier=(("Mia: Nice, sounds lovely.", said - timedelta(minutes=1)), hiked))
    answer = compose_answer("When did Tom see the waterfall on the ridge trail?", [told], now=WEDNESDAY, tz=UTC)
    assert answer.answer.startswith("2024-06-09") and "turn before" in answer.reasoning


def _story_date(reply: str, text: str, question: str, hiked: str = "Tom: I went hiking yesterday up the ridge trail.",
                ) -> tuple[str, str]:
    """The answer to `question` from Tom's undated turn `text`, said after his dated `hiked` and Mia's `reply`."""
    said = datetime(2024, 6, 10, 9, 0, tzinfo=UTC)
    told = Evidence(memory_id="told", text=text, timestamp=said, relevance=0.8, before=reply,
                    earlier=((reply, said - timedelta(minutes=1)), (hiked, said - timedelta(minutes=2))))
    answer = compose_answer(question, [told], now=WEDNESDAY, tz=UTC)
    return answer.answer, answer.reasoning


def test_a_turn_going_on_with_the_story_keeps_its_date_with_no_word_shared_or_a_question_about_it_between() -> None:
    # the review's continuations of the hike ("What else did you see up there?", "Sounds amazing!" / "The view was
    # stunning.") and four more like them: each is still about "yesterday", whatever words it uses
    cases = [("Mia: What else did you see up there?", "Tom: A waterfall, and a family of deer by the lake.",
              "When did Tom see the deer?"),
             ("Mia: Sounds amazing!", "Tom: The view was stunning.", "When was the view stunning?"),
             ("Mia: Did you learn anything new?", "Tom: Yes, how to read a map with a compass.",
              "When did Tom learn to read a map?"),
             ("Mia: Wow, how fun.", "Tom: We camped by the lake and cooked dinner on a fire.",
              "When did Tom camp by the lake?"),
             ("Mia: Did you see something else besides the pines?", "Tom: Yes, an old fire lookout tower.",
              "When did Tom see the fire lookout tower?"),
             ("Mia: Nice, sounds lovely.", "Tom: My brother carried the tent the whole way.",
              "When did Tom's brother carry the tent?")]
    for reply, text, question in cases:
        answer, reasoning = _story_date(reply, text, question)
        assert answer.startswith("2024-06-09") and "turn before" in reasoning, (reply, text, answer)
    # the teller asked "How about you?", but the other asked about the hike rather than tell news: it goes on
    answer, reasoning = _story_date("Mia: Just work. Was the trail steep?", "Tom: Very, but the view was stunning.",
                                    "When was the view stunning?",
                                    hiked="Tom: I went hiking yesterday up the ridge trail. How about you?")
    assert answer.startswith("2024-06-09") and "turn before" in reasoning, answer


def test_a_story_whose_teller_asked_for_the_others_news_is_done_when_they_tell_it() -> None:
    # LoCoMo 6-10's turns hand over like this ("How about you? Anything interesting happening?"); Tom's next turn
    # answers Mia's news, so the kitten was not adopted on the hiking day
    answer, _ = _story_date("Mia: I adopted a kitten!", "Tom: A kitten! My puppy would love to meet her.",
                            "When did Mia adopt the kitten?",
                            hiked="Tom: I went hiking with my puppy yesterday. How about you? Anything fun happening?")
    assert answer.startswith("2024-06-10"), answer  # the day the turn was said


def test_a_reply_to_the_other_speakers_own_dated_news_is_not_the_tellers_story() -> None:
    # Mia tells news of her own with its own day: Tom's next turn answers that, not his hike of the day before
    answer, _ = _story_date("Mia: I bought a new bike last week!", "Tom: Nice! I sold my old car.",
                            "When did Tom sell his car?")
    assert answer.startswith("2024-06-10"), answer


def test_how_about_you_followed_by_a_question_about_the_story_keeps_it_going() -> None:
    # "How about you, did you bring the dog?" asks about the hike, not for news; so does "happening up there"
    for reply, text, question in (("Mia: How about you, did you bring the dog?", "Tom: Yes, he swam in the lake.",
                                   "When did Tom's dog swim in the lake?"),
                                  ("Mia: Anything exciting happening up there?", "Tom: We saw a family of deer.",
                                   "When did Tom see the deer?")):
        answer, reasoning = _story_date(reply, text, question)
        assert answer.startswith("2024-06-09") and "turn before" in reasoning, (reply, answer)


def test_a_question_about_how_the_teller_is_doing_ends_the_story() -> None:
    # "How's work?" asks for the teller's other news: the promotion was not on the hiking day
    for reply, text, question in (("Mia: Sounds lovely! How's work?", "Tom: I got promoted!",
                                   "When did Tom get promoted?"),
                                  ("Mia: Nice. How have you been otherwise?",
                                   "Tom: Busy, we moved house.", "When did Tom move house?")):
        answer, _ = _story_date(reply, text, question)
        assert answer.startswith("2024-06-10"), (reply, answer)  # the day the turn was said
    # a question about the story, or after the teller within it, still keeps it going
    for reply, text, question in (("Mia: How was the trail?", "Tom: Steep, but the view was stunning.",
                                   "When was the view stunning?"),
                                  ("Mia: Wow, congrats! How are you doing?", "Tom: Exhausted, my legs cramped.",
                                   "When did Tom's legs cramp?"),
                                  ("Mia: How's your weekend going?", "Tom: Great, the hike was the best part.",
                                   "When was the hike the best part?")):
        answer, reasoning = _story_date(reply, text, question)
        assert answer.startswith("2024-06-09") and "turn before" in reasoning, (reply, answer)


def test_an_answer_to_how_are_you_that_stays_in_the_story_keeps_its_date() -> None:
    # the review of 30aa834: a reply opening "Well," / "Great," / "Fine," to "How are you?" after news most often
    # goes on with that news, so the story's "yesterday" still dates it
    for reply, text, question in (
            ("Mia: Wow! How are you?", "Tom: Well, we got lost on the way down for two hours.",
             "When did Tom get lost?"),
            ("Mia: Wow! How are you?", "Tom: Great, the view from the top was amazing.", "When was the view amazing?"),
            ("Mia: Wow! How are you?", "Tom: Good but tired, my legs cramped on the way down.",
             "When did Tom's legs cramp?"),
            ("Mia: That sounds tough, how are you?", "Tom: I'm okay, I twisted my ankle on the descent.",
             "When did Tom twist his ankle?")):
        answer, reasoning = _story_date(reply, text, question)
        assert answer.startswith("2024-06-09") and "turn before" in reasoning, (text, answer)
    answer, reasoning = _story_date("Bob: ugh, how are you?", "Ana: Fine, we rolled back the migration.",
                                    "When did Ana roll back the migration?",
                                    hiked="Ana: Yesterday the deploy broke on the staging cluster.")
    assert answer.startswith("2024-06-09") and "turn before" in reasoning, answer


def _dated_turns(turns: list[str], question: str) -> str:
    """The answer to `question` from the last of `turns`, said one minute apart, the last on 2024-06-10."""
    said = datetime(2024, 6, 10, 9, 0, tzinfo=UTC)
    times = [said - timedelta(minutes=len(turns) - 1 - k) for k in range(len(turns))]
    told = Evidence(memory_id="told", text=turns[-1], timestamp=said, relevance=0.8, before=turns[-2],
                    earlier=tuple(zip(turns[-2::-1], times[-2::-1])))
    return compose_answer(question, [told], now=WEDNESDAY, tz=UTC).answer


def test_news_told_in_the_past_beside_a_later_day_ends_the_story() -> None:
    # the review of 7ba4f9a: "I finished the auth refactor. We ship it next week." opens news of its own, so the
    # deploy that broke after it is not dated by yesterday's queue switch
    answer = _dated_turns(["Ana: Yesterday we switched the queue to Redis streams.", "Bob: nice",
                           "Ana: I finished the auth refactor. We ship it next week.", "Bob: cool",
                           "Ana: The deploy broke because of the env file."], "When did the deploy break?")
    assert answer.startswith("2024-06-10"), answer  # the day the turn was said
    answer = _dated_turns(["Tom: I went hiking yesterday up the ridge trail.", "Mia: Sounds lovely!",
                           "Tom: I signed up for a marathon. It's next month!", "Mia: Wow, which one?",
                           "Tom: I bought new running shoes for it."], "When did Tom buy running shoes?")
    assert answer.startswith("2024-06-10"), answer


def test_a_plan_told_as_made_takes_the_day_said_beside_it() -> None:
    # the review of d7c2acd: "We planned the Kafka migration together." was made at last Tuesday's meeting
    said = datetime(2024, 6, 10, 9, 0, tzinfo=UTC)  # a Monday
    for text, question, day in (
            ("We met with the infra team last Tuesday. We planned the Kafka migration together.",
             "When did we plan the Kafka migration?", "2024-06-04"),
            ("Sprint retro was last Friday. That's where we planned the cutover.", "When did we plan the cutover?",
             "2024-06-07"),
            ("Evan: We had a call yesterday! We planned the beach trip for August.",
             "When did Evan and Sam plan the beach trip?", "2024-06-09")):
        answer = compose_answer(question, [evidence("told", text, said)], now=WEDNESDAY, tz=UTC)
        assert answer.answer.startswith(day), (text, answer.answer)


def test_a_later_day_said_the_same_day_dates_a_plan_only_where_the_plan_is_settled() -> None:
    # "I'll be on vacation next week, so the release dinner is off" says nothing of when the release is planned
    said = datetime(2024, 6, 10, 9, 0, tzinfo=UTC)
    planning = evidence("planning", "We're planning the release.", said, 0.9)
    later = evidence("later", "I'll be on vacation next week, so the release dinner is off.",
                     said + timedelta(hours=1), 0.5)
    answer = compose_answer("When is the release planned?", [planning, later], now=WEDNESDAY, tz=UTC)
    assert answer.answer.startswith("2024-06-10"), answer.answer  # the day it was said, not next week
