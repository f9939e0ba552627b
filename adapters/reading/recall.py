"""`memactors recall`: tier-aware hybrid search over the read model the last run stored.

An entry's relevance (absolute, 0..1) blends the cosine of the query to it
(when the index has vectors from the same embedding model) with the
IDF-weighted share of the query's words it holds (the FTS5 index of
adapters/reading/lexical_index.py; without one, plain word overlap). Its
ranking score adds BM25 (title, text, tags weighted; scaled to the best
match; a memory captured since the run, not in that index yet, adds 0.75 of its
IDF-weighted word share in its place) and multiplies by retention, quality and standing:
`(relevance + 0.3 · bm25/best) · (0.8 + 0.2 · retention) · (1 − 0.4 · (1 − quality))
· (0.85 if replaced)`, so a fragment or a replaced statement comes after a
memory that answers as well; the best candidates' score is then multiplied
by their focus^0.3 (adapters/reading/focus.py: the share of the question's
words they hold that one paragraph holds), so an overview that names the
question's words in many sections comes after the memory about its subject,
and by (1 + the share of the question's distinctive words they hold)^0.2: each
word weighted by its IDF and by how few of those candidates hold it (focus.py's
`distinctive_weights`), so a memory holding the words that tell the candidates
apart ("how many dimensions") comes before one sharing only their common topic
("embedding model").
Relevance decides what answers well enough not to widen (RELEVANCE_BAR) and
what is noise (below MIN_RELEVANCE) — unless one block of the entry holds
WORDS_RESULT_SHARE of the question's words, two or more: a long note one line of which answers embeds as its
other sections do, far from the question.
Whether anything is relevant at all is judged on each result's *evidence*:
its relevance with every word of the question counted, a word no memory
holds included (at its IDF, the highest there is, times the store's size
over ABSENCE_FULL_AT, at most 1) — for ranking such a word says nothing, as
every entry lacks it, but a store of hundreds of memories that never uses
"Kafka" says it does not hold the topic, where six memories lacking "now"
say nothing. When no result listed reaches EVIDENCE_BAR, `nothing_relevant`
is true and recall answers so instead of listing them.
Summaries rank alongside memories. Copies of one capture (identical, or cut
differently) are one result: the group's most complete copy, ranked by its
best-matching copy, with the copies' date range; memories with the same title
(one statement captured two ways) are one result, and a summary led by a
statement already listed, or made from memories already listed, takes the
highest one's line (not with `--mode exhaustive`, which lists each memory as
itself). A replaced memory is listed with its replacement just above it —
just below it when the question asks what held before ("what was the bug
behind X"); when it asks what holds now, of the memories listed that state
the state of one thing ("LSP tool is ...", "LSP tool failure is ...") the
newest comes first, after the replacements are placed. Two standing
decisions (or patterns) on one subject (cosine of their vectors at least
SAME_SUBJECT_COSINE) that answer about as well (the newer scoring at least
NEWER_FIRST_SHARE of the older) are listed newer first, unless the question asks
what held before: a change the judge left unlinked (precision first) still shows
its latest value first, and the older stays listed, unmarked. The
agent's narration, lead-ins and bare headings are not listed (except with
`--mode exhaustive`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from memactors.actors.ports import Embedder
from memactors.adapters.reading.entry_table import tier_codes
from memactors.adapters.reading.focus import distinctive_weights, held_stems, held_together, read_focus, stem_weights
from memactors.adapters.reading.lexical_index import FRAME_WORDS, LexicalMatch, lookup, texts
from memactors.adapters.reading.read_cache import RecallIndex
from memactors.events.chatter import chatter
from memactors.events.read_model import EntryKind, IndexedEntry
from memactors.events.terms import terms
from memactors.events.tier import Tier

MODES: dict[str, frozenset[Tier]] = {
    "reflexive": frozenset({Tier.HOT}),
    "standard": frozenset({Tier.HOT, Tier.WARM}),
    "deep": frozenset({Tier.HOT, Tier.WARM, Tier.COLD}),
    "exhaustive": frozenset(Tier),
}
#: With no mode: these tiers first, the rest only to fill the list (widening).
FIRST_TIERS = MODES["standard"]
MAX_QUERY_CHARS = 2000
SEMANTIC_WEIGHT = 0.8
#: Below this blended relevance an entry is noise, not a result (unrelated MiniLM pairs score ~0.1-0.3), unless one
#: of its blocks holds the question's words (WORDS_RESULT_SHARE).
MIN_RELEVANCE = 0.3
#: A first-tier result at or above this relevance answers the question well enough that colder tiers
#: are not searched; chosen from bench/labels/recall_questions.json (docs/recall.md).
RELEVANCE_BAR = 0.45
#: The evidence (relevance with every question word counted) one listed result must reach for the answer to be
#: more than "nothing relevant": no tuning question of bench/labels/real_store_questions.json or
#: recall_questions.json with its answer in the top 5 falls below it (docs/recall.md).
EVIDENCE_BAR = 0.33
#: With vectors, a memory holding this IDF-weighted share of the question's words (those some memory holds), two or
#: more of them in one block, is a result however far its vector is: a long note one line of which answers embeds
#: as its other sections do.
WORDS_RESULT_SHARE = 0.5
#: Without vectors: the IDF-weighted share of all the question's words one listed result must hold.
LEXICAL_EVIDENCE_BAR = 0.25
#: From this many indexed entries on, a question word no entry holds counts fully against every entry.
ABSENCE_FULL_AT = 500
#: Below this quality a cold or archived memory is raw material: widening does not list it.
WIDEN_MIN_QUALITY = 0.2
#: Weight of BM25 (scaled to the best match's) beside the dense relevance in the ranking.
LEXICAL_WEIGHT = 0.3
#: BM25 candidates read from the lexical index.
LEXICAL_DEPTH = 400
#: How much a memory's quality (events/quality.py) scales its ranking: 1 - weight * (1 - quality).
QUALITY_WEIGHT = 0.4
#: A memory a newer one replaced ranks below one that answers as well and still stands...
SUPERSEDED_FACTOR = 0.85
#: ... and well below it when the question asks what holds now ("what do we use", "which X is current").
PRESENT_SUPERSEDED_FACTOR = 0.5
#: `rank_factor` re-ranks this many times `limit` of the best candidates of each group (hot and warm, the rest).
RERANK_WINDOW = 3
#: How many replacements recall follows from a replaced memory to the one that stands.
MAX_HOPS = 5
#: How many memories that replaced a summary's facts are listed above it.
MAX_SUMMARY_REPLACEMENTS = 2
#: Exponent of a candidate's focus (adapters/reading/focus.py) in its score: an overview spreading the question's
#: words over its sections ranks below the memory about the question's subject (real_store_questions tuning part).
FOCUS_WEIGHT = 0.3
#: Focus is read for this many times `limit` of the best-scoring candidates (their text read from the lexical index).
FOCUS_WINDOW = 3
#: Exponent of (1 + the share of the question's distinctive words a candidate holds) in its score: among the
#: candidates focus reads, one holding the words few of them hold ranks above those sharing only their topic.
DISTINCT_WEIGHT = 0.2
#: A memory captured since the run has no BM25 yet (the lexical index holds it after the next run): its
#: IDF-weighted word share, times this, stands in for BM25 scaled to the best match.
FRESH_LEXICAL_SHARE = 0.75
#: Namespaces whose memories hold a choice or a rule that a later one on the same subject may change.
CHOICE_NAMESPACES = frozenset({"decisions", "patterns"})
#: Cosine of two choices' vectors at or above which they are on one subject (MemoryCode tuning: 0.6 reorders a
#: changed convention over its unlinked old value; 0.45 also reorders neighbouring rules).
SAME_SUBJECT_COSINE = 0.6
#: A newer choice scoring at least this share of an older one on the same subject is listed above it...
NEWER_FIRST_SHARE = 0.8
#: ... when it is listed at most this many places below it.
NEWER_FIRST_REACH = 3
_PRESENT = re.compile(
    r"\b(?:now|current(?:ly)?|today|these\s+days|at\s+the\s+moment|nowadays|still|latest)\b"
    r"|^\s*(?:what|which|how|where|who)\b(?!.*\b(?:did|was|were|had|used\s+to|before|originally|first|initially"
    r"|ago|when)\b).*\b(?:do|does|is|are|use|uses|run|runs)\b", re.IGNORECASE)


#: "What was the bug behind X", "which linter did we use originally", "what CI were we on before we switched": the
#: state that held then, not an event ("when did we drop X", "how was it fixed" ask about what replaced it).
_PAST_STATE = re.compile(
    r"^\s*(?:what|which|who|where)\b(?:\s+[\w'-]+){0,3}?\s+(?:was|were)\b(?!\s+(?:\w+ed|\w+en|done|made|built)\b)"
    r"|\b(?:used\s+to|originally|initially|at\s+first)\b"
    r"|\bbefore\s+(?:we|it|they|the)\b.*\b(?:switch|mov|replac|chang)",
    re.IGNORECASE)


def present_tense(query: str) -> bool:
    """Whether `query` asks what holds now ("what linter do we use", "which database is current"), not history."""
    return _PRESENT.search(query) is not None


def past_state(query: str) -> bool:
    """Whether `query` asks what held before ("what was the bug behind X", "which database did we use originally"):
    then a replaced statement is the answer and what replaced it is listed just below it, not above."""
    return _PAST_STATE.search(query) is not None


@dataclass(frozen=True)
class RecallHit:
    """One result; `widened` when it comes from a colder tier than the query asked for first."""

    entry: IndexedEntry
    relevance: float
    score: float
    widened: bool = False
    evident: bool = True  # its evidence reaches the bar: the question is not one the store cannot answer

    def as_json(self) -> dict[str, Any]:
        e = self.entry
        doc: dict[str, Any] = {
            "id": e.id, "kind": e.kind.value, "namespace": e.namespace, "tier": None if e.fresh else e.tier.value,
            "widened": self.widened,
            "score": round(self.score, 4), "relevance": round(self.relevance, 4), "summary": e.summary,
            "title": e.title or e.summary, "timestamp": e.timestamp.isoformat(), "superseded_by": e.superseded_by,
        }
        if e.fresh:
            doc["new_since_last_run"] = True
        if e.copies > 1:
            doc["copies"] = e.copies
            doc["first_seen"] = e.first_seen.isoformat() if e.first_seen else None
            doc["last_seen"] = e.last_seen.isoformat() if e.last_seen else None
        if e.superseded_by_text:
            doc["superseded_by_summary"] = e.superseded_by_text
        if e.kind is EntryKind.SUMMARY:
            doc["key_facts"] = e.excerpt
            doc["superseded_facts"] = list(e.superseded_facts)
            doc["sources"] = list(e.sources)
        else:
            doc["excerpt"] = e.excerpt
            doc["retention"] = e.score
        return doc


def _lexical(query_terms: frozenset[str], entries: Sequence[IndexedEntry]) -> np.ndarray:
    if not query_terms:
        return np.zeros(len(entries), dtype=np.float32)
    shares = [len(query_terms.intersection(e.terms)) / len(query_terms) for e in entries]
    return np.asarray(shares, dtype=np.float32)


def nothing_relevant(hits: Sequence[RecallHit]) -> bool:
    """True when no hit holds enough of the question's meaning and words to answer it (see the module)."""
    return not any(h.evident for h in hits)


