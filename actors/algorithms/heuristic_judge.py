"""The offline supersession judge: precision first, evidence named in every reason.

- Only statements take part. A memory that asserts nothing (a fragment, heading, table row, code, timestamp,
  checklist, the agent's narration, a lead-in) never supersedes and is never superseded: it can only be a copy,
  or be contained by a statement that holds all its words.
- A newer knowledge memory (decision, learning, ...) supersedes an older one only when it names what it replaced
  and the older one asserts that thing about the same subject (actors/algorithms/change_claim.py); a change
  word alone is no evidence.
- A progress note supersedes an earlier one only on the same task of the same area at the same or a later state
  (actors/algorithms/task_progress.py).
- A newer statement gives an older one's slot another value, or turns its rule round
  (actors/algorithms/slot_change.py): the update people make without naming the old value.
- A newer note records the same piece of work further along (a spec approved after review, a PR merged, a
  counter or task row moved on, what remained done): actors/algorithms/lifecycle.py; a front matter or task row
  cut from a file takes part here, its fields being what it asserts; a decision is carried out, not replaced.
- A memory reporting a problem fixed supersedes the standing problem it names (actors/algorithms/resolution.py).
- A later learning naming the cause of a thing's failure replaces one that explained it otherwise, and a note
  moving numbers ("1500→1700, 2500→2800") replaces in part the line stating the old values
  (actors/algorithms/revision.py); a retraction ("I was wrong when I said ...") replaces what it takes back.
- Near-identical statements (the same numbers, cosine >= RESTATEMENT, or every word of one in the other) are one
  statement: the one holding the other subsumes it.
Verdicts carry `provider="offline"` and modest confidence. It never says `contradictory` without an explicit
negation of the other memory's claim: the words after "do not" / "never" / "avoid" in one must be what the other
states (`negated_claim`), not any negation anywhere in a body.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memactors.actors.algorithms.change_claim import replaced_in, words
from memactors.actors.algorithms.lifecycle import is_record, later_stage
from memactors.actors.algorithms.resolution import resolved_in_body, resolved_problem, written_with_fix
from memactors.actors.algorithms.revision import numbers_changed, retracted, revised_diagnosis
from memactors.actors.algorithms.slot_change import same_value, slot_change, slot_of, statement
from memactors.actors.algorithms.task_progress import later_state
from memactors.events.memory import Memory
from memactors.events.memory_text import prose_lines
from memactors.events.verdict import Relation, Verdict

NEGATION = re.compile(r"\b(do not|don't|never|must not|avoid|stop using|not use)\b", re.IGNORECASE)
#: A negated clause is read for its first this many content words; this share of them must be asserted by the other.
NEGATED_WORDS = 5
NEGATED_SHARE = 0.75
#: A shorter negated clause ("in metric labels") is a fragment of a claim, not one.
NEGATED_MIN = 3
_FILLER = frozenset("the and for with that this use using from into are was were will can its".split())
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
_NUMBER = re.compile(r"\d")
#: Near-identical: one restates the other.
RESTATEMENT = 0.93
#: Namespaces whose memories record work in flight: superseded by a later state of the same task, not by claims.
WORK = frozenset({"progress", "blockers"})
#: What was decided: a learning (why a bug happened, how a thing behaves) explains a decision, it never replaces one.
DECIDED = frozenset({"decisions", "patterns"})
#: What was decided ("Approved the spec for implementation") stays true when the work moves on: later stages
#: replace the notes that tracked it, never the decision.
STAGED = frozenset({"decisions"})
#: The offline rules' version, recorded with each run: a run after a change of rules judges every pair worth judging
#: again, not only those of new memories (bumped whenever what the heuristic decides changes).
RULES = 13
#: How much of a body the judge reads: a hostile note costs bounded time.
MAX_TEXT = 4000
#: A named replacement, a later state of a task, a restatement: how sure the heuristic is (docs/consolidation.md).
CONFIDENCE = 0.6
#: How sure it is that a pair where one memory asserts nothing holds no supersession.
NOT_A_CLAIM = 0.9


def prose(memory: Memory) -> str:
    """The memory's summary and the prose of its body (code, tables and markers set aside), bounded."""
    return _prose(memory.summary, memory.body[:MAX_TEXT])


