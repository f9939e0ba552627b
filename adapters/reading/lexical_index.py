"""The read model's lexical index: SQLite FTS5 with BM25, through the standard library only.

One row per read-model entry (rowid = the entry's position), three
columns weighted for BM25: the title (3), the text that was embedded —
summary and start of the body — (1), and tags and namespace (2). Porter
stemming, so "retries" finds "retry" and "linter" finds "linters". Written
beside the recall index through a temporary file and a rename; a missing or
unreadable index is no error (`lookup` returns None and recall falls back
to word overlap). Standard library only, so a hook can read it without
third-party imports.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3

TYPE_CHECKING = False  # typing itself costs a hook milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

LEXICAL_FILE = "recall-lexical.sqlite"
#: BM25 weight of each column: title, embedded text, tags.
FIELD_WEIGHTS = (3.0, 1.0, 2.0)
#: A question's words that are looked up (a longer question keeps its first ones).
MAX_WORDS = 24
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
#: From this length a word no entry holds is looked up by its start (all but its last two letters, at least 4).
PREFIX_FROM = 6
#: Words too common in questions to say anything about the answer.
_QUESTION_WORDS = frozenset(
    "a an and are as at be by can could did do does for from had has have how i if in is it its it's me my of on "
    "or our should so that the their then there these they this to us was we were what what's when where which "
    "who whom why will with would you your use used using get got".split())
#: Words a question is framed in, not its subject ("now that it's no longer one class", "why do we keep them"): they
#: count in a row's share of the question's words but rank nothing by BM25, where a store of technical notes makes
#: them rare and so heavy, lifting whichever note happens to say them.
FRAME_WORDS = frozenset(
    "no not one now just them up being something anything but other others only need actually any some also into "
    "out about than more still all very really here instead longer ever yet same own much many keep kept happen "
    "happens happened thing things way ways kind want wants going show shows".split())


class LexicalMatch:
    """What the index says about one question.

    `share`: rowid -> the IDF-weighted share (0..1) of the question's words
    the row holds, over the words some row holds (a word no memory uses says
    nothing about which memory answers). `bm25`: (rowid, score, higher is
    better) of the best rows for any of the words, best first. `known` and
    `unknown`: the IDF weight of the words some row holds, and of those none
    holds (for a share over every word); `rows`: how many rows the index
    holds. `weights`: each question word some row holds -> its IDF. A plain
    class: the hooks import this module and `dataclasses` costs them
    milliseconds.
    """

    __slots__ = ("share", "bm25", "known", "unknown", "rows", "weights")

    def __init__(self, share: dict[int, float], bm25: list[tuple[int, float]], known: float = 0.0,
                 unknown: float = 0.0, rows: int = 0, weights: dict[str, float] | None = None) -> None:
        self.share, self.bm25, self.known, self.unknown, self.rows = share, bm25, known, unknown, rows
        self.weights = weights or {}

    def coverage(self, row: int, unknown_weight: float = 1.0) -> float:
        """The IDF-weighted share of all the question's words `row` holds, words no row holds counted at
        `unknown_weight` of their IDF (which is the highest there is)."""
        whole = self.known + unknown_weight * self.unknown
        return self.share.get(row, 0.0) * self.known / whole if whole else 0.0


def write_index(path: Path, rows: Iterable[tuple[str, str, str]], stamp: str) -> None:
    """Replace the index at `path` with `rows` (title, text, tags), rowid = position from 0, marked with
    `stamp` (the run that wrote it, so a reader never pairs it with another run's entries).

    Raises sqlite3.Error when this Python's SQLite has no FTS5; nothing is left behind then."""

    def fill(db: sqlite3.Connection) -> None:
        with db:
            create_entries(db, enumerate(rows))
            db.execute("CREATE TABLE stamp(value TEXT NOT NULL)")
            db.execute("INSERT INTO stamp VALUES (?)", (stamp,))

    replace_database(path, fill)


def replace_database(path: Path, fill: Callable[[sqlite3.Connection], None]) -> None:
    """Build a new SQLite file with `fill`, then rename it over `path`: a reader sees the old file or the
    new one, never half of one; on any failure nothing is left behind and the old file stays."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        db = sqlite3.connect(tmp)
        try:
            fill(db)
        finally:
            db.close()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def create_entries(db: sqlite3.Connection, rows: Iterable[tuple[int, tuple[str, str, str]]]) -> None:
    """Create the FTS5 table `entries` (title, body, tags; Porter stemming) in `db` and fill it with
    (rowid, (title, body, tags)) rows. Raises sqlite3.Error when this SQLite has no FTS5."""
    db.execute("CREATE VIRTUAL TABLE entries USING fts5(title, body, tags, "
               "tokenize='porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO entries(rowid, title, body, tags) VALUES (?, ?, ?, ?)",
                   ((rowid, *row) for rowid, row in rows))


def query_words(question: str) -> list[str]:
    """The words of a question that can match: lowercased, question words and one-letter tokens dropped."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(question.lower()):
        if len(token) > 1 and token not in _QUESTION_WORDS:
            seen.setdefault(token.replace("'", ""), None)
    return list(seen)[:MAX_WORDS]


def lookup(path: Path, question: str, depth: int, stamp: str) -> LexicalMatch | None:
    """The question's word shares and its best `depth` BM25 rows; None when there is no usable index
    marked `stamp`."""
    words = query_words(question)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if db.execute("SELECT value FROM stamp").fetchone() != (stamp,):
                return None
            return match_words(db, words, depth, frame=FRAME_WORDS)
        finally:
            db.close()
    except sqlite3.Error:
        return None


def rows_matching(db: sqlite3.Connection, term: str) -> list[int]:
    """The rowids of `db`'s `entries` that hold `term` (an FTS5 query)."""
    return [r for (r,) in db.execute("SELECT rowid FROM entries WHERE entries MATCH ?", (term,))]


def word_term(word: str) -> str:
    """The FTS5 query for one word: the word itself, quoted."""
    return f'"{word}"'


def prefix_term(word: str) -> str | None:
    """The FTS5 query for a long word no entry holds as it is: its start as a prefix ("linter" finds
    "linting"); None for a short word."""
    return f'"{word[:max(4, len(word) - 2)]}"*' if len(word) >= PREFIX_FROM else None


def idf(total: int, holding: int) -> float:
    """BM25's inverse document frequency: a word few of `total` rows hold weighs more."""
    return math.log(1 + (total - holding + 0.5) / (holding + 0.5))


def match_words(db: sqlite3.Connection, words: list[str], depth: int,
                frame: frozenset[str] = frozenset()) -> LexicalMatch:
    """Word shares and the best `depth` BM25 rows of `words` in `db`'s `entries` table (see LexicalMatch); the
    words of `frame` count in the shares but not in BM25 (unless every word is one)."""
    if not words:
        return LexicalMatch({}, [])
    total = db.execute("SELECT count(*) FROM entries").fetchone()[0]
    terms = {w: word_term(w) for w in words}
    holding = {w: rows_matching(db, terms[w]) for w in words}
    for w in words:
        if not holding[w] and (prefix := prefix_term(w)):
            # a word no entry holds may hold its stem another way ("linter" and "linting"): its start, as a prefix
            terms[w] = prefix
            holding[w] = rows_matching(db, prefix)
    best = db.execute("SELECT rowid, bm25(entries, ?, ?, ?) AS rank FROM entries WHERE entries MATCH ? "
                      "ORDER BY rank LIMIT ?",
                      (*FIELD_WEIGHTS, " OR ".join([t for w, t in terms.items() if w not in frame]
                                                   or terms.values()), depth)).fetchall()
    weights = {w: idf(total, len(rows)) for w, rows in holding.items()}
    known = sum(weight for w, weight in weights.items() if holding[w])
    share: dict[int, float] = {}
    for word, weight in weights.items():
        for row in holding[word]:
            share[row] = share.get(row, 0.0) + weight / known
    return LexicalMatch(share, [(int(row), -float(rank)) for row, rank in best], known=known,
                        unknown=sum(weight for w, weight in weights.items() if not holding[w]), rows=total,
                        weights={w: weight for w, weight in weights.items() if holding[w]})


def texts(path: Path, rows: Iterable[int], stamp: str) -> dict[int, str]:
    """rowid -> the text indexed for it (summary and start of body) of `rows`; empty when there is no usable index
    marked `stamp`."""
    wanted = [int(r) for r in rows]
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if not wanted or db.execute("SELECT value FROM stamp").fetchone() != (stamp,):
                return {}
            marks = ",".join("?" * len(wanted))
            return {int(r): text for r, text in
                    db.execute(f"SELECT rowid, body FROM entries WHERE rowid IN ({marks})", wanted)}
        finally:
            db.close()
    except sqlite3.Error:
        return {}
