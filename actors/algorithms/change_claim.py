"""What a memory says it replaced, and whether an older memory asserts that very thing. Pure, standard library only.

A change names what it replaces: "switch linting from flake8 to ruff", "replace A with B", "B replaces A",
"A -> B" (the summary's own, single arrow: not a row of a mapping table), "B instead of A" (not a fault explained:
"were using A instead of B"), "now B, not A" (a contrast with no word of change claims nothing), "no longer A",
"dropped A", "A is deprecated / gone", "moved off A". An older memory that itself speaks of the old and the new
("detect both old and new patterns") weighs both and is not replaced by "from the old A".
`changes` reads every such claim of a text (the old side `A`, the new side `B`, the subject `X` when the
sentence names one) and skips plans, questions, hedges and refusals ("we might replace", "should we switch?",
"considered replacing ...; rejected"). `replaced_in` says which claim an older memory answers: the older text
holds A (every number of it, at least half of its words), is about the same subject (X's words, or two words
in common, or a name such as flake8 or PostgreSQL), is not scoped elsewhere ("in the load-test script" against
"for outgoing HTTP calls"), asserts A rather than replacing it itself, and does not already write B's own name
(an older note giving the "correct" refspec the change adopts agrees with it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(r"\.?[A-Za-z0-9][A-Za-z0-9_.+/*:-]*[A-Za-z0-9*]|\.?[A-Za-z0-9]")
_STOP = frozenset(
    "a an the and or but of to in on at by for from with into onto as is are was were be been being it its this "
    "that these those there their them they we our us you your i me my he she his her all any some each every "
    "no not now longer new old also just only then than so such very more most less one ones use uses used using "
    "run runs running ran keep keeps kept do does did done has have had make makes made go goes went gone get gets "
    "got will would should could can may might must after all instead which what when where who how why here "
    "still yet again everything anything nothing something everywhere stays stay".split())
_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")
_HEDGE = re.compile(
    r"\b(?:might|may|could|would|should|consider\w*|maybe|perhaps|possibly|if|whether|unless|plan(?:s|ned|ning)?\s+to"
    r"|propos\w*|suggest\w*|want\s+to|wants\s+to|thinking\s+about|reject\w*|evaluat\w*|tried|try|trying|won't|"
    r"wouldn't|didn't|don't|doesn't|do\s+not|did\s+not|does\s+not|never|not\s+(?:yet|going)|option|idea)\b",
    re.IGNORECASE)
_VERB_FROM_TO = (r"switch(?:ed|ing|es)?|mov(?:e|ed|es|ing)|migrat(?:e|ed|es|ing)|chang(?:e|ed|es|ing)|convert(?:ed|ing)?"
                 r"|port(?:ed|ing)?|upgrad(?:e|ed|ing)|downgrad(?:e|ed|ing)|bump(?:ed|ing)?|rais(?:e|ed|ing)"
                 r"|lower(?:ed|ing)?|cut|reduc(?:e|ed|ing)|increas(?:e|ed|ing)|revert(?:ed|ing)?|transition(?:ed)?"
                 r"|went|go(?:ne)?")
_RETIRE = (r"dropped|drop|abandoned|abandon|stopped\s+using|stop\s+using|removed|remove|retired|retire|ditched|ditch"
           r"|deprecated|deprecate|got\s+rid\s+of|left")
#: (pattern, whether the text before the verb is the subject X). Named groups: a (old), b (new), x (subject).
_PATTERNS: tuple[tuple[re.Pattern[str], bool], ...] = tuple((re.compile(p, re.IGNORECASE), x) for p, x in (
    # "moving on to ...", "going forward": a turn of talk, not a move ("moving on: add the decorator from the
    # 'pedantic' module to all your classes" moves nothing from the module)
    (rf"^(?P<x>.*?)\b(?:{_VERB_FROM_TO})\b(?!\s+(?:on|forward|ahead|along)\b)(?P<x2>.*?)\bfrom\s+(?P<a>.+?)\s+"
     rf"(?:to|into|onto)\s+(?P<b>.+)$", True),
    (rf"^(?P<x>.*?)\b(?:{_VERB_FROM_TO})\s+off\s+(?:of\s+)?(?P<a>.+?)(?:\s+(?:to|onto|for|in\s+favou?r\s+of)"
     rf"\s+(?P<b>.+))?$", True),
    (r"\breplac(?:e|ed|ing)\s+(?P<a>.+?)\s+(?:with|by)\s+(?P<b>.+)$", False),
    # "httpx replaces requests"; a memory's own "Replaces SQLite." names what it replaces too
    (r"^(?:(?P<b>.+?)\s+)?(?:replaces|replaced|replace|supersedes|superseded)\s+(?P<a>.+)$", False),
    (r"^(?P<a>.+?)\s+(?:is|was|were|are|has\s+been|have\s+been|got)\s+(?:replaced|superseded)\s+(?:by|with)"
     r"\s+(?P<b>.+)$", False),
    (r"\breplacing\s+(?P<a>.+)$", False),
    (r"^(?P<a>[^:]+?)\s*(?:->|→|=>)\s*(?P<b>.+)$", False),
    (r"^(?P<b>.+?)\s+instead\s+of\s+(?P<a>.+)$", False),
    (r"^(?P<b>.+?),\s+not\s+(?P<a>[^,]+)$", False),
    (r"^(?P<x>.*?)\bno\s+longer\s+(?P<a>.+)$", True),
    (r"^(?P<a>.+?)\s+(?:(?:is|are|was|were|has\s+been|have\s+been)\s+)?(?:dropped|deprecated|removed|gone"
     r"|retired|abandoned|decommissioned)\b(?!\s+(?:from|to|by)\b)(?P<b>)", False),
    (rf"^(?P<x>.*?)\b(?:{_RETIRE})\s+(?P<a>.+?)(?:\s+(?:in\s+favou?r\s+of|for|to)\s+(?P<b>.+))?$", True),
))
_SETTING = re.compile(
    r"^(?P<x>.*?)\b(?:lower|rais|increas|reduc|bump|cut|chang|set|doubl|halv)(?:e|ed|d|es|s|ing)?\s+(?P<x2>.+?)"
    r"\s+to\s+(?P<b>\d[\d.,]*(?:\s*(?:%|[a-z]+))?)\b", re.IGNORECASE)
_NUMBER_UNIT = re.compile(r"(?<![\w.])(\d[\d.,]*)\s*(%|[a-z]+)?", re.IGNORECASE)
#: Where an old side ends: what follows is why or where, not what was replaced.
#: ("stop using it moving forward": when, not what; what is left, "it", names nothing)
_WHEN_ON = r"|\s+(?:(?:moving|going)\s+forward|from\s+now\s+on|for\s+good|any\s*more)\b"
_CLAUSE_END = re.compile(r"[,(:]" + _WHEN_ON)
_A_END = re.compile(r"\s+(?:for|in|on|at|because|as|so|since|with|when|after|but|which|that|due|until)\s+|[,(:]"
                    + _WHEN_ON)
_SCOPE = re.compile(r"\b(?:in|for|on|within|inside)\s+(?:the\s+|our\s+|a\s+|all\s+)?"
                    r"(?P<scope>(?:(?!(?:instead|of|to|from|with|on|in|for|and|or|because)\b)[\w.'/-]+\s*){1,3})",
                    re.IGNORECASE)
_DIGIT = re.compile(r"\d")
#: Words to compare by their first letters: deploy / deployment, embedding / embeddings.
PREFIX = 5


_OLD = re.compile(r"\b(?:old|legacy|previous|former)\b", re.IGNORECASE)
_NEW = re.compile(r"\b(?:new|current|modern)\b", re.IGNORECASE)
_ARROW = re.compile(r"->|→|=>")
#: A contrast claims a change only when it says so ("now through Cloudflare, not CloudFront").
_CHANGE_MARKER = re.compile(r"\b(?:now|from\s+now\s+on|going\s+forward|any\s*more|these\s+days|switched|moved|"
                            r"changed|no\s+longer)\b", re.IGNORECASE)
#: "B instead of A" explaining a fault: past use, a cause, a bug.
_EXPLAINS = re.compile(r"\b(?:was|were|had\s+been|because|caus\w*|occur\w*|bug|fail\w*|broke\w*|wrong\w*|"
                       r"mistak\w*|accidental\w*)\b", re.IGNORECASE)


def _kind(pattern: re.Pattern[str]) -> str:
    if "->" in pattern.pattern:
        return "arrow"
    if "instead" in pattern.pattern:
        return "instead"
    if ",\\s+not" in pattern.pattern:
        return "contrast"
    return ""


@dataclass(frozen=True)
class Change:
    """One change a text claims: `old` replaced by `new` (empty when unnamed), about `subject` (may be empty)."""

    old: str
    new: str
    subject: str
    sentence: str
    #: a setting given a new value ("lower the context budget to 2000 tokens"): the old value is whatever
    #: other number an older memory gives the same setting
    setting: bool = False
    #: how it was said: "arrow" (A -> B), "contrast" (B, not A), "instead" (B instead of A), or "" (a verb)
    kind: str = ""

    def names(self) -> str:
        return f"'{self.old}'" + (f" -> '{self.new}'" if self.new else "")


def _norm(token: str) -> str:
    token = token.lower().strip(".:")
    if token.isalpha() and len(token) > 3 and token not in _STOP:
        for suffix in ("ings", "ing", "ies", "sses", "xes", "ches", "shes", "ed", "s"):
            if token.endswith(suffix) and len(token) - len(suffix) >= 3 and not token.endswith("ss"):
                token = token[: -len(suffix)] + {"ies": "y", "sses": "ss", "xes": "x", "ches": "ch", "shes": "sh"}.get(
                    suffix, "")
                break
    return token


@lru_cache(maxsize=1 << 16)
def words(text: str) -> tuple[str, ...]:
    """Content words of `text`, normalised (lowercase, light stem), stop words out."""
    return tuple(w for w in (_norm(t) for t in _TOKEN.findall(text) if t.lower() not in _STOP) if w and w not in _STOP)


#: Words of a back-reference that names nothing ("a change from our previous convention", "what we discussed
#: earlier"): the change is said, what it replaced is not, so no older memory can be found asserting it by words.
_BACK_REFERENCE = frozenset(_norm(w) for w in (
    "previous earlier prior former old last original existing usual current before convention conventions "
    "discussion discussions conversation instruction instructions guideline guidelines approach rule rules practice "
    "practices policy standard standards way advice recommendation agreement decision guidance direction preference "
    "arrangement suggestion talk what said told discussed mentioned agreed asked").split())


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    if _DIGIT.search(a) or _DIGIT.search(b):
        return False
    return len(a) >= PREFIX and len(b) >= PREFIX and a[:PREFIX] == b[:PREFIX]


def holds(pool: set[str], word: str) -> bool:
    """Whether `pool` (normalised words) holds `word` or a word of the same stem (its first letters)."""
    return word in pool or any(_same(word, w) for w in pool)


def _name_like(raw: str, at_start: bool) -> bool:
    """flake8, PostgreSQL, all-MiniLM-L6-v2, .env, a capitalised word inside a sentence."""
    core = raw.strip(".:")
    return (bool(_DIGIT.search(core)) or any(c in core for c in "-_./+*") or any(c.isupper() for c in core[1:])
            or (core[:1].isupper() and not at_start))


def _clean_old(text: str, cut: bool) -> str:
    text = text.strip().strip("\"'`")
    end = (_A_END if cut else _CLAUSE_END).search(text)
    text = text[: end.start()] if end else text
    return text.strip(" .;:'\"`")


@lru_cache(maxsize=1 << 14)
def changes(text: str) -> tuple[Change, ...]:
    """Every change `text` claims, in order (see the module docstring); plans, questions and hedges claim none.
    Cached: a run asks about the same memories' texts for many pairs."""
    found: list[Change] = []
    for sentence in (s.strip() for s in _SPLIT.split(text)):
        if not sentence or sentence.endswith("?") or _HEDGE.search(sentence):
            continue
        for clause in re.split(r";\s+|\s+—\s+", sentence):
            claim = _claim(clause)
            if claim is not None:
                found.append(claim)
    return tuple(found)


