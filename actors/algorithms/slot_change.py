"""A new value for the same slot: the update people make without naming the old value. Pure, standard library only.

"From now on, end all attribute names with '_xt'" after "... end attribute names with '_at'"; "use Asana as the
project management tool" after "use Jira ..."; "take a break every 60 minutes" after "... every 50 minutes";
"never use a linter" after "always use a linter". Take the value out of a statement and what remains is its frame;
two statements with the same frame and different values are one slot changed, when the slot holds one value:

- the value: a quoted token ('_xt', `ruff`), a name (Asana, Google Meet, PyCharm), a number with its unit or in
  words (twice a week), or what is used "as the X" / "for X" (a macbook as the main computer). A rule with no value
  has its polarity (always / never) for value: turned round, it is changed (said with a little more of where it
  applies, "for your Python code", it is the same rule; said for another place, "in integration tests" against
  "in unit tests", it is another rule, which stands);
- the frame: the statement's content words without the value, without what only says "this is an instruction"
  (from now on, going forward, I'd like you to, make sure, always), without a lead-in before the instruction
  ("It matters that ..., so"), and without the reason or remark after it ("so that ...", "regardless of ...");
  "them" is the subject the sentence before ended on ("a convention for method names. Start them with 'o_'");
  compared exactly, so "function argument names" is not "function names"; a role alone may be said more or less
  fully ("video calls" / "video calls and meetings") or by its acronym (VCS / version control system); two
  well-known tools of one kind fill one role said in other words ("GitHub as our main platform" / "GitLab as our
  VCS"), unless a role is another kind's ("GitHub for issue tracking");
- exclusive or additive: a prefix or suffix, the tool used as or for something, a number, a default hold one value;
  what is added, included, imported or installed accumulates (two decorators both stand), and so does a value with
  no role.
A rule turned round is a change only when it says so ("from now on", "going forward", "no longer", "instead"):
"do not use Redis for sessions" beside "use Redis for sessions" with no word of change is a conflict to settle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations

from memactors.actors.algorithms.change_claim import words

_QUOTED = re.compile(r"(?<![A-Za-z0-9])['\"`‘“](?P<v>[^'\"`’”\n]{1,40}?)['\"`’”](?![A-Za-z0-9])")
_NAME = re.compile(r"\b(?P<v>[A-Z][A-Za-z0-9]*(?:[+#.-][A-Za-z0-9]+)*(?:\s+[A-Z][A-Za-z0-9]+)*)\b")
#: "for your projects", "for all new code": where an instruction applies, not a role.
_SCOPE_ONLY = re.compile(r"(?:new|the\s+rest|this|these|those|now|a\s+while|long|(?:quite\s+)?some\s+time|"
                         r"(?:a\s+)?(?:long\s+)?time|(?:a\s+few\s+|several\s+|many\s+)?(?:years|months|weeks|ages))\b",
                         re.IGNORECASE)
#: Determiners before a role ("for all your video calls"): not what the role is.
_DETERMINERS = re.compile(r"^(?:(?:all|any|each|every|the|our|your|my|a|an|of)\s+)+", re.IGNORECASE)
#: Where a role ends: "video calls related to our project", "main machine when working remotely".
_ROLE_END = re.compile(r"\s+(?:related|when|while|whenever|in|on|during|for|with|to|at|from|so|because|as|"
                       r"going|moving|instead|from|within|across|throughout|among|between)\b.*$", re.IGNORECASE)
#: What all work is for: "as your main computer for development" names no place.
_PURPOSE = frozenset(words("development coding programming"))
#: Words that only link a role to where it applies ("video calls within the team").
_LINKING = frozenset(words("related when while whenever during within across throughout among between going moving "
                           "instead inside"))
#: A role that names only where something applies ("for your projects", "for all work"): no role.
_SCOPE_WORDS = frozenset(words("project projects work code codebase task tasks everything anything team related "
                               "our your entire whole engineering company organization organisation department far"))
#: An identifier written without quotes: @timer, snake_case names.
_IDENTIFIER = re.compile(r"(?<![\w@])(@\w+|[A-Za-z]\w*_\w*|_\w+)")
_NUMBER = re.compile(r"(?<![\w.])(?P<v>\d+(?:[.,]\d+)?)\s*(?P<unit>%|[a-z]+)?", re.IGNORECASE)
#: A number in words: how often, or how many of a thing ("twice a week", "two monitors"; not "one of the things").
_COUNT = re.compile(r"\b(?:once|twice|thrice|(?:two|three|four|five|six|seven|eight|nine|ten)"
                    r"(?=(?:\s+or\s+more)?\s+(?!of\b)[a-z]+s\b)|multiple(?=\s+[a-z]+s\b)|"
                    r"half(?=\s+(?:of|the|your|our)\b)|single(?=\s+[a-z]+\b))\b", re.IGNORECASE)
#: A count said in words is its number: "twice" = "two times" = 2, "a single monitor" = one.
_COUNT_VALUE = {"once": "1", "single": "1", "twice": "2", "two": "2", "thrice": "3", "three": "3", "four": "4",
                "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "half": "half",
                "multiple": "many"}
#: What a number right after names ("PR 57", "task 5", "issue #18", "phase 2"): which one, not how much.
_NUMBERED = re.compile(r"\b(?:pr|prs|pull\s+request|issue|issues|task|tasks|step|steps|phase|milestone|ticket|sprint|"
                       r"item|story|bug|chapter|section|adr|rfc|spec|commit|round|part|stage|week|day)"
                       r"\s*#?\s*$|#\s*$", re.IGNORECASE)
#: Words after a number that are no unit of it ("milestone 2 of the auth work").
_NOT_UNITS = frozenset("of the and or to in for on at is are was a an by with from as it this that".split())
#: A count said just before the thing it counts ("two monitors", "a single screen").
_COUNTED_THING = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|single|multiple)(?:\s+or\s+more)?"
                            r"\s+(?P<thing>[a-z]{3,})\b",
                            re.IGNORECASE)
#: What a count is said in or of without being a thing one works with: time, and words that only count points.
_NOT_THINGS = frozenset(words("time times day days week weeks month months year years hour hours minute minutes "
                              "second seconds session sessions sprint sprints thing things way ways reason reasons "
                              "point points step steps option options example examples tip tips key main people "
                              "person member members of more"))
#: What a count is counted in, not what it counts: "three days a week" = "three times a week".
_COUNT_UNITS = frozenset(words("time times day days"))
#: "use a macbook as the main computer", "use Zoom for video calls": what is used, and its role.
_USE = (r"(?:use|uses|used|using|utiliz\w*|utilis\w*|employ(?:s|ed|ing)?\b|adopt\w*|pick|choose|go\s+with|stick\s+with|"
        r"switch(?:ing)?\s+to|mov(?:e|ing)\s+to|standardiz\w*\s+on|standardis\w*\s+on|settl\w*\s+on|rely\s+on|"
        r"transition(?:ing)?\s+to|(?:made|make)\s+the\s+switch\s+to|set\s+up(?:\s+with)?|roll(?:ing|ed)?\s+out)")
_ROLE = re.compile(rf"\b{_USE}\s+(?P<v>(?:(?!\b(?:as|for)\b)[^,.;:!?]){{1,40}}?)\s+(?:as|for)\s+"
                   r"(?P<role>[^,.;:!?]{3,60})", re.IGNORECASE)
#: The role said first: "For project management, I'd like you to use Monday."
_ROLE_FIRST = re.compile(rf"^(?:for|regarding|as\s+for|when\s+it\s+comes\s+to)\s+(?P<role>[^,.;:!?]{{3,60}}),"
                         rf".*?\b{_USE}\s+(?P<v>[^,.;:!?]{{1,40}})$", re.IGNORECASE)
_NEGATIVE = re.compile(
    r"\b(?:never|avoid\w*|refrain\w*|stop\w*\s+(?:using|doing)|no\s+longer|don'?t|do\s+not|must\s+not|should\s+not|"
    r"shouldn'?t|cannot|can'?t|disable\w*|without|against|forget\s+about|steer\s+clear|discourag\w*|discontinu\w*|"
    r"not)\b(?!\s+(?:hesitate|"
    r"forget|only|just|worry|be\s+afraid))",
    re.IGNORECASE)
#: Words that say a sentence is an instruction, or how strongly, not what it is about.
_DIRECTIVE = frozenset(words(
    "always never from now on going forward moving onward ahead well okay ok so firstly secondly "
    "additionally also finally lastly please ensure make sure remember want wanted wish like prefer expect need "
    "needs required require requires insist important importance emphasize emphasise stress recommend suggest "
    "encourage ask asking habit practice start starting begin beginning follow following convention standard "
    "standards rule rules guideline guidelines coding code team company our yours everyone engineers developers "
    "update updated change changed instead now today moment point onwards let's lets focus get would "
    "key particular specific specifically just really definitely certainly absolutely here there especially "
    "avoid avoiding refrain stop disable without not don't do does never similarly likewise another regard "
    "regarding declare declaring declared thing things last previous previously instruction instructed simply "
    "consistency consistent clarity readability maintain style aspect across align "
    "re ll ve matter come good lower-case lowercase standardize standardise descriptive quick note reminder "
    "create creating initialize initializing standardizing standardized standardising standardised continue "
    "continuing adopt adopting forget mention mentioned before yes per discussion discussed slight base aim take"))
#: What makes a role exclusive, not what the role is: "as your main computer" = "as our primary computer".
_ROLE_ADJECTIVES = frozenset(words("main primary preferred default official go-to standard only"))
#: What only praises a tool, not what its role is: "a powerful coding assistant called GitHub Copilot".
_PRAISE = frozenset(words("powerful great excellent fantastic wonderful amazing useful handy robust versatile popular "
                          "modern reliable efficient effective cutting-edge ai-powered new brilliant "
                          "innovative intuitive"))
#: What a value is called, not what it is about: "the suffix '_wr'" is the value '_wr'.
_WEAK = frozenset(words("suffix prefix string letter letters character characters value word term tool"))
_SYNONYM = {"begin": "start", "prefix": "start", "suffix": "end", "finish": "end", "ending": "end", "nam": "name",
            "identifier": "name", "machine": "computer", "communications": "communication",
            "communicat": "communicate", "pause": "break"}
#: What says a value will follow, not which: "use a specific format for your function names".
_GENERIC = frozenset(words("format formats convention conventions approach pattern patterns scheme structure naming"))
#: A naming style holds one value for what it names.
_STYLE = re.compile(r"(?i)^(?:all\s+)?(?:snake_case|camelcase|pascalcase|kebab-case|upper\s*case|lower\s*case|"
                    r"screaming_snake_case|title\s*case)$")
#: After these a sentence gives its reason, not its instruction.
_REASON = re.compile(r"(?:\s*,\s*|\s+)(?:so\s+that|so\s+we|because|since|as\s+(?:this|it|that)|which|this\s+(?:will|helps)"
                     r"|to\s+(?:help|ensure|make|indicate|maintain|improve|keep|signify|denote|distinguish|show|mark"
                     r"|enhance|promote|facilitate|avoid|prevent|reduce)|indicating|signifying|denoting|standing\s+for|in\s+order|even\s+if|for\s+(?:consistency|"
                     r"readability|clarity)|as\s+in|e\.g\.|for\s+example|for\s+instance|such\s+as|regardless|irrespective|"
                     r"no\s+matter|followed\s+by|like\s+so|especially\s+(?:as|when|if|since|because)|"
                     r"helps?\s+(?:to\s+)?(?:us\s+|you\s+)?(?:improve|keep|make|ensure|"
                     r"maintain|avoid|reduce|distinguish|identify))\b",
                     re.IGNORECASE)
_ADDITIVE = re.compile(r"\b(?:add|adding|added|include|including|included|import|importing|imported|install|"
                       r"installing|decorat\w*|also\s+use|as\s+well|in\s+addition)\b", re.IGNORECASE)
_EXCLUSIVE = re.compile(r"\b(?:start\w*|begin\w*|end\w*|prefix\w*|suffix\w*|main|primary|preferred|default|only|"
                        r"standard|standardi[sz]\w*|official|go-to|every|at\s+most|at\s+least|maximum|minimum|limit|cap|timeout)\b",
                        re.IGNORECASE)
#: A rule turned round says so: without it two opposite rules are a conflict, not a change.
_TURNED = re.compile(r"\b(?:from\s+now\s+on|going\s+forward|moving\s+forward|from\s+here\s+on(?:\s+out)?|from\s+today|starting\s+(?:today|now)|"
                     r"henceforth|no\s+longer|any\s*more|instead|after\s+all|now|for\s+now|these\s+days|"
                     r"reconsider\w*|revers\w*|(?:made|make|making)\s+the\s+switch|switch\w*\s+(?:over\s+)?to|"
                     r"transition\w*\s+to)\b", re.IGNORECASE)
#: Sentence openers a capitalised word may be without being a name.
_OPENERS = frozenset("I I'd I'm I've I'll We We'll Let's Now From Going Moving Please Also Always Never Use "
                     "Make Remember Additionally Firstly First Finally Well So And But Then When For In On At "
                     "Okay OK Our The A An This That These It Its Specifically Whenever Just Don't Do".split())


#: A value used for a role is a name or two ("Google Meet", "a Windows laptop"), not a configuration ("structlog
#: with JSON output").
MAX_ROLE_VALUE = 3
#: A setting's name ("max_connections", "pool.size") and the value it is set to.
_SETTING_NAME = re.compile(r"^[A-Za-z][\w.-]*[_.][\w.-]*$")
_SET_TO = re.compile(r"\b(?:to|=|at)\s+(\d[\d.,]*(?:\s*(?:%|[a-z]+))?)\b", re.IGNORECASE)
#: Longer sentences are not read for a slot (bounded cost, and a slot is stated in a short clause).
MAX_SENTENCE = 300
#: "I need you to ensure ...": the instruction itself, not its reason.
_ASKED = frozenset("you me us yourself like want wanted need needs asked ask".split())


#: Where a lead-in ends and the instruction begins ("It's important we stay consistent, so from now on, ...").
_LEAD_IN = re.compile(r",\s+(?:and\s+)?(?:so|but|hence|therefore|thus)\s+|\s+but\s+|\s*[—–]\s*|\s+-\s+|;\s+|:\s+",
                      re.IGNORECASE)


#: A sentence opened by the name of whom it is said to ("Jorge, I need you to ...").
_VOCATIVE = re.compile(r"^([A-Z][a-z]{1,15}),\s+(?=(?:I|I'd|I'm|I've|I'll|we|we're|we've|we'll|please|let's|from|going|"
                       r"moving|remember|make|always|never|for|now|as|in|when|starting)\b)")
#: A sentence opened by the time it holds for ("For this next feature release, ...", "For today's task, ...").
_FOR_NOW = re.compile(r"^(?:for|during)\s+(?:the\s+time\s+being|(?:this|today's|the\s+next|this\s+next)\s+"
                      r"(?:[\w-]+\s+){0,2}?(?:release|sprint|hotfix|iteration|week|month|quarter|phase|milestone|demo|"
                      r"session|task|launch|spike|deadline|feature|day|review)s?)\b[^,]{0,40},\s+(?=\S)", re.IGNORECASE)
#: Words that open a sentence without saying what it is about ("Firstly, ...", "To that end, ...").
_OPENING = re.compile(r"^(?:(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|to\s+(?:that|this)\s+end|also|additionally|"
                      r"finally|lastly|now|so|well|okay|ok|and|yes)\b[,\s]*)+", re.IGNORECASE)


def _without_lead_in(text: str) -> str:
    """`text` from where its instruction begins: openers ("Firstly,") out, and what comes before a clause
    boundary when it names no value of its own (no quote, name or number) or the rest says it is a change
    ("We've used Jira, but going forward use Asana ..."): the lead-in's words are not the slot."""
    text = _OPENING.sub("", text)
    if (called := _VOCATIVE.match(text)) is not None and called[1].lower() not in _KNOWN_TOOLS \
            and not called[1].lower().endswith("ly") and re.search(r"\byou\b", text, re.IGNORECASE):
        # "Jorge, I need you to ...": whom the rule is said to is no part of it ("Locally, we ..." is a scope)
        text = text[called.end():]
    text = _FOR_NOW.sub("", text)  # "for this next release, ...": when it holds, not what it is about
    cut = 0
    for m in _LEAD_IN.finditer(text):
        before = text[cut: m.start()]
        if (_QUOTED.search(before) or _IDENTIFIER.search(before) or _names(before) or re.search(r"\d", before)) \
                and not _TURNED.search(text[m.end():]):
            break
        if len(text[m.end():].split()) >= 3:
            cut = m.end()
    return text[cut:]


