"""`memactors resolve` on a conflict already decided: a different decision needs --change."""

from __future__ import annotations

import json
from datetime import timedelta

from tests.conftest import NOW, Repo, run_cli


def test_a_decided_conflict_is_changed_only_with_change(repo: Repo) -> None:
    repo.capture("decisions", "Use Redis for session caching", "Fast and simple.", when=NOW - timedelta(days=3))
    repo.capture("decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                 when=NOW - timedelta(days=1))
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    [conflict] = json.loads(run_cli("conflicts", "--json", "--repo", str(repo.path)).stdout)
    cid = conflict["conflict_id"][:8]
    assert run_cli("resolve", cid, "--keep", conflict["source_id"], "--repo", str(repo.path)).returncode == 0
    refused = run_cli("resolve", cid, "--both", "--repo", str(repo.path))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        f"memactors: conflict {conflict['conflict_id'][:12]} is already decided (kept Do not use Redis for session "
        f"caching ({conflict['source_id']})); to change the decision, resolve it again and pass --change"]
    edges = json.loads(run_cli("edges", "--json", "--repo", str(repo.path), conflict["source_id"]).stdout)
    assert [e["resolution"] for e in edges if e["edge_type"] == "contradicts"][0].startswith("keep:")
    again = run_cli("resolve", cid, "--keep", conflict["source_id"], "--repo", str(repo.path))
    assert again.returncode == 0 and "already decided that way" in again.stdout
    changed = run_cli("resolve", cid, "--both", "--change", "--json", "--repo", str(repo.path))
    assert changed.returncode == 0, changed.stderr
    assert json.loads(changed.stdout)["resolution"] == "both"
    older = json.loads(run_cli("show", "--json", "--repo", str(repo.path), conflict["target_id"]).stdout)
    assert not older["meta"]["superseded_by"]  # both stand again
