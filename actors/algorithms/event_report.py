"""Which recalled memory *reports* the event a date question asks about (`recall --reason`).

A question's event words are its content words, minus question words and the
names it shares with the memory (capitalised words: people and projects
already matched by the search), lightly stemmed (plural, -ed, -ing and a
small table of irregular past forms, so "went" meets "go"; an agent noun
meets its verb, so "programmer" meets "programming"), said the way people talk read as said plainly (a
clipped or informal word as the word it stands for: "vacay", "tourney", "buddies", "repo"; "three" as "3";
"wrapped that up" as "finished"). A memory reports
the event when it holds those words and says it happened: a date on or
before the day it was written, or a verb in the past tense — a plan in the
same words ("I'm planning to go next week") does not. Later mentions of the same event ("remember the
museum?") hold fewer of the words and rarely a date; a later memory that scores about as well as an earlier one
(within SAME_REPORT) is a later mention of the same report (actors/algorithms/temporal.py counts it half).
A question about a change ("when did we drop PostgreSQL", "how long ago did we switch to SQLite") is reported
by the memory that claims that change (actors/algorithms/change_claim.py: PostgreSQL on the replaced side, SQLite
on the new side), not by one that merely names the subject, such as the day PostgreSQL was adopted.
In a logged conversation a turn is read with the turns around it that tell its event in other words (`context`:
the question another speaker asked just before it, the reply just after it): their event words count as its own,
their dates do not.
Standard library only, no parser: recall's latency stays what it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
#: The parts of a hyphenated word are words of their own: "card-playing" meets "card-night" and "playing"; a
#: number in digits is a word too ("3-year-old"), read only when it is a small one (`_NUMBERS`).
_PART = re.compile(r"[A-Za-z][A-Za-z']*|\d+")
_STOP = frozenset(
    "a about after again all also am an and any are as at be been before being both but by can could did do does "
    "doing during each few for from had has have having he her here hers him his how i if in into is it its just "
    "me more most my no nor not now of off on once only or other our ours out over own same she should so some "
    "such than that the their them then there these they this those through to too under until up very was we "
    "were what when where which while who whom why will with would you your yours date day time long ago since "
    "happen happened happens remember tell know get gets got getting".split())
_IRREGULAR = {
    "went": "go", "gone": "go", "saw": "see", "seen": "see", "took": "take", "taken": "take", "got": "get",
    "bought": "buy", "ran": "run", "met": "meet", "gave": "give", "given": "give", "found": "find",
    "began": "begin", "begun": "begin", "came": "come", "left": "leave", "made": "make", "had": "have",
    "did": "do", "done": "do", "wrote": "write", "written": "write", "told": "tell", "won": "win", "lost": "lose",
    "flew": "fly", "flown": "fly", "drove": "drive", "driven": "drive", "ate": "eat", "eaten": "eat",
    "sang": "sing", "sung": "sing", "taught": "teach", "caught": "catch", "held": "hold", "felt": "feel",
    "kept": "keep", "sold": "sell", "spent": "spend", "built": "build", "threw": "throw", "grew": "grow",
    "knew": "know", "broke": "break", "broken": "break", "chose": "choose", "fell": "fall", "rode": "ride",
    "swam": "swim", "wore": "wear", "thought": "think", "brought": "bring", "heard": "hear", "sent": "send",
    "paid": "pay", "led": "lead",
    "shot": "shoot", "slept": "sleep", "spoke": "speak", "stole": "steal", "stood": "stand", "swore": "swear",
    "understood": "understand", "woke": "wake", "adopted": "adopt", "drew": "draw", "drawn": "draw",
}
_PAST = re.compile(r"\b(?:was|were|had|did|went|got|came|saw|made|took|[a-z]{2,}ed)\b", re.IGNORECASE)
#: Common clipped and informal forms, read as the word they stand for ("a rad vacay" tells a vacation, "a gaming
#: tourney with my buddies" a tournament with friends); those standing for more than one word ("app", "dev",
#: "auth", "comp", "vet") or naming a thing in a developer's notes ("the /info endpoint", "deployed to prod": not
#: "information", "production of the video") stay as said.
_CLIPPED = {
    "buddy": "friend", "buddies": "friends", "pal": "friend", "pals": "friends", "mom": "mother", "mum": "mother",
    "dad": "father", "kid": "child", "kids": "children",
    "vacay": "vacation", "vacays": "vacations", "tourney": "tournament", "tourneys": "tournaments",
    "convo": "conversation", "convos": "conversations", "bday": "birthday", "bdays": "birthdays",
    "pic": "picture", "pics": "pictures", "uni": "university", "repo": "repository", "repos": "repositories",
    "config": "configuration", "configs": "configurations", "docs": "documentation",
    "db": "database", "dbs": "databases", "env": "environment", "envs": "environments", "deps": "dependencies",
    "fave": "favorite", "faves": "favorites",
}
#: Numbers said as words meet the same number in digits ("the first three of her dogs", "for 3 years"); "one"
#: is as often a pronoun ("one of my pups") and stays a word.
_NUMBERS = {w: str(i) for i, w in enumerate(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split(), start=2)}
#: A finish said as "wrap up" ("I finally wrapped that up last month", "when did we wrap up the migration"): read
#: as "finished" (at most two words between, so a long sentence does not pair a far "up" with it).
_WRAP_UP = re.compile(r"\bwrap(?:s|ped|ping)?\s+(?:(?:[A-Za-z'-]+\s+){0,2}?)up\b", re.IGNORECASE)
_PLAN = re.compile(r"\b(?:plan(?:ning)?\s+to|going\s+to|gonna|will|shall|want\s+to|hope\s+to|I'll|we'll|"
                   r"can't\s+wait\s+to|should\s+we|could\s+we|shall\s+we|why\s+don't\s+we|maybe\s+we)\b",
                   re.IGNORECASE)
#: What an event word held only by the turns around one (its context) counts of one it holds itself (LoCoMo 6-10:
#: 0.5 and 0.7 answered 80 of 116 against 81).
CONTEXT_WORDS = 1.0
#: How close (in report score) a later memory must come to an earlier one to be a later mention of its report.
SAME_REPORT = 0.1


def stem(word: str) -> str:
    """A word's light stem: lowercase, irregular past forms to their base, common suffixes off."""
    word = word.lower().strip("'-")
    word = _CLIPPED.get(word, word)
    if word in _NUMBERS or word.isdigit():
        return _NUMBERS.get(word, word)
    if word in _IRREGULAR:
        word = _IRREGULAR[word]
    else:
        for suffix, keep in (("ies", "y"), ("ied", "y"), ("ings", ""), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)] + keep
                break
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":  # shipp -> ship
            word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word  # hike and hiked meet at "hik"