#: "since" after these and before a participle says when, not why ("our team has since moved to Zoom").
_SINCE_AS_TIME = frozenset("has have had ever long we've they've i've you've".split())
_SINCE_THEN_DONE = re.compile(r"\s+(?:\w+ed|been|gone|become|begun|grown|taken|chosen|made|built|done|run)\b",
                              re.IGNORECASE)


def _without_reason(text: str) -> str:
    """`text` up to where it starts giving its reason ("... with 'x_' to keep names apart")."""
    for m in _REASON.finditer(text):
        before = text[: m.start()].split()
        if len(before) >= 3 and before[-1].lower().strip(",") not in _ASKED and not _since_as_time(text, m):
            return text[: m.start()]
    return text


def _since_as_time(text: str, reason: re.Match) -> bool:
    """Whether a "since" found as a reason says when instead: "has since moved", "we've since adopted"."""
    if reason[0].strip(" ,").lower() != "since":
        return False
    last = text[max(0, reason.start() - 12): reason.start()].split()[-1:]
    return bool(last) and last[0].lower().replace("’", "'") in _SINCE_AS_TIME \
        and _SINCE_THEN_DONE.match(text, reason.end()) is not None


@dataclass(frozen=True)
class Slot:
    """What one statement says of one slot: its frame (content words without the value), the value (a token, a
    name, a number with unit, what is used for a role, or '' for a rule) and whether it is said or denied."""

    frame: frozenset[str]
    value: str
    positive: bool
    exclusive: bool
    sentence: str
    #: the frame with the value left in: what a rule turned round is compared by ("never use Zoom for calls")
    whole: frozenset[str] = frozenset()
    #: read from one clause of a sentence that holds another slot too: when replaced, only in part
    compound: bool = False
    #: the frame is the role a tool is used for ("video calls"): said more or less fully, it is one role
    role: bool = False
    #: a role's first part ("video calls" of "video calls and messaging")
    head: frozenset[str] = frozenset()
    #: the value is how many or how often, said in words ("twice a week", "a single monitor")
    counted: bool = False
    #: the unit every value is measured in ("minute" of "every 60 minutes"), or ''
    unit: str = ""

    @property
    def rule(self) -> bool:
        return not self.value

    def shown(self) -> str:
        if self.rule or not self.positive:
            return ("do " if self.positive else "never ") + " ".join(sorted(self.whole))
        return self.value if self.positive else f"not {self.value}"


@dataclass(frozen=True)
class SlotChange:
    """The newer statement gives the older one's slot another value (or turns its rule round)."""

    newer: Slot
    older: Slot

    @property
    def partial(self) -> bool:
        """The older statement holds another slot too ("start with 'f_' and end with '_g'"): replaced in part, it
        still stands for the rest."""
        return self.older.compound

    def reason(self) -> str:
        slot = " ".join(sorted(self.newer.frame))
        if self.newer.positive != self.older.positive:
            slot = " ".join(sorted(self.newer.whole))
            return (f"the same rule turned round ({slot}): '{self.older.shown()}' -> '{self.newer.shown()}'; "
                    "one of the two holds")
        part = "; the older's other clause still holds" if self.partial else ""
        return (f"a new value for the same slot ({slot}): '{self.older.value}' -> '{self.newer.value}'; "
                f"the slot holds one value (exclusive){part}")


def _frame(text: str, values: list[str]) -> frozenset[str]:
    taken = set()
    for value in values:
        taken |= set(words(value))
    found = set()
    for w in words(text):
        w = _SYNONYM.get(w, w)
        if w in taken or w in _DIRECTIVE or w in _WEAK or len(w) < 2:
            continue
        found.add(_undoubled(w))
    return frozenset(found)


def _undoubled(word: str) -> str:
    """A stem cut before "-ing" or "-ed" without its doubled last letter ("committ" -> "commit", "programm")."""
    return word[:-1] if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz" and word[-1].isalpha() \
        else word


def _names(sentence: str) -> list[str]:
    found = []
    for m in _NAME.finditer(sentence):
        value = m["v"]
        first = value.split()[0]
        start = m.start()
        opener = start == 0 or re.match(r"[\s\"'(]*$", sentence[:start]) is not None \
            or re.search(r"[.:;!?]\s*$", sentence[:start]) is not None
        if first in _OPENERS or (opener and len(value.split()) == 1 and not re.search(r"[A-Z].*[A-Z]|\d", value[1:])):
            continue
        found.append(value)
    return found