def _claim(clause: str) -> Change | None:
    """The change one clause claims: after a "Topic: " lead (the topic is its subject), else in the whole clause."""
    readings = [("", clause)]
    if ": " in clause:
        topic, _, rest = clause.partition(": ")
        readings.insert(0, (topic, rest))
    for topic, rest in readings:
        for pattern, has_subject in _PATTERNS:
            match = pattern.search(rest.rstrip("."))
            if match is None:
                continue
            groups = match.groupdict()
            old = _clean_old(groups["a"] or "", cut="no longer" not in match.group(0).lower())
            if not words(old) or set(words(old)) <= _BACK_REFERENCE \
                    or re.match(r"\w+ing\b", old) and not _name_like(old.split()[0], True) \
                    or re.match(r"(?:from|to|by)\b", old, re.IGNORECASE):
                continue  # "instead of failing at once": an action; "dropped from 70 to 6": a number, not a thing
            kind = _kind(pattern)
            if kind == "contrast" and not _CHANGE_MARKER.search(clause):
                continue  # "runs on user prompts, not assistant output": a contrast, not a change
            if kind == "instead" and _EXPLAINS.search(groups.get("b") or ""):
                continue  # "the commands were using A instead of B": a bug described, not a change made
            subject = " ".join(p for p in (topic, groups.get("x") or "", groups.get("x2") or "") if p) \
                if has_subject else topic
            return Change(old=old, new=_clean_old(groups.get("b") or "", cut=False), subject=subject.strip(),
                          sentence=clause, kind=kind)
    setting = _SETTING.search(clause.rstrip("."))
    if setting is not None and " from " not in clause:
        subject = f"{setting['x']} {setting['x2']}".strip()
        if len(words(subject)) >= 2:
            return Change(old="", new=setting["b"], subject=subject, sentence=clause, setting=True)
    return None


