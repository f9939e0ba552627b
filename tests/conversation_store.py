"""Long conversations turned into memories, with the gold date of every event (issue 15's date benchmark).

In the style of long-term dialogue benchmarks: pairs of speakers talk in
about fifteen sessions a few days apart; one memory per turn, stamped with
its session's time. Each event is *reported* once with a relative date
("I went to the science museum yesterday"), acknowledged by the other
speaker, *mentioned again* in a later session, often beside another date
("Remember the science museum? Yesterday the kids asked again"), and
surrounded by *distractor* turns about the same people and topic without
the event ("Do you still like museums? I want to visit one next month"),
and often *planned* beforehand in the same words ("I'm planning to go to
the science museum next week"). Some questions use other words than the
report ("When did Ana visit the science museum?").
The gold dates are computed here with plain calendar arithmetic,
independently of memactors' resolver. Every third question is held out.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import pygit2

from memactors.adapters.git.note_format import append_entry, serialize_entry
from memactors.adapters.git.store import GitStore
from tests.realistic_store import new_repository

PAIRS = (("Ana", "Ben"), ("Chloe", "Dev"), ("Elif", "Farid"), ("Greta", "Hugo"))
SESSIONS = 15

#: (what the speaker did, as reported; the question's verb phrase; the topic word a distractor is about)
EVENTS: tuple[tuple[str, str, str], ...] = (
    ("went to the science museum with my kids", "go to the science museum", "museums"),
    ("signed up for a pottery class", "sign up for a pottery class", "pottery"),
    ("ran my first half marathon", "run a half marathon", "running"),
    ("adopted a rescue dog named Pepper", "adopt a rescue dog", "dogs"),
    ("gave a talk at the library about climate", "give a talk at the library", "talks"),
    ("bought a used electric guitar", "buy an electric guitar", "guitars"),
    ("visited my grandmother in Porto", "visit her grandmother in Porto", "family"),
    ("finished painting the sunset mural", "finish the sunset mural", "painting"),
    ("started volunteering at the animal shelter", "start volunteering at the animal shelter", "volunteering"),
    ("went camping by Lake Tahoe", "go camping by Lake Tahoe", "camping"),
    ("passed my driving test", "pass the driving test", "driving"),
    ("joined a community choir", "join a community choir", "singing"),
    ("baked a three layer birthday cake", "bake a birthday cake", "baking"),
    ("planted tomatoes in the backyard garden", "plant tomatoes in the garden", "gardening"),
    ("attended a jazz concert downtown", "attend a jazz concert", "concerts"),
    ("moved into the new apartment on Elm Street", "move into the new apartment", "apartments"),
    ("interviewed for the design job at Lumen", "interview for the design job", "jobs"),
    ("took the kids to the aquarium", "take the kids to the aquarium", "aquariums"),
    ("hiked up Mount Rainier", "hike up Mount Rainier", "hiking"),
    ("won the chess tournament at the club", "win the chess tournament", "chess"),
    ("read my poem at the open mic night", "read a poem at the open mic", "poetry"),
    ("repaired the old bicycle", "repair the old bicycle", "bikes"),
    ("went to the pride parade", "go to the pride parade", "parades"),
    ("finished reading the Dune trilogy", "finish the Dune trilogy", "books"),
    ("learned to make fresh pasta", "learn to make fresh pasta", "cooking"),
    ("flew to Berlin for the conference", "fly to Berlin", "travel"),
    ("celebrated my sister's wedding", "celebrate the sister's wedding", "weddings"),
    ("got my first tattoo", "get a first tattoo", "tattoos"),
    ("organised the neighbourhood cleanup", "organise the neighbourhood cleanup", "neighbours"),
    ("took a ceramics workshop in the city", "take a ceramics workshop", "workshops"),
    ("sold my old car", "sell the old car", "cars"),
    ("went to the beach with my cousins", "go to the beach with cousins", "beaches"),
    ("started learning Spanish online", "start learning Spanish", "languages"),
    ("watched the meteor shower from the hill", "watch the meteor shower", "stars"),
    ("hosted a board game night", "host a board game night", "games"),
    ("donated blood at the hospital", "donate blood", "hospitals"),
    ("bought a sailing boat", "buy a sailing boat", "sailing"),
    ("went to the support group meeting", "go to the support group", "support"),
    ("sang at the charity gala", "sing at the charity gala", "charity"),
    ("finished the photography course", "finish the photography course", "photos"),
)
#: Questions asked in other words than the report's, for some events: reported verb phrase -> question's.
PARAPHRASES = {
    "went to the science museum with my kids": "visit the science museum",
    "signed up for a pottery class": "enrol in pottery lessons",
    "ran my first half marathon": "complete a half marathon",
    "adopted a rescue dog named Pepper": "get the rescue dog Pepper",
    "bought a used electric guitar": "get an electric guitar",
    "passed my driving test": "get a driving licence",
    "moved into the new apartment on Elm Street": "move to Elm Street",
    "hiked up Mount Rainier": "climb Mount Rainier",
    "won the chess tournament at the club": "take first place in the chess tournament",
    "flew to Berlin for the conference": "travel to Berlin for the conference",
    "sold my old car": "get rid of the old car",
    "donated blood at the hospital": "give blood at the hospital",
    "finished the photography course": "complete the photography course",
    "celebrated my sister's wedding": "attend the sister's wedding",
}
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _month_back(day: date, months: int) -> date:
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    month += 1
    last = ((date(year + (month == 12), month % 12 + 1, 1)) - timedelta(days=1)).day
    return date(year, month, min(day.day, last))


#: A way to say when the event happened, relative to the day it is told: (phrase for that day, gold start, end).
Phrase = Callable[[date, random.Random], tuple[str, date, date | None]]


def _days(n: int, text: str) -> Phrase:
    return lambda day, _: (text, day - timedelta(days=n), None)


def _weekday_last(day: date, rng: random.Random) -> tuple[str, date, date | None]:
    target = rng.randrange(7)
    back = (day.weekday() - target) % 7 or 7
    return f"last {_WEEKDAYS[target]}", day - timedelta(days=back), None


def _weekday_before(day: date, rng: random.Random) -> tuple[str, date, date | None]:
    target = rng.randrange(7)
    back = (day.weekday() - target) % 7 or 7
    return f"the {_WEEKDAYS[target]} before", day - timedelta(days=back), None


def _day_of_month(day: date, rng: random.Random) -> tuple[str, date, date | None]:
    if day.day > 2:
        n = rng.randint(1, day.day - 1)
        return f"on the {_ordinal(n)}", day.replace(day=n), None
    previous = day.replace(day=1) - timedelta(days=1)
    n = rng.randint(10, 28)
    return f"on the {_ordinal(n)}", previous.replace(day=n), None


def _weekend(text: str) -> Phrase:
    def phrase(day: date, _: random.Random) -> tuple[str, date, date | None]:
        sunday = day - timedelta(days=(day.weekday() + 1) % 7 or 7)
        return text, sunday - timedelta(days=1), sunday
    return phrase


def _last_week(day: date, _: random.Random) -> tuple[str, date, date | None]:
    monday = day - timedelta(days=day.weekday() + 7)
    return "last week", monday, monday + timedelta(days=6)


def _weeks_ago(day: date, rng: random.Random) -> tuple[str, date, date | None]:
    n = rng.choice((2, 3))
    return f"{('two', 'three')[n - 2]} weeks ago", day - timedelta(weeks=n), None


def _months_ago(day: date, rng: random.Random) -> tuple[str, date, date | None]:
    n = rng.choice((2, 3, 4))
    return f"{n} months ago", _month_back(day, n), None


def _in_year(day: date, rng: random.Random) -> tuple[str, date, date | None]:
    year = day.year - rng.randint(3, 12)
    return f"in {year}", date(year, 1, 1), date(year, 12, 31)


PHRASES: tuple[Phrase, ...] = (
    _days(1, "yesterday"), _days(0, "today"), _days(0, "this morning"), _days(2, "the day before yesterday"),
    _days(2, "a couple of days ago"), _days(3, "three days ago"), _days(1, "last night"), _weekday_last,
    _weekday_before, _day_of_month, _weekend("last weekend"), _weekend("the weekend before"), _last_week,
    _weeks_ago, _months_ago, _in_year,
)
_FILLER = ("How have you been?", "Work has been hectic this month.", "That's so good to hear!",
           "I'm glad we keep talking like this.", "Let's catch up again soon.", "Haha, that sounds like you.",
           "The weather has been strange lately.", "I made soup for dinner, nothing special.")


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    start: date
    end: date | None
    held_out: bool


@dataclass
class ConversationStore:
    path: Path
    now: datetime
    memories: int = 0
    questions: list[Question] = field(default_factory=list)


#: A team's tool changes: (what was used, what replaced it, what for). Talked about as real chat does: used for
#: a while, a plan (sometimes pushed back), the change reported in one of many wordings with a relative date,
#: then mentioned again days later in other words beside another date.
TEAM = ("Maya", "Tom", "Priya", "Leo")
CHANGES: tuple[tuple[str, str, str], ...] = (
    ("Jenkins", "GitHub Actions", "CI"), ("MySQL", "PostgreSQL", "the orders database"),
    ("Trello", "Linear", "the issue tracker"), ("Heroku", "Fly.io", "staging"),
    ("Mailchimp", "Buttondown", "the newsletter"), ("Zoom", "Google Meet", "standups"),
    ("npm", "pnpm", "the frontend builds"), ("Webpack", "Vite", "bundling"),
    ("Sentry", "Honeycomb", "tracing"), ("Travis", "CircleCI", "the nightly jobs"),
    ("Bitbucket", "GitLab", "code hosting"), ("Confluence", "Notion", "the team wiki"),
    ("Dropbox", "Google Drive", "shared files"), ("Asana", "Jira", "sprint planning"),
    ("Nagios", "Prometheus", "alerting"), ("Vagrant", "Docker Compose", "local dev"),
    ("Mercurial", "Git", "the legacy repos"), ("Redmine", "YouTrack", "support tickets"),
    ("Jekyll", "Hugo", "the docs site"), ("Memcached", "Redis", "session caching"),
)
_REPORTS = (
    "Heads up: we dropped {old} {when}, {what} runs on {new} now.",
    "{When} we finally switched {what} from {old} to {new}.",
    "Done! {what_cap} moved off {old} to {new} {when}.",
    "{new} replaced {old} for {what} {when}, so update your bookmarks.",
    "FYI {what} is on {new} since {when}; {old} is gone.",
    "We stopped using {old} {when}. {what_cap} lives in {new} now.",
)
_LATER = (
    "Since leaving {old}, {what} has been so much calmer. {When2} nobody complained once.",
    "Remember the {new} move? {When2} a client still asked about {old}.",
    "Honestly {new} was the right call for {what}. {When2} it saved us an hour.",
)
_TEAM_FILLER = ("standup in 5", "can someone review my PR?", "lol", "brb, coffee", "who broke main?",
                "merged, thanks!", "I'm out Friday afternoon", "pizza for lunch?")
_DROP_WORDS = ("drop", "stop using", "get rid of", "move off")
_SWITCH_WORDS = ("switch {what} to", "move {what} to", "migrate {what} to")


def _team_chat(store: ConversationStore, notes: dict[str, bytes], repo: pygit2.Repository, sig: pygit2.Signature,
               tree: pygit2.Oid, parent: list[pygit2.Oid], rng: random.Random) -> list[pygit2.Oid]:
    """The team's sessions (namespace `progress`, one memory per message) and two questions per change: when
    the old tool was dropped, how long ago the new one came in (held out: every third)."""
    day = date(2024, 2, 5)
    days = []
    for _ in range(40):
        days.append(day)
        day += timedelta(days=rng.randint(1, 4))
    said: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for n, (old, new, what) in enumerate(CHANGES):
        teller, other, third = rng.sample(TEAM, k=3)
        session = 4 + n * (len(days) - 10) // len(CHANGES) + rng.randint(0, 1)
        said[rng.randint(0, session - 3)].append((other, f"We use {old} for {what}, it's been fine so far."))
        if rng.random() < 0.6:
            plan_at = session - rng.randint(1, 2)
            said[plan_at].append((third, f"I think we should move {what} off {old} next week."))
            if rng.random() < 0.5:
                said[plan_at].append((teller, f"Change of plan: the {new} move waits until after the release."))
        phrase, start, end = rng.choice(PHRASES[:12])(days[session], rng)
        text = rng.choice(_REPORTS).format(old=old, new=new, what=what, what_cap=what[:1].upper() + what[1:],
                                           when=phrase, When=phrase[:1].upper() + phrase[1:])
        said[session].append((teller, text))
        said[session].append((other, rng.choice(("Nice, that feels faster already.", "Finally!",
                                                  "Great, I'll update the runbook."))))
        later = rng.randint(session + 2, min(len(days) - 1, session + 8))
        when2 = rng.choice(("yesterday", "this morning", "last Tuesday"))
        said[later].append((third, rng.choice(_LATER).format(old=old, new=new, what=what,
                                                             When2=when2[:1].upper() + when2[1:])))
        ask_drop = f"When did we {rng.choice(_DROP_WORDS)} {old}?"
        ask_new = (f"How long ago did we {rng.choice(_SWITCH_WORDS).format(what=what)} {new}?" if rng.random() < 0.5
                   else f"When did we {rng.choice(_SWITCH_WORDS).format(what=what)} {new}?")
        for kind, question in (("drop", ask_drop), ("switch", ask_new)):
            store.questions.append(Question(id=f"team-{kind}-{n:02d}", question=question, start=start, end=end,
                                            held_out=len(store.questions) % 3 == 2))
    commits = []
    for session, told in enumerate(days):
        oid = repo.create_commit("refs/heads/main", sig, sig, f"team {session}", tree, parent)
        parent = [oid]
        commits.append(oid)
        turns = said[session] + [(rng.choice(TEAM), rng.choice(_TEAM_FILLER)) for _ in range(rng.randint(2, 5))]
        rng.shuffle(turns)
        for i, (speaker, text) in enumerate(turns):
            stamp = datetime.combine(told, time(10, 0), timezone.utc) + timedelta(minutes=3 * i)
            store.now = max(store.now, stamp + timedelta(days=1))
            entry = serialize_entry({"type": "progress", "timestamp": stamp.isoformat(),
                                     "summary": f"{speaker}: {text}"[:200]}, f"{speaker}: {text}")
            notes[str(oid)] = append_entry(notes.get(str(oid)), entry)
            store.memories += 1
    return commits


def build_conversation_store(path: Path, *, seed: int = 15, team: bool = True) -> ConversationStore:
    """Write the dialogues into a new repository at `path` (namespace `progress`, one note per session)."""
    rng = random.Random(seed)
    repo, sig, tree = new_repository(path, b"conversations\n")
    notes: dict[str, bytes] = {}
    parent: list[pygit2.Oid] = []
    latest = datetime(2000, 1, 1, tzinfo=timezone.utc)
    store = ConversationStore(path=path, now=latest)
    for pair_index, (teller, listener) in enumerate(PAIRS):
        day = date(2023, 1 + 2 * pair_index, rng.randint(1, 20))
        session_days = []
        for _ in range(SESSIONS):
            session_days.append(day)
            day += timedelta(days=rng.randint(3, 9))
        turns: dict[int, list[tuple[str, str]]] = defaultdict(list)  # session -> (speaker, text)
        events = rng.sample(EVENTS, k=len(EVENTS))
        for n, (did, verb, topic) in enumerate(events):
            speaker, other = (teller, listener) if n % 2 == 0 else (listener, teller)
            session = n % (SESSIONS - 2)
            told = session_days[session]
            phrase, start, end = rng.choice(PHRASES)(told, rng)
            opening = rng.choice(("Guess what, I", "So I", "Big news: I", "I"))
            said = f"{opening} {did} {phrase}!" if rng.random() < 0.5 else f"{phrase.capitalize()} I {did}."
            turns[session].append((speaker, said))
            turns[session].append((other, rng.choice(("Wow, that's amazing!", "No way, tell me more!",
                                                      "That sounds wonderful.", "I'm so proud of you!"))))
            # the same people and topic, not the event (and often a date of its own)
            turns[max(0, session - 1)].append((other, f"{speaker}, do you still like {topic}? I want to try "
                                                      f"something with {topic} next month."))
            # the plan before the event: its words, a date, but nothing has happened yet
            if rng.random() < 0.5:
                turns[max(0, session - 1)].append((speaker, f"I'm planning to {verb.replace('her ', 'my ')} "
                                                            f"{rng.choice(('next week', 'this weekend', 'tomorrow'))}."))
            # a later mention of the event, beside another date
            later = rng.randint(session + 1, SESSIONS - 1)
            turns[later].append((speaker, f"Remember when I told you I {did}? Yesterday I was thinking about it "
                                          "again."))
            asked = PARAPHRASES[did] if did in PARAPHRASES and rng.random() < 0.5 else verb
            store.questions.append(Question(id=f"{speaker.lower()}-{n:02d}", question=f"When did {speaker} {asked}?",
                                            start=start, end=end, held_out=len(store.questions) % 3 == 2))
        for session, told in enumerate(session_days):
            oid = repo.create_commit("refs/heads/main", sig, sig, f"{teller} and {listener} {session}", tree, parent)
            parent = [oid]
            said = turns[session] + [(rng.choice((teller, listener)), rng.choice(_FILLER)) for _ in range(3)]
            rng.shuffle(said)
            for i, (speaker, text) in enumerate(said):
                stamp = datetime.combine(told, time(15, 0), timezone.utc) + timedelta(minutes=2 * i)
                latest = max(latest, stamp)
                entry = serialize_entry({"type": "progress", "timestamp": stamp.isoformat(),
                                         "summary": f"{speaker}: {text}"[:200]}, f"{speaker}: {text}")
                notes[str(oid)] = append_entry(notes.get(str(oid)), entry)
                store.memories += 1
    store.now = latest + timedelta(days=1)
    if team:
        _team_chat(store, notes, repo, sig, tree, parent, random.Random(seed + 1))
    git = GitStore(path)
    ref = "refs/notes/mem/progress"
    git.move_refs({ref: git.build_notes_commit(None, notes, "capture")}, {ref: None}, "capture")
    return store


__all__ = ["CHANGES", "ConversationStore", "Question", "build_conversation_store"]
