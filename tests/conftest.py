"""Real git repositories in temporary directories, written with the git CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml

if TYPE_CHECKING:
    from tests.realistic_store import RealisticStore

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
#: The repository's root and the tests' labelled fixtures.
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def git(repo: Path, *args: str, input: str | bytes | None = None, env: dict[str, str] | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    text = not isinstance(input, bytes)
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=input, capture_output=True, text=text, check=check,
        env={**os.environ, **(env or {})},
    )


def entry(namespace: str, summary: str, body: str = "", *, when: datetime = NOW, tags: list[str] | None = None) -> str:
    """An entry in git-notes-memory's layout, front matter as its `yaml.dump` call writes it."""
    front: dict[str, object] = {"type": namespace, "timestamp": when.isoformat(), "summary": summary}
    if tags:
        front["tags"] = tags
    dumped = yaml.dump(front, default_flow_style=False, allow_unicode=True, sort_keys=False).rstrip()
    return f"---\n{dumped}\n---\n" + ("\n" + body if body.strip() else "")


@dataclass
class Repo:
    path: Path

    def commit(self, message: str = "work") -> str:
        git(self.path, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.path, "rev-parse", "HEAD").stdout.strip()

    def capture(self, namespace: str, summary: str, body: str = "", *, when: datetime = NOW,
                commit: str = "HEAD", tags: list[str] | None = None) -> None:
        """What git-notes-memory runs: `git notes --ref=refs/notes/mem/<ns> append -m <entry>`."""
        git(self.path, "notes", f"--ref=refs/notes/mem/{namespace}", "append", "-m",
            entry(namespace, summary, body, when=when, tags=tags), commit)

    def refs(self, prefix: str = "refs/notes/") -> dict[str, str]:
        out = git(self.path, "for-each-ref", "--format=%(refname) %(objectname)", prefix).stdout
        return dict(line.split(" ", 1) for line in out.splitlines() if line)

    def originals(self) -> dict[str, tuple[str, dict[str, bytes]]]:
        """Every byte under refs/notes/mem/*: ref -> (tip, {annotated commit: note bytes})."""
        result = {}
        for ref, tip in self.refs("refs/notes/mem/").items():
            pairs = git(self.path, "notes", f"--ref={ref}", "list").stdout.split()
            notes = {
                commit: subprocess.run(["git", "-C", str(self.path), "cat-file", "blob", blob],
                                       capture_output=True, check=True).stdout
                for blob, commit in zip(pairs[0::2], pairs[1::2])
            }
            result[ref] = (tip, notes)
        return result

    def note(self, ref: str, commit: str = "HEAD") -> str:
        return git(self.path, "notes", f"--ref={ref}", "show", commit).stdout


@pytest.fixture
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """An isolated git identity: no global or system config leaks into tests."""
    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text("[user]\n\tname = Test User\n\temail = test@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": str(home / ".config")}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for key in list(os.environ):
        if key.startswith(("MEMACTORS_", "MEMORY_")):
            monkeypatch.delenv(key)
    return env


@pytest.fixture
def repo(tmp_path: Path, git_env: dict[str, str]) -> Repo:
    path = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.com")
    r = Repo(path)
    r.commit("initial")
    return r


@pytest.fixture
def populated(repo: Repo) -> Repo:
    """Three commits, several namespaces, old and new memories, a duplicate and a `---` body."""
    old = NOW - timedelta(days=200)
    repo.capture("decisions", "Use SQLite for storage", "Simple to start.", when=old)
    repo.capture("progress", "Milestone 1 done", "Tests green.", when=old + timedelta(days=1))
    repo.commit("second")
    repo.capture("learnings", "Retries must be idempotent", "Body with a rule\n\n---\n\nafter the rule",
                 when=NOW - timedelta(days=40))
    repo.capture("learnings", "Cache keys need a version", when=NOW - timedelta(days=39))
    repo.commit("third")
    repo.capture("decisions", "Switch storage to PostgreSQL", "Replaces SQLite.", when=NOW - timedelta(days=1))
    repo.capture("blockers", "CI credentials missing", when=NOW - timedelta(days=2))
    return repo


@dataclass(frozen=True)
class ConsolidatedStore:
    """A realistic store (tests/realistic_store.py) consolidated once, offline, at its own "now"."""

    store: "RealisticStore"
    originals: dict[str, tuple[str, dict[str, bytes]]]


@pytest.fixture(scope="session")
def dormant_store(tmp_path_factory: pytest.TempPathFactory) -> ConsolidatedStore:
    """Written over a week, read a year later: one consolidation shared by the tests that read it."""
    import trio

    from memactors.adapters.git.memory_store import MemoryStore
    from memactors.adapters.git.store import GitStore
    from memactors.adapters.system.clock import FixedClock
    from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate
    from memactors.adapters.runtime.settings import Settings
    from tests.realistic_store import build_realistic_store

    store = build_realistic_store(tmp_path_factory.mktemp("realistic") / "dormant")
    originals = Repo(store.path).originals()
    services = build_services(MemoryStore(GitStore(store.path)), Settings(_env_file=None, embeddings="local",
                                                                          recency_clock="store"),
                              FixedClock(store.now))
    report = trio.run(lambda: consolidate(services, RunOptions(trigger="test")))
    assert report.persisted and not report.errors, report.errors
    return ConsolidatedStore(store=store, originals=originals)


def run_cli(*args: str, cwd: Path | None = None, input: str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The real command line, in a fresh process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "memactors.adapters.cli", *args],
        capture_output=True, text=True, cwd=cwd, input=input, env={**os.environ, **(env or {})},
        timeout=300,
    )


@pytest.fixture
def cli() -> Iterator:
    yield run_cli