def _role_from_lead_in(lead_in: str, rest: str) -> tuple[set[str], str] | None:
    """(role, new value) when a lead-in names the role and the rest a new tool for it as a change ("we've used
    Skype for our video calls, but from now on switch to Zoom"); else None."""
    role = _ROLE.search(lead_in)
    if role is None or _ROLE.search(rest) or _QUOTED.search(rest) or not _TURNED.search(rest):
        return None
    role_words = _role_words(role["role"]) if not _SCOPE_ONLY.match(role["role"]) else set()
    names = [n for n in _names(rest) if not same_value(n, role["v"].strip())]
    return (role_words, names[-1]) if role_words and len(names) == 1 else None


def _first_clause(text: str, value: str) -> Slot | None:
    """The slot of the clause holding `value` when a sentence joins two with "and" ("start X names with 'a_' and
    end them with '_b'"): read alone, or None when it does not name its own subject."""
    for clause in re.split(r",?\s+and\s+", text):
        if value in clause and clause != text:
            found = slot_of(clause)
            return replace(found, sentence=text, compound=True) if found is not None and found.exclusive else None
    return None


#: What only carries a role said after it: "our primary tool for video calls" is the role "video calls".
_CARRIER = frozenset(words("tool tools platform platforms mode means medium channel solution app application way"))
_CARRIED = re.compile(r"^(?P<head>[^,;]*?)\s+(?:for|of)\s+(?P<role>.+)$", re.IGNORECASE)


def _role_words(role: str) -> set[str]:
    """What a role is: its words without determiners, without what only makes it exclusive (main, primary) and
    without a scope that says nothing ("all your video calls related to our project" -> video, call); a scope
    that names a place stays ("for dependency management in the legacy service": it is that service's slot).
    Empty when the role only names a scope ("your projects")."""
    role = _DETERMINERS.sub("", re.sub(r"\s*\([^)]*\)", "", role).strip())  # "... environment (IDE)"
    # "for your video calls instead of the company's default platform": what it replaces is no part of the role
    role = re.sub(r"(?i)\s+(?:instead\s+of|rather\s+than|in\s+place\s+of)\b.*$", "", role)
    role = re.sub(r"(?i)\s+(?:up\s+)?(?:until|till|so\s+far)\b.*$", "", role)  # "for communication up until now"
    if not re.search(r"(?i)\b(?:that|which|who)\s+(?:is|are|was|were|will|would|can|should)\b", role):
        # "for work calls is our policy" (not "for sessions that are short-lived": that says which sessions)
        role = re.sub(r"(?i)\s+(?:is|are|was|were|will|would|can|should)\b.*$", "", role)
    carried = _CARRIED.match(role)
    if carried is not None and set(words(carried["head"])) - _ROLE_ADJECTIVES <= _CARRIER:
        role = _DETERMINERS.sub("", carried["role"].strip())
    head = _ROLE_END.sub("", role)
    found = {_SYNONYM.get(w, w) for w in words(head)} - _DIRECTIVE - _WEAK - _ROLE_ADJECTIVES - _PRAISE
    if not found or found <= _SCOPE_WORDS:
        return set()
    found = {"work" if w == "work-related" else w for w in found}
    if _family(frozenset(found - {"work"})):  # "your main work computer" is the computer; "work calls" stay
        found -= {"work"}
    # "within the team" names no place: "within" is no part of one
    scope = {_SYNONYM.get(w, w) for w in words(role[len(head):])} \
        - _DIRECTIVE - _WEAK - _SCOPE_WORDS - _ROLE_ADJECTIVES - _LINKING - _PURPOSE
    return found | {f"in:{w}" for w in scope}


#: The value an instruction replaces, said after it: "'o_' instead of the previously instructed 'get_'".
_INSTEAD_OF = re.compile(r"\s*,?\s+(?i:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?i:(?:the|our|your|any)\s+)?"
                         r"(?i:(?:previously|formerly|earlier)\s+\w+\s+|(?:old|current|previous|earlier)\s+)?"
                         r"(?:'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|`[^`\n]{1,40}`|[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)*)")
def _used_as(working: re.Match) -> str:
    """ "use " for what one works on as a machine or an editor ("as your main machine"); else the words as said
    ("work on the migration as a priority" is a task)."""
    role = re.split(r"(?i)\bas\s+", working.string[working.end():], maxsplit=1)[-1]
    return "use " if _family(frozenset(_role_words(role))) in ("machine", "write") else working[0]


#: A break said as leaving one's desk ("step away from your desk every 80 minutes").
_STEP_AWAY = re.compile(r"(?i)\bstep(?:s|ping)?\s+away\s+from\s+(?:your|the)\s+(?:desk|computer|screen|keyboard)\b")
#: How firmly one keeps to a thing, not what it is: "commit to taking a break".
_KEEPING_TO = re.compile(r"(?i)\b(?:commit|stick)\s+to\s+(?=\w+ing\b)")
#: "By prefixing attribute names with 'i_', we signal ...": what is done, then what it is for.
_BY_DOING = re.compile(r"^by\s+(?P<doing>[a-z]+ing\s+[^,;]{3,80}?),\s+(?:we|you|it|this|they)\b", re.IGNORECASE)
#: Preferring one thing over another ("prioritize TPUs over GPUs"): the other is what is passed over.
_PREFER = re.compile(r"\b(?:prefer\w*|prioriti[sz]\w*|favou?r\w*)\b", re.IGNORECASE)
_OVER = re.compile(r"\s+over\s+(?i:(?:using|the|a|an|our|your)\s+)?(?:'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|"
                   r"[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)*|[\w.+#-]+)")
#: "work on a Linux desktop as your main machine": what one works on as a role is what one uses for it.
_WORK_ON_AS = re.compile(r"\bwork(?:ing)?\s+(?:on|with|from)\s+(?=(?:(?!\b(?:as|for)\b)[^,.;:!?]){1,40}?\s+as\s+)",
                         re.IGNORECASE)
#: "a coding assistant called Codestral", "a new tool we're adopting, called Asana": a tool named for its role.
_CALLED = re.compile(r"\b(?:an?|our|the)\s+(?:new\s+)?(?P<role>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)"
                     r"(?:\s+(?:we|we're|that|which|i|you|they)\b[\w' ]{0,30})?,?\s+(?:called|named)\s+"
                     r"(?P<v>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)*)")
#: ... and said to be taken up, not only mentioned.
_CALLED_IN_USE = re.compile(rf"\b(?:{_USE}|adopt\w*|introduc\w*|switch\w*|start\w*\s+using)\b", re.IGNORECASE)
#: A rule that holds only under a condition: the condition is its value ("only when necessary" / "only when asked").
#: The condition itself: "necessary", "necessary or when asked", "the tests pass" (a few words, up to a joint).
_CONDITION = (r"(?P<v>(?:it'?s\s+|it\s+is\s+|you'?re\s+|you\s+are\s+)?(?:truly\s+|really\s+|absolutely\s+|strictly\s+)?"
              r"(?:(?:the|a|an|all|your|our)\s+)?[a-z]+(?:\s+(?!(?:and|or|but|so|because|to|for|with|as|in|on|at)\b)"
              r"[a-z']+){0,2}(?:\s+(?:or|and)\s+(?:when\s+)?[a-z]+)?)")
_ONLY_WHEN = re.compile(rf"\bonly\s+(?:when|if|after|once)\s+{_CONDITION}", re.IGNORECASE)
#: "only communicate with the team when asked": "only" before what is done, its condition after.
_ONLY_DO_WHEN = re.compile(rf"\bonly\s+(?P<act>(?:[a-z'-]+\s+){{1,5}}?)(?:when|if)\s+{_CONDITION}", re.IGNORECASE)
#: Ways of saying one talks to the team ("reach out to your colleagues", "get in touch with the team"): one act.
_COMMUNICATE = re.compile(r"(?i)\b(?:reach(?:es|ing)?\s+out|contact(?:s|ing)?|get(?:ting)?\s+in\s+touch|"
                          r"talk(?:s|ing)?\s+to|speak(?:s|ing)?\s+to)\b")
#: A team named as who uses something ("Our backend team has since adopted ...", "the payments team uses ...").
_TEAM_SUBJECT = re.compile(r"(?i)\b(?:our|the|my|your)\s+(?P<team>[\w-]+(?:\s+[\w-]+)?)\s+(?:team|squad|group)s?\b")
#: A team word that means everyone ("our whole team", "the engineering team"): no team of its own.
_WHOLE_TEAM = frozenset(words("whole entire engineering development dev software core own"))
#: Whom one talks to is the team, whatever it is called ("your colleagues", "teammates").
_TEAMMATES = frozenset(words("colleague colleagues teammate teammates coworker coworkers co-worker co-workers peer peers"))
#: Where one works: "work from the common area", "go to the IT room to work", "set up shop in the lab".
_WORKPLACE = re.compile(r"\b(?:work|working|works|use|using|utiliz\w*|utilis\w*|"
                        r"set\s+up\s+(?:your\s+)?(?:workstation|desk|shop|camp|station)|"
                        r"go(?:ing)?\s+to|head(?:ing)?\s+to|settle\w*|sit|sitting|base\s+yourself|be\s+based)\s+"
                        r"(?:(?:\w+\s+){0,2}?(?:in|at|from|to|into|on)\s+)?(?:the|our|a|your)\s+"
                        r"(?P<v>(?:[\w-]+\s+){0,3}?(?:area|room|office|floor|space|lab|lounge|corner|hub|zone|wing|"
                        r"building))\b(?!\s+(?!(?:for|to|on|in|at|from|when|while|instead|going|moving|with|as|"
                        r"every|each|more|and|or|so|because|during|now|today|again|we|you|they|i|that|which|where|"
                        r"there|here|by|near|next|upstairs|downstairs)\b)[a-z])",  # "the office phone" is no place
                        re.IGNORECASE)
#: What a place used is for, when it is for work itself ("use the quiet room for your work", "... to focus").
_FOR_WORK = re.compile(r"^\W*(?:\w+\s+){0,5}?(?:for|to)\s+(?:(?:your|our|all|the)\s+)*(?:work|coding|code|focus)",
                       re.IGNORECASE)


