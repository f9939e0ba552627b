"""Supersession judge: classifies newer/older pairs inside each touched cluster."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

import trio

from memactors.actors.algorithms.declared import declared_replacements
from memactors.actors.algorithms.heuristic_judge import CONFIDENCE, MAX_TEXT, RULES, judge_pair, raw
from memactors.actors.algorithms.lexical_pairs import lexical_pairs, retraction_pairs, stage_pairs
from memactors.actors.algorithms.lifecycle import is_record
from memactors.actors.algorithms.linker import withdrawn_edges
from memactors.actors.algorithms.llm_call import ask
from memactors.actors.algorithms.prompts import JUDGE_SYSTEM, JudgeAnswer, check_citations, flagged, judge_prompt
from memactors.actors.algorithms.slot_change import every_clause_changed, statement
from memactors.actors.ports import ContentReader, StructuredLLM
from memactors.bus.bus import Bus
from memactors.bus.join import Joined, JoiningActor
from memactors.events.cluster import Cluster, ClusterKind
from memactors.events.edge import REMOVED, Edge, EdgeType
from memactors.events.memory import Memory
from memactors.events.pipeline import ClustersFormed, MemoriesScanned, SupersessionsJudged
from memactors.events.quality import WELL_FORMED, QualityPolicy, asserts, quality_score
from memactors.events.report import TokenUsage
from memactors.events.verdict import Relation, Verdict

progress = logging.getLogger("memactors.progress")
#: A memory that reads like an instruction to the model never wins a pair on the model's word.
DISTRUSTED = (Relation.SUPERSEDES, Relation.SUBSUMES)


class SupersessionJudge(JoiningActor):
    """Joins a run's scan and clusters; judges newer/older pairs of touched clusters and the pairs clusters miss.

    Each memory of a touched cluster is paired with its `older_per_memory`
    most similar older members (whole captures before fragments) at cosine >= `pair_threshold` (supersession
    chains through them), minus pairs the user already resolved and, unless
    the run is `--full`, pairs an earlier run judged (both members were in
    one cluster after it: its verdicts stand in their metadata). Pairs clusters miss come from what memories
    share (actors/algorithms/lexical_pairs.py: the newer names what it replaced, or the same task); offline,
    every pair an earlier offline verdict linked is judged again. Only statements take part: whether a
    memory asserts something (readable, quality >= WELL_FORMED, not a question) is passed to the judge.
    With an LLM, the pairs of many clusters are packed into one call (at most
    `batch_pairs` pairs and `batch_memories` memories), so calls grow with
    memories / 60, not with pairs; otherwise the offline heuristic judges
    each pair, as it does every batch left once `llm_deadline` seconds of
    LLM work have passed. Copies of a capture are superseded by their
    canonical (the newest copy). A partial supersession (only part of the older is replaced) writes its edge
    and leaves the older standing.

    A statement dates from its first copy: "older" and "newer" in a pair are
    by that date, so a decision re-captured verbatim after it was replaced
    does not count as newer than its replacement. The older statement's
    place in such a pair is taken by its newest copy captured before the
    newer statement, and a supersession of that copy replaces the statement
    with all its copies.
    A fragment (quality below WELL_FORMED) never judges a well-formed memory:
    a transcript window that mentions a change is no evidence against a
    whole capture, and the pair is not asked.
    """

    name = "judge"
    joins = (MemoriesScanned, ClustersFormed)
    publishes = (SupersessionsJudged,)

    def __init__(self, bus: Bus, llm: StructuredLLM | None, *, pair_threshold: float, concurrency: int = 4,
                 older_per_memory: int = 2, batch_pairs: int = 60, batch_memories: int = 60,
                 llm_deadline: float = 600.0, quality: QualityPolicy, traits: ContentReader) -> None:
        super().__init__(bus)
        self._quality = quality
        self._traits = traits
        self._llm_deadline = llm_deadline
        self._llm = llm
        self._pair_threshold = pair_threshold
        self._older_per_memory = older_per_memory
        self._batch_pairs = batch_pairs
        self._batch_memories = batch_memories
        self._limit = trio.CapacityLimiter(concurrency)

    async def handle_run(self, events: Joined) -> None:
        scanned, formed = events[MemoriesScanned], events[ClustersFormed]
        by_key = {m.key: m for m in scanned.memories}
        resolved = {  # the user decided: a conflict resolved, a supersession marked wrong
            frozenset((e.source_key, e.target_key))
            for e in scanned.prior.edges.values()
            if e.resolution and (e.edge_type is EdgeType.CONTRADICTS or (e.resolution == REMOVED and not e.is_link))
        }
        prior = {} if scanned.request.full else scanned.prior.meta

        def settled(a: str, b: str) -> bool:
            before = prior.get(a), prior.get(b)
            return (before[0] is not None and before[1] is not None and before[0].cluster_id is not None
                    and before[0].cluster_id == before[1].cluster_id) or frozenset((a, b)) in resolved

        copies: dict[str, list[Memory]] = {}
        for copy, canonical in formed.duplicate_of.items():
            if copy in by_key:
                copies.setdefault(canonical, []).append(by_key[copy])
        canonical = [m for m in scanned.memories if m.key not in formed.duplicate_of]
        quality = {k: (quality_score(self._quality, t), t.readable) for k, t in self._traits.traits(canonical).items()}
        statements = frozenset(k for k, (score, readable) in quality.items() if asserts(score, readable, by_key[k].summary))
        # a copy stands in for its canonical in a pair (restated since): it asserts what the canonical does
        statements |= {copy for copy, canonical in formed.duplicate_of.items() if canonical in statements}
        first_seen = {m.key: min([m.timestamp, *(c.timestamp for c in copies.get(m.key, ()))]) for m in canonical}
        groups = [self._pairs(c, by_key, copies, settled, quality, first_seen) for c in formed.clusters
                  if c.kind is not ClusterKind.DUPLICATES and c.touched]
        groups.append(self._lexical(scanned, canonical, statements, first_seen, copies, groups, formed,
                                    resolved))
        batches = _batches(groups, max_pairs=self._batch_pairs, max_memories=self._batch_memories)
        if batches:
            progress.info("judging %d pairs in %d batches...", sum(map(len, batches)), len(batches))
        verdicts: list[Verdict] = []
        usage = TokenUsage()
        fallbacks: list[str] = []
        deadline = trio.current_time() + self._llm_deadline  # then the rest is judged offline

        async def one(index: int, pairs: list[tuple[Memory, Memory, float]]) -> None:
            nonlocal usage
            members = sorted({m.key: m for pair in pairs for m in pair[:2]}.values(), key=lambda m: m.timestamp)
            async with self._limit:
                found, used, why = await self._judge(members, pairs, deadline, statements)
            verdicts.extend(found)
            usage += used
            if why:
                fallbacks.append(f"judge batch {index + 1}/{len(batches)} ({len(pairs)} pairs): {why}")

        async with trio.open_nursery() as nursery:
            for index, pairs in enumerate(batches):
                nursery.start_soon(one, index, pairs)
        declared = declared_replacements(scanned.memories)
        pairs = {(v.newer, v.older) for v in declared}
        verdicts = [v for v in verdicts if (v.newer, v.older) not in pairs and (v.older, v.newer) not in pairs]
        verdicts += declared
        superseded_by = dict(formed.duplicate_of)
        for verdict in sorted(verdicts, key=lambda v: (by_key[v.newer].timestamp, v.newer)):
            if verdict.relation is Relation.SUPERSEDES and verdict.partial:
                continue  # replaced in part: the edge says so, the memory still stands for the rest
            if verdict.relation is Relation.SUPERSEDES:
                superseded_by[verdict.older] = verdict.newer
                # the statement is replaced, with every copy of it: a verbatim re-capture after the change is
                # the same statement (it dates from its first copy), not a newer one
                if (canonical_key := formed.duplicate_of.get(verdict.older)) is not None:
                    superseded_by.setdefault(canonical_key, verdict.newer)
            elif verdict.relation is Relation.SUBSUMES and verdict.container == verdict.newer:
                # an older memory that already says everything a newer one does leaves the newer standing
                # (listings fold the two as copies): a newer memory is never superseded by an older one
                superseded_by[verdict.older] = verdict.newer
        withdrawn = withdrawn_edges(verdicts, scanned.prior.edges)
        _replaced_clause_by_clause(superseded_by, formed.duplicate_of, verdicts, scanned.prior.edges, withdrawn,
                                   by_key)
        _newest_replacement(superseded_by, formed.duplicate_of, scanned.prior.edges, withdrawn, by_key)
        released = {
            e.target_key for e in withdrawn
            if e.edge_type is not EdgeType.CONTRADICTS and e.target_key not in superseded_by
            and (before := scanned.prior.meta.get(e.target_key)) is not None and before.superseded_by == e.source_key
        }
        # replaced only in part now: an earlier run's full supersession of the pair no longer hides the memory
        released |= {
            v.older for v in verdicts
            if v.relation is Relation.SUPERSEDES and v.partial and v.older not in superseded_by
            and (before := scanned.prior.meta.get(v.older)) is not None and before.superseded_by == v.newer
        }
        await self.bus.publish(
            SupersessionsJudged(
                run_id=formed.run_id,
                superseded_by=superseded_by,
                verdicts=tuple(sorted(verdicts, key=lambda v: (v.newer, v.older))),
                withdrawn_edges=tuple(sorted(e.id for e in withdrawn)),
                no_longer_superseded=tuple(sorted(released)),
                usage=usage,
                fallbacks=tuple(sorted(fallbacks)),
            )
        )

    def _pairs(self, cluster: Cluster, by_key: dict[str, Memory], copies: dict[str, list[Memory]],
               settled: Callable[[str, str], bool], quality: dict[str, tuple[float, bool]],
               first_seen: dict[str, datetime]) -> list[tuple[Memory, Memory, float]]:
        members = [by_key[k] for k in cluster.members]
        score = {m.key: quality[m.key][0] if m.key in quality else 0.0 for m in members}
        first = [first_seen.get(m.key, m.timestamp) for m in members]
        order = sorted(range(len(members)), key=lambda i: (first[i], members[i].timestamp, members[i].key))
        pairs = []
        for p in range(1, len(order)):
            i = order[p]
            # whole captures first: a fragment must not take the place of the decision it mentions
            older = sorted(order[:p], key=lambda j: (score[members[j].key] < WELL_FORMED,
                                                      -cluster.similarity[i][j]))[: self._older_per_memory]
            for j in older:
                if cluster.similarity[i][j] < self._pair_threshold or settled(members[i].key, members[j].key):
                    continue
                if score[members[i].key] < WELL_FORMED <= score[members[j].key]:
                    continue  # a fragment is no evidence against a whole capture
                stand_in = _stand_in(members[i], members[j], copies)
                if stand_in is not None:
                    pairs.append((members[i], stand_in, cluster.similarity[i][j]))
        return pairs

    def _lexical(self, scanned: MemoriesScanned, canonical: list[Memory], statements: frozenset[str],
                 first_seen: dict[str, datetime], copies: dict[str, list[Memory]],
                 clustered: list[list[tuple[Memory, Memory, float]]],
                 formed: ClustersFormed, resolved: set[frozenset[str]]) -> list[tuple[Memory, Memory, float]]:
        """Pairs clusters miss (actors/algorithms/lexical_pairs.py) that hold a memory new since the last run.
        All of them, and every pair an earlier offline verdict linked (weight below CONFIDENCE), on `--full` and,
        offline, on the first run after the judge's rules changed (the last run recorded older RULES)."""
        known = {(n.key, o.key) for group in clustered for n, o, _ in group}
        similarity: dict[frozenset[str], float] = {}
        for cluster in formed.clusters:
            if cluster.kind is not ClusterKind.DUPLICATES and len(cluster.similarity) == len(cluster.members):
                for i, a in enumerate(cluster.members):
                    for j, b in enumerate(cluster.members[:i]):
                        similarity[frozenset((a, b))] = cluster.similarity[i][j]
        found = lexical_pairs([m for m in canonical if m.key in statements], first_seen)
        # a front matter or task row cut from a file is no statement, yet states how far its item got
        found += stage_pairs([m for m in canonical if m.key in statements or is_record(raw(m))], first_seen)
        # what a retraction takes back may be a fragment of a longer note
        found += retraction_pairs(canonical, first_seen)
        # offline, a change of rules (or --full) judges every pair again; otherwise pairs of memories an earlier
        # run saw keep their verdicts
        everything = scanned.request.full or (self._llm is None and scanned.prior_judge_rules < RULES)
        if not everything:
            seen_before = scanned.prior.meta
            found = [(n, o) for n, o in found if not (n.key in seen_before and o.key in seen_before)]
        else:
            by_key = {m.key: m for m in canonical}
            for edge in scanned.prior.edges.values():
                if (edge.edge_type in (EdgeType.SUPERSEDES, EdgeType.SUBSUMES, EdgeType.CONTRADICTS)
                        and edge.weight < CONFIDENCE and edge.resolution is None
                        and edge.source_key in by_key and edge.target_key in by_key):
                    a, b = by_key[edge.source_key], by_key[edge.target_key]
                    found.append((a, b) if (first_seen[a.key], a.key) > (first_seen[b.key], b.key) else (b, a))
        pairs: list[tuple[Memory, Memory, float]] = []
        for newer, older in found:
            if (newer.key, older.key) in known or frozenset((newer.key, older.key)) in resolved:
                continue
            known.add((newer.key, older.key))
            stand_in = _stand_in(newer, older, copies)
            if stand_in is not None:
                pairs.append((newer, stand_in, similarity.get(frozenset((newer.key, older.key)), 0.0)))
        return pairs

    async def _judge(
        self, members: Sequence[Memory], pairs: Sequence[tuple[Memory, Memory, float]], deadline: float,
        statements: frozenset[str],
    ) -> tuple[list[Verdict], TokenUsage, str | None]:
        offline = [judge_pair(newer, older, sim, statements=(newer.key in statements, older.key in statements))
                   for newer, older, sim in pairs]
        if self._llm is None:
            return offline, TokenUsage(), None
        user, labels = judge_prompt(members, [(n, o) for n, o, _ in pairs])

        def check(answer: JudgeAnswer) -> None:
            check_citations([l for v in answer.verdicts for l in (v.newer, v.older)], labels)
            for v in answer.verdicts:
                if v.relation == "subsumes" and v.container not in (v.newer, v.older):
                    raise ValueError(f"subsumes verdict for {v.newer}/{v.older} must name one of them as container")

        asked = await ask(self._llm, JUDGE_SYSTEM, user, JudgeAnswer, check, deadline=deadline)
        if asked.answer is None:
            return offline, asked.usage, asked.why
        wanted = {(n.key, o.key) for n, o, _ in pairs}
        judged: dict[tuple[str, str], Verdict] = {}
        for answer in asked.answer.verdicts:
            a, b = labels[answer.newer], labels[answer.older]
            newer, older = (a, b) if (a.timestamp, a.key) >= (b.timestamp, b.key) else (b, a)
            if (newer.key, older.key) not in wanted:
                continue
            relation = Relation(answer.relation)
            reason = answer.reason.strip()[:300]
            if relation in DISTRUSTED and (flagged(newer) or flagged(labels.get(answer.container or "", newer))):
                relation, reason = Relation.AMBIGUOUS, f"held for review: a memory reads like an instruction ({reason})"
            judged[(newer.key, older.key)] = Verdict(
                newer=newer.key, older=older.key, relation=relation, partial=answer.partial,
                container=labels[answer.container].key if relation is Relation.SUBSUMES and answer.container else None,
                reason=reason, confidence=min(answer.confidence, 0.9), provider=asked.provider,
                link=answer.link if relation is Relation.COMPATIBLE and answer.link != "none" else None,
            )
        # pairs the model skipped keep the offline verdict
        merged = [judged.get((v.newer, v.older), v) for v in offline]
        return merged, asked.usage, None


