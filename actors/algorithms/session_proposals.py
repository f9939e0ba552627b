"""The offline proposer: memories worth keeping, read from a session's turns without a model.

Conservative by design. It proposes only a complete statement that someone
made as a memory: an explicit marker (`[decision] ...`, `▶ learned ───`
blocks, `:::blocker` blocks, the markers git-notes-memory's users already
type), a decision the user states ("let's use uv for dependencies", "from now
on we ...", "we decided to ..."), a lesson the user states ("turns out ...",
"TIL ..."), a blocker the user names, and a labelled conclusion of the agent
("Decision: ...", "Root cause: ...", "The root cause was ..."). Never a
question, a plan still hedged, a status update, a transient error, code, or
the agent narrating its work; never a sentence cut to fit (a statement longer
than a summary is kept only when its first clause stands alone).

Each proposal carries four of the five confidence factors; novelty comes from
comparing it with the store (`novelty_of`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memactors.actors.algorithms.change_claim import changes
from memactors.events.chatter import chatter
from memactors.events.memory_text import prose_lines

SUMMARY_CHARS = 100
CONTENT_CHARS = 800
MIN_WORDS = 4

_MARKER_NS = {
    "decision": "decisions", "decided": "decisions", "learned": "learnings", "learning": "learnings",
    "til": "learnings", "remember": "learnings", "blocker": "blockers", "blocked": "blockers",
    "pattern": "patterns", "progress": "progress", "research": "research",
}
_INLINE_MARKER = re.compile(r"^[\s>]*\[(" + "|".join(_MARKER_NS) + r")\]\s*[:\-–—]?\s*(.+)$", re.IGNORECASE)
_BLOCK_START = re.compile(r"^\s*(?:▶\s*(" + "|".join(_MARKER_NS) + r")\s*[─━-]+[ \t]*(.*)|:::\s*("
                          + "|".join(_MARKER_NS) + r")\s*)$", re.IGNORECASE)
_BLOCK_END = re.compile(r"^\s*(?:[─━]{3,}|:::)\s*$")
_LABEL = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?(decision|key\s+decision|we\s+decided|learning|key\s+learning|lesson"
                    r"(?:\s+learned)?|root\s+cause|gotcha|blocker|rule|convention)(?:\*\*)?\s*[:—–-]\s*(?:\*\*)?\s*"
                    r"(.+)$", re.IGNORECASE)
_LABEL_NS = {"decision": "decisions", "key decision": "decisions", "we decided": "decisions",
             "learning": "learnings", "key learning": "learnings", "lesson": "learnings", "lesson learned": "learnings",
             "root cause": "learnings", "gotcha": "learnings", "blocker": "blockers", "rule": "patterns",
             "convention": "patterns"}
#: What the user says when deciding; the group is dropped from the summary ("Let's use uv" -> "Use uv").
_USER_DECISION = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|right|so|yes|yeah|good|great|fine|cool)[,.!]?\s+)?(?:"
    r"(let'?s|let\s+us)\s+(?=(?:use|go\s+with|switch|move|keep|stick|standardi[sz]e|adopt|drop|pin|replace|store|"
    r"put|make|require|target|support|run|ship|cap|limit|stop)\b)"
    r"|(we'?ll|we\s+will|we'?re\s+going\s+to|we\s+are\s+going\s+to)\s+(?=(?:use|go\s+with|switch|keep|stick|"
    r"standardi[sz]e|adopt|drop|pin|store|require|target|support|stop)\b)"
    r"|(?=we(?:'ve|\s+have)?\s+decided\b|i(?:'ve|\s+have)?\s+decided\b|we'?re\s+going\s+with\b|we\s+are\s+going\s+with\b"
    r"|decision\s+is\b|the\s+decision\b)"
    r"|(from\s+now\s+on|going\s+forward|in\s+this\s+(?:repo|repository|project|codebase)),?\s+(?=\w)"
    r"|(?=(?:always|never)\s+\w+)"
    r"|(?=(?:we|this\s+project|the\s+project)\s+(?:always|never|only)\s+\w+)"
    r")", re.IGNORECASE)
_USER_LEARNING = re.compile(
    r"^(?:(til|fyi|note\s+to\s+self|lesson\s+learned|heads\s+up)\s*[:,—-]?\s+"
    r"|(?=(?:it\s+)?turns\s+out\b|i\s+(?:just\s+)?(?:learned|found\s+out|realised|realized)\b"
    r"|we\s+(?:learned|found\s+out)\b|the\s+(?:root\s+)?cause\s+(?:was|is)\b)"
    r"|(remember|keep\s+in\s+mind|note|don'?t\s+forget)\s+that\s+)",
    re.IGNORECASE)
#: A user's imperative that names a change ("Switch the test runner from nose to pytest").
_CHANGE_VERB = re.compile(r"^(?:please\s+)?(?:switch|move|migrate|replace|drop|stop\s+using|upgrade|downgrade)\b",
                         re.IGNORECASE)
_USER_BLOCKER = re.compile(r"\b(?:we'?re|we\s+are|i'?m|i\s+am|this\s+is|it'?s)\s+(?:still\s+)?(?:blocked|stuck)\s+"
                           r"(?:on|by)\b|\bblocked\s+(?:on|by|until)\b", re.IGNORECASE)
_AGENT_LEARNING = re.compile(r"^(?=the\s+root\s+cause\s+(?:was|is)\b|(?:it\s+)?turns\s+out\b)", re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:maybe|perhaps|might|could\s+we|should\s+we|what\s+if|not\s+sure|i\s+think\s+we\s+could"
                    r"|probably|consider(?:ing)?|wondering|how\s+about|do\s+you\s+think|for\s+now|for\s+the\s+moment"
                    r"|temporar(?:y|ily)|right\s+now|this\s+session|today|later\s+today|tomorrow|try\s+to)\b",
                    re.IGNORECASE)
_STATUS = re.compile(r"^(?:i'?ve|i\s+have|we'?ve\s+(?:finished|completed|fixed|done|merged)|all\s+tests?|tests?\s+"
                     r"(?:are\s+)?(?:pass|green)|done\b|finished\b|completed\b|it\s+works|that\s+worked|thanks|thank\s+you)",
                     re.IGNORECASE)
#: A report of one failure (transient), not a rule about failures ("every error must exit non-zero").
_ERROR = re.compile(r"\b(?:traceback|exception:|error:|errno|exited\s+with|exit\s+(?:code|status)\s+\d+|stack\s+trace"
                    r"|segfault|failed\s+with)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[])")
_CLAUSE_CUT = re.compile(r"\s+(?:because|since|as|so\s+that|so|which|—|--|-)\s+|;\s+|:\s+|,\s+(?:because|since|so|"
                         r"which|but)\s+", re.IGNORECASE)
_RATIONALE = re.compile(r"^(?:because|this|that|it|the\s+reason|so\s+|otherwise|which|reason:|why:)", re.IGNORECASE)
_SPECIFIC = re.compile(r"`[^`]+`|\b\w*\d\w*\b|\b\w+[./_]\w+|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z]{2,}\b|--[\w-]+")


@dataclass(frozen=True)
class SessionTurn:
    """A turn as the proposer reads it."""

    uuid: str
    role: str
    text: str
    line: int


@dataclass(frozen=True)
class RawProposal:
    """A statement worth proposing, before the store is consulted (novelty) and the screen applied."""

    namespace: str
    summary: str
    content: str
    line: int
    uuid: str
    relevance: float
    actionability: float
    specificity: float
    coherence: float
    cue: str


def _capitalised(text: str) -> str:
    text = text.strip().strip("*").strip()
    return text[:1].upper() + text[1:] if text else text


def _ended(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", ")", "`")) else text + "."


def fit_summary(statement: str) -> str | None:
    """`statement` as a summary of at most SUMMARY_CHARS: whole, or its first clause when that stands alone;
    None when neither fits."""
    text = _ended(" ".join(statement.split()))
    if len(text) <= SUMMARY_CHARS:
        return text
    found: str | None = None
    for match in _CLAUSE_CUT.finditer(text):
        head = text[:match.start()].rstrip(",;:—- ")
        if len(head) + 1 > SUMMARY_CHARS:
            break
        if len(head.split()) >= MIN_WORDS and head.count("(") == head.count(")") and head.count("`") % 2 == 0:
            found = _ended(head)
    return found


def _specificity(text: str) -> float:
    return min(1.0, 0.4 + 0.15 * len(_SPECIFIC.findall(text)))


def _statement_ok(sentence: str) -> bool:
    words = sentence.split()
    if len(words) < MIN_WORDS or "?" in sentence or _HEDGE.search(sentence) or _ERROR.search(sentence):
        return False
    if _STATUS.match(sentence):
        return False
    return chatter(sentence) is None


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, the rest of its paragraph) for every prose sentence of `text`."""
    out: list[tuple[str, str]] = []
    for line, heading in prose_lines(text):
        if heading:
            continue
        parts = [p.strip() for p in _SENTENCE.split(line) if p.strip()]
        for i, part in enumerate(parts):
            out.append((part, " ".join(parts[i + 1:])))
    return out


