"""Links worth following between memories, from evidence the store holds. Pure.

Two memories are linked when they share what few other memories share: names and rare words (at least three,
weighted by how rare: a word most memories hold says nothing, and normalised by what each memory holds; a file's
name, and the words only it says, only while at most `RARE_FILE_NAME` memories name it, as specs from one template
share its files), or a file (one both name, or one changed by the commits both hang on, weighted as the file
signal weighs it: a busy commit with many memories says little). Shared words alone tie two uses of Redis or two
indexes on different tables, so with embeddings a pair must also mean alike: the weight is the mean of the two
memories' cosine and their evidence, at least `MIN_WEIGHT`; no pair below `MIN_SIMILARITY` is linked, nor a
restatement (at least `RESTATEMENT`, or two that each hold nearly every word of the other's summary). Each memory
keeps its `MAX_PER_MEMORY` strongest links.

A shared file ties two pieces of work only when they were done together (the same commit, or captured within
`SAME_WORK` of each other): across sessions a busy module is touched by unrelated changes, so there the pair needs
words too. One commit is one piece of work only within `SAME_COMMIT_SPAN`: HEAD can sit on a commit for days
(on the plugin's public store, the captures on one commit span up to six days), and captures a day apart are
read as on different commits. Words across commits say less: two progress notes of different work share its labels (a task id, a
phase, a spec's front matter) and are not linked at all; any other pair needs `CROSS_COMMIT_WEIGHT` (on the
plugin's public store, links across commits were right 50 times in 112, progress pairs 25 in 76).

What a file says is weighed too: a file alone (no shared words) ties two memories only when at most
`FILE_ALONE_HOLDERS` memories hold it (a module every finding of a code review touched ties findings that have
nothing else in common), and two progress notes captured from one file (both tagged with it: the entries of a
checklist or progress file) are different tasks, which that file does not tie; nor does a file alone tie two
memories whose summaries each name their own ticket (a finding or issue id: "PERF-H-002", "ARCH-H-001", "#28")
and none in common: two findings of one review that touched one module. A memory that asserts nothing of its own
(its summary is the agent narrating, a lead-in, an empty template title such as "Summary of decision", or a
checklist tick; or its text has the agent narrating its next step, "Let me update the command") is linked to
nothing: what it shares with others is a template's or a transcript's words. These rules were chosen on the
plugin's public store's edge labels (no held-out part).

The type is read from what the two are (conservative: `relates_to` unless the text says more):
- implements: a progress note, later than the decision, about the decision's subject (writing a spec before it
  is approved carries nothing out);
- depends_on: the newer says it needs / requires / depends on / is blocked on what the older's summary names (at
  least `NEEDS_NAMED` of the words right after the cue are words of that summary);
- supports: a learning about a decision's subject that says it is the reason ("this is why", "which is why");
- extends: the newer says it adds to the subject ("also", "in addition", "on top of").
The newer memory is the source (a progress note or a learning the source against a decision).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from numpy.typing import NDArray

from memactors.actors.algorithms.change_claim import words
from memactors.actors.algorithms.file_signal import Subject, file_links
from memactors.actors.algorithms.heuristic_judge import family
from memactors.events.chatter import chatter
from memactors.events.edge import EdgeType

#: A link weaker than this is not kept: the mean of the pair's cosine and its evidence (see discover_links).
MIN_WEIGHT = 0.4
#: Rare words two memories must share for the words to count as evidence.
MIN_SHARED_WORDS = 3
#: A shared file weighing less than this for either memory (a busy commit's README) is no evidence.
MIN_FILE_EVIDENCE = 0.2
#: Two memories less alike than this (cosine of their embeddings) are not linked.
MIN_SIMILARITY = 0.45
#: Two memories this alike say the same thing twice (a block capture and the explicit one): the clusterer and the
#: judge relate those (copies, summaries, supersession); a link would only repeat them.
RESTATEMENT = 0.9
#: A memory whose summary's words are this share of another's words restates it (see `RESTATEMENT`).
RESTATED_SHARE = 0.75
#: Two memories captured this close together (or on one commit) are one piece of work: a file both touch ties them.
SAME_WORK = timedelta(hours=1)
#: Memories on one commit captured further apart than this are not one piece of work (see the module).
SAME_COMMIT_SPAN = timedelta(days=1)
#: Words of the older's summary the clause after "needs" / "requires" must name for a depends_on.
NEEDS_NAMED = 2
#: A link between memories on different commits needs at least this weight (see the module).
CROSS_COMMIT_WEIGHT = 0.47
#: Links kept per memory, strongest first.
MAX_PER_MEMORY = 5
#: Words kept per memory for matching (its rarest): bounds the work on long bodies.
MAX_WORDS = 60
#: A shared file held by more memories than this is discounted (it ties too much together).
CROWDED_FILE = 3
#: A file alone (no shared words) ties two memories only when at most this many memories hold it (on the plugin's
#: public store, file-only links through files held by more were right 1 time in 5).
FILE_ALONE_HOLDERS = 12
#: A file's name is a rare word only while at most this many memories name it: specs written from one template
#: share its file names (REQUIREMENTS.md, ARCHITECTURE.md, DECISIONS.md), whatever they specify.
RARE_FILE_NAME = 8
#: What a summary line that asserts nothing is (events/chatter.py); a heading names a section and may stand.
_NOTHING = frozenset({"narration", "lead-in", "empty title", "checklist"})
_DEPENDS = re.compile(r"(?i)\b(?:depends? on|requires?|needs?|relies? on|built on|blocked (?:on|by)|waits? (?:on|for)"
                      r"|only (?:after|once))\b")
_SUPPORTS = re.compile(r"(?i)\b(?:this|that|which) is why\b|\bthe reason (?:we|for)\b|\bconfirms?\b|\bproves?\b")
_EXTENDS = re.compile(r"(?i)\b(?:also|in addition|additionally|on top of|as well)\b")
_DECISIONS = frozenset({"decisions"})
#: The block markers' labels ("▶ learned ───"): a capture's form, not its content.
_MARKERS = frozenset(words("decision learned blocker progress pattern remember"))
_PROGRESS = frozenset({"progress"})
#: A block capture's marker line ("▶ progress ─────"): no part of what the summary says.
_BLOCK_MARKER = re.compile(r"^\s*(?:▶|[─━-]{3,})")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: A word that names a file ("requirements.md", "docker/compose.yaml:46").
_FILE_NAME = re.compile(r"[\w./-]*\w\.[a-z][a-z0-9]{0,7}(?::[\d-]+)?")
#: A ticket a summary names: a finding or issue id ("PERF-H-002", "CRIT-001", "PROJ-12") or an issue number ("#28",
#: "issue 28"); a plan's task and phase numbers are parts of one piece of work, not tickets.
_TICKET = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d{2,}\b|(?<![\w#])#\d+\b|\b(?i:issue)\s+#?\d+\b")
_LEARNINGS = frozenset({"learnings", "research", "patterns"})


@dataclass(frozen=True)
class Candidate:
    """One memory as link discovery reads it (a statement: readable, well formed)."""

    key: str
    namespace: str
    first_seen: datetime
    summary: str
    text: str
    commit: str = ""
    tags: Sequence[str] = ()


@dataclass(frozen=True)
class FoundLink:
    source: str
    target: str
    edge_type: EdgeType
    weight: float
    reason: str


def vocabulary(candidate: Candidate) -> frozenset[str]:
    """The words and names a candidate is matched on (its body's headings left out)."""
    found: set[str] = set()
    # a body's headings ("## Details", "## Next step") are the capture's template, not its subject
    text = "\n".join(line for line in candidate.text.splitlines() if not line.lstrip().startswith("#"))
    for word in words(text):
        if len(word) < 3 or word.isdigit():
            continue
        found.add(word)
        if any(c in word for c in "./"):  # app/payments/webhooks.py also says webhooks.py and payments
            found.update(p for p in re.split(r"[./]", word) if len(p) >= 4 and not p.isdigit())
    return frozenset(found)


def discover_links(candidates: Sequence[Candidate], *, commit_files: Mapping[str, Sequence[str]] | None = None,
                   repo_files: Iterable[str] = (), captures: Mapping[str, int] | None = None,
                   excluded: Iterable[frozenset[str]] = (),
                   vectors: NDArray[np.float32] | None = None,
                   vocabularies: Sequence[frozenset[str]] | None = None,
                   focus: Collection[int] | None = None) -> list[FoundLink]:
    """The links among `candidates`, strongest first; pairs in `excluded` (already related, or a link the user
    removed) are skipped. `captures` counts every memory on each commit (see file_signal.file_links);
    `vectors[i]`, when given, is candidate i's unit embedding: a pair less alike than `MIN_SIMILARITY` is no
    link whatever words or files it shares (two uses of Redis, two indexes on different tables).
    `vocabularies[i]`, when given, is `vocabulary(candidates[i])` already computed; `focus`, when given, limits
    the pairs to those holding one of these rows (a run's new memories: rarity is still counted over all)."""
    n = len(candidates)
    if n < 2:
        return []
    skip = set(excluded)
    vocab = list(vocabularies) if vocabularies is not None else [vocabulary(c) for c in candidates]
    focused = None if focus is None else set(focus)
    holders: dict[str, list[int]] = defaultdict(list)
    for row, terms in enumerate(vocab):
        for term in terms:
            holders[term].append(row)
    # rare: held by a few memories, at most the square root of the store (a topic's words, not the project's)
    cap = max(3, min(40, int(math.sqrt(n))))
    template = _template_words(holders)
    idf = {t: math.log(n / len(rows)) for t, rows in holders.items() if 2 <= len(rows) <= cap and t not in template}
    rare = [sorted((t for t in terms if t in idf), key=lambda t: (-idf[t], t))[:MAX_WORDS] for terms in vocab]
    mass = [sum(idf[t] for t in terms) for terms in rare]
    rare_holders: dict[str, list[int]] = defaultdict(list)
    for row, terms in enumerate(rare):
        for term in terms:
            rare_holders[term].append(row)
    shared: dict[tuple[int, int], list[str]] = defaultdict(list)
    for term, rows in rare_holders.items():
        for i, row in enumerate(rows):
            for other in rows[i + 1:]:
                if focused is None or row in focused or other in focused:
                    shared[(row, other)].append(term)
    files: dict[tuple[int, int], tuple[str, float, int]] = {}
    if commit_files is not None:
        subjects = [Subject(row, c.commit, c.text, tuple(c.tags)) for row, c in enumerate(candidates)]
        for path, rows in file_links(subjects, commit_files, repo_files, captures).items():
            crowd = min(1.0, CROWDED_FILE / len(rows))
            for i, (a, wa) in enumerate(rows):
                for b, wb in rows[i + 1:]:
                    if focused is not None and a not in focused and b not in focused:
                        continue
                    if _entries_of(path, candidates[a], candidates[b]):
                        continue
                    pair = (min(a, b), max(a, b))
                    evidence = min(wa, wb) * crowd
                    if evidence > files.get(pair, ("", 0.0, 0))[1]:
                        files[pair] = (path, evidence, len(rows))
    said: dict[int, set[str]] = {}
    found: list[FoundLink] = []
    # cheapest tests first: most pairs share one rare word and nothing else
    worth = {p for p, terms in shared.items() if len(terms) >= MIN_SHARED_WORDS}
    worth |= {p for p, (_, weight, _) in files.items() if weight >= MIN_FILE_EVIDENCE}
    mute: dict[int, bool] = {}
    for pair in worth:
        a, b = pair
        if _mute(candidates, mute, a) or _mute(candidates, mute, b):
            continue
        terms = shared.get(pair, [])
        by_words = 0.0
        if len(terms) >= MIN_SHARED_WORDS and mass[a] > 0 and mass[b] > 0:
            by_words = min(1.0, sum(idf[t] for t in terms) / math.sqrt(mass[a] * mass[b]))
        path, by_file, holders_of_file = files.get(pair, ("", 0.0, 0))
        if (by_file < MIN_FILE_EVIDENCE or not _same_work(candidates[a], candidates[b])
                or (not by_words and (holders_of_file > FILE_ALONE_HOLDERS
                                      or _other_tickets(candidates[a], candidates[b])))):
            path, by_file = "", 0.0
        evidence = 1 - (1 - by_words) * (1 - by_file)
        if evidence == 0:
            continue
        if vectors is not None:
            similarity = float(vectors[a] @ vectors[b])
            if similarity < MIN_SIMILARITY or similarity >= RESTATEMENT:
                continue
            weight = (similarity + evidence) / 2
        else:
            weight = evidence
        first, second = candidates[a], candidates[b]
        if (weight < MIN_WEIGHT or first.key == second.key or frozenset((first.key, second.key)) in skip
                or _restate(candidates, said, vocab, a, b)):
            continue
        if not _one_commit(first, second) and (
                weight < CROSS_COMMIT_WEIGHT or (first.namespace in _PROGRESS and second.namespace in _PROGRESS)):
            continue
        newer, older = (first, second) if (first.first_seen, first.key) > (second.first_seen, second.key) \
            else (second, first)
        source, target, kind = _typed(newer, older)
        reasons = []
        if by_words:
            top = sorted(terms, key=lambda t: (-idf[t], t))[:4]
            reasons.append("shares rare words: " + ", ".join(top))
        if path:
            reasons.append(f"both about {path}")
        found.append(FoundLink(source.key, target.key, kind, round(weight, 3), "; ".join(reasons)))
    return _strongest(found)


def _template_words(holders: Mapping[str, Sequence[int]]) -> set[str]:
    """Names of files more than `RARE_FILE_NAME` memories name, and the words only those names say (the parts
    `vocabulary` splits from them: "requirements" from "requirements.md" where no memory says it otherwise)."""
    crowded = {t for t, rows in holders.items() if len(rows) > RARE_FILE_NAME and _FILE_NAME.fullmatch(t)}
    named: dict[str, set[int]] = defaultdict(set)
    for name in crowded:
        for part in re.split(r"[./]", name):
            named[part].update(holders[name])
    return crowded | {part for part, rows in named.items() if part in holders and set(holders[part]) <= rows}


def _mute(candidates: Sequence[Candidate], mute: dict[int, bool], row: int) -> bool:
    if row not in mute:
        mute[row] = asserts_nothing(candidates[row])
    return mute[row]


def _headline(candidate: Candidate) -> str:
    """The first line of the summary that says something (a block capture's marker line skipped)."""
    return next((line for line in candidate.summary.splitlines()
                 if line.strip() and not _BLOCK_MARKER.match(line)), candidate.summary)


def _tickets(candidate: Candidate) -> set[str]:
    return {re.sub(r"\D", "", t) if t.lower().startswith(("#", "issue")) else t
            for t in _TICKET.findall(_headline(candidate))}


def _other_tickets(first: Candidate, second: Candidate) -> bool:
    """Whether both summaries name tickets and none in common: two findings or issues, not one."""
    mine, theirs = _tickets(first), _tickets(second)
    return bool(mine) and bool(theirs) and not mine & theirs


def asserts_nothing(candidate: Candidate) -> bool:
    """Whether a memory says nothing of its own to link: its summary's first line is narration, a lead-in, an
    empty title or a checklist tick, or a sentence of its text is the agent narrating its next step."""
    if chatter(_headline(candidate)) in _NOTHING:
        return True
    return any(chatter(sentence) == "narration" for line in candidate.text.splitlines()
               for sentence in _SENTENCE_END.split(line.strip()) if sentence)


def _entries_of(path: str, first: Candidate, second: Candidate) -> bool:
    """Whether two progress notes were both captured from `path` (their `file:` tags): a checklist's entries."""
    return first.namespace in _PROGRESS and second.namespace in _PROGRESS and all(
        path in {t[len("file:"):].strip("./") for t in c.tags if t.startswith("file:")} for c in (first, second))


def _restate(candidates: Sequence[Candidate], said: dict[int, set[str]], vocab: Sequence[frozenset[str]], a: int,
             b: int) -> bool:
    for row in (a, b):
        if row not in said:
            said[row] = _summary_words(candidates[row])
    return _restates(said[a], vocab[b]) and _restates(said[b], vocab[a])


def _summary_words(candidate: Candidate) -> set[str]:
    return {w for w in words(candidate.summary) if len(w) >= 3 and w not in _MARKERS}


def _restates(said: set[str], other_words: frozenset[str]) -> bool:
    """Whether the other memory's text holds nearly every word of this one's summary: the same statement again."""
    return len(said) >= 3 and len(said & other_words) >= RESTATED_SHARE * len(said)


def _one_commit(first: Candidate, second: Candidate) -> bool:
    """Whether two memories hang on the same commit, captured within `SAME_COMMIT_SPAN`: one piece of work."""
    return bool(first.commit) and first.commit == second.commit \
        and abs(first.first_seen - second.first_seen) <= SAME_COMMIT_SPAN


def _same_work(first: Candidate, second: Candidate) -> bool:
    """Whether two memories were captured as one piece of work (one commit, or within `SAME_WORK`)."""
    return _one_commit(first, second) or abs(first.first_seen - second.first_seen) <= SAME_WORK


def _needs(text: str, summary: str) -> bool:
    """Whether `text` says it needs what `summary` names: a cue, then (in the clause after it) `NEEDS_NAMED` of the
    summary's words."""
    named = {w for w in words(summary) if len(w) >= 4}
    for cue in _DEPENDS.finditer(text):
        clause = re.split(r"[.;:\n]", text[cue.end():cue.end() + 120], maxsplit=1)[0]
        if len(named & {w for w in words(clause) if len(w) >= 4}) >= NEEDS_NAMED:
            return True
    return False


def _typed(newer: Candidate, older: Candidate) -> tuple[Candidate, Candidate, EdgeType]:
    """(source, target, type): see the module."""
    if newer.namespace in _PROGRESS and older.namespace in _DECISIONS:
        return newer, older, EdgeType.IMPLEMENTS
    for learner, decision in ((newer, older), (older, newer)):
        if learner.namespace in _LEARNINGS and decision.namespace in _DECISIONS and _SUPPORTS.search(learner.text):
            return learner, decision, EdgeType.SUPPORTS
    if family(newer.namespace) == family(older.namespace) and _needs(newer.text, older.summary):
        return newer, older, EdgeType.DEPENDS_ON
    if newer.namespace == older.namespace and _EXTENDS.search(newer.text):
        return newer, older, EdgeType.EXTENDS
    return newer, older, EdgeType.RELATES_TO


def _strongest(found: list[FoundLink]) -> list[FoundLink]:
    degree: dict[str, int] = defaultdict(int)
    kept: list[FoundLink] = []
    for link in sorted(found, key=lambda k: (-k.weight, k.source, k.target)):
        if degree[link.source] < MAX_PER_MEMORY and degree[link.target] < MAX_PER_MEMORY:
            degree[link.source] += 1
            degree[link.target] += 1
            kept.append(link)
    return kept