def _works_there(place: re.Match, text: str) -> bool:
    """Whether a place matched is where one works: said with a verb of working, or used with no purpose said or
    for work itself ("use the incidents room for outages" is a room's purpose, no workplace)."""
    if not re.match(r"(?i)us|utili", place[0]):
        return True
    after = text[place.end():]
    return not re.search(r"(?i)\b(?:for|to)\b", after) or _FOR_WORK.match(after) is not None


#: A tool named after its role: "our version control system, Bitbucket", "a tool we use for project management:
#: Monday", "our coding assistant — it's called TabNine".
_APPOSITIVE = re.compile(r"\b(?:our|the|an?|your)\s+(?P<role>[a-z][a-z-]*(?:\s+(?:[a-z][a-z-]*|[A-Z]{2,5}))"
                         r"{0,3}?)"
                         r"(?P<use>\s+(?:we|that|which|i)\s+(?:use|rely\s+on|have|prefer)\b[^,:;—–]{0,40}?)?"
                         r"\s*(?:,|:|—|–|\s-)\s*(?:(?:it's|it\s+is|called|named)\s+)?"
                         r"(?P<v>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*){0,2})\s*[.!]?$")
#: "a bug in the customer UI, Firefox": a thing named where something happened, not a role's tool.
_IN_THE = re.compile(r"\b(?:in|on|of|for|against|from|into|at|with)\s*$", re.IGNORECASE)
_USED_FOR = re.compile(r"\bfor\s+(?P<role>[^,:;—–]+)$", re.IGNORECASE)


def _appositive_role(named: re.Match) -> set[str]:
    """The role a tool named after it fills: the words before the name, or what "we use it for" says; empty when
    that is no known role of two words or more (a "system" alone is no role)."""
    said = [named["role"]]
    if named["use"] and (used := _USED_FOR.search(named["use"])) is not None:
        said.append(used["role"])
    for role in map(_role_words, said):
        plain = {w for w in role if not w.startswith("in:")}
        if plain and (_family(frozenset(role)) or len(plain) >= MIN_ROLE_WORDS):
            return role
    return set()


#: What a naming convention names, the longer first ("function argument names" are not "function names").
_KINDS = (r"function\s+argument|function\s+parameter|argument|parameter|attribute|method|function|variable|class|"
          r"constant|module|file|branch|table|column|field|property|interface|enum|package|component|endpoint")
_KIND = re.compile(rf"\b(?P<k>{_KINDS})(?:e?s)?\b", re.IGNORECASE)
#: "end all function and method names with '_b'": one value for two kinds' names.
_KINDS_JOINED = re.compile(rf"\b(?P<a>(?:{_KINDS}))\s+(?:and|&|or)\s+(?P<b>(?:{_KINDS}))(?=\s+names?\b)", re.IGNORECASE)
_KIND_SAME = {"function parameter": "function argument", "argument": "function argument",
              "parameter": "function argument"}
#: "when naming your classes", "for function arguments, ...": the kind named as what is being named.
_NAMING_KIND = re.compile(r"\bnaming\s+(?:(?:your|the|all|our|any|new)\s+)*(?=\w)", re.IGNORECASE)
_KIND_NAMES = re.compile(r"\s+(?:name|names)\b", re.IGNORECASE)
#: "the argument names of your functions": function arguments.
_ARGUMENTS_OF = re.compile(r"\b(?:argument|parameter)s?\b(?P<between>(?:\s+names?)?)\s+of\s+(?:(?:your|the|all|our|a)\s+)*"
                           r"(?:function|method)s?\b", re.IGNORECASE)
_AT_START = re.compile(r"\b(?:start|starts|starting|begin|begins|beginning|prefix|prefixed|prefixes|prefixing)\b",
                       re.IGNORECASE)
_AT_END = re.compile(r"\b(?:end|ends|ending|suffix|suffixed|suffixes|finish|finishes|finishing)\b", re.IGNORECASE)
#: "start ending names with", "start using 'j_' as the prefix": "start" says when, not where in the name.
_START_DOING = re.compile(r"\b(?:start|starts|starting|begin|begins|beginning)\s+(?:to\s+)?(?=\w+ing\b|end\b|use\b|add\b)",
                          re.IGNORECASE)
_STYLE_WORD = re.compile(r"(?i)\b(?P<v>snake_case|snake\s+case|camel\s*case|pascal\s*case|kebab-case|upper\s*case|"
                         r"lower\s*case|all\s+caps|title\s*case)\b")


def _kind(said: str) -> str:
    """What a naming convention names ("when naming X", else the one kind said, else the one said as "X names"
    when every other is named as a convention too), or '' when that is not clear ("when defining a function, end
    the variable name with ...")."""
    def norm(k: re.Match) -> str:
        return _KIND_SAME.get(" ".join(k["k"].lower().split()), " ".join(k["k"].lower().split()))

    said = _ARGUMENTS_OF.sub(lambda m: f"function argument{m['between']}", said)
    for m in _NAMING_KIND.finditer(said):
        k = _KIND.match(said, m.end())
        if k is not None:
            return norm(k)
    mentioned = list(_KIND.finditer(said))
    kinds = {norm(k) for k in mentioned}
    if len(kinds) == 1:
        return kinds.pop()
    named = {norm(k) for k in mentioned if _KIND_NAMES.match(said, k.end())}
    # "when writing functions, start function argument names with 'i_'": the functions are where they are named
    if len(named) == 1 and all(_KIND_NAMES.match(said, k.end()) or re.match(r"\s+naming\b", said[k.end():])
                               or set(norm(k).split()) < set(next(iter(named)).split()) for k in mentioned):
        return named.pop()
    return ""


#: A phrase that may say where a naming convention applies ("for test classes only", "only in tests", "In generated
#: code, ...", "... for the CLI module"): a kind said in it is not the kind named (the scope is `_naming_scope`'s).
_SCOPE_PHRASE = re.compile(
    r"(?i)(?:\bonly\s+(?:for|in|within|inside)\s+(?P<a>[\w' -]{2,40}?)(?=\s*(?:[,;]|$))|"
    r"\b(?:for|in|within|inside)\s+(?P<b>[\w' -]{2,40}?)\s+only\b|"
    r"^(?:for|in|within|inside)\s+(?P<c>[\w' -]{2,40}?),|"
    r"(?<=[\'\"`’”])\s+(?:for|in|within|inside)\s+(?P<d>[\w' -]{2,40}?)\s*$)")
#: The code areas a naming convention may be confined to, each with the one name its scope goes by: tests,
#: generated code, migrations, the CLI, the frontend, backend or API, scripts, examples, and a language. A closed
#: list: a word of opinion, manner or purpose ("for better readability", "in line with", "proper") names none.
_AREAS = (
    ("test", r"tests?|testing|test-?suites?|fixtures?"), ("generated", r"(?:auto-?)?generated"),
    ("migration", r"migrations?"), ("cli", r"cli|command[- ]line"), ("frontend", r"front-?end|front\s+end"),
    ("backend", r"back-?end|back\s+end"), ("api", r"apis?"), ("ui", r"ui"), ("sdk", r"sdks?"),
    ("script", r"scripts?"), ("example", r"examples|example\s+(?:code|files?|scripts?|apps?|projects?)"),
    ("notebook", r"notebooks?"), ("benchmark", r"benchmarks?"), ("legacy", r"legacy"),
    ("python", r"python"), ("typescript", r"typescript"), ("javascript", r"javascript"), ("java", r"java"),
    ("rust", r"rust"), ("c++", r"c\+\+|cpp"), ("c#", r"c\#|csharp"), ("kotlin", r"kotlin"), ("swift", r"(?-i:Swift)"),
    ("ruby", r"ruby"), ("php", r"php"), ("scala", r"scala"), ("sql", r"sql"), ("shell", r"shell|bash"),
    ("go", r"(?-i:Go|GO|golang)"))
#: A language is a scope against another language only: a rule said for none is taken to be for the language
#: the other names ("use PascalCase for class names" after "... for class names in Python" is its update).
_LANGUAGES = frozenset("python typescript javascript java rust c++ c# kotlin swift ruby php scala sql shell go".split())
_AREA_NAME = {f"a{i}": name for i, (name, _) in enumerate(_AREAS)}  # regex group -> the area's name
_AREA = re.compile("(?i)" + "|".join(rf"(?<![\w+#-])(?P<a{i}>{p})(?![\w+#-])" for i, (_, p) in enumerate(_AREAS)))
#: A kind said of one sort before its names ("private method names", "exception class names"): a scope too.
_KIND_SORTS = frozenset("private public protected internal abstract exception error test helper base mixin async "
                        "static utility util fixture generated migration".split())
#: Where a phrase names a place: "for test classes only", "in your Python code", "within the payments module";
#: "when writing tests", "when working on the frontend". What follows it is read up to where the phrase ends.
_WHERE = re.compile(r"(?i)\b(?:for|in|within|inside|under|throughout|"
                    r"(?:when|while|whenever)\s+(?:you(?:'re|\s+are)?\s+)?"
                    r"(?:writing|working\s+(?:on|in|with)|editing|adding|creating|building|developing|coding\s+in))"
                    r"\s+(?P<np>[^,;:.!?()]{1,60})")
_PHRASE_END = re.compile(r"(?i)\s+(?:with|to|and|or|so|because|that|which|when|whenever|if|as|by|from|should|must|"
                         r"will|we|you|i|is|are|please|always|going|moving)\b.*$")
_DETERMINER = re.compile(r"(?i)^(?:(?:the|a|an|all|any|every|each|our|your|my|their|its|this|these|those|of)\s+)+")
#: A named part of the code: "the payments module", "the 'db' folder", "the CLI package"; a word that only points
#: ("this module", "the same file") names none.
#: The nouns that name a part of the code after its name.
_PART_OF_CODE = (r"(?:module|package|file|directory|folder|dir|service|app|crate|library|namespace|component)s?\b")
_NAMED_AREA = re.compile(r"(?i)^(?P<n>['\"`‘“][^'\"`’”]{1,40}['\"`’”]|[\w.+#-]{2,30})\s+" + _PART_OF_CODE)
_POINTING = frozenset("same whole entire current other one single new existing first next main this that".split())
#: A path said as the place: "in src/api/", "under lib/unit" (a folder named by its path).
_PATH = re.compile(r"^(?!and/or\b)(?P<p>[\w.-]*/[\w./-]*)")
#: A scope phrase reads this many words of what follows it (bounded cost; a place is said in a few words).
MAX_SCOPE_WORDS = 5


