"""The surfacing index: what `memactors surface` may say about a file, an error or a prompt. Standard library only.

One SQLite file under `<git common dir>/memactors/`, written by each run
beside the recall index (temporary file, then rename) and read by the hook
with nothing but sqlite3 (and no dataclasses, typing or pathlib: the hook
runs on every tool call and pays for every import):

- `memory`: the memories worth surfacing — readable (quality at least
  `MIN_QUALITY`), not replaced by a newer one, one per group of copies —
  with what a line shows (ID, namespace, date, title) and, for one whose
  commit is not merged into HEAD, its branch label and the `factor` its
  strength is multiplied by (adapters/git/branches.py `UNMERGED_PENALTY`);
- `file`: repository-relative path -> memory, with the file signal's weight
  (actors/algorithms/file_signal.py);
- `entries`: their FTS5 text (title, body, tags), rowid = memory row, for
  errors and prompts (adapters/reading/lexical_index.py);
- `meta`: the run that wrote it and the memory refs' tips it read, so the hook
  can tell what was captured since and weigh those memories too (`fresh_for_file`,
  `fresh_for_text`).
"""

from __future__ import annotations

import json
import sqlite3

from memactors.adapters.reading.lexical_index import (
    create_entries,
    idf,
    match_words,
    prefix_term,
    query_words,
    replace_database,
    rows_matching,
    word_term,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

SURFACING_FILE = "surfacing.sqlite"
#: Below this quality a memory is never surfaced (cut transcript windows, code, echoes).
MIN_QUALITY = 0.5
#: How much a word no memory holds counts against a match: some (the text is about something else),
#: not fully (prompts are full of words like "still" or "now" that no memory needs).
UNKNOWN_WEIGHT = 0.3


class Surfaceable:
    """One memory as the index stores it: what its line shows and the text it is found by."""

    __slots__ = ("id", "namespace", "date", "title", "body", "tags", "branch", "factor")

    def __init__(self, id: str, namespace: str, date: str, title: str, body: str = "", tags: str = "",
                 branch: str = "", factor: float = 1.0) -> None:
        self.id, self.namespace, self.date, self.title, self.body, self.tags = id, namespace, date, title, body, tags
        self.branch, self.factor = branch, factor


class Surfaced:
    """A memory the index offers, with how strongly (file weight, or share of the text's words it holds, times
    its rank factor); `new`: captured since the run that wrote the index; `branch`: its label when not merged."""

    __slots__ = ("id", "namespace", "date", "title", "strength", "new", "branch")

    def __init__(self, id: str, namespace: str, date: str, title: str, strength: float, new: bool = False,
                 branch: str = "") -> None:
        self.id, self.namespace, self.date, self.title, self.strength = id, namespace, date, title, strength
        self.new, self.branch = new, branch or ""


def write_surfacing_index(path: Path, memories: Sequence[Surfaceable],
                          links: Mapping[str, Sequence[tuple[int, float]]], run_id: str,
                          memory_tips: Mapping[str, str] | None = None) -> None:
    """Replace the index at `path`; `links` maps a path to (position in `memories`, weight); `memory_tips`
    are the memory refs the run read (ref -> commit). Without FTS5 the index holds files only (errors and
    prompts then stay silent)."""

    def fill(db: sqlite3.Connection) -> None:
        with db:
            db.execute("CREATE TABLE meta(run_id TEXT NOT NULL, memory_tips TEXT)")
            db.execute("INSERT INTO meta VALUES (?, ?)",
                       (run_id, None if memory_tips is None else json.dumps(dict(memory_tips), sort_keys=True)))
            db.execute("CREATE TABLE memory(row INTEGER PRIMARY KEY, id TEXT, namespace TEXT, date TEXT, title TEXT, "
                       "branch TEXT NOT NULL DEFAULT '', factor REAL NOT NULL DEFAULT 1)")
            db.executemany("INSERT INTO memory VALUES (?, ?, ?, ?, ?, ?, ?)",
                           ((i, m.id, m.namespace, m.date, m.title, m.branch, m.factor)
                            for i, m in enumerate(memories)))
            db.execute("CREATE TABLE file(path TEXT NOT NULL, row INTEGER NOT NULL, weight REAL NOT NULL)")
            db.executemany("INSERT INTO file VALUES (?, ?, ?)",
                           ((p, row, w) for p, rows in links.items() for row, w in rows))
            db.execute("CREATE INDEX file_path ON file(path)")
        try:
            with db:
                create_entries(db, ((i, (m.title, m.body, m.tags)) for i, m in enumerate(memories)))
        except sqlite3.OperationalError:
            pass  # no FTS5 in this SQLite: files still work

    replace_database(path, fill)


def open_index(path: str | Path) -> sqlite3.Connection | None:
    """The index at `path`, read-only; None when there is none (no run yet) or it cannot be read."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.execute("SELECT run_id FROM meta").fetchone()
        return db
    except sqlite3.Error:
        return None


def for_file(db: sqlite3.Connection, path: str, min_weight: float, limit: int) -> list[Surfaced]:
    """Memories about `path` whose file weight times rank factor reaches `min_weight`, strongest first."""
    try:
        rows = db.execute("SELECT m.id, m.namespace, m.date, m.title, f.weight * m.factor AS w, 0, m.branch "
                          "FROM file f JOIN memory m ON m.row = f.row WHERE f.path = ? AND w >= ? "
                          "ORDER BY w DESC, m.row LIMIT ?", (path, min_weight, limit)).fetchall()
    except sqlite3.OperationalError:  # an index written before branches were recorded
        rows = db.execute("SELECT m.id, m.namespace, m.date, m.title, f.weight FROM file f JOIN memory m "
                          "ON m.row = f.row WHERE f.path = ? AND f.weight >= ? ORDER BY f.weight DESC, m.row LIMIT ?",
                          (path, min_weight, limit)).fetchall()
    return [Surfaced(*row) for row in rows]


def for_text(db: sqlite3.Connection, text: str, bar: float, namespaces: Sequence[str] | None,
             limit: int, depth: int = 30) -> list[Surfaced]:
    """Memories holding at least `bar` of the text's words (IDF-weighted; words no memory uses count
    UNKNOWN_WEIGHT) times their rank factor, in `namespaces` if given, best BM25 first among them."""
    try:
        match = match_words(db, query_words(text), depth)
    except sqlite3.Error:
        return []
    chosen = [(row, coverage, score) for row, score in match.bm25
              if (coverage := match.coverage(row, UNKNOWN_WEIGHT)) >= bar]
    found: list[tuple[float, Surfaced]] = []
    for row, coverage, score in chosen:
        try:
            record = db.execute("SELECT id, namespace, date, title, factor, branch FROM memory WHERE row = ?",
                                (row,)).fetchone()
        except sqlite3.OperationalError:  # an index written before branches were recorded
            record = db.execute("SELECT id, namespace, date, title, 1.0, '' FROM memory WHERE row = ?",
                                (row,)).fetchone()
        if record is not None and (namespaces is None or record[1] in namespaces) and coverage * record[4] >= bar:
            found.append((score * record[4], Surfaced(*record[:4], coverage * record[4], branch=record[5])))
    found.sort(key=lambda pair: -pair[0])  # stable: BM25 order, a memory not merged into HEAD ranked lower
    return [surfaced for _rank, surfaced in found[:limit]]


def index_state(db: sqlite3.Connection) -> tuple[str, dict[str, str] | None]:
    """(the run that wrote the index, the memory refs' tips it read); tips None for an index written before
    they were recorded (then nothing counts as captured since)."""
    try:
        run_id, tips = db.execute("SELECT run_id, memory_tips FROM meta").fetchone()
        found = json.loads(tips) if tips else None
    except (sqlite3.Error, TypeError, ValueError):
        return "", None
    return str(run_id), found if isinstance(found, dict) else None


def known_titles(db: sqlite3.Connection) -> set[tuple[str, str]]:
    """(namespace, lowercased title) of every memory in the index: a fresh capture with one of them is a copy."""
    return {(ns, str(title).lower()) for ns, title in db.execute("SELECT namespace, title FROM memory")}


def fresh_for_file(fresh: Sequence[FreshSubject], path: str, min_weight: float) -> list[Surfaced]:
    """Memories captured since the run that concern `path` at `min_weight` or more, strongest first."""
    found = [Surfaced(m.id, m.namespace, m.date, m.title, m.files[path], new=True)
             for m in fresh if m.files.get(path, 0.0) >= min_weight and m.files.get(path, 0.0) > 0]
    return sorted(found, key=lambda s: -s.strength)


def fresh_for_text(db: sqlite3.Connection, fresh: Sequence[FreshSubject], text: str, bar: float,
                   namespaces: Sequence[str] | None) -> list[Surfaced]:
    """Memories captured since the run that hold at least `bar` of the text's words, weighed as `for_text`
    weighs the index's (IDF over the index and them together), strongest first."""
    chosen = [m for m in fresh if namespaces is None or m.namespace in namespaces]
    words = query_words(text)
    if not chosen or not words:
        return []
    scratch = sqlite3.connect(":memory:")
    try:
        create_entries(scratch, enumerate((m.title, m.text, m.tags) for m in chosen))
        total = db.execute("SELECT count(*) FROM entries").fetchone()[0] + len(chosen)
        held: dict[int, float] = {}
        known = unknown = 0.0
        for word in words:
            term = word_term(word)
            stored = _count(db, term)
            rows = rows_matching(scratch, term)
            if not stored and not rows and (prefix := prefix_term(word)):
                term = prefix
                stored, rows = _count(db, term), rows_matching(scratch, term)
            weight = idf(total, stored + len(rows))
            if stored or rows:
                known += weight
            else:
                unknown += weight
            for row in rows:
                held[row] = held.get(row, 0.0) + weight
    except sqlite3.Error:
        return []
    finally:
        scratch.close()
    whole = known + UNKNOWN_WEIGHT * unknown
    found = [Surfaced(chosen[row].id, chosen[row].namespace, chosen[row].date, chosen[row].title,
                      weight / whole, new=True) for row, weight in held.items() if whole and weight / whole >= bar]
    return sorted(found, key=lambda s: -s.strength)


def _count(db: sqlite3.Connection, term: str) -> int:
    return db.execute("SELECT count(*) FROM entries WHERE entries MATCH ?", (term,)).fetchone()[0]


class FreshSubject:
    """A memory captured since the last run, as the hook weighs it: its line, its words, and the files it is
    about with the file signal's weight for each (as a run would link them)."""

    __slots__ = ("id", "namespace", "date", "title", "text", "tags", "files")

    def __init__(self, id: str, namespace: str, date: str, title: str, text: str, tags: str,
                 files: Mapping[str, float] | None = None) -> None:
        self.id, self.namespace, self.date, self.title, self.text, self.tags = id, namespace, date, title, text, tags
        self.files = dict(files or {})
