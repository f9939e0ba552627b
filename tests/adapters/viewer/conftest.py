"""A consolidated store with something on every page of the viewer, and the viewer's app over it."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import NOW, Repo
from tests.session_transcripts import s01, s07, s10

HOSTILE = '<script>alert("memory")</script> Use <b>bold</b> names'
PORT = 8123


def build_viewer_store(repo: Repo, cli, sessions: Path) -> Repo:
    """A supersession chain, a conflict, a memory that is hostile HTML, proposed memories waiting for review."""
    repo.capture("decisions", "Use SQLite for storage", "One file is enough.", when=NOW - timedelta(days=30))
    repo.capture("decisions", "Switch storage from SQLite to PostgreSQL", "We need concurrent writers.",
                 when=NOW - timedelta(days=20))
    repo.capture("decisions", "Switch storage from PostgreSQL to CockroachDB", "We need several regions.",
                 when=NOW - timedelta(days=10))
    repo.capture("decisions", "Use Redis for session caching", "Sessions live in Redis for a day.",
                 when=NOW - timedelta(days=9))
    repo.capture("decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                 when=NOW - timedelta(days=3))
    repo.capture("learnings", HOSTILE, '<img src=x onerror="alert(1)"> and </pre><script>alert(2)</script>',
                 when=NOW - timedelta(days=2))
    assert cli("consolidate", "--repo", str(repo.path)).returncode == 0
    for make in (s01, s07, s10):
        make().write(sessions)
    done = cli("extract", str(sessions), "--repo", str(repo.path), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["queued"] >= 3, done.stderr
    return repo


@pytest.fixture
def viewer_store(repo: Repo, cli, tmp_path: Path) -> Repo:
    return build_viewer_store(repo, cli, tmp_path / "sessions")