@dataclass(frozen=True)
class _Scored:
    """Every candidate entry's position in the index, absolute relevance, ranking score, whether it is a result
    at all (not noise), and whether its evidence reaches the bar."""

    rows: list[int]
    relevance: np.ndarray
    score: np.ndarray
    result: np.ndarray
    evident: np.ndarray


def _score(index: RecallIndex, query: str, rows: NDArray[np.intp], embedder: Embedder | None,
           depth: int = 30) -> _Scored:
    found = lookup(index.lexical, query, LEXICAL_DEPTH, index.run_id) if index.lexical is not None else None
    late = np.zeros(0, dtype=np.intp)  # memories new since the run: not in its lexical index yet
    if found is None:  # no lexical index: the share of the query's words the entry's terms hold
        share = _lexical(frozenset(terms(query)), [index.entries[int(i)] for i in rows])
        coverage = share  # every word of the query counted already
    else:
        share = np.zeros(len(rows), dtype=np.float32)
        if found.share:
            keys = np.fromiter(found.share.keys(), dtype=np.intp, count=len(found.share))
            at, ok = _positions(rows, keys)
            share[at[ok]] = np.fromiter(found.share.values(), dtype=np.float32, count=len(found.share))[ok]
        # the same share over every word of the query, those no entry holds included (the more, the larger the store)
        whole = found.known + min(1.0, found.rows / ABSENCE_FULL_AT) * found.unknown
        known_part = np.float32(found.known / whole if whole else 0.0)
        coverage = share * known_part
        if index.lexical_rows is not None:  # matched by words here
            late = np.flatnonzero(rows >= index.lexical_rows)
            weights = stem_weights(found.weights)
            whole_weight = sum(weights.values())
            if len(late) and whole_weight > 0:  # the IDF-weighted share of the words the index knows, as stored rows
                for i in late:
                    held = held_stems(_fresh_text(index.entries[int(rows[i])]), weights)
                    share[i] = sum(weights[s] for s in held) / whole_weight
                coverage[late] = share[late] * known_part
            elif len(late):
                share[late] = coverage[late] = _lexical(frozenset(terms(query)),
                                                        [index.entries[int(rows[i])] for i in late])
    if semantic(index, embedder):
        assert embedder is not None and index.vectors is not None
        cosine = np.clip(index.vectors[rows] @ embedder.embed([query])[0], 0.0, 1.0)
        relevance = SEMANTIC_WEIGHT * cosine + (1 - SEMANTIC_WEIGHT) * share
        result = relevance >= MIN_RELEVANCE
        if found is not None:
            _held_in_a_line(index, found, rows, share, result, depth)
        evident = SEMANTIC_WEIGHT * cosine + (1 - SEMANTIC_WEIGHT) * coverage >= EVIDENCE_BAR
    else:
        relevance = share
        result = relevance > 0
        evident = coverage >= LEXICAL_EVIDENCE_BAR
    ranking = relevance.copy()
    if found is not None and found.bm25 and found.bm25[0][1] > 0:
        best = found.bm25[0][1]
        at, ok = _positions(rows, np.fromiter((row for row, _ in found.bm25), dtype=np.intp, count=len(found.bm25)))
        values = np.fromiter((value for _, value in found.bm25), dtype=np.float64, count=len(found.bm25))
        np.add.at(ranking, at[ok], (LEXICAL_WEIGHT * values[ok] / best).astype(ranking.dtype))
    # a memory new since the run has no BM25 (its text is not in the lexical index yet): part of its IDF-weighted
    # share of the question's words stands in, so it ranks near where it will once the next run indexes it
    ranking[late] += FRESH_LEXICAL_SHARE * LEXICAL_WEIGHT * share[late]
    columns = index.columns
    # a fragment ranks below a readable memory that answers as well; so does a replaced statement
    replaced = PRESENT_SUPERSEDED_FACTOR if present_tense(query) else SUPERSEDED_FACTOR
    standing = np.where(columns.superseded[rows], replaced, 1.0)
    score = (ranking * (0.8 + 0.2 * columns.score[rows]) * (1 - QUALITY_WEIGHT * (1 - columns.quality[rows]))
             * standing)
    if found is not None and found.weights:
        _focused(index, found, rows, score, depth)
    return _Scored(rows.tolist(), relevance, score, result, evident)


