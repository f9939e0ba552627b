"""The evidence for a date question: a recalled memory with the memories beside it in its note, and what an LLM is
shown: the offline choice first, then the memories claiming the change."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.adapters.reading.date_answer import LLM_CANDIDATES, evidence_of, llm_candidates
from memactors.adapters.reading.read_cache import ReadCache
from memactors.adapters.reading.recall import search
from memactors.events.temporal import Alternative, Evidence, ReasonedAnswer
from tests.conftest import Repo, run_cli

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)


def test_the_llm_sees_the_memory_claiming_the_change_however_recall_ranked_it() -> None:
    question = "When did we drop PostgreSQL?"
    mentions = [Evidence(memory_id=f"decisions:{i:040x}:0", text=f"PostgreSQL tuning note {i}: vacuum nightly.",
                         timestamp=T0 + timedelta(days=i), relevance=0.9) for i in range(12)]
    change = Evidence(memory_id="decisions:" + "f" * 40 + ":0", text="Moved off PostgreSQL to SQLite for the desktop",
                      timestamp=T0 + timedelta(days=20), relevance=0.35)
    evidence = [*mentions, change]  # recall ranked the report last
    # an offline answer that missed it (say its wording escaped the offline rules): a mention and three others
    offline = ReasonedAnswer(question=question, answer="2026-03-02 (Monday)", confidence=0.2, reasoning="...",
                             source_memory_ids=(mentions[0].memory_id,),
                             alternatives=tuple(Alternative(answer="a", resolved_date=T0.date(), confidence=0.1,
                                                            source_memory_ids=(m.memory_id,)) for m in mentions[1:4]))
    shown = llm_candidates(evidence, offline)
    assert len(shown) <= LLM_CANDIDATES
    assert change.memory_id in [e.memory_id for e in shown]


def _conversation(repo: Repo) -> None:
    """A logged conversation, one memory per turn, in one note: a car show first, then where a car was found."""
    turns = [(datetime(2023, 10, 8, 15, 0), "Dave: Last Friday I went to the car show and saw some great cars."),
             (datetime(2023, 11, 2, 15, 0), "Calvin: Your blog post on the restoration was great to read."),
             (datetime(2023, 11, 2, 15, 1), "Calvin: That red car looks amazing! Where did you find this car?"),
             (datetime(2023, 11, 2, 15, 2), "Dave: I came across it last week, it was in bad shape."),
             (datetime(2023, 11, 2, 15, 3), "Calvin: Wow, what a job you did on it.")]
    for when, said in turns:
        repo.capture("progress", said, when=when.replace(tzinfo=timezone.utc))
    result = run_cli("consolidate", "--json", "--repo", str(repo.path))
    assert result.returncode in (0, 1), result.stderr


def test_a_recalled_memory_brings_the_memories_beside_it_in_its_note_as_evidence(repo: Repo) -> None:
    _conversation(repo)
    index = ReadCache(GitStore(repo.path).common_dir).load()
    hits = search(index, "Where did you find this car", mode="exhaustive", limit=1)
    assert hits[0].entry.summary.startswith("Calvin: That red car")
    evidence = evidence_of(MemoryStore(GitStore(repo.path)), hits, index)
    asked, *beside = evidence
    assert asked.before.startswith("Calvin: Your blog post") and asked.after.startswith("Dave: I came across it")
    # the turns beside it, not recalled, follow as evidence of their own at its relevance, with their own neighbours
    assert [e.text.split("\n")[0] for e in beside] == ["Calvin: Your blog post on the restoration was great to read.",
                                                      "Dave: I came across it last week, it was in bad shape."]
    assert all(e.relevance == asked.relevance for e in beside)
    assert beside[1].before == asked.text and beside[1].after.startswith("Calvin: Wow")
    assert beside[1].timestamp == datetime(2023, 11, 2, 15, 2, tzinfo=timezone.utc)


def test_recall_reason_dates_an_event_from_the_answer_to_the_question_that_names_it(repo: Repo) -> None:
    # "I came across it last week" names no car: the question just before it does; the car show names one itself
    _conversation(repo)
    result = run_cli("recall", "When did Dave find the car?", "--reason", "--json", "--repo", str(repo.path),
                     env={"MEMACTORS_TIMEZONE": "UTC"})
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["answer"].startswith("2023-10-23") and "last week" in answer["reasoning"]


def test_a_recalled_memory_carries_the_memories_before_it_in_its_note_nearest_first_with_their_moments(
        repo: Repo) -> None:
    _conversation(repo)
    index = ReadCache(GitStore(repo.path).common_dir).load()
    hits = search(index, "came across it in bad shape", mode="exhaustive", limit=1)
    assert hits[0].entry.summary.startswith("Dave: I came across it")
    reply = evidence_of(MemoryStore(GitStore(repo.path)), hits, index)[0]
    utc = timezone.utc
    assert [(text.split("\n")[0], when) for text, when in reply.earlier] == [
        ("Calvin: That red car looks amazing! Where did you find this car?", datetime(2023, 11, 2, 15, 1, tzinfo=utc)),
        ("Calvin: Your blog post on the restoration was great to read.", datetime(2023, 11, 2, 15, 0, tzinfo=utc)),
        ("Dave: Last Friday I went to the car show and saw some great cars.", datetime(2023, 10, 8, 15, 0, tzinfo=utc))]
    assert reply.earlier[0][0] == reply.before


def test_recall_reason_dates_a_turn_by_the_story_its_speaker_began_a_turn_before(repo: Repo) -> None:
    # the concert is named only after the other speaker's guess; "yesterday" was said in the turn before
    start = datetime(2024, 6, 10, 9, 0, tzinfo=timezone.utc)
    turns = ["Nora: Guess what I did with my choir yesterday!", "Ben: A new song? A trip?",
             "Nora: We sang at the charity concert in the park, for the animal shelter.", "Ben: Wow, well done!"]
    for i, said in enumerate(turns):
        repo.capture("progress", said, when=start + timedelta(minutes=i))
    result = run_cli("consolidate", "--json", "--repo", str(repo.path))
    assert result.returncode in (0, 1), result.stderr
    result = run_cli("recall", "When did Nora sing at the charity concert?", "--reason", "--json", "--repo",
                     str(repo.path), env={"MEMACTORS_TIMEZONE": "UTC"})
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["answer"].startswith("2024-06-09") and "yesterday" in answer["reasoning"]


def _game_talk(repo: Repo) -> None:
    """A logged conversation: a game named, talk about it, then how long it has been played, said in other words."""
    start = datetime(2022, 4, 29, 14, 20, tzinfo=timezone.utc)
    turns = ["James: I'm trying out Civilization VI, a turn-based strategy game where you build an empire.",
             "John: Sounds intense but cool. I like games that test my planning.",
             "James: Yeah, every move matters! It's awesome to see your plans work out.",
             "John: Does it help with your problem-solving?",
             "James: It does, it makes me think a few steps ahead.",
             "John: Nice! How long have you been playing it?",
             "James: Been playing it for a month now - it has challenged my skills.",
             "John: Wow, that's impressive!"]
    for i, said in enumerate(turns):
        repo.capture("progress", said, when=start + timedelta(minutes=i))
    result = run_cli("consolidate", "--json", "--repo", str(repo.path))
    assert result.returncode in (0, 1), result.stderr


def test_a_recalled_turn_brings_the_answer_to_a_question_about_when_asked_a_few_turns_on(repo: Repo) -> None:
    _game_talk(repo)
    index = ReadCache(GitStore(repo.path).common_dir).load()
    hits = search(index, "Civilization VI strategy game", mode="exhaustive", limit=1)
    assert hits[0].entry.summary.startswith("James: I'm trying out Civilization VI")
    texts = [e.text.split("\n")[0] for e in evidence_of(MemoryStore(GitStore(repo.path)), hits, index)]
    # five turns on, the question and its answer, though neither names the game
    assert texts[-2:] == ["John: Nice! How long have you been playing it?",
                          "James: Been playing it for a month now - it has challenged my skills."]
    assert "John: Does it help with your problem-solving?" not in texts  # a question, but not about when


def test_recall_reason_dates_a_game_by_how_long_it_has_been_played_a_few_turns_after_it_was_named(
        repo: Repo) -> None:
    _game_talk(repo)
    result = run_cli("recall", "When did James start playing Civilization VI?", "--reason", "--json", "--repo",
                     str(repo.path), env={"MEMACTORS_TIMEZONE": "UTC"})
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    # the day the playing began, not the month of it up to the day it was said
    assert answer["answer"] == "2022-03-29 (Tuesday)" and "for a month" in answer["reasoning"]
