"""Which recalled memory reports the event a date question asks about, when the turn tells it in other words."""

from __future__ import annotations

from datetime import datetime, timezone

from memactors.actors.algorithms.event_report import matched_event_words
from memactors.actors.algorithms.temporal import compose_answer
from memactors.events.temporal import Evidence

UTC = timezone.utc
NOW = datetime(2024, 1, 10, 12, tzinfo=UTC)


def evidence(memory_id: str, text: str, when: datetime, relevance: float = 0.5) -> Evidence:
    return Evidence(memory_id=memory_id, text=text, timestamp=when, relevance=relevance)


def test_a_clipped_or_informal_word_meets_the_word_it_stands_for() -> None:
    # "a rad vacay" tells a vacation, "a gaming tourney with my buddies" a tournament with friends
    assert "vacation" in matched_event_words("When did Evan get back from a vacation?",
                                             "Evan: I just got back from a rad vacay with my new SO in Canada.")
    assert {"tournament", "friend"} <= matched_event_words(
        "When did John and his friends organize the tournament?",
        "John: I held a gaming tourney with my buddies last night.")
    assert "repository" in matched_event_words("When did we move the repository to GitHub?",
                                               "Moved the repo to GitHub yesterday.")


def test_a_clipped_name_of_a_thing_in_a_developers_notes_stays_as_said() -> None:
    # "the /info endpoint" is no "information", "deployed to prod" no "production of the demo video"
    assert "information" not in matched_event_words("When did we add the info endpoint?",
                                                    "We added more information to the endpoint docs yesterday.")
    assert "production" not in matched_event_words("When did we deploy to prod?",
                                                   "Production of the demo video started yesterday.")


def test_a_tournament_told_as_a_tourney_with_buddies_is_not_a_later_mention_of_an_earlier_one() -> None:
    # the earlier charity tournament holds the question's words said plainly; the one asked about (with friends)
    # says them the way people talk, and must not count as a retelling of the first
    first = evidence("may", "John: We put together a gaming tournament for charity yesterday!",
                     datetime(2022, 5, 8, 0, 45, tzinfo=UTC))
    asked = evidence("october", "John: I held a gaming tourney with my buddies last night. We raised money for "
                     "charity!", datetime(2022, 10, 31, 0, 37, tzinfo=UTC))
    answer = compose_answer("When did John and his gaming friends organize the charity tournament?", [first, asked],
                            now=NOW, tz=UTC)
    assert answer.source_memory_ids == ("october",), answer.reasoning
    assert answer.answer.startswith("2022-10-30")


def test_wrapping_something_up_is_finishing_it() -> None:
    # "I finally wrapped that up last month" reports the finish; the earlier turn only began the project
    began = evidence("began", "Jolene: I started a tough engineering project last week.",
                     datetime(2023, 1, 23, 15, tzinfo=UTC))
    done = evidence("done", "Jolene: Remember the tough engineering project? I finally wrapped that up last month.",
                    datetime(2023, 6, 6, 15, tzinfo=UTC))
    answer = compose_answer("When did Jolene finish her engineering project?", [began, done], now=NOW, tz=UTC)
    assert answer.source_memory_ids == ("done",), answer.reasoning
    assert answer.answer.startswith("2023-05-01")
    # and the other way round: a developer asking when the migration was wrapped up
    started = evidence("started", "Started the Postgres migration last Monday.", datetime(2026, 3, 4, tzinfo=UTC))
    finished = evidence("finished", "Finished the Postgres migration yesterday.", datetime(2026, 3, 12, tzinfo=UTC))
    answer = compose_answer("When did we wrap up the Postgres migration?", [started, finished], now=NOW, tz=UTC)
    assert answer.source_memory_ids == ("finished",), answer.reasoning
    assert answer.answer.startswith("2026-03-11")


def test_a_number_said_in_words_meets_it_in_digits() -> None:
    # "three replicas" is the turn saying "3 replicas", not the earlier one saying 2
    two = evidence("two", "We scaled the API to 2 replicas last month.", datetime(2026, 2, 3, tzinfo=UTC))
    three = evidence("three", "We scaled the API to 3 replicas yesterday.", datetime(2026, 3, 12, tzinfo=UTC))
    answer = compose_answer("When did we scale the API to three replicas?", [two, three], now=NOW, tz=UTC)
    assert answer.source_memory_ids == ("three",), answer.reasoning
    assert answer.answer.startswith("2026-03-11")
    # "3-year-old" holds the number; a year, or a large number, is no small number said in words
    assert "3" in matched_event_words("Did the first three of her dogs get along?", "They're all 3-year-old dogs.")
    assert not matched_event_words("When did we cut three releases?", "In 2023 we cut 300 builds.") - {"cut"}
