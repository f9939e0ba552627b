"""The read model's lexical index: SQLite FTS5 with BM25, through the standard library only.

One row per read-model entry (rowid = the entry's position), three
columns weighted for BM25: the title (3), the text that was embedded —
summary and start of the body — (1), and tags and namespace (2). Porter
stemming, so "retries" finds "retry". Written beside the recall index
through a temporary file and a rename; a missing or unreadable index is no
error: recall falls back to word overlap. Standard library only, so a hook
can read it without third-party imports.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path

LEXICAL_FILE = "recall-lexical.sqlite"
#: BM25 weight of each column: title, embedded text, tags.
FIELD_WEIGHTS = (3.0, 1.0, 2.0)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_]*")
#: Words too common in questions to say anything about the answer.
_QUESTION_WORDS = frozenset(
    "a an and are as at be by can could did do does for from how i if in is it its me my of on or our should "
    "that the their there these this to us was we were what when where which who whom why will with would you "
    "your use used using".split())


def write_index(path: Path, rows: Iterable[tuple[str, str, str]]) -> None:
    """Replace the index at `path` with `rows` (title, text, tags), rowid = position from 0."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        with sqlite3.connect(tmp) as db:
            db.execute("CREATE VIRTUAL TABLE entries USING fts5(title, body, tags, tokenize='porter unicode61')")
            db.executemany("INSERT INTO entries(rowid, title, body, tags) VALUES (?, ?, ?, ?)",
                           ((i, *row) for i, row in enumerate(rows)))
        db.close()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def query_terms(question: str) -> list[str]:
    """The words of a question that can match: lowercased, question words and one-letter tokens dropped."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(question.lower()):
        if len(token) > 1 and token not in _QUESTION_WORDS:
            seen.setdefault(token, None)
    return list(seen)


def ranked(path: Path, question: str, limit: int) -> list[tuple[int, float]] | None:
    """(rowid, BM25 score, higher is better) of the best `limit` rows for any of the question's words;
    None when there is no usable index."""
    words = query_terms(question)
    if not words:
        return []
    match = " OR ".join(f'"{w}"' for w in words)
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT rowid, bm25(entries, ?, ?, ?) AS rank FROM entries WHERE entries MATCH ? "
                              "ORDER BY rank LIMIT ?", (*FIELD_WEIGHTS, match, limit)).fetchall()
        db.close()
    except sqlite3.Error:
        return None
    return [(int(rowid), -float(rank)) for rowid, rank in rows]