def _fresh_text(entry: IndexedEntry) -> str:
    """What recall reads of a memory captured since the run, whose text the lexical index does not hold yet: its
    title and excerpt."""
    return f"{entry.title or entry.summary}\n{entry.excerpt}"


def _held_in_a_line(index: RecallIndex, found: LexicalMatch, rows: NDArray[np.intp], share: np.ndarray,
                    result: np.ndarray, depth: int) -> None:
    """Marks as results, in place, the best `depth` candidates by word share that are far from the question in
    meaning yet hold WORDS_RESULT_SHARE of its words and two or more of them, as words of their own, in one block:
    a broad note whose one line answers embeds as its other sections do. One shared word, or a word's prefix
    ("poli*" for "policy" in "Polish"), makes no result."""
    weights = stem_weights(found.weights)
    if len(weights) < 2:
        return
    far = np.flatnonzero(~result & (share >= WORDS_RESULT_SHARE))
    if index.lexical_rows is not None:
        far = far[rows[far] < index.lexical_rows]
    far = far[np.argsort(-share[far], kind="stable")][:depth]
    if not len(far):
        return
    assert index.lexical is not None
    text = texts(index.lexical, (int(rows[i]) for i in far), index.run_id)
    for i in far:
        if (said := text.get(int(rows[i]))) is not None:
            count, weight = held_together(said, weights)
            result[i] = count >= 2 and weight >= WORDS_RESULT_SHARE