def _content(statement: str, rest: str) -> str:
    """The statement with the sentence after it when that gives its reason."""
    content = _ended(statement)
    follow = _SENTENCE.split(rest, maxsplit=1)[0].strip() if rest else ""
    if follow and _RATIONALE.match(follow) and "?" not in follow:
        content = f"{content} {follow}"
    return content[:CONTENT_CHARS]


def _proposal(namespace: str, statement: str, rest: str, turn: SessionTurn, *, relevance: float,
              actionability: float, cue: str) -> RawProposal | None:
    statement = _capitalised(" ".join(statement.split()))
    if not _statement_ok(statement):
        return None
    summary = fit_summary(statement)
    if summary is None or chatter(summary) is not None:
        return None
    content = _content(statement, rest)
    coherence = 1.0 if summary == _ended(statement) else 0.85
    return RawProposal(namespace=namespace, summary=summary, content=content, line=turn.line, uuid=turn.uuid,
                       relevance=relevance, actionability=actionability, specificity=_specificity(content),
                       coherence=coherence, cue=cue)


def _explicit(turn: SessionTurn) -> list[RawProposal]:
    """Marked memories: inline `[decision] text` and `▶ decision ───` / `:::decision` blocks."""
    found: list[RawProposal] = []
    lines = turn.text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        inline = _INLINE_MARKER.match(line)
        block = _BLOCK_START.match(line)
        if inline:
            namespace = _MARKER_NS[inline.group(1).lower()]
            parts = [p.strip() for p in _SENTENCE.split(inline.group(2)) if p.strip()]
            if parts:
                made = _proposal(namespace, parts[0], " ".join(parts[1:]), turn, relevance=0.95,
                                 actionability=0.85, cue="marker")
                if made:
                    found.append(made)
        elif block:
            namespace = _MARKER_NS[(block.group(1) or block.group(3)).lower()]
            body: list[str] = [block.group(2)] if block.group(2) else []
            i += 1
            while i < len(lines) and not _BLOCK_END.match(lines[i]):
                body.append(lines[i])
                i += 1
            sentences = _sentences("\n".join(body))
            if sentences:
                first, _ = sentences[0]
                made = _proposal(namespace, first, " ".join(s for s, _ in sentences[1:3]), turn, relevance=0.95,
                                 actionability=0.85, cue="block")
                if made:
                    found.append(made)
        i += 1
    return found


