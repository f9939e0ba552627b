"""The bridge to Claude Code's Auto Memory, on real directories written in Claude Code's format in temporary
homes, through the CLI: import, a second import, an edited and a deleted file, export and its idempotence,
the user's lines byte-identical, personal memories kept out of `sync`."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.conftest import Repo, git, run_cli


def _memory_dir(home: Path, project: Path) -> Path:
    return home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve())) / "memory"


def _topic(directory: Path, name: str, title: str, description: str, kind: str, body: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(f"---\nname: {title}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n")


USER_INDEX = ("# Memory index\n"
              "- [Testing](feedback_testing.md) — run pytest with -x; never mock the database\n"
              "- [Me](user_role.md) — senior backend engineer\n")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return home


def _auto_memory(home: Path, project: Path) -> Path:
    directory = _memory_dir(home, project)
    _topic(directory, "feedback_testing.md", "Testing", "Run pytest with -x; never mock the database", "feedback",
           "The user said mocks hid a migration bug last quarter.")
    _topic(directory, "project_storage.md", "Storage", "Store sessions in PostgreSQL, not Redis", "project",
           "Decided after the Redis outage.")
    _topic(directory, "user_role.md", "Me", "Senior backend engineer who prefers terse answers", "user",
           "Prefers short answers.")
    (directory / "MEMORY.md").write_text(USER_INDEX)
    return directory


def _cli_json(*args: str) -> dict:
    done = run_cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_topic_files_become_memories_by_type_and_a_second_import_changes_nothing(repo: Repo, home: Path) -> None:
    _auto_memory(home, repo.path)
    first = _cli_json("automemory", "import", "--repo", str(repo.path))
    by_file = {e["file"]: e for e in first["imported"]}
    assert by_file["feedback_testing.md"]["namespace"] == "patterns"
    assert by_file["project_storage.md"]["namespace"] == "decisions"
    assert by_file["user_role.md"]["namespace"] == "personal"
    refs = repo.refs()
    second = _cli_json("automemory", "import", "--repo", str(repo.path))
    assert second["imported"] == [] and second["updated"] == [] and second["unchanged"] == 3
    assert repo.refs() == refs
    shown = _cli_json("show", by_file["project_storage.md"]["id"], "--repo", str(repo.path))
    assert shown["summary"] == "Store sessions in PostgreSQL, not Redis" and "auto-memory" in shown["tags"]


def test_an_edited_file_replaces_its_earlier_import_and_a_deleted_one_stays(repo: Repo, home: Path) -> None:
    directory = _auto_memory(home, repo.path)
    first = {e["file"]: e for e in _cli_json("automemory", "import", "--repo", str(repo.path))["imported"]}
    _topic(directory, "project_storage.md", "Storage", "Store sessions in SQLite, not PostgreSQL", "project",
           "PostgreSQL was too heavy for the CLI.")
    (directory / "feedback_testing.md").unlink()
    again = _cli_json("automemory", "import", "--repo", str(repo.path))
    [edited] = again["updated"]
    assert edited["replaces"] == first["project_storage.md"]["id"]
    assert again["removed"] == [{"file": "feedback_testing.md", "id": first["feedback_testing.md"]["id"]}]
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    old = _cli_json("show", first["project_storage.md"]["id"], "--repo", str(repo.path))
    assert old["meta"]["superseded_by"], old
    assert _cli_json("show", first["feedback_testing.md"]["id"], "--repo", str(repo.path))["id"]
    status = _cli_json("status", "--repo", str(repo.path))["automemory"]
    assert status["removed_from_auto_memory"] == {"feedback_testing.md": first["feedback_testing.md"]["id"]}
    assert status["last_import"]["updated"] == 1


def test_export_writes_one_topic_file_and_one_index_line_and_leaves_the_users_bytes(repo: Repo,
                                                                                     home: Path) -> None:
    directory = _auto_memory(home, repo.path)
    user_files = {p.name: p.read_bytes() for p in directory.iterdir() if p.name != "MEMORY.md"}
    repo.capture("decisions", "Deploy with blue-green releases only", "Zero downtime.")
    repo.capture("learnings", "Run pytest with -x; never mock the database", "Already the user's own.")
    repo.commit("work")
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    preview = _cli_json("automemory", "export", "--dry-run", "--repo", str(repo.path))
    assert "+- [Team memory (memactors)](memactors-team.md)" in preview["diff"]
    assert not (directory / "memactors-team.md").exists()
    done = _cli_json("automemory", "export", "--repo", str(repo.path))
    assert len(done["written"]) == 2
    index = (directory / "MEMORY.md").read_text()
    assert index.startswith(USER_INDEX) and index.count("memactors-team.md") == 1
    team = (directory / "memactors-team.md").read_text()
    assert "Deploy with blue-green releases only" in team and "never mock the database" not in team
    assert re.search(r"\(`decisions:[0-9a-f]{40}:0`\)", team)
    assert {p.name: p.read_bytes() for p in directory.iterdir() if p.name not in ("MEMORY.md",
                                                                                 "memactors-team.md")} == user_files
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}
    again = _cli_json("automemory", "export", "--repo", str(repo.path))
    assert again["written"] == [] and {p.name: (p.read_bytes(), p.stat().st_mtime_ns)
                                       for p in directory.iterdir()} == before


def test_auto_memory_directory_follows_the_users_setting(repo: Repo, home: Path, tmp_path: Path) -> None:
    moved = tmp_path / "shared-memory"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
    _topic(moved, "project_api.md", "API", "Version the public API in the URL path", "project", "v1, v2.")
    done = _cli_json("automemory", "import", "--repo", str(repo.path))
    assert done["directory"] == str(moved) and done["imported"][0]["namespace"] == "decisions"


def test_a_personal_memory_is_never_pushed_by_sync(repo: Repo, home: Path, tmp_path: Path) -> None:
    _auto_memory(home, repo.path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo.path, "remote", "add", "origin", str(remote))
    git(repo.path, "push", "-q", "origin", "HEAD:refs/heads/main")
    _cli_json("automemory", "import", "--repo", str(repo.path))
    assert run_cli("sync", "--repo", str(repo.path)).returncode == 0
    pushed = git(remote, "for-each-ref", "--format=%(refname)", "refs/notes/").stdout.split()
    assert "refs/notes/mem/decisions" in pushed and "refs/notes/mem/patterns" in pushed
    assert "refs/notes/mem/personal" not in pushed
    assert run_cli("sync", "--repo", str(repo.path), env={**os.environ, "MEMACTORS_SYNC_PERSONAL": "1"}
                   ).returncode == 0
    assert "refs/notes/mem/personal" in git(remote, "for-each-ref", "--format=%(refname)",
                                            "refs/notes/").stdout.split()


def test_with_the_bridge_on_consolidate_imports_then_exports_and_status_says_so(repo: Repo, home: Path) -> None:
    directory = _auto_memory(home, repo.path)
    # captured now, as the imported ones are: the store's clock counts recency from its newest memory
    repo.capture("decisions", "Deploy with blue-green releases only", "Zero downtime.",
                 when=datetime.now(timezone.utc))
    repo.commit("work")
    assert "MEMACTORS_AUTOMEMORY=on" in run_cli("hooks", "install", "--claude", "--repo", str(repo.path)).stdout
    done = run_cli("consolidate", "--json", "--repo", str(repo.path), env={"MEMACTORS_AUTOMEMORY": "on"})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["automemory"][0].startswith("imported 3 new") and report["memories_processed"] == 4
    assert report["automemory"][1].startswith("exported")
    assert "Deploy with blue-green releases only" in (directory / "memactors-team.md").read_text()
    status = run_cli("status", "--repo", str(repo.path), env={"MEMACTORS_AUTOMEMORY": "on"}).stdout
    assert "auto memory bridge on" in status and "imported" in status and "exported" in status
    assert "auto memory bridge off" in run_cli("status", "--repo", str(repo.path)).stdout


def test_an_import_writes_one_notes_commit_a_namespace_however_many_files(repo: Repo, home: Path) -> None:
    directory = _memory_dir(home, repo.path)
    for number in range(30):
        _topic(directory, f"project_{number:02d}.md", f"Module {number}", f"Module {number} keeps its own schema",
               "project", f"Decided for module {number}.")
    _topic(directory, "feedback_diffs.md", "Diffs", "Keep diffs under 400 lines", "feedback", "Reviews stall.")
    done = _cli_json("automemory", "import", "--repo", str(repo.path))
    ids = [e["id"] for e in done["imported"]]
    head = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    assert [i for i in ids if i.startswith("decisions:")] == [f"decisions:{head}:{n}" for n in range(30)]
    assert git(repo.path, "rev-list", "--count", "refs/notes/mem/decisions").stdout.strip() == "1"
    assert git(repo.path, "rev-list", "--count", "refs/notes/mem/patterns").stdout.strip() == "1"
    shown = _cli_json("show", f"decisions:{head}:17", "--repo", str(repo.path))
    assert shown["summary"] == "Module 17 keeps its own schema" and "auto-memory-file:project_17.md" in shown["tags"]