def _areas(phrase: str) -> set[str]:
    """The code areas a phrase names (its words on the closed list), and a named module, folder or path."""
    if (path := _PATH.match(phrase)) is not None:  # "in src/api/": the path is the place, whatever its words
        return {path["p"].strip("/").lower()}
    found = {_AREA_NAME[k] for m in _AREA.finditer(phrase) for k, v in m.groupdict().items() if v}
    if (named := _NAMED_AREA.match(phrase)) is not None and named["n"].lower() not in _POINTING:
        name = named["n"].strip("'\"`‘“’”").lower()
        area = _AREA.fullmatch(name)
        found.add(next(_AREA_NAME[k] for k, v in area.groupdict().items() if v) if area else name)
    return found


#: What a quoted word names when it is said before one of these: a part of the code ("the 'db' folder").
_NAMED_BY = re.compile(r"(?i)\s+" + _PART_OF_CODE)


def _kept_if_named(quoted: re.Match) -> str:
    """A quoted word as it is when it names a part of the code, else a placeholder: the rule's value is no place."""
    return quoted[0] if _NAMED_BY.match(quoted.string, quoted.end()) else "'v'"


#: Where a reason, a comparison or a remark begins after a naming rule's value.
_ASIDE_AFTER_VALUE = re.compile(r"(?i)(?:,\s*|\s+)(?:so(?:\s+that)?|because|since|just\s+(?:like|as)|like|which|"
                                r"as\s+(?:it|they|this|that|we|you)|it|they|this|that)\b")


def _naming_scope(text: str, kind: str) -> frozenset[str]:
    """Where a naming convention applies when it is not everywhere ("for test classes only", "in generated code",
    "exception class names", "when writing tests", "in TypeScript"): the code areas named, marked "scope:", so that
    a scoped rule is another slot than the general one. Only a recognised place is a scope (see `_AREAS`)."""
    found: set[str] = set()
    # what follows the value as a reason or a comparison is no place: "..., just like in the examples", "..., it
    # reads better in the UI", "... so they stand out in the test output"
    value = text.find("'v'")
    if value >= 0 and (aside := _ASIDE_AFTER_VALUE.search(text, value + 3)) is not None:
        text = text[:aside.start()]
    for m in _WHERE.finditer(text):
        phrase = _DETERMINER.sub("", _PHRASE_END.sub("", m["np"]).strip())
        found |= _areas(" ".join(phrase.split()[:MAX_SCOPE_WORDS]))
    # the sort of the kind named just before it: "private method names", "Test classes should start with ..."
    kind_said = r"\s+".join(re.escape(w) for w in kind.split())
    for m in re.finditer(rf"(?i)(?<![\w'-])(?P<m>[\w+#-]+)\s+{kind_said}(?:e?s)?\b", text):
        sort = m["m"].lower()
        if sort in _KIND_SORTS or _AREA.fullmatch(m["m"]):
            found |= _areas(m["m"]) or {sort}
    return frozenset(f"scope:lang:{w}" if w in _LANGUAGES else f"scope:{w}" for w in found)


def _naming_slot(said: str, text: str, positive: bool, sentence: str) -> Slot | None:
    """The slot of a naming convention: where in the names of one kind a value goes ("start attribute names with
    'at_'", "end the variable name with '_i'" when naming function arguments) or their style ("use snake_case
    for class names"); one value, and one kind named. The frame is the kind and the place, whatever else the
    sentence says ("To build on that, ...", "when declaring function arguments"): a prefix holds one value."""
    values = {v.strip().rstrip(".,").casefold(): v.strip().rstrip(".,")
              for v in [m["v"] for m in _QUOTED.finditer(said)] or _IDENTIFIER.findall(said)}
    plain = _START_DOING.sub(" ", _QUOTED.sub(" ", text))  # the place said in the instruction ("To that end, ...")
    start, end = _AT_START.search(plain) is not None, _AT_END.search(plain) is not None
    style = [m["v"] for m in _STYLE_WORD.finditer(said)]
    if len(values) == 1 and start != end:
        aspect, (value,) = ("end" if end else "start"), values.values()
    elif len({re.sub(r"[\s_-]", "", v).lower() for v in style}) == 1 and not start and not end and len(values) <= 1:
        aspect, value = "style", style[0]
    else:
        return None
    # "always use annotations for functions, and start all variable names with 'y_'": the clause giving the value
    clause = next((c for c in re.split(r",?\s+and\s+|;\s+", said) if value in c), said)
    # a kind named only in the scope ("for the CLI module, start function names ...") is not what is named
    unscoped = _SCOPE_PHRASE.sub(" ", clause)
    kind = _kind(unscoped) or _kind(clause) or _kind(said)
    if not kind:
        return None
    # the place is marked apart from the words, so that "include 'chx' in variable names" is another slot; where
    # the rule applies too, so that "for test classes only, start class names with 'tc_'" leaves the general rule
    # (read in the clauses that say a naming rule: "... and import gzip in all my scripts" says where gzip goes)
    naming = " ".join(c for c in re.split(r",?\s+and\s+|;\s+", text)
                      if value in c or _AT_START.search(c) or _AT_END.search(c) or _STYLE_WORD.search(c)) or text
    frame = frozenset(words(kind)) | {"name", f"at:{aspect}"} | _naming_scope(_QUOTED.sub(_kept_if_named, naming), kind)
    # "always use annotations for methods, and start method names with 'x_'": replaced, the other clause stands
    other = [c for c in re.split(r",?\s+and\s+|;\s+", said) if value not in c and len(c.split()) >= 3]
    return Slot(frame=frame, value=value, positive=positive, exclusive=True, sentence=sentence,
                whole=_frame(text, []), compound=bool(other))


@lru_cache(maxsize=1 << 14)
def slot_of(sentence: str) -> Slot | None:
    """The slot one sentence fills, or None when it names no frame worth comparing (questions, hedges, long
    sentences: a slot is stated in a short clause)."""
    if len(sentence) > MAX_SENTENCE:  # a slot is stated in a short clause; a long text costs nothing to refuse
        return None
    if re.search(r"\?[\"'”’)]*$", sentence.strip()):  # a question, in quotes or not, states nothing
        return None
    # "start with 'o_' instead of the previously instructed 'get_'": the value replaced is not a value said
    said = _INSTEAD_OF.sub("", _without_reason(sentence.strip())).strip().rstrip(".!")
    if _PREFER.search(said):  # "we prefer TPUs over GPUs": the one passed over is not a value said
        said = _OVER.sub("", said)
    # "step away from your desk every 80 minutes" is a break; "commit to taking" one is taking it
    said = _KEEPING_TO.sub("", _STEP_AWAY.sub("take a break", said))
    said = _WORK_ON_AS.sub(_used_as, said)  # "work on a Linux desktop as your main machine": used as that
    if (by := _BY_DOING.match(said)) is not None:  # "By prefixing attribute names with 'i_', we signal ...": the
        said = by["doing"]  # convention is what is done; the rest says what it is for
    text = _without_lead_in(said)
    if not text or text.endswith("?"):
        return None
    positive = _NEGATIVE.search(text) is None
    if text != said and (carried := _role_from_lead_in(said[: len(said) - len(text)], text)) is not None:
        role_words, value = carried
        return Slot(frame=frozenset(role_words), value=value, positive=positive, exclusive=_ADDITIVE.search(text) is None,
                    sentence=sentence, whole=_frame(text, []), role=True)
    if (naming := _naming_slot(said, text, positive, sentence)) is not None:
        return naming
    if (when := _ONLY_WHEN.search(text) or _ONLY_DO_WHEN.search(text)) is not None and not _QUOTED.search(text):
        # "communicate with the team only when necessary" / "... only when asked": the condition is the value;
        # "focus on your work and only communicate with the team when asked": what is done only then is the frame
        condition = " ".join(when["v"].split())
        act = when["act"] if "act" in when.groupdict() else text[: when.start()]
        # "focus on your tasks and communicate with the team only when asked": the clause "only" belongs to
        last = re.split(r"(?i),?\s+and\s+", act)[-1]
        act = last if len(last.split()) >= 2 else act
        # "reach out to your colleagues" is "communicate with the team": one act, whatever the team is called
        frame = _frame(_COMMUNICATE.sub("communicate", act), []) - _TEAMMATES
        if len(frame) >= 1:
            return Slot(frame=frame | {"only-when"}, value=condition, positive=positive, exclusive=True,
                        sentence=sentence, whole=_frame(text, []))
    if (place := _WORKPLACE.search(text)) is not None and not _COUNT.search(text) and not _NUMBER.search(text) \
            and _works_there(place, text):
        # "set up your workstation in the common area", "go to the IT room to work": where one works holds one place
        return Slot(frame=frozenset({"workplace"}), value=" ".join(place["v"].split()), positive=positive,
                    exclusive=_ADDITIVE.search(text) is None, sentence=sentence, whole=_frame(text, []), role=True)
    if (named := _APPOSITIVE.search(said)) is not None and not _IN_THE.search(said[: named.start()]) \
            and (called_role := _appositive_role(named)):
        # "our version control system, Bitbucket", "a tool we use for project management: Monday"
        return Slot(frame=frozenset(called_role), value=named["v"], positive=positive,
                    exclusive=_ADDITIVE.search(said) is None, sentence=sentence, whole=_frame(said, []), role=True)
    quoted = [m["v"].strip() for m in _QUOTED.finditer(text)] or _IDENTIFIER.findall(text)
    role = _ROLE.search(text) or _ROLE_FIRST.search(text)
    values: list[str] = []
    exclusive = measured = is_count = False
    role_words = _role_words(role["role"]) if role is not None and not _SCOPE_ONLY.match(role["role"]) else set()
    has_role = bool(role_words)
    if quoted:
        values = quoted
        exclusive = _EXCLUSIVE.search(_QUOTED.sub(" ", text)) is not None or has_role
    elif role is not None and has_role and set(words(role["v"])) - _DIRECTIVE - _WEAK - _GENERIC:
        # "the use of PyCharm as our IDE", "standardize on using Macbooks", "use Zoom going forward"
        values = [_TURNED.sub("", re.sub(r"(?i)^(?:of|using)\s+", "", role["v"].strip())).strip() or role["v"].strip()]
        # the tool used for a role: the role is the slot ("for all your video calls" = "for any video calls");
        # one used as well ("we also use Hypothesis for testing") adds to it
        first_part = re.split(r"\s+(?:and|&)\s+", role["role"], maxsplit=1)[0]
        # "our backend team uses Ruff as the linter": that team's slot, not the frontend team's, nor everyone's
        role_words |= {f"in:team-{w}" for team in _TEAM_SUBJECT.finditer(text[: role.start()])
                       for w in words(team["team"]) if w not in _WHOLE_TEAM}
        return Slot(frame=frozenset(role_words), value=values[0], positive=positive,
                    exclusive=_ADDITIVE.search(text) is None and len(words(values[0])) <= MAX_ROLE_VALUE,
                    sentence=sentence, whole=_frame(text, []), role=True,
                    head=frozenset(_role_words(first_part)) if first_part != role["role"] else frozenset())
    elif (called := _CALLED.search(text)) is not None and (called_role := _role_words(called["role"])):
        # "a new coding assistant we're adopting, called CodeWhisperer": the tool named for its role
        return Slot(frame=frozenset(called_role), value=called["v"], positive=positive,
                    exclusive=_ADDITIVE.search(text) is None and _CALLED_IN_USE.search(text) is not None,
                    sentence=sentence, whole=_frame(text, []), role=True)
    elif (known := _known_tool(text)) is not None:
        # "it's time we made the switch to Zoom": a well-known tool taken up fills its usual role
        return Slot(frame=_FAMILY_FRAME[known[1]], value=known[0], positive=positive,
                    exclusive=_ADDITIVE.search(text) is None, sentence=sentence, whole=_frame(text, []), role=True)
    elif names := _names(text):
        values = names
        exclusive = _EXCLUSIVE.search(text) is not None
    elif numbers := [m for m in _NUMBER.finditer(text) if not _NUMBERED.search(text[: m.start()])]:
        # "PR 57", "Task 5 of the plan", "issue #18" name a thing: no value of a slot
        values = [f"{m['v']} {m['unit'] if m['unit'] and m['unit'].lower() not in _NOT_UNITS else ''}".strip()
                  for m in numbers]
        exclusive = True
        measured = all(m["unit"] and m["unit"].lower() not in _NOT_UNITS for m in numbers)
    elif counted := _COUNT.findall(text):  # "twice a week", "three monitors": a number said in words
        values = counted
        exclusive = True
        is_count = True
    if values and all(_STYLE.match(v) for v in values):
        exclusive = True
    if quoted and all(_SETTING_NAME.search(q) for q in quoted) and (setting := _SET_TO.search(text)) is not None:
        # "set `max_connections` to 100": the quoted name is what is set (the frame), the number its value
        frame = _frame(text, [setting[1]])
        return Slot(frame=frame, value=setting[1], positive=positive, exclusive=True, sentence=sentence,
                    whole=_frame(text, [])) if len(frame) >= 2 else None
    if len({v.casefold() for v in quoted}) > 1:
        # "start argument names with 'h_' and end them with '_j'": the clause that names its subject; "include
        # 'chx' and end the variable name with '_n'": what is added stands, the clause giving an end changes
        for each in quoted:
            if (first := _first_clause(text, each)) is not None:
                return first
    if _ADDITIVE.search(text) or len({v.casefold() for v in quoted}) > 1:
        # what is added accumulates; "start with 'f_' and end with '_g'" holds two slots: it changes neither
        exclusive = False
    frame = _frame(text, values + [v.split()[-1] for v in values if " " in v])
    if is_count:  # "three days a week" / "twice a week": the frame is what is counted, not the unit
        frame -= _COUNT_UNITS
        found = list(_COUNTED_THING.finditer(text))
        things = {words(m["thing"])[0] for m in found if words(m["thing"])}
        if len(counted) == 1 and len(things) == 1 and not things & _NOT_THINGS and _ASKED_FOR.search(sentence):
            # "use a single monitor when coding" / "set up your workstation with two monitors": how many of a
            # thing one works with is one slot, however the rest is said; what it is of stays ("two replicas of
            # the web service" / "three replicas of the worker service")
            whose = re.split(r"(?i)\b(?:when|while|whenever)\b", text[found[0].end():])[0]
            of = {f"of:{w}" for w in words(whose) if w not in _DIRECTIVE | _SCOPE_WORDS}
            return Slot(frame=frozenset({f"count:{things.pop()}"}) | of, value=counted[0], positive=positive,
                        exclusive=_ADDITIVE.search(text) is None, sentence=sentence, whole=_frame(text, []),
                        counted=True)
    if len(frame) < (1 if not values or measured else 2):  # "a break every 60 minutes": the unit says much
        return None
    value = " + ".join(values)
    return Slot(frame=frame, value=value, positive=positive, exclusive=exclusive or not values, sentence=sentence,
                whole=_frame(text, []), counted=is_count,
                unit=" ".join(sorted({_unit(v) for v in values})) if measured else "")