def _user(turn: SessionTurn) -> list[RawProposal]:
    found: list[RawProposal] = []
    for sentence, rest in _sentences(turn.text):
        decision = _USER_DECISION.match(sentence)
        if decision:
            dropped = next((g for g in decision.groups() if g), None)
            statement = sentence[decision.end():] if dropped else sentence
            general = bool(re.match(r"(?:from\s+now\s+on|going\s+forward|in\s+this)", dropped or "", re.IGNORECASE))
            made = _proposal("decisions", statement, rest, turn, relevance=0.85,
                             actionability=0.95 if general or re.match(r"(?:always|never)\b", statement, re.I)
                             else 0.85, cue="user decision")
            if made:
                found.append(made)
            continue
        if _CHANGE_VERB.match(sentence) and changes(sentence):
            made = _proposal("decisions", sentence, rest, turn, relevance=0.85, actionability=0.9,
                             cue="user change")
            if made:
                found.append(made)
            continue
        learning = _USER_LEARNING.match(sentence)
        if learning:
            statement = sentence[learning.end():]
            made = _proposal("learnings", statement, rest, turn, relevance=0.85, actionability=0.75,
                             cue="user learning")
            if made:
                found.append(made)
            continue
        if _USER_BLOCKER.search(sentence):
            made = _proposal("blockers", sentence, rest, turn, relevance=0.8, actionability=0.7, cue="user blocker")
            if made:
                found.append(made)
    return found


def _agent(turn: SessionTurn) -> list[RawProposal]:
    found: list[RawProposal] = []
    for sentence, rest in _sentences(turn.text):
        label = _LABEL.match(sentence)
        if label:
            kind = " ".join(label.group(1).lower().split())
            statement = label.group(2).strip().strip("*").strip()
            if kind == "root cause" and not re.match(r"(?:the|a|an)\b", statement, re.IGNORECASE):
                statement = f"The root cause was {statement[:1].lower()}{statement[1:]}"
            made = _proposal(_LABEL_NS[kind], statement, rest, turn, relevance=0.85,
                             actionability=0.85 if _LABEL_NS[kind] != "learnings" else 0.8, cue="agent label")
        elif _AGENT_LEARNING.match(sentence):
            made = _proposal("learnings", sentence, rest, turn, relevance=0.8, actionability=0.75,
                             cue="agent learning")
        else:
            continue
        if made:
            found.append(made)
    return found


def propose(turns: Sequence[SessionTurn]) -> list[RawProposal]:
    """Every statement in `turns` worth proposing, in order, each summary once."""
    out: list[RawProposal] = []
    seen: set[str] = set()
    for turn in turns:
        made = _explicit(turn)
        if not made:
            made = _user(turn) if turn.role == "user" else _agent(turn)
        for proposal in made:
            key = " ".join(proposal.summary.casefold().split())
            if key not in seen:
                seen.add(key)
                out.append(proposal)
    return out


def novelty_of(best_similarity: float) -> float:
    """Novelty from the relevance of the most similar memory already kept (0.3 or less: wholly new)."""
    return max(0.0, min(1.0, (1.0 - best_similarity) / 0.7))