def _event_stem(word: str) -> str:
    """`stem`, an agent noun taken to its verb as well: "programmer" meets "programming" (a stem of at least five
    letters before "-er", so "water", "dinner" and "number" stay whole)."""
    lower = word.lower().strip("'-")
    for suffix in ("ers", "er"):
        if lower.endswith(suffix) and len(lower) - len(suffix) >= 5:
            return stem(lower[: -len(suffix)])
    return stem(word)


def _words(text: str) -> list[str]:
    """The words of `text` read for its event: "wrap up" read as "finished"; numbers in digits only up to 20."""
    return [w for w in _PART.findall(_WRAP_UP.sub(" finished ", text))
            if not w.isdigit() or (len(w) <= 2 and int(w) <= 20)]


def _stems(text: str) -> set[str]:
    return {_event_stem(w) for w in _words(text) if w.lower() not in _STOP}


def names(question: str) -> set[str]:
    """The names a question mentions: its capitalised words after the first, lowercased."""
    return {w.lower() for w in _WORD.findall(question)[1:] if w[0].isupper() and w.lower() not in _STOP}


def name_share(question: str, text: str) -> float:
    """The share (0..1) of the question's names `text` holds; 1 when it names none."""
    wanted = names(question)
    return len(wanted & {w.lower() for w in _WORD.findall(text)}) / len(wanted) if wanted else 1.0


def event_words(question: str, text: str) -> set[str]:
    """The question's event words for `text`: content stems, minus names the text shares with the question."""
    shared = names(question) & {w.lower() for w in _WORD.findall(text)}
    return {_event_stem(w) for w in _words(question) if w.lower() not in _STOP and w.lower() not in shared}


def event_share(question: str, text: str) -> float:
    """The share (0..1) of the question's event words that `text` holds."""
    wanted = event_words(question, text)
    return len(wanted & _stems(text)) / len(wanted) if wanted else 0.0


def matched_event_words(question: str, text: str) -> frozenset[str]:
    """The question's event words `text` holds (as stems)."""
    return frozenset(event_words(question, text) & _stems(text))


_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


def event_sentence(question: str, text: str) -> str:
    """The sentence of `text` holding most of the question's event words (the first of equals; all of `text`
    when none holds any)."""
    best, most = text, 0
    for sentence in _SENTENCE.findall(text):
        held = len(matched_event_words(question, sentence))
        if held > most:
            best, most = sentence, held
    return best


def past_tense(text: str) -> bool:
    """Whether `text` has a verb in the past tense (regular -ed, or a common irregular one)."""
    return _PAST.search(text) is not None


def planned(text: str) -> bool:
    """Whether `text` speaks of something still to come ("I'm planning to ...", "we'll ...")."""
    return _PLAN.search(text) is not None


_DROP = re.compile(r"\b(?:drop|dropp?ed|remove[ds]?|abandon(?:ed)?|retire[ds]?|stop(?:ped)?\s+using|move[ds]?\s+off"
                   r"|moved\s+away\s+from|get\s+rid\s+of|got\s+rid\s+of|ditch(?:ed)?|deprecate[ds]?|leave|left"
                   r"|replace[ds]?|switch(?:ed)?\s+(?:away\s+)?from|migrate[ds]?\s+(?:off|from|away\s+from))\s+(?P<what>.+)",
                   re.IGNORECASE)