def _other_value(change: Change, older_words: set[str], older_text: str) -> str | None:
    """The value an older memory gives the setting `change` sets: another number in the same unit, when it
    holds the setting's words (at least two, and half of them) and not the new value."""
    wanted = words(change.subject)
    held = [w for w in wanted if holds(older_words, w)]
    new = _NUMBER_UNIT.match(change.new)
    if new is None or len(held) < max(2, (len(wanted) + 1) // 2):
        return None
    values = [(m[1].rstrip(".,"), (m[2] or "").lower()) for m in _NUMBER_UNIT.finditer(older_text)]
    unit = (new[2] or "").lower()
    if any(v == new[1] for v, _ in values):
        return None
    other = [f"{v} {u}".strip() for v, u in values if (u == unit or not unit or not u)]
    return other[0] if other else None


def asserted(text: str) -> str:
    """`text` without its questions and hedged sentences: what it asserts ("Should we switch from Poetry?" does
    not assert Poetry)."""
    return "\n".join(s for s in _SPLIT.split(text) if s.strip() and not s.strip().endswith("?")
                     and not _HEDGE.search(s))


def _scopes(text: str) -> list[list[str]]:
    """The words of each place a text scopes itself to ("in the webhook load-test script")."""
    return [found for m in _SCOPE.finditer(text) if (found := words(m["scope"]))]


@dataclass(frozen=True)
class Match:
    """Which claim of the newer memory the older one answers, and the words that tie them."""

    change: Change
    old_words: tuple[str, ...]
    subject_words: tuple[str, ...]

    def reason(self) -> str:
        tie = ", ".join(self.subject_words) or "the same name"
        if self.change.setting:
            return (f"sets {self.change.subject} to {self.change.new}; the older memory gives it "
                    f"{self.old_words[0]} (matched: {tie})")
        return (f"says it replaced {self.change.names()}; the older memory asserts it "
                f"(matched: {', '.join(self.old_words)}; subject: {tie})")


_PART = re.compile(r"[A-Za-z0-9_-]+")


def _states_new(change: Change, older_text: str) -> bool:
    """Whether the older memory already writes the new value of a changed name ("refs/notes/origin/mem/*" in
    "+refs/notes/mem/*:refs/notes/origin/mem/*" after "refs/notes/mem/*"): the parts of the new side's names that
    the old side lacks, each found inside a name the older memory writes."""
    old_parts = {p.lower() for p in _PART.findall(change.old)}
    # the sentence, not the parsed new side: a name's colon may have cut that short ("+refs/notes/mem/*")
    names = [t for t in _TOKEN.findall(change.new or change.sentence) if any(c in t for c in "/:*")]
    names += [t for t in _TOKEN.findall(change.sentence) if any(c in t for c in "/:*") and change.new
              and change.new.strip("`'\"+") in t]
    own = {p.lower() for t in names for p in _PART.findall(t)} - old_parts
    held = {p.lower() for t in _TOKEN.findall(older_text) if any(c in t for c in "/:*") for p in _PART.findall(t)}
    return bool(names) and bool(own) and own <= held


def replaced_in(newer_summary: str, newer_text: str, older_summary: str, older_text: str) -> Match | None:
    """The change claimed by the newer memory (summary + prose) that the older one asserts, or None."""
    older_words = set(words(asserted(older_text)))
    older_head = set(words(older_summary))
    own = [w for c in changes(older_summary) for w in words(c.old)]
    arrows = len(_ARROW.findall(newer_text))
    for change in changes(newer_text):
        if change.kind == "arrow" and (arrows > 1 or change.sentence not in newer_summary):
            continue  # a row of a mapping table ("[project] -> PROJECT"), not the memory's claim
        if change.setting:
            value = _other_value(change, older_words, asserted(older_text))
            if value is not None:
                return Match(change, (value,), tuple(w for w in words(change.subject) if holds(older_words, w)))
            continue
        wanted = words(change.old)
        held = [w for w in wanted if holds(older_words, w)]
        numbers = [w for w in wanted if _DIGIT.search(w)]
        if len(held) * 2 < len(wanted) or any(n not in older_words for n in numbers):
            continue
        if own and sum(holds(set(own), w) for w in held) * 2 >= len(held):
            continue  # the older memory itself replaced that thing: it does not assert it
        if _OLD.search(change.old) and _OLD.search(older_text) and _NEW.search(older_text):
            continue  # "detect both old and new patterns": the older memory weighs the old and the new itself
        new_words = set(words(_clean_old(change.new, cut=True)))  # the new thing itself, not where it went
        if _states_new(change, older_text):
            continue  # "Correct code: +refs/.../origin/...": the older memory already says the new value
        focus = set(words(newer_summary)) | set(words(change.sentence)) | {
            w for s in _SPLIT.split(newer_text) if new_words and new_words & set(words(s)) for w in words(s)}
        subject = words(change.subject)
        if subject:
            tie = [w for w in subject if holds(older_words, w)]
            if not tie and not (older_head and all(holds(set(wanted), w) for w in older_head)):
                continue  # the older memory is about something else; unless all it says is the thing ("Use MySQL 5.7")
        else:
            tie = sorted({w for w in older_head if holds(focus, w)})
            raw = [t for t in _TOKEN.findall(change.old)]
            named = any(_name_like(t, i == 0 and change.sentence.lstrip().startswith(t)) and holds(older_words, _norm(t))
                        for i, t in enumerate(raw))
            if len(tie) < 2 and not named:
                continue
        elsewhere = any(not any(holds(older_words, w) for w in scope) for scope in _scopes(change.sentence))
        own_place = any(not any(holds(focus, w) for w in scope) for scope in _scopes(older_summary))
        if elsewhere and own_place:
            continue  # each names its own scope: "in the load-test script" is not "for outgoing HTTP calls"
        return Match(change, tuple(dict.fromkeys(held)), tuple(dict.fromkeys(tie)))
    return None
