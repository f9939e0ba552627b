"""Recall: hybrid search over what the last run left, or a dated answer to a "when" question."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from memactors.adapters.operations.checks import check_namespaces
from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.outcome import EXIT_ERRORS, Outcome
from memactors.adapters.operations.store import load_settings, open_store

MODES = ("reflexive", "standard", "deep", "exhaustive")


#: The recall index a long-lived process (the daemon, the MCP server) read last, by what its files were then.
_LAST_INDEX: dict[str, tuple[tuple[object, ...], Any]] = {}


def _index(common_dir: Path) -> Any:
    """The recall index the last run wrote, read again only when a run replaced it."""
    from memactors.adapters.reading.lexical_index import LEXICAL_FILE
    from memactors.adapters.reading.read_cache import RECALL_FILE, ReadCache

    cache = ReadCache(common_dir)
    stamp: list[object] = [str(common_dir)]
    for name in (RECALL_FILE, LEXICAL_FILE):
        try:
            info = (cache.directory / name).stat()
            stamp += [info.st_mtime_ns, info.st_size, info.st_ino]
        except OSError:
            stamp.append(None)
    last = _LAST_INDEX.get("index")
    if last is not None and last[0] == tuple(stamp):
        return last[1]
    index = cache.load()
    _LAST_INDEX["index"] = (tuple(stamp), index)
    return index


def fresh_index(store, index, embedder, notes: list[str]):
    """`index` with the memories written since the run that built it (searchable at once, marked new); a note
    when more arrived than a query reads."""
    from memactors.adapters.reading.fresh import MAX_FRESH, with_fresh

    current = {ref: tip for ref in store.git.memory_refs().values() if (tip := store.git.tip(ref)) is not None}
    if current == {r: t for r, t in index.memory_tips.items() if t is not None}:
        return index
    fresh = store.memories_since(index.memory_tips)
    if len(fresh) > MAX_FRESH:
        notes.append(f"{len(fresh)} memories are new since the last run; the newest {MAX_FRESH} are searched: "
                     "run `memactors consolidate`")
        fresh = sorted(fresh, key=lambda m: m.timestamp)[-MAX_FRESH:]
    return with_fresh(index, fresh, embedder if index.model_id is not None else None)


def _mode_tiers(mode: str) -> list[str]:
    from memactors.adapters.reading.recall import MODES as TIERS
    from memactors.events.tier import TIER_ORDER

    return [t.value for t in TIER_ORDER if t in TIERS[mode]]


def recall(repo: Path, query: str, *, mode: str | None = None, limit: int = 10,
           namespaces: Sequence[str] | None = None, reason: bool = False, track: bool = True,
           embedder: Any = None, notes: list[str] | None = None, passages: bool = True) -> Outcome:
    """The best `limit` memories and summaries for `query`, or (for a date question, or `reason`) the dated
    answer, or `{"nothing_relevant": true, ...}` when no memory holds enough of the question. `embedder`: a
    model already loaded (a warm server's); else the local model is loaded for this one query. Notes for the
    person asking (stale index, uses not recorded) are appended to `notes`. `passages`: each memory's excerpt is
    the passage of its body that answers (its note read); else the stored start of its body."""
    from memactors.adapters.operations.text_input import Cleaned, clean_line
    from memactors.adapters.reading.read_cache import ReadModelMissing
    from memactors.adapters.reading.recall import MAX_QUERY_CHARS

    notes = notes if notes is not None else []
    query = " ".join(clean_line(query, "the query", Cleaned()).split())
    if not query:
        raise UsageError("the query is empty; say what to look for")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"the query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}: shorten it")
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    if mode is not None and mode not in MODES:
        raise UsageError(f"unknown mode {mode!r}; use one of: {', '.join(MODES)}")
    settings = load_settings()
    if embedder is None and settings.embeddings != "none":
        from memactors.adapters.models.embeddings import PrefetchedQuery, embedder_from_env

        # the model loads and embeds the query while the store opens and the index loads: most of a cold
        # recall's time (wasted only when there is no index yet, or one without vectors)
        embedder = PrefetchedQuery(embedder_from_env(one_shot=True), query)
    store = open_store(repo, settings)
    try:
        index = _index(store.git.common_dir)
    except ReadModelMissing as exc:
        if not str(exc).startswith("no recall index yet"):
            raise UsageError(f"{exc}: run `memactors consolidate` first") from None
        from memactors.adapters.reading.fresh import empty_index

        # no run yet: what was captured is searched as it is (no tiers, links or summaries until one)
        index = empty_index(embedder)
        notes.append("no read model yet (no run has built one, or its files were removed): memories are searched "
                     "as captured; `memactors consolidate` tiers, links and summarises them")
    from memactors.actors.algorithms.temporal import is_temporal_question

    reason = reason or is_temporal_question(query)
    mode = mode or ("exhaustive" if reason else None)
    from memactors.adapters.reading.recall import nothing_relevant, search, semantic

    if index.model_id is None:
        embedder = None
    depth = limit
    if reason:
        from memactors.adapters.reading.date_answer import EVIDENCE_DEPTH

        depth = max(limit, EVIDENCE_DEPTH)
    index = fresh_index(store, index, embedder, notes)
    check_namespaces(namespaces, index.columns.namespaces)
    placements = _Placements(store)
    hits = search(index, query, mode=mode, limit=depth, namespaces=namespaces, embedder=embedder,
                  rank_factor=placements.factor)
    if not semantic(index, embedder):
        notes.append("matching words only (the index has no vectors for this embedding model)")
    if reason:
        return _reason(query, store, settings, hits, index, track, notes)
    searched = f"{mode}: {', '.join(_mode_tiers(mode))}" if mode else "hot and warm first"
    if nothing_relevant(hits):
        return _nothing_relevant(query, hits, mode)
    _track(track, store, (h.entry.key for h in hits if h.entry.kind.value == "memory"), notes)
    if passages:
        from memactors.adapters.reading.passages import with_passages

        hits = with_passages(store, hits, query)
    lines = [f"{len(hits)} results for {query!r} ({searched})"]
    widened = sum(h.widened for h in hits)
    branches = placements.labels(hits)
    for h in hits:
        e = h.entry
        mark = "+" if h.widened else " "
        tier = "new" if e.fresh else e.tier.value
        lines.append(f"  {h.score:.2f} {mark}[{tier}] {e.namespace:<13} {(e.title or e.summary)[:100]}")
        when = (f"{e.first_seen:%Y-%m-%d} .. {e.last_seen:%Y-%m-%d}, {e.copies} copies"
                if e.copies > 1 and e.first_seen and e.last_seen else f"{e.timestamp:%Y-%m-%d}")
        lines.append(f"        {e.id}  {when}" + (f"  ({branches[e.id]})" if branches.get(e.id) else ""))
        if e.superseded_by:
            lines.append(f"        superseded by {e.superseded_by}" +
                         (f" \"{e.superseded_by_text[:70]}\"" if e.superseded_by_text else ""))
        for fact in e.superseded_facts[:3]:
            lines.append(f"        no longer true: {fact[:80]}")
    if widened:
        lines.append(f"  + {widened} widened: from cold or archived memories, as hot and warm held too few "
                     "relevant results (--mode standard searches only those)")
    return Outcome([{**h.as_json(), **({"branch": branches[h.entry.id]} if branches.get(h.entry.id) else {})}
                    for h in hits], "\n".join(lines))


class _Placements:
    """Where each memory result's commit stands (adapters/git/branches.py), read once per query: what its rank is
    multiplied by (UNMERGED_PENALTY when not merged into HEAD) and its label."""

    def __init__(self, store) -> None:
        self._store = store
        self._map = None

    def placement(self, entry):
        parts = entry.id.split(":")
        if entry.kind.value != "memory" or len(parts) != 3:
            return None
        if self._map is None:
            from memactors.adapters.git.branches import BranchMap

            self._map = BranchMap(self._store.git.repo)
        return self._map.placement(parts[1])

    def factor(self, entry) -> float:
        placement = self.placement(entry)
        return placement.penalty if placement is not None else 1.0

    def labels(self, hits) -> dict[str, str]:
        """Each memory result not merged into HEAD, with where it stands ("from feature/x, not merged")."""
        return {h.entry.id: label for h in hits
                if (placement := self.placement(h.entry)) is not None and (label := placement.label())}


def _nothing_relevant(query: str, hits, mode: str | None) -> Outcome:
    """The answer when no result holds enough of the question (or there is none): said so, with a hint, and
    the JSON `{"nothing_relevant": true, "query", "results": [], "hint"}`; nothing is recorded as used."""
    if mode and mode != "exhaustive":
        hint = f"only {' and '.join(_mode_tiers(mode))} memories were searched (--mode {mode}): try --mode exhaustive"
    elif hits:
        closest = hits[0].entry
        hint = (f"the closest, \"{(closest.title or closest.summary)[:60]}\", shares too little of its meaning "
                "and words: the store may not hold it; ask with the project's own words")
    else:
        hint = "no memory matches its meaning or words: the store may not hold it"
    return Outcome({"nothing_relevant": True, "query": query, "results": [], "hint": hint},
                   f"nothing relevant to {query!r}; {hint}")


def _track(track: bool, store, keys, notes: list[str]) -> None:
    """Record `keys` as used now (unless not tracking); a failure is a note, never an error."""
    if not track:
        return
    from memactors.adapters.claude.activation_log import ActivationLog
    from memactors.adapters.system.clock import SystemClock

    try:
        ActivationLog(store.git.common_dir).record(keys, SystemClock().now())
    except OSError as exc:
        notes.append(f"uses not recorded ({exc})")


def _timezone(settings):
    try:
        return settings.zone()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _reason(query: str, store, settings, hits, index, track: bool, notes: list[str]) -> Outcome:
    from memactors.actors.algorithms.temporal import compose_answer
    from memactors.adapters.models.llm_config import resolve_chain
    from memactors.adapters.reading.date_answer import evidence_of
    from memactors.adapters.system.clock import SystemClock

    tz = _timezone(settings)
    evidence = evidence_of(store, hits, index)
    answer = compose_answer(query, evidence, now=SystemClock().now(), tz=tz)
    why = None
    try:
        configured = resolve_chain(os.environ)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if configured and evidence:  # the LLM client is imported only when one is configured
        import trio

        from memactors.adapters.models.llm_chain import build_chain
        from memactors.adapters.reading.date_answer import reason_with_llm

        chain = build_chain(os.environ)
        assert chain is not None

        async def with_llm():
            try:
                return await reason_with_llm(chain, query, evidence, answer, tz)
            finally:
                await chain.aclose()

        answer, why = trio.run(with_llm)
        if why:
            notes.append(f"the LLM could not answer ({why}); the offline answer stands")
    # what the answer rests on and offers instead is what was used, not every candidate weighed
    shown = [*answer.source_memory_ids, *(m for a in answer.alternatives for m in a.source_memory_ids)]
    _track(track, store, (index.entries[row].key for m in dict.fromkeys(shown)
                          if (row := index.entries.row_of(m)) is not None), notes)
    lines = [answer.answer, f"  confidence {answer.confidence:.2f} ({answer.provider})", f"  {answer.reasoning}"]
    for r in answer.temporal_resolutions[:5]:
        span = f" .. {r.resolved_end.isoformat()}" if r.resolved_end else ""
        lines.append(f"  \"{r.original_text}\" in {r.memory_id[:20]}… (recorded "
                     f"{r.memory_timestamp.astimezone(tz):%Y-%m-%d}) -> {r.resolved_date.isoformat()}{span}")
    if answer.source_memory_ids:
        lines.append("  sources: " + ", ".join(answer.source_memory_ids))
    for alternative in answer.alternatives:
        lines.append(f"  or {alternative.answer} (confidence {alternative.confidence:.2f}, "
                     f"{', '.join(alternative.source_memory_ids)})")
    return Outcome(answer.model_dump(mode="json"), "\n".join(lines), EXIT_ERRORS if why else 0)


def print_notes(command: str, notes: Iterable[str]) -> None:
    for note in notes:
        print(f"memactors {command}: {note}", file=sys.stderr)


#: The arguments a query socket request may pass to recall.
REQUEST_ARGS = frozenset({"query", "mode", "limit", "namespaces", "reason", "track", "answer"})


def answer_request(repo: Path, embedder: Any, request: Any) -> dict[str, Any]:
    """A daemon's answer to one query socket request ({"op": "recall", "args": {...}}): recall's document, text,
    code and notes, or {"code": 2, "error"} for a request it cannot answer."""
    if not isinstance(request, dict) or request.get("op") != "recall" or not isinstance(request.get("args"), dict):
        return {"code": 2, "error": "unknown request"}
    args = {k: v for k, v in request["args"].items() if k in REQUEST_ARGS}
    notes: list[str] = []
    try:
        if args.pop("answer", False):  # the answer composed from what recall finds (adapters/operations/answer.py)
            from memactors.adapters.operations.answer import answer

            args.pop("reason", None)
            outcome = answer(repo, args.pop("query", ""), embedder=embedder, notes=notes, **args)
        else:
            outcome = recall(repo, embedder=embedder, notes=notes, **args)
    except UsageError as exc:
        return {"code": 2, "error": str(exc), "notes": notes}
    except TypeError as exc:
        return {"code": 2, "error": f"bad request: {exc}"}
    return {"code": outcome.code, "document": outcome.document, "text": outcome.text, "notes": notes}