def _replaced_clause_by_clause(superseded_by: dict[str, str], copies: Mapping[str, str],
                               verdicts: Sequence[Verdict], prior: Mapping[str, Edge], withdrawn: Sequence[Edge],
                               by_key: Mapping[str, Memory]) -> None:
    """A memory stating two slots ("start attribute names with 'xt_' and end them with '_t'") that newer memories
    replaced in part, each clause by one of them (this run's verdicts and earlier runs' edges that still stand), is
    replaced whole, by the newest of them: no clause of it holds, so it no longer stands for the rest."""
    gone = {e.id for e in withdrawn}
    parts: dict[str, set[str]] = {}
    for v in verdicts:
        if v.relation is Relation.SUPERSEDES and v.partial:
            parts.setdefault(v.older, set()).add(v.newer)
    for e in prior.values():
        if e.edge_type is EdgeType.SUPERSEDES and e.partial and e.in_force and e.id not in gone:
            parts.setdefault(e.target_key, set()).add(e.source_key)
    for older, newer in parts.items():
        replacing = [by_key[k] for k in newer if k in by_key]
        if older in superseded_by or older not in by_key or len(replacing) < 2:
            continue
        said = [statement(m.summary, m.body[:MAX_TEXT]) for m in replacing]
        if every_clause_changed(statement(by_key[older].summary, by_key[older].body[:MAX_TEXT]), said):
            superseded_by[older] = max(replacing, key=lambda m: (m.timestamp, m.key)).key
            if (canonical := copies.get(older)) is not None:
                superseded_by.setdefault(canonical, superseded_by[older])