def statement(summary: str, body: str) -> str:
    """What a memory states: its summary, completed from the body when the summary is the start of a longer
    sentence there (a summary cut at 100 characters), its "them" named from the sentence before it when the
    summary alone names no slot ("... a convention for method names. Start them with 'o_'.")."""
    head = summary.strip().rstrip(".").strip()
    if head.endswith(("...", "…")):
        head = head.rstrip(".…").strip()
    at = body.find(head) if len(head) >= 20 else body.find(summary.strip())
    said = summary.strip()
    if at >= 0 and len(head) >= 20:
        rest = re.split(r"(?<=[.!?])\s+|\n", body[at + len(head):], maxsplit=1)[0]
        said = (head + rest).strip()
    if at > 0 and _PRONOUN.search(said) and slot_of(said) is None:
        named = _antecedent(body[:at])
        if named:
            said = _PRONOUN.sub(named, said, count=1)
    return said


#: What stands for a subject named in the sentence before ("start them with 'o_'").
_PRONOUN = re.compile(r"\b(?:them|they|these|those)\b", re.IGNORECASE)
#: The plural noun phrase a sentence ends on, after its last preposition ("... a convention for your method names").
_ANTECEDENT = re.compile(r"\b(?:for|about|to|on|of|regarding)\s+(?:(?:your|our|the|all|my|its|their)\s+)*"
                         r"(?P<np>(?:[\w-]+\s+){0,3}?[\w-]+s)(?:\s+themselves)?"
                         r"(?:\s+(?:from\s+now\s+on|going\s+forward|moving\s+forward))?\s*[.!:]?\s*$",
                         re.IGNORECASE)


def _antecedent(before: str) -> str:
    """The plural noun phrase the sentence just before ends on, or '' (a pronoun's subject, said once)."""
    sentences = re.split(r"(?<=[.!?:])\s+|\n", before.strip())
    last = sentences[-1] if sentences else ""
    m = _ANTECEDENT.search(last) if len(last) <= MAX_SENTENCE else None
    return m["np"] if m is not None else ""


def slots_of(sentence: str) -> tuple[Slot, ...]:
    """Every slot a sentence fills: its one, or one a clause when it joins naming conventions with "and" ("start
    variable names with 'y_' and end them with '_y'": the second clause's "them" is the first's names, and
    "... and function names with 'fn_'" puts its value where the first did), or one a kind when one value is
    given to two kinds' names ("end all function and method names with '_b'")."""
    if (joined := _KINDS_JOINED.search(sentence)) is not None and len(sentence) <= MAX_SENTENCE:
        each = [slot_of(sentence[: joined.start()] + joined[k] + sentence[joined.end():]) for k in ("a", "b")]
        if all(slot is not None and any(w.startswith("at:") for w in slot.frame) for slot in each):
            return tuple(replace(slot, sentence=sentence, compound=True) for slot in each if slot is not None)
    first = slot_of(sentence)
    if first is None:
        return ()
    found = [first]
    at = next((w[3:] for w in first.frame if w.startswith("at:")), "")
    clauses = re.split(r",?\s+and\s+", sentence.strip())
    if not first.compound or not at or len(clauses) > MAX_CLAUSES:
        return tuple(found)
    kind = _kind(clauses[0])
    scope = {w for w in first.frame if w.startswith("scope:")}
    for clause in clauses[1:]:
        if kind:
            clause = re.sub(r"\b(?:them|they|it|their\s+names?)\b", f"{kind} names", clause, count=1)
            if not _KIND.search(clause):  # "when naming attributes, start with 'r_' and end with '_r'"
                clause = f"{clause} in {kind} names"
        if at in ("start", "end") and not _AT_START.search(clause) and not _AT_END.search(clause):
            clause = f"{at} {clause}"
        slot = slot_of(clause)
        if slot is not None and scope and not any(w.startswith("scope:") for w in slot.frame):
            # "for test classes only, start class names with 'tc_' and end them with '_t'": both for test classes
            slot = replace(slot, frame=slot.frame | scope)
        if slot is not None and slot.exclusive and slot.frame not in {f.frame for f in found}:
            found.append(replace(slot, sentence=sentence, compound=True))
    return tuple(found)


#: A sentence joining more clauses than this is read for its first slot only (bounded cost).
MAX_CLAUSES = 4


def slot_change(newer: str, older: str) -> SlotChange | None:
    """The change when statement `newer` gives a slot of statement `older` another value: same frame, both
    exclusive, different values (or one rule turned round); else None."""
    for a in slots_of(newer):
        for b in slots_of(older):
            if (change := _slot_change(a, b, newer)) is not None:
                return change
    a, b = rule_object(newer), rule_object(older)
    if a is not None and b is not None and a.frame == b.frame and a.positive != b.positive \
            and _same_scope(newer, older):
        return SlotChange(a, b)  # "always use a linter" after "avoid using a linter in your code"
    return None


def every_clause_changed(older: str, newer: list[str]) -> bool:
    """Whether the `newer` statements together give every slot of statement `older` another value: a sentence
    stating two ("start attribute names with 'xt_' and end them with '_t'"), each clause replaced in part by a
    later statement, is replaced whole."""
    slots = slots_of(older)
    if len(slots) < 2:
        return False
    changed = {i for said in newer for a in slots_of(said) for i, b in enumerate(slots)
               if _slot_change(a, b, said) is not None}
    return len(changed) == len(slots)