def _focused(index: RecallIndex, found: LexicalMatch, rows: NDArray[np.intp], score: np.ndarray, depth: int) -> None:
    """`score` of the best `depth` candidates multiplied by their focus^FOCUS_WEIGHT and by (1 + the share of the
    question's distinctive words they hold)^DISTINCT_WEIGHT, in place (a memory new since the run, whose text the
    lexical index does not hold yet, is read from its title and excerpt: one block)."""
    best = np.argsort(-score, kind="stable")[:depth]
    late = best[rows[best] >= index.lexical_rows] if index.lexical_rows is not None else best[:0]
    assert index.lexical is not None
    text = texts(index.lexical, (int(rows[i]) for i in best if index.lexical_rows is None
                                 or rows[i] < index.lexical_rows), index.run_id)
    for i in late:
        text[int(rows[i])] = _fresh_text(index.entries[int(rows[i])])
    weights = stem_weights(found.weights)
    held: dict[int, set[str]] = {}
    for i in best:
        if (said := text.get(int(rows[i]))) is not None:
            share_of_focus, held[int(i)] = read_focus(said, weights)
            score[i] *= share_of_focus ** FOCUS_WEIGHT
    # one capture's copies are one candidate in how many hold a word: a note captured ten times is no topic
    by_capture = {int(index.columns.head[rows[i]]): found_stems for i, found_stems in held.items()}
    # a frame word ("what happens if") ranks nothing here as in BM25: it tells no candidate apart by its subject
    distinct = distinctive_weights(list(by_capture.values()),
                                   stem_weights({w: x for w, x in found.weights.items() if w not in FRAME_WORDS}))
    if distinct:
        for i, found_stems in held.items():
            score[i] *= (1 + sum(distinct.get(s, 0.0) for s in found_stems)) ** DISTINCT_WEIGHT


