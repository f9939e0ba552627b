"""The FTS5 lexical index beside the read model: what it matches, and what it refuses to pair with."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from memactors.adapters.models.embeddings import embedder_from_env
from memactors.adapters.reading.lexical_index import LEXICAL_FILE, lookup, query_words, write_index
from memactors.adapters.reading.read_cache import ReadCache
from memactors.adapters.reading.recall import search
from tests.conftest import Repo, run_cli

ROWS = [
    ("Use SQLite for the index", "One file, no server; WAL mode for concurrent writers.", "decisions"),
    ("Retries must be idempotent", "A retried webhook charged a customer twice.", "learnings"),
    ("Linters disagreed about imports", "Two linters fought over import order in CI.", "learnings"),
]


def test_an_exact_phrase_is_found_by_the_lexical_and_the_dense_index_alike(repo: Repo) -> None:
    now = datetime.now(timezone.utc)
    phrases = ["A retried webhook charged a customer twice", "The nightly export writes parquet files to S3",
               "Session tokens expire after fifteen minutes of inactivity", "Feature flags are read once at start-up"]
    for i, phrase in enumerate(phrases):
        repo.capture("learnings", f"Learning {i}", phrase + ".", when=now - timedelta(days=i + 1))
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode in (0, 1)
    index = ReadCache(repo.path / ".git").load()
    embedder = embedder_from_env()
    for phrase in phrases:
        lexical = lookup(index.lexical, phrase, 5, index.run_id)
        assert lexical is not None and lexical.bm25
        dense = np.argsort(-(index.vectors @ embedder.embed([phrase])[0]))
        assert index.entries[lexical.bm25[0][0]].excerpt.startswith(phrase)
        assert lexical.bm25[0][0] == dense[0]
        assert search(index, phrase, limit=1, embedder=embedder)[0].entry.excerpt.startswith(phrase)


def test_stemming_and_rare_words_weigh_in_the_share(tmp_path: Path) -> None:
    path = tmp_path / LEXICAL_FILE
    write_index(path, ROWS, "run-1")
    found = lookup(path, "what's our linter setup?", 10, "run-1")
    assert found is not None and found.bm25[0][0] == 2  # "linter" finds "linters"
    assert found.share == {2: 1.0}  # "setup" is in no row: it says nothing about which one answers
    assert query_words("When did we switch to WAL mode?") == ["switch", "wal", "mode"]


def test_a_questions_frame_words_count_in_the_share_but_rank_nothing_by_bm25(tmp_path: Path) -> None:
    path = tmp_path / LEXICAL_FILE
    rows = [*ROWS, ("Release notes moved", "The changelog is no longer kept in the wiki; one page per release now.",
                    "progress")]
    write_index(path, rows, "run-1")
    found = lookup(path, "How is the index written now that it's no longer one file?", 10, "run-1")
    assert found is not None
    assert [row for row, _ in found.bm25] == [0]  # "index" and "file": the SQLite decision alone
    assert found.share[3] > 0  # the release note holds the question's words all the same
    # a question framed in such words alone is still ranked by them
    only = lookup(path, "Is it no longer kept?", 10, "run-1")
    assert only is not None and only.bm25[0][0] == 3


def test_an_index_written_by_another_run_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / LEXICAL_FILE
    write_index(path, ROWS, "run-1")
    assert lookup(path, "idempotent retries", 10, "run-2") is None
    assert lookup(tmp_path / "missing.sqlite", "idempotent retries", 10, "run-1") is None
    path.write_bytes(b"not a database")
    assert lookup(path, "idempotent retries", 10, "run-1") is None


def test_hostile_queries_are_words_not_fts_syntax(tmp_path: Path) -> None:
    path = tmp_path / LEXICAL_FILE
    write_index(path, ROWS, "run-1")
    for question in ['"unbalanced', "NEAR(a b)", "title:sqlite OR *", "^start AND -x", "x" * 2000, "()"]:
        assert lookup(path, question, 10, "run-1") is not None


def test_the_index_is_read_with_the_standard_library_only(tmp_path: Path) -> None:
    path = tmp_path / LEXICAL_FILE
    write_index(path, ROWS, "run-1")
    code = ("import sys; from memactors.adapters.reading.lexical_index import lookup; "
            "found = lookup(__import__('pathlib').Path(sys.argv[1]), 'idempotent retries', 5, 'run-1'); "
            "print(found.bm25[0][0]); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'trio', 'pydantic', 'pygit2', 'numpy', "
            "'openai', 'yaml', 'onnxruntime', 'tenacity', 'tokenizers'}))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "[]"]