#: The thing a rule says to use or not ("always use a formatter", "avoid using pre-commit hooks"): up to two words
#: after the verb, before where or when it applies.
_RULE_OBJECT = re.compile(
    r"\b(?:use|uses|using|utiliz\w*|utilis\w*|employ(?:s|ed|ing)?\b|rely\s+on|relying\s+on|engag\w*\s+in|practic\w*|"
    r"set\s+up|setting\s+up|incorporat\w*|leverag\w*|embrac\w*|adopt(?:s|ed|ing)?\b|implement(?:s|ed|ing)?\b|"
    r"avoid\w*(?!\s+(?:using|utiliz|employ|relying))|discourag\w*|discontinu\w*|steer\s+clear\s+of|encourag\w*|"
    r"forget\s+about)\s+"
    r"(?:(?:a|an|the|any|your|our|only|of|use|using|consistent)\s+)*"
    r"(?P<obj>[A-Za-z][\w/-]*(?:\s+(?!(?:for|in|on|when|while|to|with|and|or|as|at|from|during|if|unless|because|so|"
    r"but|instead|anymore|any|going|moving|now|here|again|every|each|all|too|either|entirely|completely|altogether|"
    r"over|than|whenever|wherever|consistently|regularly|exclusively|solely|primarily|properly|"
    r"is|are|was|were|will|can|should|might|may|that|which|this)\b)[A-Za-z][\w/-]*)?)", re.IGNORECASE)
#: A rule said as a bare order not to ("Do not engage in pair programming ..."): given, not only mentioned.
_IMPERATIVE_NOT = re.compile(r"(?i)^\W*(?:do\s+not|don'?t)\s+(?!you\b|we\b|i\b|they\b)")
_PRONOUN_OBJECT = frozenset("it them this that these those one ones everyone everybody people".split())
#: Where the clause holding a rule's verb begins: its negation is said in it.
_CLAUSE_START = re.compile(r"[,;:—–]\s*|\s+but\s+", re.IGNORECASE)
_NO_CIRCUMSTANCES = re.compile(r"\b(?:under\s+no\s+circumstances|by\s+no\s+means|in\s+no\s+case)\b", re.IGNORECASE)
#: A rule given, not only mentioned: "I want you to", "please", "always", "make sure".
_ASKED_FOR = re.compile(r"\b(?:always|never|please|make\s+sure|ensure|avoid\w*|refrain\w*|discourag\w*|"
                        r"discontinu\w*|steer\s+clear|want\s+you|need\s+you|"
                        r"like\s+you|expect\s+you|importance|important|from\s+now\s+on|going\s+forward|"
                        r"moving\s+forward|under\s+no\s+circumstances|emphasi[sz]e|advise\w*|recommend\w*|"
                        r"encourag\w*|insist\w*|requir\w*|should|must|policy|policies)\b", re.IGNORECASE)


#: Words that say a rule changed, not where it applies.
_TURNED_WORDS = frozenset(words("now forward going moving longer anymore instead"))


def _rule_rest(sentence: str) -> str:
    """What a sentence says after the thing its rule verb names, within its clause."""
    for m in _RULE_OBJECT.finditer(sentence):
        return _CLAUSE_START.split(sentence[m.end("obj"):])[0]
    return ""


def _rule_scope(sentence: str) -> tuple[bool, frozenset[str]]:
    """Whether a sentence's rule verb builds something (adopt, implement), and the words of where it applies."""
    for m in _RULE_OBJECT.finditer(sentence):
        rest = _CLAUSE_START.split(sentence[m.end("obj"):])[0]
        return re.match(r"(?i)adopt|implement", m[0]) is not None, \
            frozenset(words(rest)) - _DIRECTIVE - _TURNED_WORDS - _SCOPE_WORDS
    return False, frozenset()


#: Words of when a rule applies that say nothing of where ("whenever you write code" / "when writing code").
_WHEN_WORDS = frozenset(words("when whenever while wherever if you your we our write writing written wrote"))


#: Where a rule applies is said after one of these ("in integration tests", "for the billing service"); "into your
#: daily routine" or "with your colleagues" says how, not where.
_RULE_PLACE = re.compile(r"(?i)\b(?:in|on|for|within|inside|across|under)\s+(?P<place>(?:(?!(?:in|on|for|with|into|to|when|"
                         r"whenever|while|if|and|or|so|because|but|as)\b)[\w'-]+\s*){1,4})")
_GENERAL_PLACES = frozenset(words("all any every each daily routine workflow day days time development programming "
                                  "coding python"))


def _scope_key(rest: str) -> frozenset[str]:
    """Where a rule applies (the words after "in", "for", "on" ...), each by its first five letters ("writ",
    "test"); general places ("all your projects", "your daily work", "your Python code") left out."""
    found = {w for m in _RULE_PLACE.finditer(rest) for w in words(m["place"])}
    return frozenset(w[:5] for w in found - _WHEN_WORDS - _DIRECTIVE - _SCOPE_WORDS - _TURNED_WORDS - _GENERAL_PLACES)


def _same_scope(newer: str, older: str) -> bool:
    """A rule turns another round only where both apply the same (one where's words in the other's, or one said
    for no place): "never use mocks in integration tests" leaves "always use mocks in unit tests" standing, and
    "implement retries in the SDK" is a task of the SDK, not the gateway's rule."""
    (built_a, a), (built_b, b) = _rule_scope(newer), _rule_scope(older)
    if built_a or built_b:
        return a <= b or b <= a
    a, b = _scope_key(_rule_rest(newer)), _scope_key(_rule_rest(older))
    return a <= b or b <= a


def rule_object(sentence: str) -> Slot | None:
    """The rule a sentence gives to use (or not) one thing, as a slot whose frame is that thing: "never use a VPN"
    and "always use a VPN when working remotely" are one rule turned round. None for a pronoun or no such verb."""
    if len(sentence) > MAX_SENTENCE or not (_ASKED_FOR.search(sentence) or _IMPERATIVE_NOT.match(sentence)):
        return None
    for m in _RULE_OBJECT.finditer(sentence):
        obj = frozenset(_undoubled(w) for w in words(m["obj"]))
        if not obj or m["obj"].split()[0].lower() in _PRONOUN_OBJECT or obj <= _DIRECTIVE | _SCOPE_WORDS:
            continue
        clause = _CLAUSE_START.split(sentence[: m.start("obj")])[-1]  # the verb too: "stop using", "avoiding"
        positive = _NEGATIVE.search(clause) is None and _NO_CIRCUMSTANCES.search(clause) is None
        return Slot(frame=obj, value="", positive=positive, exclusive=True, sentence=sentence, whole=obj)
    return None


def _slot_change(a: Slot, b: Slot, newer: str) -> SlotChange | None:
    """Slot `a` of the newer statement (all of it: `newer`) changes slot `b` of the older, or None."""
    if a.positive != b.positive:  # turned round: "never use a whiteboard for brainstorming" -> "always use one"
        # said as a change ("from now on", "no longer"): a bare opposite is a conflict for the user to settle
        return SlotChange(a, b) if _same_rule(a.whole, b.whole) and _TURNED.search(newer) else None
    if not _same_frame(a, b) or not (a.exclusive and b.exclusive) or a.rule or b.rule or not a.positive:
        return None
    if a.frame != b.frame and a.role and b.role and "" != _tool_family(a) != _tool_family(b) != "":
        # roles in other words matched (an acronym, a family) for tools of two kinds: GitLab "as your VCS" is not
        # Zoom "as our video conferencing software"; one role said alike may pass between kinds (Slack after Zoom
        # "for daily standups")
        return None
    if any(w.startswith("scope:lang:") for w in a.frame) and not any(w.startswith("scope:lang:") for w in b.frame):
        return None  # "In TypeScript, start ..." after the rule said for no language: that rule holds elsewhere

    if same_value(a.value, b.value) or _refines(a.value, b.value):
        return None
    if a.counted and b.counted and _number(a.value) == _number(b.value):  # "twice" = "two times"
        return None
    return SlotChange(a, b)


#: A rule said with this many words more (where or when it applies: "in your Python code") is the same rule.
MAX_RULE_EXTRA = 2


def _same_rule(a: frozenset[str], b: frozenset[str]) -> bool:
    """The same rule, one said with a little more of where it applies ("never use a linter" / "use a linter for
    your Python code"); two words at least in common when neither holds the other whole."""
    if a == b:
        return len(a) >= 2
    small, large = sorted((a, b), key=len)
    return bool(small) and small <= large and len(large - small) <= MAX_RULE_EXTRA


#: A rule of more words than this is paired by its whole only (bounded keys: ten at most).
MAX_RULE_KEYS = 4
#: A role of more words than this is paired by its whole frame only (bounded keys).
MAX_ROLE_KEYS = 5
#: A role said more fully holds the other's words, at least this many ("video calls" in "video calls and meetings").
MIN_ROLE_WORDS = 2
#: A count's frames said with a word more or less still share this many words ("work from home ... a week").
MIN_COUNT_WORDS = 2


#: A measure said with this many words more of how to keep it is the same measure ("set a timer and ...").
MAX_MEASURE_EXTRA = 3
#: How one keeps a measure, not what it measures: "set a timer or a reminder to take a short break every 50 minutes"
#: is the break's measure.
_KEEPING = frozenset(words("set timer reminder alarm short brief taking"))


#: Roles one tool fills said in other words: what a team talks in, meets in, tracks work in, versions code in,
#: writes code in, works on. A role all of whose words (but its modifiers) are one family's is that role.
#: Each family: (its words, the words of which a role must hold one: "calls" alone may be phone calls).
_ROLE_FAMILIES = {
    "talk": (frozenset(words("communication communicate interaction messaging message chat discussion conversation")),
             frozenset(words("communication communicate interaction messaging message chat discussion conversation"))),
    "meet": (frozenset(words("video call meeting conference conferencing")),
             frozenset(words("video meeting conference conferencing"))),
    "track": (frozenset(words("project management task tracking ticket issue")),
              frozenset(words("management tracking ticket"))),
    "version": (frozenset(words("version control system vcs repository source")),
                frozenset(words("version vcs repository"))),
    "write": (frozenset(words("ide editor integrated development environment")), frozenset(words("ide editor integrated"))),
    "machine": (frozenset(words("computer machine laptop desktop workstation development")),
                frozenset(words("computer machine laptop desktop workstation"))),
    "assist": (frozenset(words("assistant assistance completion autocomplete ai")),
               frozenset(words("assistant completion autocomplete"))),
}
#: A role family said in its plainest words: the frame of a well-known tool taken up without naming its role.
_FAMILY_FRAME = {"talk": frozenset(words("communication")), "meet": frozenset(words("video call")),
                 "track": frozenset(words("project management")), "version": frozenset(words("version control")),
                 "write": frozenset(words("ide")), "assist": frozenset(words("assistant"))}