def _newest_replacement(superseded_by: dict[str, str], copies: Mapping[str, str], prior: Mapping[str, Edge],
                        withdrawn: Sequence[Edge], by_key: Mapping[str, Memory]) -> None:
    """A memory several memories supersede is superseded by the newest of them, whichever this run judged: an
    earlier run's edges that still stand count too, so a second run over the same store settles on the same one; a
    copy an earlier verdict replaced stays replaced rather than falling back to pointing at its canonical."""
    gone = {e.id for e in withdrawn}
    for edge in prior.values():
        older, newer = edge.target_key, edge.source_key
        if (edge.edge_type is not EdgeType.SUPERSEDES or edge.partial or not edge.in_force or edge.id in gone
                or older not in superseded_by or newer not in by_key):
            continue
        if copies.get(older) == superseded_by[older]:
            superseded_by[older] = newer  # a copy that was replaced points at its replacement, not its canonical
            continue
        current = by_key.get(superseded_by[older])
        candidate = by_key[newer]
        if current is None or (candidate.timestamp, candidate.key) > (current.timestamp, current.key):
            superseded_by[older] = newer


def _stand_in(newer: Memory, older: Memory, copies: dict[str, list[Memory]]) -> Memory | None:
    """The copy of `older` to judge against `newer`: itself, or when it was restated since, its newest copy from
    before `newer` (None when it has none: then it is not older)."""
    if older.timestamp <= newer.timestamp:
        return older
    earlier = [c for c in copies.get(older.key, ()) if c.timestamp <= newer.timestamp]
    return max(earlier, key=lambda c: (c.timestamp, c.key)) if earlier else None


def _batches(groups: list[list[tuple[Memory, Memory, float]]], *, max_pairs: int,
             max_memories: int) -> list[list[tuple[Memory, Memory, float]]]:
    """Pack the pairs of many clusters into few calls; a cluster's pairs stay together when they fit."""
    batches: list[list[tuple[Memory, Memory, float]]] = []
    current: list[tuple[Memory, Memory, float]] = []
    keys: set[str] = set()
    for group in sorted((g for g in groups if g), key=len, reverse=True):
        for start in range(0, len(group), max_pairs):
            chunk = group[start : start + max_pairs]
            chunk_keys = {m.key for pair in chunk for m in pair[:2]}
            if current and (len(current) + len(chunk) > max_pairs or len(keys | chunk_keys) > max_memories):
                batches.append(current)
                current, keys = [], set()
            current.extend(chunk)
            keys |= chunk_keys
    if current:
        batches.append(current)
    return batches