def raw(memory: Memory) -> str:
    """The memory's summary and body as written (front matter and tables kept), bounded."""
    return f"{memory.summary}\n{memory.body[:MAX_TEXT]}"


@lru_cache(maxsize=1 << 14)
def _prose(summary: str, body: str) -> str:
    lines = "\n".join(line for line, _ in prose_lines(body))  # a heading is no sentence's start
    return f"{summary}\n{lines}"


def _tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(text.casefold()))


def family(namespace: str) -> str:
    return "work" if namespace in WORK else "knowledge"


def negated_claim(denier: str, asserter: str) -> str | None:
    """The words after a negation in `denier` ("do not use Redis for session caching") that `asserter` states
    outside any negation of its own, or None. Most of the clause's first content words must be in the other
    text, and the other must not deny it too: a body that says "must not ship an order twice" denies nothing a
    memory about webhook retries asserts."""
    asserted = set(_content(_without_negated(asserter)))
    denied_too = set(_content(" ".join(_negated_clauses(asserter))))
    for clause in _negated_clauses(denier):
        said = _content(clause)[:NEGATED_WORDS]
        held = [w for w in said if w in asserted]
        # the other denying any of it too reads as agreement (precision first)
        if len(said) >= NEGATED_MIN and len(held) >= NEGATED_SHARE * len(said) and not denied_too & set(said):
            return " ".join(clause.split()[:8])
    return None


def _negated_clauses(text: str) -> list[str]:
    return [re.split(r"[.;:!?,\n]", text[m.end():], maxsplit=1)[0] for m in NEGATION.finditer(text)]


def _content(text: str) -> list[str]:
    """Content words cut to their first five letters ("stored" meets "store", "sessions" meets "session")."""
    return [w[:5] for w in _TOKEN.findall(text.casefold()) if len(w) >= 3 and w not in _FILLER]


def _without_negated(text: str) -> str:
    """`text` with every negated clause taken out (what it asserts, not what it denies)."""
    return re.sub(NEGATION.pattern + r"[^.;:!?,\n]*", " ", text, flags=re.IGNORECASE)


#: Share of the shorter statement's words the other must hold for two alike memories to be one statement.
STATEMENT_OVERLAP = 0.6


def _same_statement(new_says: str, old_says: str) -> bool:
    """Whether two memories alike by embedding state the same thing: their statements (summaries, completed from
    the body), not a body they share: two instructions given in one turn are two memories."""
    a, b = set(words(new_says)), set(words(old_says))
    if not a or not b:
        return True
    return len(a & b) >= STATEMENT_OVERLAP * min(len(a), len(b))


def _different_slots(new_says: str, old_says: str) -> bool:
    """Two statements about different slots ("function argument names" / "function names"), or the same slot
    with different values: however alike they read, neither restates the other."""
    a, b = slot_of(new_says), slot_of(old_says)
    return a is not None and b is not None and (a.frame != b.frame or not same_value(a.value, b.value)
                                                 or a.positive != b.positive)