def _positions(rows: NDArray[np.intp], wanted: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Where each of `wanted` sits in `rows` (ascending), and which of them are there at all."""
    at = np.searchsorted(rows, wanted)
    ok = at < len(rows)
    ok[ok] = rows[at[ok]] == wanted[ok]
    return at, ok


def search(index: RecallIndex, query: str, *, mode: str | None = None, limit: int = 10,
           namespaces: Sequence[str] | None = None, embedder: Embedder | None = None,
           rank_factor: Callable[[IndexedEntry], float] | None = None) -> list[RecallHit]:
    """The best `limit` entries for `query` (and `namespaces`, when given).

    A `mode` searches exactly its tiers. With none, hot and warm come first;
    when fewer than `limit` of them reach RELEVANCE_BAR, the list is filled
    with the best remaining results of any tier, colder ones marked `widened`.
    Ranking reads the index's columns; only the entries listed are parsed.
    `rank_factor` multiplies the score of the best `RERANK_WINDOW` × `limit` candidates of each group (a memory
    not merged into HEAD: adapters/git/branches.py), which are then ranked again.
    """
    columns = index.columns
    keep = np.isin(columns.tier, tier_codes(MODES[mode] if mode else frozenset(Tier)))
    if namespaces:
        keep &= np.isin(columns.namespace, [i for i, ns in enumerate(columns.namespaces) if ns in namespaces])
    rows = np.flatnonzero(keep)
    if not len(rows):
        return []
    scored = _score(index, query, rows, embedder, FOCUS_WINDOW * limit)
    first_codes = tier_codes(FIRST_TIERS)

    def shown_as(j: int) -> int:
        """The row a candidate is listed as: its capture's most complete copy."""
        return int(columns.head[scored.rows[j]])

    ranked = np.argsort(-scored.score, kind="stable")
    order = ranked[scored.result[ranked]].tolist()
    if mode is None:
        first = [j for j in order
                 if columns.tier[shown_as(j)] in first_codes and scored.relevance[j] >= RELEVANCE_BAR]
        taken = set(first)
        # filling from colder tiers takes memories worth reading, not transcript windows (--mode exhaustive does)
        order = first + [j for j in order if j not in taken and (columns.tier[shown_as(j)] in first_codes
                                                              or columns.quality[shown_as(j)] >= WIDEN_MIN_QUALITY)]
    factors: dict[int, float] = {}
    if rank_factor is not None:
        window = limit * RERANK_WINDOW
        groups = [first, [j for j in order if j not in taken]] if mode is None else [order]
        order = []
        for group in groups:
            for j in group[:window]:
                factors[j] = rank_factor(index.entries[shown_as(j)])
            order += sorted(group[:window], key=lambda j: -scored.score[j] * factors[j]) + group[window:]
    hits: list[RecallHit] = []
    listed: dict[str, int] = {}  # memory key or title -> position in hits
    for j in order:
        if len(hits) == limit:
            break
        head = index.entries[shown_as(j)]
        if mode != "exhaustive" and not head.readable and chatter(head.title or head.summary) is not None:
            continue  # narration, a lead-in, a bare heading: nothing to read (`--mode exhaustive` lists them)
        hit = RecallHit(head, float(scored.relevance[j]), float(scored.score[j]) * factors.get(j, 1.0),
                        mode is None and head.tier not in FIRST_TIERS, bool(scored.evident[j]))
        # a copy of a capture already listed, or the same statement captured another way (same title)
        title = f"title:{_title_key(head)}"
        if head.key in listed or title in listed:
            at = listed.get(head.key, listed.get(title))
            assert at is not None
            if head.kind is EntryKind.SUMMARY and hits[at].entry.kind is EntryKind.MEMORY:
                # a summary led by a statement already listed takes its place: the same line, with its cluster's facts
                hits[at] = RecallHit(head, hits[at].relevance, hits[at].score, hits[at].widened, hits[at].evident)
                listed[head.key] = at
            if hit.evident and not hits[at].evident:  # the line stands for this copy too
                hits[at] = replace(hits[at], evident=True)
            continue
        if head.kind is EntryKind.SUMMARY and mode != "exhaustive":
            # a summary of memories already listed takes the highest one's line: the same statement with its
            # cluster's facts, and no second line saying it again (exhaustive lists each memory as itself: the
            # date of the turn that reports an event is read from it)
            members = [listed[k] for k in _member_keys(index, head) if k in listed
                       and hits[listed[k]].entry.kind is EntryKind.MEMORY]
            if members:
                at = min(members)
                hits[at] = RecallHit(head, hits[at].relevance, hits[at].score, hits[at].widened,
                                     hits[at].evident or hit.evident)
                listed[head.key] = listed[title] = at
                continue
        listed[head.key] = listed[title] = len(hits)
        hits.append(hit)
    before = past_state(query)
    hits = _current_first(index, hits, limit, mode, below=before)
    if not before:
        hits = _newer_choice_first(index, hits)
    # after the replacements are placed: what replaced a summary's facts, pulled above it, is no newer than a
    # statement of the same thing's state listed below it
    return _newest_state_first(hits) if present_tense(query) else hits


_COPULA = re.compile(r"^((?:[\w.+#/-]+\s+){1,5}?)(?:is|are|has|have)\s+(?!\W)", re.IGNORECASE)
_NOT_SUBJECT = frozenset("a an the this that these those it its they there we our i you he she which what new old "
                         "first last some all each every any no one".split())


def state_subject(title: str) -> str | None:
    """What a title states the state of ("LSP tool" in "LSP tool is now fully functional"): the words before its
    first "is / are / has / have", when two or more of them name something; None otherwise."""
    said = _COPULA.match(" ".join(title.split()))
    if said is None:
        return None
    words = said.group(1).casefold().split()
    return " ".join(words) if sum(w not in _NOT_SUBJECT for w in words) >= 2 else None


#: Words after a thing's name that still name its state, not a part of it ("LSP tool failure", not "build cache key").
_STATE_WORDS = frozenset("state status health support failure failures outage problem problems issue issues bug bugs "
                         "error errors".split())


def _same_thing(one: str, other: str) -> bool:
    """Whether two state subjects name the same thing: the words of one begin the other, and the rest name its
    state ("LSP tool failure is ..." states the LSP tool's state as "LSP tool is ..." does; "build cache key is
    ..." states a part of the build cache)."""
    a, b = sorted((one.split(), other.split()), key=len)
    return b[:len(a)] == a and all(word in _STATE_WORDS for word in b[len(a):])


def _newest_state_first(hits: list[RecallHit]) -> list[RecallHit]:
    """Memories listed that state the state of the same thing ("LSP tool is ...", "LSP tool failure is ..."): the
    newest first, in the place of the highest (a question about what holds now). A replaced memory takes no part:
    seen again after its replacement, it is still no statement of what holds."""
    out = list(hits)
    by_subject: dict[str, list[int]] = {}
    for at, hit in enumerate(out):
        if hit.entry.kind is EntryKind.MEMORY and not hit.entry.superseded_by and (subject := state_subject(hit.entry.title or hit.entry.summary)):
            thing = next((known for known in by_subject if _same_thing(known, subject)), subject)
            by_subject.setdefault(thing, []).append(at)
    for places in by_subject.values():
        if len(places) > 1:
            newest = max(places, key=lambda at: (out[at].entry.last_seen or out[at].entry.timestamp, -at))
            if newest != places[0]:
                out.insert(places[0], out.pop(newest))
                # the positions of the other subjects between the two moved by one
                for other in by_subject.values():
                    if other is not places:
                        other[:] = [p + 1 if places[0] <= p < newest else p for p in other]
    return out


def _newer_choice_first(index: RecallIndex, hits: list[RecallHit]) -> list[RecallHit]:
    """A standing choice listed at most NEWER_FIRST_REACH places below others moved above them when it is newer
    than each, in the same namespace, on the same subject (vectors at least SAME_SUBJECT_COSINE alike) and scores
    at least NEWER_FIRST_SHARE of each: it never passes a hit on another subject or one answering much better.
    Without vectors, the order is left as it is."""
    vectors = index.vectors
    if vectors is None:
        return hits
    out = list(hits)
    rows = {}
    for hit in out:
        entry = hit.entry
        if entry.kind is EntryKind.MEMORY and not entry.superseded_by and entry.namespace in CHOICE_NAMESPACES:
            row = index.entries.row_of(entry.id)
            if row is not None and row < len(vectors):
                rows[entry.id] = row

    def passes(newer: RecallHit, older: RecallHit) -> bool:
        one, other = rows.get(newer.entry.id), rows.get(older.entry.id)
        return (one is not None and other is not None and newer.entry.namespace == older.entry.namespace
                and newer.entry.timestamp > older.entry.timestamp and newer.score >= NEWER_FIRST_SHARE * older.score
                and float(vectors[one] @ vectors[other]) >= SAME_SUBJECT_COSINE)

    i = 0
    while i < len(out):  # each move puts a strictly newer choice at i: at most len(out) moves per place
        newer_at = next((j for j in range(i + 1, min(len(out), i + 1 + NEWER_FIRST_REACH))
                         if all(passes(out[j], out[k]) for k in range(i, j))), None)
        if newer_at is None:
            i += 1
        else:
            out.insert(i, out.pop(newer_at))
    return out


def _member_keys(index: RecallIndex, summary: IndexedEntry) -> list[str]:
    """The keys of `summary`'s members as recall lists them (each one's most complete copy)."""
    keys = []
    for source in summary.sources:
        row = index.entries.row_of(source)
        if row is not None:
            keys.append(index.entries[int(index.columns.head[row])].key)
    return keys


def _current_first(index: RecallIndex, hits: list[RecallHit], limit: int, mode: str | None,
                   below: bool = False) -> list[RecallHit]:
    """Each replaced memory, and each summary whose facts were replaced, listed with what replaced them (followed
    to the memory that stands) just above it — just below it when `below` (the question asks what held before):
    moved up when listed lower, added when not listed (at the replaced one's relevance)."""
    out = list(hits)
    i = 0
    while i < len(out):
        entry = out[i].entry
        step = 1
        for current in _replacements(index, entry):
            title = _title_key(current)
            at = next((j for j, h in enumerate(out) if h.entry.key == current.key or _title_key(h.entry) == title),
                      None)
            if at is None:
                out.insert(i + step if below else i, RecallHit(
                    current, out[i].relevance, out[i].score, mode is None and current.tier not in FIRST_TIERS,
                    out[i].evident))
            elif at > i + (step if below else 0):
                out.insert(i + step if below else i, out.pop(at))
            else:
                continue
            if below:
                step += 1  # the next replacement goes below this one; the replaced entry stays where it was
            else:
                i += 1
        i += step
    return out[:limit]


def _replacements(index: RecallIndex, entry: IndexedEntry) -> list[IndexedEntry]:
    """What stands in place of what `entry` says that was replaced: for a memory, what replaced it; for a summary,
    what replaced its replaced members (at most MAX_SUMMARY_REPLACEMENTS)."""
    if entry.kind is EntryKind.MEMORY:
        current = _standing(index, entry) if entry.superseded_by else None
        return [current] if current is not None else []
    found: list[IndexedEntry] = []
    if entry.superseded_by and (row := index.entries.row_of(entry.superseded_by)) is not None:
        found.append(index.entries[int(index.columns.head[row])])
    if entry.superseded_facts:
        for source in entry.sources:
            row = index.entries.row_of(source)
            member = index.entries[row] if row is not None else None
            current = _standing(index, member) if member is not None and member.superseded_by else None
            if current is not None and current.key not in {f.key for f in found}:
                found.append(current)
            if len(found) >= MAX_SUMMARY_REPLACEMENTS:
                break
    return found


def _title_key(entry: IndexedEntry) -> str:
    """What makes two entries one result: the same title, whatever its spacing and case."""
    return " ".join((entry.title or entry.summary).split()).casefold()


def _standing(index: RecallIndex, entry: IndexedEntry) -> IndexedEntry | None:
    """The memory that replaced `entry`, or what replaced that in turn, up to MAX_HOPS (its most complete copy)."""
    found = None
    seen = {entry.key}
    while entry.superseded_by and len(seen) <= MAX_HOPS:
        row = index.entries.row_of(entry.superseded_by)
        if row is None:
            break
        entry = index.entries[int(index.columns.head[row])]
        if entry.key in seen:
            break
        seen.add(entry.key)
        found = entry
    return found


def semantic(index: RecallIndex, embedder: Embedder | None) -> bool:
    """True when `search` can use vectors (same embedding model as the index)."""
    return embedder is not None and index.vectors is not None and index.model_id == embedder.model_id
