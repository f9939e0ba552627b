"""The read model on disk: the recall index and the SessionStart context cache.

Both live under `<git common dir>/memactors/` and are replaced atomically
(temporary file, then rename), so a reader sees the old or the new run,
never half of one. They are local caches: deleting them loses nothing the
next run cannot rebuild.

- `recall-index.npz`: the read model's entries as a table (their JSON,
  parsed only when read, and the columns recall ranks on; see
  adapters/reading/entry_table.py), `vectors` (float16, one row per entry,
  empty without embeddings) and `header` (JSON: version, format, run, time,
  embedding model, memory ref tips).
- `recall-lexical.sqlite`: the entries' FTS5 index for BM25 (title, embedded
  text, tags; see adapters/reading/lexical_index.py), rowid = entry position.
- `surfacing.sqlite`: what `memactors surface` may say about a file, an
  error or a prompt (see adapters/reading/surfacing_index.py).
- `context.json`: the candidates the SessionStart hook chooses from —
  readable summaries, and the best standing, readable memories of any tier
  (one per group of copies), best first — read with the standard library
  only (see adapters/claude/session_context.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from memactors.actors.algorithms.file_signal import Subject, file_links
from memactors.actors.ports import Embedder
from memactors.adapters.git.commit_files import CommitFiles
from memactors.adapters.reading.entry_table import EntryColumns, EntryTable, load_table, table_arrays
from memactors.adapters.reading.lexical_index import LEXICAL_FILE, write_index
from memactors.adapters.reading.surfacing_index import MIN_QUALITY as MIN_SURFACE_QUALITY
from memactors.adapters.reading.surfacing_index import SURFACING_FILE, Surfaceable, write_surfacing_index
from memactors.events.read_model import READ_MODEL_VERSION, EntryKind, IndexedEntry, ReadModel
from memactors.events.tier import Tier

log = logging.getLogger(__name__)

RECALL_FILE = "recall-index.npz"
CONTEXT_FILE = "context.json"
CONTEXT_VERSION = 2
#: Candidates kept for the hook: far more than a 2,000-token block holds, few enough to parse in milliseconds.
MAX_CONTEXT_SUMMARIES = 150
MAX_CONTEXT_MEMORIES = 250
#: Below this quality a memory is raw material, never context (the hook's own threshold is higher).
MIN_CONTEXT_QUALITY = 0.2

#: The layout of recall-index.npz (2: entries as a table with ranking columns).
INDEX_FORMAT = 2


class ReadModelMissing(Exception):
    """No run has written a read model yet (or it is from another version)."""


@dataclass(frozen=True)
class RecallIndex:
    """The stored read model: entries, their unit vectors (rows aligned; None without), and where it came from."""

    entries: EntryTable
    vectors: NDArray[np.float32] | None
    model_id: str | None
    run_id: str
    generated_at: str
    memory_tips: dict[str, str]
    columns: EntryColumns
    lexical: Path | None = None  # the FTS5 index of the same entries, when there is one
    lexical_rows: int | None = None  # how many leading entries the lexical index holds (None: all of them)


class ReadCache:
    """`ReadModelSink` for the persister, and the loader recall uses. With `surfacing` off (the stage's switch)
    it builds no surfacing index and removes one an earlier run wrote (a stale index would speak when the
    hook is switched on again before the next run)."""

    def __init__(self, common_dir: Path, embedder: Embedder | None = None, files: CommitFiles | None = None,
                 *, surfacing: bool = True) -> None:
        self.directory = common_dir / "memactors"
        self._embedder = embedder
        self._files = files
        self._surfacing = surfacing
        self._written: bytes | None = None  # digest of what this instance last wrote

    # --- write ---------------------------------------------------------------------

    def write(self, model: ReadModel) -> None:
        """Store `model`; skipped when this instance already wrote the same entries and files are there
        (a daemon's runs that change nothing then cost no embedding lookups and no 15 MB rewrite)."""
        table = table_arrays(model.entries)  # each entry serialised once: stored, and digested here
        # memory keys hash their content; a summary's text can change under the same id, so it counts too
        summary_texts = [t for e, t in zip(model.entries, model.embedding_texts) if e.kind is EntryKind.SUMMARY]
        digest = hashlib.sha256(table["entry_blob"].tobytes()
                                + json.dumps([model.memory_tips, summary_texts], sort_keys=True).encode()).digest()
        if digest == self._written and all((self.directory / name).exists()
                                           for name in (RECALL_FILE, LEXICAL_FILE, CONTEXT_FILE,
                                                        *((SURFACING_FILE,) if self._surfacing else ()))):
            return
        vectors = np.zeros((0, 0), dtype=np.float16)
        model_id = None
        if self._embedder is not None and model.embedding_texts:
            vectors = self._embedder.embed(list(model.embedding_texts)).astype(np.float16)
            model_id = self._embedder.model_id
        self.directory.mkdir(exist_ok=True)  # never parents: a vanished repository is not recreated
        try:  # before the recall index: a reader pairs the two by run id, so a crash between leaves no mismatch
            write_index(self.directory / LEXICAL_FILE, (
                (e.title or e.summary, text, " ".join((e.namespace, *e.tags)))
                for e, text in zip(model.entries, model.embedding_texts)), model.run_id)
        except sqlite3.Error as exc:  # a Python whose SQLite lacks FTS5: recall matches words without it
            (self.directory / LEXICAL_FILE).unlink(missing_ok=True)
            log.warning("no lexical index (%s): recall matches words without BM25", exc)
        self._write_index_and_context(model, table, vectors, model_id, model.generated_at.isoformat())
        self._written = digest

    def _write_index_and_context(self, model: ReadModel, table: dict, vectors: NDArray[np.float16],
                                 model_id: str | None, generated_at: str) -> None:
        """The recall index, the SessionStart candidates and the surfacing index of `model`, each replaced
        atomically (the lexical index, keyed by entry position, is the caller's)."""
        header = {"version": READ_MODEL_VERSION, "format": INDEX_FORMAT, "run_id": model.run_id,
                  "generated_at": generated_at, "model_id": model_id, "memory_tips": model.memory_tips}

        def recall_index(handle) -> None:
            np.savez(handle, header=_bytes(json.dumps(header).encode()), vectors=vectors, **table)

        _replace(self.directory / RECALL_FILE, recall_index)
        placement_of = _placements(self.directory.parent)
        context = json.dumps(context_document(model, placement_of=placement_of),
                             ensure_ascii=False, separators=(",", ":")).encode()
        _replace(self.directory / CONTEXT_FILE, lambda handle: handle.write(context))
        if self._surfacing:
            self._write_surfacing(model, placement_of)
        else:
            (self.directory / SURFACING_FILE).unlink(missing_ok=True)

    def _write_surfacing(self, model: ReadModel, placement_of: Callable[[str], tuple[str, float]]) -> None:
        """The surfacing index: readable, standing memories, the files each is about, their words, and for one
        not merged into HEAD its branch label and rank factor."""
        chosen = [e for e in model.entries if e.kind is EntryKind.MEMORY and e.copy_of is None and e.readable
                  and e.quality >= MIN_SURFACE_QUALITY and not e.superseded_by]
        subjects = [Subject(row=i, commit=_commit_of(e.id), text=f"{e.title}\n{e.summary}\n{e.excerpt}",
                            tags=e.tags) for i, e in enumerate(chosen)]
        # how crowded each commit is counts every capture on it, fragments included: that is the noise
        captures = Counter(_commit_of(e.id) for e in model.entries if e.kind is EntryKind.MEMORY)
        commit_files: dict[str, tuple[str, ...]] = {}
        repo_files: list[str] = []
        if self._files is not None:
            try:
                commit_files = self._files.changed(s.commit for s in subjects if s.commit)
                repo_files = self._files.head_files()
                self._files.save()
            except Exception as exc:  # noqa: BLE001 - git trouble costs the commit signal, not the run
                log.warning("surfacing without commit files: %s", exc)
        links = file_links(subjects, commit_files, repo_files, captures)
        memories = [Surfaceable(id=e.id, namespace=e.namespace, date=(e.last_seen or e.timestamp).date().isoformat(),
                                title=e.title or e.summary, body=f"{e.summary}\n{e.excerpt}",
                                tags=" ".join((e.namespace, *e.tags)), branch=branch, factor=factor)
                    for e in chosen for branch, factor in (placement_of(e.id),)]
        write_surfacing_index(self.directory / SURFACING_FILE, memories, links, model.run_id, model.memory_tips)

    def apply_decisions(self, superseded_by: dict[str, str | None],
                        decided: Sequence[tuple[str, str]] = ()) -> bool:
        """Apply the user's decisions to the stored read model at once (memory key -> the key that now replaces
        it, or None when it stands again): recall, the SessionStart context and surfacing see them before the
        next run, which recomputes tiers and retention; `decided` (pairs of memory keys) are conflicts no longer
        undecided. False when there is no read model to patch."""
        try:
            index = self.load()
        except ReadModelMissing:
            return False
        entries = list(index.entries)
        heads = {e.key: e for e in entries if e.kind is EntryKind.MEMORY and e.copy_of is None}
        patched = []
        for e in entries:
            key = e.copy_of or e.key
            if e.kind is EntryKind.MEMORY and key in superseded_by:
                newer = heads.get(superseded_by[key] or "")
                e = e.model_copy(update={
                    "superseded_by": newer.id if newer else superseded_by[key],
                    "superseded_by_text": (newer.title or newer.summary) if newer else None})
            patched.append(e)
        try:
            context = json.loads((self.directory / CONTEXT_FILE).read_text())
            reference = datetime.fromtimestamp(float(context["reference_time"]), timezone.utc)
            pairs = [tuple(p) for p in context.get("conflicts", []) if isinstance(p, list) and len(p) == 2]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            reference, pairs = None, []
        settled = {frozenset(heads[k].id for k in pair if k in heads) for pair in decided}
        pairs = [p for p in pairs if frozenset(p) not in settled]
        model = ReadModel(run_id=index.run_id, generated_at=datetime.fromisoformat(index.generated_at),
                          reference_time=reference, memory_tips=index.memory_tips, entries=tuple(patched),
                          embedding_texts=(), conflicts=tuple(pairs))
        vectors = index.vectors.astype(np.float16) if index.vectors is not None else np.zeros((0, 0), np.float16)
        # same entries in the same order: the lexical index (by position) still holds
        self._write_index_and_context(model, table_arrays(patched), vectors, index.model_id, index.generated_at)
        self._written = None
        return True

    # --- read ----------------------------------------------------------------------

    def load(self) -> RecallIndex:
        """The stored index; raises ReadModelMissing when there is none this version can read."""
        try:
            with np.load(self.directory / RECALL_FILE, allow_pickle=False) as data:
                header = json.loads(data["header"].tobytes())
                if header.get("version") != READ_MODEL_VERSION or header.get("format") != INDEX_FORMAT:
                    raise ReadModelMissing(f"the recall index is version {header.get('version')!r}, format "
                                           f"{header.get('format')!r}")
                entries, columns = load_table(data)
                vectors = data["vectors"]
        except FileNotFoundError:
            raise ReadModelMissing("no recall index yet") from None
        except (OSError, ValueError, KeyError) as exc:
            raise ReadModelMissing(f"the recall index cannot be read ({type(exc).__name__})") from None
        usable = vectors.ndim == 2 and len(vectors) == len(entries) and vectors.shape[1] > 0
        return RecallIndex(entries=entries, vectors=vectors.astype(np.float32) if usable else None,
                           model_id=header.get("model_id") if usable else None, run_id=header.get("run_id", ""),
                           generated_at=header.get("generated_at", ""), memory_tips=header.get("memory_tips", {}),
                           columns=columns, lexical=lexical if (lexical := self.directory / LEXICAL_FILE).exists() else None)


def _placements(git_dir: Path) -> Callable[[str], tuple[str, float]]:
    """A memory id's (branch label, rank factor) as the repository stands: ("", 1.0) on HEAD's line, merged,
    unknown, or when git cannot say; else ("from feature/x, not merged", UNMERGED_PENALTY)."""
    from memactors.adapters.git.branches import BranchMap

    try:
        import pygit2

        branches = BranchMap(pygit2.Repository(str(git_dir)))
    except Exception:  # noqa: BLE001 - no repository here (a bare read model): no labels
        return lambda memory_id: ("", 1.0)
    memo: dict[str, tuple[str, float]] = {}

    def placement_of(memory_id: str) -> tuple[str, float]:
        commit = _commit_of(memory_id)
        if not commit:
            return "", 1.0
        if commit not in memo:
            placement = branches.placement(commit)
            memo[commit] = (placement.label(), placement.penalty)
        return memo[commit]

    return placement_of


#: The SessionStart candidates are chosen from this many times MAX_CONTEXT_MEMORIES of the best memories by
#: score, once each is multiplied by its rank factor (a memory not merged into HEAD ranks lower).
CONTEXT_WINDOW = 3


def context_document(model: ReadModel,
                     placement_of: Callable[[str], tuple[str, float]] = lambda memory_id: ("", 1.0)) -> dict[str, Any]:
    """What the SessionStart hook reads: readable, current summaries and the best standing, readable memories
    of any tier (the most complete copy of each capture), best first, plain JSON; a memory not merged into HEAD
    carries its `branch` label and its `penalty` (the hook multiplies its priority by it), as the repository
    stood at the run, and is chosen by its score times that penalty."""
    summaries = sorted((e for e in model.entries if e.kind is EntryKind.SUMMARY and e.readable
                        and not e.superseded_by),
                       key=lambda e: (-e.score, e.id))
    memories = sorted((e for e in model.entries if e.kind is EntryKind.MEMORY and e.copy_of is None
                       and not e.superseded_by and e.readable and e.quality >= MIN_CONTEXT_QUALITY
                       and e.tier is not Tier.ARCHIVED),
                      key=lambda e: (-e.score, e.id))
    window = memories[: MAX_CONTEXT_MEMORIES * CONTEXT_WINDOW]
    placed = {e.id: placement_of(e.id) for e in window}
    window.sort(key=lambda e: (-e.score * placed[e.id][1], e.id))
    tiers: dict[str, int] = {}
    for e in model.entries:
        if e.kind is EntryKind.MEMORY:
            tiers[e.tier.value] = tiers.get(e.tier.value, 0) + 1
    return {
        "version": CONTEXT_VERSION,
        "run_id": model.run_id,
        "generated_at": model.generated_at.isoformat(),
        "reference_time": (model.reference_time or model.generated_at).timestamp(),
        "tier_counts": tiers,
        "conflicts": [list(pair) for pair in model.conflicts],
        # the memory refs this run read: the hook reads what was captured since (adapters/claude/fresh_notes.py)
        "memory_tips": dict(model.memory_tips),
        "candidates": [_candidate(e, ("", 1.0)) for e in summaries[:MAX_CONTEXT_SUMMARIES]]
        + [_candidate(e, placed[e.id]) for e in window[:MAX_CONTEXT_MEMORIES]],
    }


def _candidate(entry: IndexedEntry, placement: tuple[str, float]) -> dict[str, Any]:
    latest = entry.last_seen or entry.timestamp
    anchor = max(latest, entry.last_access) if entry.last_access else latest
    doc: dict[str, Any] = {"kind": entry.kind.value, "id": entry.id, "namespace": entry.namespace,
                           "title": entry.title or entry.summary, "quality": entry.quality,
                           "timestamp": latest.isoformat(), "anchor": anchor.timestamp(), "score": entry.score,
                           "activation_count": entry.activation_count, "terms": list(entry.terms)}
    if entry.kind is EntryKind.SUMMARY:
        doc["sources"] = len(entry.sources)
    if entry.copies > 1:
        doc["copies"] = entry.copies
    if entry.kind is EntryKind.MEMORY and placement[0]:
        doc["branch"] = placement[0]
    if entry.kind is EntryKind.MEMORY and placement[1] != 1.0:
        doc["penalty"] = placement[1]
    if entry.kind is EntryKind.MEMORY and entry.namespace == "decisions" and (why := rationale(entry)):
        doc["rationale"] = why
    for field in ("supersedes", "superseded_facts"):
        if getattr(entry, field):
            doc[field] = list(getattr(entry, field))
    return doc


#: A decision's rationale in the session's context is at most this long.
MAX_RATIONALE = 160
_MARKUP = re.compile(r"(^|\s)(#+|[*_`>]+|-{2,})(?=\s|$)|\*\*|__|`")
_WHY = re.compile(r"\b(?:rationale|why|reason|because)\b\s*[:\-—]?\s*", re.I)


def rationale(entry: IndexedEntry) -> str:
    """Why a decision was made, in a line: the sentence its body gives after "Rationale:" / "Why:" /
    "because", else the body's first sentence that is not its title again ('' when there is none)."""
    text = " ".join(_MARKUP.sub(" ", entry.excerpt).split())
    said = _WHY.search(text)
    if said and said.end() < len(text):
        text = text[said.end():]
    title = " ".join((entry.title or entry.summary).lower().split()).rstrip(".")
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        sentence = sentence.strip()
        flat = sentence.lower().rstrip(".")
        if len(sentence.split()) < 3 or flat in title or title in flat:
            continue
        return sentence if len(sentence) <= MAX_RATIONALE else sentence[: MAX_RATIONALE - 1].rstrip() + "…"
    return ""


def _commit_of(memory_id: str) -> str:
    """The commit a memory hangs on, from its ID (`namespace:<sha>:<index>`)."""
    parts = memory_id.split(":")
    return parts[1] if len(parts) == 3 else ""


def _bytes(data: bytes) -> NDArray[np.uint8]:
    return np.frombuffer(data, dtype=np.uint8)


def _replace(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write `path` through a temporary file and a rename; on failure (a full disk) leave no temporary behind."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with tmp.open("wb") as handle:
            write(handle)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
