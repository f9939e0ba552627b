"""The auto memory bridge between two machines: two clones of one repository, each with its own Claude Code
config directory (topic files and MEMORY.md written in Claude Code's format), importing and meeting through
`memactors sync` as two teammates do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.adapters.git.test_sync import make_clones
from tests.conftest import Repo, git, run_cli


def _write_topic(directory: Path, name: str, title: str, description: str, kind: str, body: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(f"---\nname: {title}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n")
    index = directory / "MEMORY.md"
    lines = index.read_text() if index.exists() else "# Memory index\n"
    line = f"- [{title}]({name}) — {description}\n"
    if f"]({name})" not in lines:
        index.write_text(lines + line)


class Machine:
    """One teammate: a clone and the Claude Code config directory of their own machine."""

    def __init__(self, repo: Repo, config: Path) -> None:
        self.repo, self.config = repo, config
        # tiers only; a test that needs a declared replacement acted on sets the local model
        self.env = {"CLAUDE_CONFIG_DIR": str(config), "MEMACTORS_EMBEDDINGS": "none"}

    @property
    def memory(self) -> Path:
        folder = re.sub(r"[^A-Za-z0-9]", "-", str(self.repo.path.resolve()))
        return self.config / "projects" / folder / "memory"

    def cli(self, *args: str) -> dict:
        done = run_cli(*args, "--json", "--repo", str(self.repo.path), env=self.env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def memories(self) -> dict[str, str]:
        """Every memory this clone lists, id -> summary."""
        tiers = self.cli("tiers")["tiers"]
        return {m["id"]: m["summary"] for tier in tiers.values() for m in tier}


@pytest.fixture
def teammates(tmp_path: Path, git_env: dict[str, str]) -> tuple[Machine, Machine, Path]:
    remote, (a, b) = make_clones(tmp_path, "ab")
    return Machine(a, tmp_path / "alice-claude"), Machine(b, tmp_path / "bob-claude"), remote


def test_two_clones_importing_their_own_auto_memory_end_with_the_same_memories_after_sync(teammates) -> None:
    alice, bob, remote = teammates
    _write_topic(alice.memory, "feedback_testing.md", "Testing", "Run pytest with -x; never mock the database",
                 "feedback", "Mocks hid a migration bug last quarter.")
    _write_topic(alice.memory, "project_storage.md", "Storage", "Store sessions in PostgreSQL, not Redis",
                 "project", "Decided after the Redis outage.")
    _write_topic(alice.memory, "user_role.md", "Me", "Senior backend engineer who prefers terse answers", "user",
                 "Alice prefers short answers.")
    _write_topic(bob.memory, "reference_dashboards.md", "Dashboards", "Latency dashboards live in Grafana, "
                 "folder Checkout", "reference", "Ask ops for access.")
    _write_topic(bob.memory, "user_editor.md", "Editor", "Bob uses Emacs and wants diffs, not whole files", "user",
                 "Bob's own preference.")
    imported = {who.config.name: {e["file"]: e for e in who.cli("automemory", "import")["imported"]}
                for who in (alice, bob)}
    assert len(imported["alice-claude"]) == 3 and len(imported["bob-claude"]) == 2
    for who in (alice, bob):
        who.cli("consolidate")
    for who in (alice, bob, alice):
        assert who.cli("sync")["entries_lost"] == 0

    shared = {e["id"] for files in imported.values() for e in files.values() if e["namespace"] != "personal"}
    alices, bobs = alice.memories(), bob.memories()
    assert set(alices) - {imported["alice-claude"]["user_role.md"]["id"]} == shared
    assert set(bobs) - {imported["bob-claude"]["user_editor.md"]["id"]} == shared
    # each machine's `user` memory stays on it: not on the remote, not on the other clone
    # (ids name a note's commit and position, so both machines' first personal memory is `personal:<HEAD>:0`)
    assert "Senior backend engineer who prefers terse answers" not in bobs.values()
    assert "Bob uses Emacs and wants diffs, not whole files" not in alices.values()
    pushed = git(remote, "for-each-ref", "--format=%(refname)", "refs/notes/").stdout.split()
    assert "refs/notes/mem/patterns" in pushed and "refs/notes/mem/research" in pushed
    assert "refs/notes/mem/personal" not in pushed
    # a second import on either machine after the sync writes nothing: provenance travelled with the notes
    for who in (alice, bob):
        again = who.cli("automemory", "import")
        assert again["imported"] == [] and again["updated"] == []


def test_a_teammates_edited_topic_file_replaces_the_earlier_import_on_both_clones(teammates) -> None:
    alice, bob, _ = teammates
    for who in (alice, bob):
        who.env["MEMACTORS_EMBEDDINGS"] = "local"
    _write_topic(alice.memory, "project_storage.md", "Storage", "Store sessions in PostgreSQL, not Redis",
                 "project", "Decided after the Redis outage.")
    [first] = alice.cli("automemory", "import")["imported"]
    alice.cli("sync")
    bob.cli("sync")
    # Bob's Claude Code keeps the same topic, since revised
    _write_topic(bob.memory, "project_storage.md", "Storage", "Store sessions in SQLite, not PostgreSQL",
                 "project", "PostgreSQL was too heavy for the CLI.")
    [edited] = bob.cli("automemory", "import")["updated"]
    assert edited["replaces"] == first["id"]
    bob.cli("consolidate")
    bob.cli("sync")
    alice.cli("sync")
    for who in (alice, bob):
        old, new = who.cli("show", first["id"]), who.cli("show", edited["id"])
        assert old["meta"]["superseded_by"] == new["key"], (who.config.name, old["meta"])
    # Alice's older file, unchanged on her machine, is not imported again over Bob's revision
    again = alice.cli("automemory", "import")
    assert again["unchanged"] == 1 and again["imported"] == [] and again["updated"] == []
    alice.cli("automemory", "export")
    team = (alice.memory / "memactors-team.md").read_text()
    assert "Store sessions in PostgreSQL, not Redis" not in team