def judge_pair(newer: Memory, older: Memory, similarity: float, *,
               statements: tuple[bool, bool] = (True, True)) -> Verdict:
    """Classify `newer` against `older`; `statements` says whether each asserts something (see the module)."""
    base = {"newer": newer.key, "older": older.key, "provider": "offline"}
    new_text, old_text = prose(newer), prose(older)
    # what each states: its summary, completed from the body when cut (read once for every rule below)
    new_says = statement(newer.summary, newer.body[:MAX_TEXT])
    old_says = statement(older.summary, older.body[:MAX_TEXT])
    new_tokens, old_tokens = _tokens(new_text), _tokens(old_text)
    new_claims, old_claims = statements
    new_raw, old_raw = raw(newer), raw(older)
    # a front matter, counter or task row cut from a file asserts its fields: it takes part in this rule only
    if older.namespace not in STAGED and (new_claims or is_record(new_raw)) and (old_claims or is_record(old_raw)) \
            and (later := later_stage(new_raw, old_raw)) is not None:
        return Verdict(**base, relation=Relation.SUPERSEDES, partial=later.partial, confidence=CONFIDENCE,
                       reason=later.reason)
    # what a retraction takes back is replaced, even a fragment cut from a longer note
    if (taken_back := retracted(new_raw, old_raw, abs(newer.timestamp - older.timestamp))) is not None:
        return Verdict(**base, relation=Relation.SUPERSEDES, confidence=CONFIDENCE, reason=taken_back.reason)
    if not (new_claims and old_claims):
        if new_claims and old_tokens and old_tokens <= new_tokens:
            return Verdict(**base, relation=Relation.SUBSUMES, container=newer.key, confidence=CONFIDENCE,
                           reason="the older memory asserts nothing of its own and every word of it is in the newer")
        if old_claims and new_tokens and new_tokens <= old_tokens:
            return Verdict(**base, relation=Relation.SUBSUMES, container=older.key, confidence=CONFIDENCE,
                           reason="the newer memory asserts nothing of its own and every word of it is in the older")
        which = "neither memory asserts" if not (new_claims or old_claims) else \
            ("the newer memory asserts" if not new_claims else "the older memory asserts")
        return Verdict(**base, relation=Relation.COMPATIBLE, confidence=NOT_A_CLAIM,
                       reason=f"{which} nothing that can replace or be replaced (a fragment, heading, table row, "
                              "code, narration or lead-in)")
    fixed = resolved_problem(newer.summary, older.summary, older.namespace) or resolved_in_body(
        new_text, older.summary, older.namespace)
    if fixed is not None and not written_with_fix(older.namespace, abs(newer.timestamp - older.timestamp)):
        return Verdict(**base, relation=Relation.SUPERSEDES, confidence=CONFIDENCE,
                       reason=f"reports fixed the problem the older memory states (matched: {', '.join(fixed)})")
    moved = numbers_changed(new_raw, old_raw)
    if moved is not None:
        return Verdict(**base, relation=Relation.SUPERSEDES, partial=moved.partial, confidence=CONFIDENCE,
                       reason=moved.reason)
    if newer.namespace == older.namespace == "learnings" and (revised := revised_diagnosis(
            newer.summary, older.summary, abs(newer.timestamp - older.timestamp))) is not None:
        return Verdict(**base, relation=Relation.SUPERSEDES, confidence=CONFIDENCE, reason=revised.reason)
    same_family = family(newer.namespace) == family(older.namespace)
    if same_family and family(newer.namespace) == "work":
        task = later_state(newer.summary, older.summary)
        if task is not None:
            return Verdict(**base, relation=Relation.SUPERSEDES, confidence=CONFIDENCE,
                           reason=f"a later note on {task} (same task, same or later state)")
    elif same_family and not (newer.namespace == "learnings" and older.namespace in DECIDED):
        match = replaced_in(newer.summary, new_text, older.summary, old_text)
        if match is not None:
            return Verdict(**base, relation=Relation.SUPERSEDES, confidence=CONFIDENCE, reason=match.reason())
        slot = slot_change(new_says, old_says)
        if slot is not None:
            return Verdict(**base, relation=Relation.SUPERSEDES, partial=slot.partial, confidence=CONFIDENCE,
                           reason=slot.reason())
    if similarity >= 0.6 and (denied := negated_claim(new_text, old_text) or negated_claim(old_text, new_text)):
        return Verdict(**base, relation=Relation.CONTRADICTORY, confidence=0.4,
                       reason=f"one memory negates what the other asserts: \"{denied}\"")
    if _different_slots(new_says, old_says):
        return Verdict(**base, relation=Relation.COMPATIBLE, confidence=CONFIDENCE,
                       reason="both stand: they state different slots or values (the words around the value differ)")
    same_numbers = {t for t in new_tokens if _NUMBER.search(t)} == {t for t in old_tokens if _NUMBER.search(t)}
    one_statement = _same_statement(new_says, old_says)
    if same_numbers and one_statement and (similarity >= RESTATEMENT or (old_tokens and old_tokens <= new_tokens)):
        return Verdict(**base, relation=Relation.SUBSUMES, container=newer.key, confidence=CONFIDENCE,
                       reason=f"near-identical content (cosine {similarity:.2f}); the newer restates the older")
    if same_numbers and one_statement and new_tokens and new_tokens <= old_tokens:
        return Verdict(**base, relation=Relation.SUBSUMES, container=older.key, confidence=CONFIDENCE,
                       reason="the older memory already says everything the newer one does")
    return Verdict(**base, relation=Relation.COMPATIBLE, confidence=CONFIDENCE,
                   reason="both stand: the newer names nothing it replaced that the older asserts")
