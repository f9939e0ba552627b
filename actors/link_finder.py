"""Link finder: the links worth following between memories, from evidence and from the LLM judge's answers."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

import trio

from memactors.actors.algorithms.heuristic_judge import prose
from memactors.actors.algorithms.link_discovery import Candidate, FoundLink, discover_links, vocabulary
from memactors.actors.algorithms.clustering import embedding_text
from memactors.actors.ports import CommitFileReader, ContentReader, Embedder
from memactors.bus.bus import Bus
from memactors.bus.join import Joined, JoiningActor
from memactors.events.edge import ADDED, LINK_TYPES, Edge, EdgeType, REMOVED
from memactors.events.memory import Memory
from memactors.events.pipeline import ClustersFormed, LinksFound, MemoriesScanned, SupersessionsJudged
from memactors.events.quality import QualityPolicy, asserts, quality_score
from memactors.events.verdict import Relation, Verdict

log = logging.getLogger(__name__)
progress = logging.getLogger("memactors.progress")
OFFLINE = "offline"


class LinkFinder(JoiningActor):
    """Joins a run's scan and clusters (and verdicts, when a judge runs); publishes `LinksFound`.

    Only statements take part (readable, well formed, not a question; copies stand in for their canonical).
    A pair that already has a supersedes, subsumes, contradicts or references edge, or that the user linked or
    unlinked, gets no discovered link: the user's word stands across runs. The LLM judge's typed answer for a
    compatible pair becomes a link found by that provider. Once links exist, a run looks only at pairs holding a
    memory new since the last run (a `--full` run, or one over some namespaces, at every pair); a run that looked
    at every pair over the whole store also withdraws the links earlier runs found offline that the evidence no
    longer shows. Vocabularies are kept by memory key across runs (the daemon's actor lives on). With an embedder, a pair must also be alike
    in meaning (see link_discovery.MIN_SIMILARITY). Git trouble reading commit files costs the file
    evidence, not the run.
    """

    name = "link_finder"
    joins = (MemoriesScanned, ClustersFormed)
    joins_if_published = (SupersessionsJudged,)
    publishes = (LinksFound,)

    def __init__(self, bus: Bus, *, quality: QualityPolicy, traits: ContentReader,
                 files: CommitFileReader | None = None, embedder: Embedder | None = None) -> None:
        super().__init__(bus)
        self._embedder = embedder
        self._vocab: dict[str, frozenset[str]] = {}
        self._quality = quality
        self._traits = traits
        self._files = files

    async def handle_run(self, events: Joined) -> None:
        scanned, formed = events[MemoriesScanned], events[ClustersFormed]
        judged = events.get(SupersessionsJudged)
        canonical = [m for m in scanned.memories if m.key not in formed.duplicate_of]
        traits = await trio.to_thread.run_sync(self._traits.traits, canonical)
        statements = [m for m in canonical if (t := traits.get(m.key)) is not None
                      and asserts(quality_score(self._quality, t), t.readable, m.summary)]
        first_seen = {m.key: m.timestamp for m in canonical}
        for copy in scanned.memories:
            canonical_key = formed.duplicate_of.get(copy.key)
            if canonical_key in first_seen and copy.timestamp < first_seen[canonical_key]:
                first_seen[canonical_key] = copy.timestamp
        settled = _settled_pairs(scanned.prior.edges.values(), judged.verdicts if judged else ())
        candidates = [Candidate(m.key, m.namespace, first_seen[m.key], m.summary, prose(m), m.commit, tuple(m.tags))
                      for m in statements]
        commit_files, repo_files = await trio.to_thread.run_sync(self._read_files, statements)
        captures = Counter(m.commit for m in scanned.memories)
        vectors = None
        if self._embedder is not None and statements:  # the clusterer embedded them: the cache answers
            vectors = await trio.to_thread.run_sync(self._embedder.embed, [embedding_text(m) for m in statements])
        vocabularies = await trio.to_thread.run_sync(self._vocabularies, candidates)
        # a run over part of what changed finds the new memories' links only (rarity still counted over all); the
        # first run with links, a --full run or a change of the rules look at every pair
        everything = (scanned.request.full or scanned.request.namespaces is not None
                      or not any(e.is_link and e.found_by == OFFLINE for e in scanned.prior.edges.values()))
        focus = None if everything else [row for row, m in enumerate(statements) if m.key not in scanned.prior.meta]
        found = [] if focus == [] else await trio.to_thread.run_sync(lambda: discover_links(
            candidates, commit_files=commit_files, repo_files=repo_files, captures=captures, excluded=settled,
            vectors=vectors, vocabularies=vocabularies, focus=focus))
        when, run_id = scanned.request.started_at, scanned.run_id
        ids = {m.key: m.id for m in scanned.memories}
        links = {e.id: e for e in (_edge(k, ids, OFFLINE, when, run_id) for k in found)}
        statement_keys = {m.key for m in statements}
        for v in judged.verdicts if judged else ():
            pair = frozenset((v.newer, v.older))
            if (v.relation is Relation.COMPATIBLE and v.link in {t.value for t in LINK_TYPES} and pair not in settled
                    and v.newer in statement_keys and v.older in statement_keys):
                link = FoundLink(v.newer, v.older, EdgeType(v.link), round(v.confidence, 3), v.reason)
                edge = _edge(link, ids, v.provider, when, run_id)
                links[edge.id] = edge
        withdrawn: list[str] = []
        if focus is None and scanned.request.namespaces is None:
            in_scope = {m.key for m in scanned.memories}
            withdrawn = [e.id for e in scanned.prior.edges.values()
                         if e.is_link and e.found_by == OFFLINE and e.resolution is None and e.id not in links
                         and e.source_key in in_scope and e.target_key in in_scope]
        if links:
            progress.info("found %d links between memories", len(links))
        await self.bus.publish(LinksFound(run_id=run_id, links=tuple(links[i] for i in sorted(links)),
                                          withdrawn=tuple(sorted(withdrawn))))

    def _vocabularies(self, candidates: Sequence[Candidate]) -> list[frozenset[str]]:
        """Each candidate's vocabulary, kept by memory key across runs (a key names one content)."""
        kept = {c.key: self._vocab.get(c.key) or vocabulary(c) for c in candidates}
        self._vocab = kept  # memories gone since are forgotten
        return [kept[c.key] for c in candidates]

    def _read_files(self, memories: Sequence[Memory]) -> tuple[Mapping[str, Sequence[str]] | None, Sequence[str]]:
        if self._files is None:
            return None, ()
        try:
            changed = self._files.changed(m.commit for m in memories if m.commit)
            head = self._files.head_files()
            self._files.save()
            return changed, head
        except Exception as exc:  # noqa: BLE001 - see the class docstring
            log.warning("links without commit files: %s", exc)
            return None, ()


def _settled_pairs(prior: Iterable[Edge], verdicts: Iterable[Verdict]) -> set[frozenset[str]]:
    """Pairs no discovered link may touch: related otherwise already, or linked / unlinked by the user."""
    settled: set[frozenset[str]] = set()
    for edge in prior:
        if (not edge.is_link and edge.edge_type is not EdgeType.CONSOLIDATES) or edge.resolution in (ADDED, REMOVED):
            settled.add(frozenset((edge.source_key, edge.target_key)))
    for v in verdicts:
        if v.relation is not Relation.COMPATIBLE:
            settled.add(frozenset((v.newer, v.older)))
    return settled


def _edge(link: FoundLink, ids: Mapping[str, str], found_by: str, when: datetime, run_id: str) -> Edge:
    return Edge(source_key=link.source, target_key=link.target, source_id=ids.get(link.source, link.source),
                target_id=ids.get(link.target, link.target), edge_type=link.edge_type, weight=link.weight,
                reason=link.reason, created_at=when, consolidation_run_id=run_id, found_by=found_by)