#: Well-known tools of one role each (a tool of two roles, such as Microsoft Teams, is left out: its role must be
#: said). World knowledge a person reading "switch to Zoom" brings; matched on a whole name only ("GitHub Actions"
#: is not GitHub).
_KNOWN_TOOLS = {name.lower(): family for family, names in {
    "meet": ("Zoom", "Skype", "Google Meet", "Webex", "GoToMeeting", "Jitsi", "BlueJeans", "Whereby"),
    "talk": ("Slack", "Discord", "Mattermost", "Rocket.Chat", "Zulip", "Telegram", "WhatsApp", "Element"),
    "track": ("Jira", "Asana", "Trello", "Monday", "Monday.com", "Linear", "ClickUp", "YouTrack", "Basecamp",
              "Notion", "Wrike", "Shortcut", "Pivotal Tracker"),
    "version": ("GitHub", "GitLab", "Bitbucket", "Mercurial", "Subversion", "SVN", "Perforce", "Gitea"),
    "write": ("VSCode", "VS Code", "Visual Studio Code", "PyCharm", "IntelliJ", "IntelliJ IDEA", "Vim", "Neovim",
              "Emacs", "Sublime Text", "Atom", "Eclipse", "Spyder", "Zed", "Helix", "WebStorm", "Xcode"),
    "assist": ("Copilot", "GitHub Copilot", "TabNine", "Tabnine", "CodeWhisperer", "Amazon CodeWhisperer", "Codestral",
               "Codeium", "Cody", "Cursor"),
}.items() for name in names}


def _known_tool(text: str) -> tuple[str, str] | None:
    """(tool, role family) when a sentence that asks for something takes up exactly one well-known tool; else None."""
    if not (_ASKED_FOR.search(text) or _TURNED.search(text) or re.search(rf"\b{_USE}\b", text, re.IGNORECASE)):
        return None
    found = {(name, _KNOWN_TOOLS[name.lower()]) for name in _names(text) if name.lower() in _KNOWN_TOOLS}
    return found.pop() if len(found) == 1 else None
#: Words that only say whose or how much of a role: "internal communication", "all team communication".
_ROLE_MODIFIERS = frozenset(words("internal external team day-to-day daily everyday regular quick general online "
                                  "remote company-wide most"))


def _family(frame: frozenset[str]) -> str:
    """The family every word of a role (but its modifiers) belongs to, when it holds one of its anchors; or ''."""
    plain = {w for w in frame if not w.startswith("in:")} - _ROLE_MODIFIERS
    found = [name for name, (family, anchors) in _ROLE_FAMILIES.items() if plain and plain <= family and plain & anchors]
    return found[0] if len(found) == 1 else ""


def _same_frame(a: Slot, b: Slot) -> bool:
    """One frame; or one role said more or less fully: the one's words in the other's, at least MIN_ROLE_WORDS
    of them, and the same place ("for testing in the legacy service" stays that service's slot)."""
    if a.frame == b.frame:
        return True
    lang_a = {w for w in a.frame if w.startswith("scope:lang:")}
    lang_b = {w for w in b.frame if w.startswith("scope:lang:")}
    if lang_a != lang_b:
        # a rule for one language leaves another's; said for no language, it is for the language the other names
        return not (lang_a and lang_b) and _same_frame(replace(a, frame=a.frame - lang_a),
                                                       replace(b, frame=b.frame - lang_b))
    if a.counted and b.counted:  # "work from home no more than twice a week" / "... three days a week for your role"
        return len(a.frame & b.frame) >= MIN_COUNT_WORDS and len(a.frame ^ b.frame) <= MAX_RULE_EXTRA
    if a.unit and a.unit == b.unit:  # "a break every 60 minutes" / "a short break every 50 minutes"
        if bool(a.frame & b.frame) and len(a.frame ^ b.frame) <= 1:
            return True
        # "set a timer and take a short break every 80 minutes": the same measure said with how to keep it
        # (the words more only from another clause, one without a number: "limit commit subjects to 50 characters"
        # is not "limit lines to 100 characters")
        small, large = sorted((a, b), key=lambda slot: len(slot.frame))
        aside = {w for c in re.split(r",?\s+and\s+|;\s+", large.sentence) if not re.search(r"\d", c)
                 for w in _frame(c, [])}
        extra = large.frame - small.frame
        if small.frame <= large.frame and extra <= aside | _KEEPING:  # "set a reminder to take a short break"
            return len(extra) <= MAX_MEASURE_EXTRA
        return len(small.frame & large.frame) >= 1 and len(small.frame - large.frame) <= 1 \
            and len(extra) <= MAX_MEASURE_EXTRA and extra <= aside
    if not (a.role and b.role):
        return False
    if 1 in (len(a.frame), len(b.frame)) and _initials(a.frame) and _initials(a.frame) == _initials(b.frame):
        # an acronym and the words it stands for: "VCS" = "version control system"
        return True
    plain_a = {w for w in a.frame if not w.startswith("in:")}
    plain_b = {w for w in b.frame if not w.startswith("in:")}
    if a.frame - plain_a != b.frame - plain_b:
        return False
    if _family(a.frame) and _family(a.frame) == _family(b.frame):  # "internal communication" / "chat"
        return True
    if _tools_family(a, b):  # "Emacs as your main development environment" / "VSCode as your IDE"
        return True
    small, large = sorted((plain_a, plain_b), key=len)
    if len(small - {"work"}) >= MIN_ROLE_WORDS and small <= large:  # "work events" is one word of role
        return True
    # "video calls and messaging" / "video calls and conferences": the role both name first is the same
    return len(plain_a & plain_b) >= MIN_ROLE_WORDS and bool(a.head) and a.head == b.head and \
        len(a.head) >= MIN_ROLE_WORDS


def _tool_family(slot: Slot) -> str:
    """The role family of the well-known tool a role slot names as its whole value ("Zoom", not "Zoom and Slack"), or ''."""
    value = re.sub(r"(?i)^(?:an?|the|our|your)\s+", "", slot.value.strip())
    return _KNOWN_TOOLS.get(value.lower(), "") if slot.role else ""


def _tools_family(a: Slot, b: Slot) -> bool:
    """Two well-known tools of one kind, each used for a role in other words, fill one role: "GitHub as our main
    platform" after "GitLab as our VCS", Zoom "for team meetings and client interactions" after Google Meet "for
    video conferencing". At least one role is plainly that kind's (or both share a word), and neither is another
    kind's ("GitHub for issue tracking" is no version control)."""
    family = _tool_family(a)
    if not family or family != _tool_family(b):
        return False
    kinds = (_family(a.frame), _family(b.frame))
    plain_a = {w for w in a.frame if not w.startswith("in:")} - _ROLE_MODIFIERS
    plain_b = {w for w in b.frame if not w.startswith("in:")} - _ROLE_MODIFIERS
    return all(kind in ("", family) for kind in kinds) and (family in kinds or bool(plain_a & plain_b))


def _initials(frame: frozenset[str]) -> str:
    """A role's letters in order of the alphabet: an acronym's ("vcs"), or its words' first letters ("version
    control system"); '' for a role with a place or of one long word."""
    if any(w.startswith("in:") for w in frame):
        return ""
    if len(frame) == 1:
        (word,) = frame
        return "".join(sorted(word)) if 2 <= len(word) <= 5 and word.isalpha() else ""
    return "".join(sorted(w[0] for w in frame)) if len(frame) <= 5 else ""


def _unit(value: str) -> str:
    """The unit of a measured value, singular ("60 minutes" -> "minute")."""
    unit = value.split()[-1].lower() if " " in value else re.sub(r"^[\d.,]+", "", value).lower()
    return unit[:-1] if unit.endswith("s") and len(unit) > 2 else unit


def _number(value: str) -> str:
    """A count said in words as its number ("twice" -> "2", "a single" -> "1")."""
    return " + ".join(_COUNT_VALUE.get(v.strip().lower(), v.strip().lower()) for v in value.split("+"))


def _refines(a: str, b: str) -> bool:
    """One value is the other said more fully ("structlog with JSON output" / "structlog"): no new value."""
    wa, wb = set(words(a)), set(words(b))
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def frame_keys(summary: str, body: str) -> tuple[frozenset[str], ...]:
    """What pairs a memory with the earlier statements of its slot: its frame when it gives an exclusive slot a
    value, and its whole frame (value left in), which a rule turned round shares."""
    keys = []
    said = statement(summary, body)
    for slot in slots_of(said):
        keys.append(("whole", slot.whole))
        if 1 < len(slot.whole) <= MAX_RULE_KEYS:  # the same rule said with a little more of where it applies
            keys += [("whole", frozenset(part)) for k in range(max(1, len(slot.whole) - MAX_RULE_EXTRA),
                                                               len(slot.whole))
                     for part in combinations(sorted(slot.whole), k)]
        if slot.exclusive and slot.value and slot.positive:
            keys.append(("frame", slot.frame))
            if language := {w for w in slot.frame if w.startswith("scope:lang:")}:  # "... in Python" / said for none
                keys.append(("frame", slot.frame - language))
            if (slot.counted and MIN_COUNT_WORDS < len(slot.frame) <= MAX_ROLE_KEYS) or (
                    slot.unit and 1 < len(slot.frame) <= MAX_ROLE_KEYS):  # paired by most of the frame
                keys += [("frame", frozenset(part)) for part in combinations(sorted(slot.frame), len(slot.frame) - 1)]
            if slot.unit and len(slot.frame) <= MAX_ROLE_KEYS:  # "a break" in "set a timer and take a break"
                keys += [("measure", frozenset({word, slot.unit})) for word in slot.frame]
            plain = sorted(w for w in slot.frame if not w.startswith("in:"))
            if slot.role and _initials(slot.frame):
                keys.append(("acronym", frozenset({_initials(slot.frame)})))
            if slot.role and (family := _family(slot.frame)):  # "video conferencing" / "video calls"
                keys.append(("family", frozenset({family})))
            if family := _tool_family(slot):  # "GitHub as our main platform" / "GitLab as our VCS"
                keys.append(("family", frozenset({family})))
            if slot.role and MIN_ROLE_WORDS < len(plain) <= MAX_ROLE_KEYS:  # "video calls" in "... and meetings"
                place = slot.frame - set(plain)
                keys += [("frame", frozenset(pair) | place) for pair in combinations(plain, MIN_ROLE_WORDS)]
    if (rule := rule_object(said)) is not None:  # the same thing, said to use or not
        keys.append(("object", rule.frame))
    return tuple(dict.fromkeys(frozenset({f"{kind}:{w}" for w in key}) for kind, key in keys))


def same_value(a: str, b: str) -> bool:
    """The same value, whatever its case or quotes ('_xt' / `_xt`)."""
    return a.casefold().strip(" '\"`") == b.casefold().strip(" '\"`")
