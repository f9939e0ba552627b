"""Pin and archive: the user's word on a tier, kept by runs, carried by sync, shown by show and decay."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from tests.conftest import Repo, git, run_cli


def _tier(repo: Repo, memory_id: str) -> str:
    return json.loads(run_cli("show", memory_id, "--json", "--repo", str(repo.path)).stdout)["tier"]


def _store(repo: Repo) -> tuple[str, str]:
    now = datetime.now(timezone.utc)
    repo.commit("base")
    repo.capture("progress", "Milestone 1 done", "Tests green.", when=now - timedelta(days=400))
    repo.capture("decisions", "Use trio for the actors", "Structured concurrency.", when=now)
    sha = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    return f"progress:{sha[:7]}:0", f"decisions:{sha[:7]}:0"


def test_a_pinned_memory_stays_hot_and_an_archived_one_archived_through_runs(repo: Repo) -> None:
    old, current = _store(repo)
    assert _tier(repo, old) != "hot" and _tier(repo, current) == "hot"
    assert run_cli("pin", old, "--repo", str(repo.path)).returncode == 0
    assert run_cli("archive", current, "--repo", str(repo.path)).returncode == 0
    assert (_tier(repo, old), _tier(repo, current)) == ("hot", "archived")  # at once
    assert run_cli("consolidate", "--full", "--repo", str(repo.path)).returncode == 0
    assert (_tier(repo, old), _tier(repo, current)) == ("hot", "archived")  # and kept by a run
    shown = run_cli("show", old, "--repo", str(repo.path)).stdout
    assert "pinned" in shown and "--undo" in shown
    decay = json.loads(run_cli("decay", "--days", "365", "--json", "--repo", str(repo.path)).stdout)
    assert {row["pin"] for row in decay["held"]} == {"pinned", "archived"}
    assert not any(row["id"].startswith(("progress", "decisions")) for row in decay["moves"])
    again = run_cli("pin", old, "--repo", str(repo.path))
    assert again.returncode == 0 and "already pinned" in again.stdout
    assert run_cli("pin", "--undo", old, "--repo", str(repo.path)).returncode == 0
    assert run_cli("consolidate", "--full", "--repo", str(repo.path)).returncode == 0
    assert _tier(repo, old) != "hot"


def test_an_unknown_memory_is_a_usage_error(repo: Repo) -> None:
    _store(repo)
    done = run_cli("pin", "decisions:0000000:9", "--repo", str(repo.path))
    assert done.returncode == 2 and "no memory" in done.stderr and "Traceback" not in done.stderr


def test_a_pin_travels_to_another_clone_with_sync(repo: Repo, tmp_path) -> None:
    old, _ = _store(repo)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo.path, "remote", "add", "origin", str(remote))
    git(repo.path, "push", "-q", "origin", "HEAD:refs/heads/main")
    assert run_cli("sync", "--repo", str(repo.path)).returncode == 0
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    assert run_cli("sync", "--repo", str(other)).returncode == 0
    assert run_cli("pin", old, "--repo", str(repo.path)).returncode == 0
    assert run_cli("sync", "--repo", str(repo.path)).returncode == 0
    assert run_cli("sync", "--repo", str(other)).returncode == 0
    assert json.loads(run_cli("show", old, "--json", "--repo", str(other)).stdout)["meta"]["pin"] == "pinned"
