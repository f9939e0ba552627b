"""Memory that knows its branch: a real repository with a merged, an unmerged and a deleted branch."""

from __future__ import annotations

import json

import pygit2

from memactors.adapters.git.branches import BranchMap, Containing
from tests.conftest import Repo, git, run_cli


def _on_branch(repo: Repo, branch: str, summary: str) -> str:
    git(repo.path, "checkout", "-q", "-b", branch)
    repo.commit(f"work on {branch}")
    repo.capture("decisions", summary, f"Decided on {branch}.")
    sha = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    git(repo.path, "checkout", "-q", "-")
    return sha


def _branchy(repo: Repo) -> dict[str, str]:
    repo.commit("base")
    repo.capture("decisions", "Use trio for the actors", "On main.")
    main = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    merged = _on_branch(repo, "feature/merged", "Cache embeddings on disk")
    git(repo.path, "merge", "-q", "--no-ff", "-m", "merge", "feature/merged")
    unmerged = _on_branch(repo, "feature/x", "Try a bloom filter for lookups")
    deleted = _on_branch(repo, "spike/gone", "Experiment with a rust parser")
    git(repo.path, "branch", "-q", "-D", "spike/gone")
    return {"main": main, "merged": merged, "unmerged": unmerged, "deleted": deleted}


def test_placements_of_merged_unmerged_and_deleted_branches(repo: Repo) -> None:
    commits = _branchy(repo)
    branches = BranchMap(pygit2.Repository(str(repo.path)))
    assert branches.placement(commits["main"]).on_head and branches.placement(commits["merged"]).on_head
    unmerged = branches.placement(commits["unmerged"])
    assert not unmerged.on_head and unmerged.branches == ("feature/x",)
    assert unmerged.label() == "from feature/x, not merged"
    gone = branches.placement(commits["deleted"])
    assert gone.orphaned and gone.label() == "from a deleted branch, not merged"


def test_containing_names_every_branch_whose_history_holds_the_commit_heads_branch_first(repo: Repo) -> None:
    commits = _branchy(repo)
    git(repo.path, "update-ref", "refs/remotes/origin/main", "main")  # a remote-tracking branch, as a fetch leaves
    branches = BranchMap(pygit2.Repository(str(repo.path)))
    assert branches.containing([commits["main"]]) == Containing(("main", "feature/merged", "feature/x", "origin/main"))
    assert branches.containing([commits["merged"]]).branches == ("main", "feature/merged", "feature/x", "origin/main")
    assert branches.containing([commits["unmerged"]]).branches == ("feature/x",)
    assert branches.containing([commits["deleted"]]) == Containing(())
    # a memory stored on two commits (an alias) is in the branches of either
    assert branches.containing([commits["unmerged"], commits["deleted"]]).branches == ("feature/x",)


def test_containing_names_at_most_ten_then_counts_and_says_when_its_walk_stopped(repo: Repo) -> None:
    commits = _branchy(repo)
    for number in range(12):
        git(repo.path, "branch", f"release/{number:02d}", "main")
    branches = BranchMap(pygit2.Repository(str(repo.path)))
    found = branches.containing([commits["main"]])
    assert len(found.branches) == 15 and found.complete
    assert found.phrase() == ("main, feature/merged, feature/x, release/00, release/01, release/02, release/03, "
                              "release/04, release/05, release/06 and 5 more")
    stopped = branches.containing([commits["main"]], max_walk=1)
    assert not stopped.complete and "stopped looking" in stopped.phrase()
    text = run_cli("show", f"decisions:{commits['main'][:7]}:0", "--repo", str(repo.path)).stdout
    assert "  branches   main, feature/merged, feature/x, release/00," in text and "and 5 more" in text


def test_show_lists_the_branches_of_a_memory_not_on_heads_line(repo: Repo) -> None:
    commits = _branchy(repo)
    shown = json.loads(run_cli("show", f"decisions:{commits['unmerged'][:7]}:0", "--json",
                               "--repo", str(repo.path)).stdout)
    assert shown["branch"] == {"on_head": False, "branches": ["feature/x"], "label": "from feature/x, not merged",
                               "state": "not merged", "merged": "no", "known": True,
                               "containing": ["feature/x"], "containing_count": 1, "containing_complete": True}
    text = run_cli("show", f"decisions:{commits['deleted'][:7]}:0", "--repo", str(repo.path)).stdout
    assert "from a deleted branch, not merged" in text
    merged = json.loads(run_cli("show", f"decisions:{commits['merged'][:7]}:0", "--json",
                                "--repo", str(repo.path)).stdout)
    assert merged["branch"]["on_head"] is True


def test_the_session_block_labels_a_memory_from_an_unmerged_branch(repo: Repo) -> None:
    _branchy(repo)
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    hook = json.dumps({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": str(repo.path),
                       "hook_event_name": "SessionStart", "source": "startup"})
    block = json.loads(run_cli("context", input=hook, cwd=repo.path).stdout)["hookSpecificOutput"][
        "additionalContext"]
    bloom = next(line for line in block.splitlines() if "bloom filter" in line)
    assert "from feature/x, not merged" in bloom
    assert "from" not in next(line for line in block.splitlines() if "Use trio for the actors" in line)
    rust = [line for line in block.splitlines() if "rust parser" in line]
    assert all("from a deleted branch" in line for line in rust)


def test_recall_names_the_branch_of_a_result_not_in_heads_history(repo: Repo) -> None:
    _branchy(repo)
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    found = json.loads(run_cli("recall", "bloom filter for lookups", "--json", "--repo", str(repo.path)).stdout)
    bloom = next(r for r in found if "bloom filter" in r["title"])
    assert bloom["branch"] == "from feature/x, not merged"
    trio_hits = json.loads(run_cli("recall", "trio actors", "--json", "--repo", str(repo.path)).stdout)
    assert "branch" not in next(r for r in trio_hits if "trio" in r["title"])
    text = run_cli("recall", "bloom filter for lookups", "--repo", str(repo.path)).stdout
    assert "(from feature/x, not merged)" in text


async def test_the_mcp_show_tool_names_the_branches_holding_a_memorys_commit(repo: Repo, tmp_path) -> None:
    from tests.adapters.mcp.test_mcp_server import _doc, session

    commits = _branchy(repo)
    async with session(repo.path, tmp_path / "err") as (client, _):
        on_main = _doc(await client.call_tool("show", {"id": f"decisions:{commits['main'][:7]}:0"}))
        unmerged = _doc(await client.call_tool("show", {"id": f"decisions:{commits['unmerged'][:7]}:0"}))
    assert on_main["branches"] == ["main", "feature/merged", "feature/x"] and on_main["branches_count"] == 3
    assert on_main["branch"] is None
    assert unmerged["branches"] == ["feature/x"] and unmerged["branch"] == "from feature/x, not merged"