_SWITCH = re.compile(r"\b(?:switch(?:ed)?|move[ds]?|migrate[ds]?|change[ds]?|upgrade[ds]?|convert(?:ed)?)\b"
                     r"(?:.*?)\s+(?:to|onto)\s+(?P<what>.+)", re.IGNORECASE)


_CHANGE_VERB = re.compile(r"\b(?:drop|dropp?ed|remove[ds]?|abandon(?:ed)?|retire[ds]?|stop(?:ped)?\s+using|move[ds]?"
                          r"|get\s+rid\s+of|got\s+rid\s+of|ditch(?:ed)?|deprecate[ds]?|leave|left|replace[ds]?"
                          r"|switch(?:ed)?|migrate[ds]?|change[ds]?|upgrade[ds]?|convert(?:ed)?|off|away|from|to)\b",
                          re.IGNORECASE)


def change_asked(question: str) -> tuple[str, frozenset[str]] | None:
    """("old", words) for a question about dropping something, ("new", words) for one about switching to
    something; None when the question asks about no change."""
    text = question.rstrip("?").strip()
    for side, pattern in (("old", _DROP), ("new", _SWITCH)):
        match = pattern.search(text)
        if match:
            # read only for a change question: compiling the change reader costs an ordinary date question ~25 ms
            from memactors.actors.algorithms.change_claim import words

            if found := frozenset(words(match["what"])):
                return side, found
    return None


def reports_change(question: str, text: str) -> bool:
    """Whether `text` claims the change a change question asks about (False for any other question)."""
    asked = change_asked(question)
    if asked is None:
        return False
    from memactors.actors.algorithms.change_claim import changes, words

    side, wanted = asked
    numbers = {w for w in wanted if any(c.isdigit() for c in w)}
    for change in changes(text):
        held = set(words(change.old if side == "old" else change.new or change.sentence))
        if numbers <= held and len(wanted & held) * 2 >= len(wanted):
            return True
    return False


_PLAN_ASKED = re.compile(r"\b(?:plan(?:s|ned|ning)?|will|going\s+to|gonna|intend(?:s|ed)?|decide[ds]?|agree[ds]?)\b",
                         re.IGNORECASE)


def plan_asked(question: str) -> bool:
    """Whether `question` asks when something planned or agreed on is (to be) done ("When is Ana planning to go
    ...", "When will ...", "When did they decide to paint together?"): a plan answers it, its date ahead."""
    return _PLAN_ASKED.search(question) is not None


def report_score(question: str, text: str, relevance: float, dated: bool, context: Sequence[str] = (),
                 when: str | None = None) -> float:
    """How well `text` reports the event `question` asks about (at most 1.3): its event words and names first, then
    whether it says it happened (`dated`: a date on or before its own day; or the past tense; or it claims the
    change asked about) — a plan in the same words does not, unless the question asks about a plan (then `dated`
    is any date it states, and a plan says it) — and, for a change question, whether it claims that
    change (then the question's change verb is no event word: "moved off" reports "drop"). Event words only the
    `context` holds count CONTEXT_WORDS. Tense is read in the sentence holding most event words, or, when none
    holds one, in the sentence holding `when` (the date phrase the memory is dated by)."""
    change = reports_change(question, text)
    # tense is read in the sentence telling the event: "We tried scuba last Friday! We'll go again." reports it
    told = event_sentence(question, text)
    if told is text and when:  # no sentence holds an event word: the one saying when tells it
        told = next((t for t in _SENTENCE.findall(text) if when in t), text)
    if plan_asked(question):  # the plan is the report: "next month" or "we're going to" says when
        happened = dated or planned(told)
    else:
        happened = (dated or past_tense(told) or change) and not planned(told)
    asked = question if change_asked(question) is None else _object_only(question)
    # a question whose every event word is a name the memory holds ("when did we switch to Buildkite") asks
    # about that name: its share is the names'
    share = event_share(asked, text) if event_words(asked, text) else name_share(asked, text)
    if context and (wanted := event_words(asked, text)):  # the turn it answers, the reply retelling it
        own = wanted & _stems(text)
        share += CONTEXT_WORDS * len((wanted & set().union(*map(_stems, context))) - own) / len(wanted)
    # a memory naming none of the people the question names reports someone else's event
    return round(0.5 * share + 0.2 * relevance + 0.15 * happened
                 + 0.15 * (dated and happened) - 0.3 * (1 - name_share(question, text)) + 0.3 * change, 4)


def _object_only(question: str) -> str:
    """A change question without its change verb: "When did we drop PostgreSQL?" -> "When did we PostgreSQL?"."""
    return _CHANGE_VERB.sub(" ", question)
