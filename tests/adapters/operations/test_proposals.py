"""`consolidate --propose`, then `proposals` (list, --apply, --discard): on real repositories, the real pipeline and
the real command line. A proposal writes no ref; applying it writes what a plain run writes, and nothing once the
store moved."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from typing import Any

import pytest

from tests.conftest import NOW, Repo, git

STAMPS = {"created_at", "run_id", "consolidation_run_id"}
RUN_STAMPS = {"run_id", "started_at", "completed_at", "duration_seconds", "refs_updated", "inbox_events"}


def build(repo: Repo) -> Repo:
    """A chain of replaced decisions, a contradiction, three captures of one lesson (a summary) on two commits."""
    repo.capture("decisions", "Use SQLite for storage", "One file is enough.", when=NOW - timedelta(days=30))
    repo.capture("decisions", "Switch storage from SQLite to PostgreSQL", "We need concurrent writers.",
                 when=NOW - timedelta(days=20))
    repo.capture("decisions", "Use Redis for session caching", "Sessions live in Redis for a day.",
                 when=NOW - timedelta(days=9))
    repo.capture("decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                 when=NOW - timedelta(days=3))
    repo.commit("second")
    repo.capture("learnings", "Retries must be idempotent", "Retries happen.", when=NOW - timedelta(days=8))
    repo.capture("learnings", "Retries must be idempotent, always", "Retries happen often.",
                 when=NOW - timedelta(days=7))
    repo.capture("learnings", "Retries need idempotency keys", "Retries happen: use keys.",
                 when=NOW - timedelta(days=6))
    return repo


def refs_and_bytes(repo: Repo) -> dict[str, Any]:
    """Every ref under refs/notes/ and every note byte under them."""
    return {"refs": repo.refs(), "notes": {ref: _notes(repo, ref) for ref in repo.refs()}}


def _notes(repo: Repo, ref: str) -> dict[str, str]:
    pairs = git(repo.path, "notes", f"--ref={ref}", "list").stdout.split()
    return {commit: git(repo.path, "cat-file", "blob", blob).stdout for blob, commit in zip(pairs[0::2], pairs[1::2])}


def state(repo: Repo) -> dict[str, Any]:
    """Our state as records, stamps (when and by which run) left out, and the last run's record likewise."""
    from memactors.adapters.git.memory_store import MemoryStore
    from memactors.adapters.git.store import GitStore

    store = MemoryStore(GitStore(repo.path))
    snap = store.load_state()
    last = {k: v for k, v in (store.last_run() or {}).items() if k not in RUN_STAMPS}
    return {"meta": {k: m.model_dump(mode="json", exclude=STAMPS) for k, m in snap.meta.items()},
            "summaries": {k: (s.model_dump(mode="json", exclude=STAMPS), snap.summary_commits[k])
                          for k, s in snap.summaries.items()},
            "edges": {k: (e.model_dump(mode="json", exclude=STAMPS), snap.edge_commits[k]) for k, e in snap.edges.items()},
            "run": last}


def test_propose_writes_no_ref_and_lists_what_the_run_would_write(repo: Repo, cli) -> None:
    build(repo)
    before = refs_and_bytes(repo)
    done = cli("consolidate", "--propose", "--repo", str(repo.path))
    assert done.returncode == 0, done.stderr
    assert "nothing written" in done.stdout and "memactors proposals --apply" in done.stdout
    assert refs_and_bytes(repo) == before  # not a ref, not a byte under refs/notes/
    assert not any(r.startswith("refs/notes/mem-") for r in repo.refs())

    listed = cli("proposals", "--repo", str(repo.path), "--json")
    assert listed.returncode == 0, listed.stderr
    doc = json.loads(listed.stdout)
    items = doc["items"]
    (summary,) = items["summaries"]
    assert summary["action"] == "new"
    assert {m["title"] for m in summary["members"]} == {"Retries must be idempotent", "Retries must be idempotent, "
                                                        "always", "Retries need idempotency keys"}
    replaced = {(e["source"]["title"], e["target"]["title"]) for e in items["supersessions"]}
    assert ("Switch storage from SQLite to PostgreSQL", "Use SQLite for storage") in replaced
    assert all(e["reason"] for e in items["supersessions"] + items["conflicts"])
    assert doc["writes"] == ["refs/notes/mem-meta", "refs/notes/mem-summaries", "refs/notes/mem-edges",
                             "refs/notes/mem-runs"] and "change" not in doc
    (conflict,) = items["conflicts"]
    assert {conflict["source"]["title"], conflict["target"]["title"]} == {
        "Use Redis for session caching", "Do not use Redis for session caching"}
    assert conflict["resolution"] is None and doc["counts"]["undecided_conflicts"] == 1
    assert len(items["tier_moves"]) == 7 and {m["from"] for m in items["tier_moves"]} == {None}

    text = cli("proposals", "--repo", str(repo.path)).stdout
    assert "member learnings:" in text and "'Retries need idempotency keys'" in text  # members: id and title
    assert "Use SQLite for storage" in text and "because: " in text and "new -> " in text
    assert "contradicts" in text and "undecided" in text
    short = cli("proposals", "--repo", str(repo.path), "--limit", "2").stdout
    assert "tier moves (7):" in short and "... and 5 more" in short


def test_apply_writes_what_a_plain_consolidate_writes(repo: Repo, cli, tmp_path) -> None:
    build(repo)
    twin = Repo(tmp_path / "twin")
    shutil.copytree(repo.path, twin.path)
    assert cli("consolidate", "--propose", "--repo", str(repo.path)).returncode == 0
    applied = cli("proposals", "--apply", "--repo", str(repo.path))
    assert applied.returncode == 0, applied.stderr
    assert "refs/notes/mem-meta" in applied.stdout and "refs/notes/mem-runs" in applied.stdout
    plain = cli("consolidate", "--repo", str(twin.path))
    assert plain.returncode == 0, plain.stderr

    ours, theirs = state(repo), state(twin)
    assert ours["summaries"] and ours["edges"] and ours["meta"]
    assert ours == theirs
    assert set(repo.refs()) == set(twin.refs())
    # recall reads the read model the run would have written: the same answer as the plain run's
    asked = [cli("recall", "retries", "--repo", str(r.path)).stdout for r in (repo, twin)]
    assert asked[0] == asked[1] and "summary:" in asked[0]
    gone = cli("proposals", "--repo", str(repo.path))
    assert gone.returncode == 0 and gone.stdout.startswith("no proposals")


def test_apply_after_a_new_capture_refuses_and_writes_nothing(repo: Repo, cli) -> None:
    build(repo)
    assert cli("consolidate", "--propose", "--repo", str(repo.path)).returncode == 0
    repo.capture("progress", "Milestone 1 done", "Tests green.", when=NOW - timedelta(days=1))
    before = refs_and_bytes(repo)
    refused = cli("proposals", "--apply", "--repo", str(repo.path))
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert "the store changed since the proposals" in refused.stderr
    assert "refs/notes/mem/progress" in refused.stderr and "consolidate --propose` again" in refused.stderr
    assert refs_and_bytes(repo) == before
    assert cli("proposals", "--repo", str(repo.path), "--json").returncode == 0  # kept, to read or discard


def test_apply_after_another_run_refuses(repo: Repo, cli) -> None:
    build(repo)
    assert cli("consolidate", "--propose", "--repo", str(repo.path)).returncode == 0
    assert cli("consolidate", "--repo", str(repo.path)).returncode == 0
    before = refs_and_bytes(repo)
    refused = cli("proposals", "--apply", "--repo", str(repo.path))
    assert refused.returncode == 1 and "another run or a decision wrote refs/notes/mem-" in refused.stderr
    assert refs_and_bytes(repo) == before


def test_discard_drops_the_proposals_and_writes_nothing(repo: Repo, cli) -> None:
    build(repo)
    assert cli("consolidate", "--propose", "--repo", str(repo.path)).returncode == 0
    proposals = repo.path / ".git" / "memactors" / "proposals.json"
    assert proposals.exists()
    before = refs_and_bytes(repo)
    dropped = cli("proposals", "--discard", "--repo", str(repo.path), "--json")
    assert dropped.returncode == 0 and json.loads(dropped.stdout)["discarded"] is True
    assert not proposals.exists() and not (repo.path / ".git" / "memactors" / "proposed-read-model").exists()
    assert refs_and_bytes(repo) == before
    assert json.loads(cli("proposals", "--repo", str(repo.path), "--json").stdout) == {"proposals": None}
    nothing = cli("proposals", "--apply", "--repo", str(repo.path))
    assert nothing.returncode == 2 and "no proposals to apply" in nothing.stderr


@pytest.mark.parametrize("args, says", [
    (("proposals", "--limit", "0"), "--limit must be 1 or more"),
    (("proposals", "--apply", "--limit", "3"), "--limit is for the listing"),
    (("consolidate", "--propose", "--dry-run"), "choose one"),
])
def test_bad_input_is_one_line_and_exit_2(repo: Repo, cli, args: tuple[str, ...], says: str) -> None:
    done = cli(*args, "--repo", str(repo.path))
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr


def test_a_run_that_would_change_nothing_proposes_nothing(repo: Repo, cli) -> None:
    build(repo)
    assert cli("consolidate", "--repo", str(repo.path)).returncode == 0
    before = refs_and_bytes(repo)
    done = cli("consolidate", "--propose", "--repo", str(repo.path))
    assert done.returncode == 0 and "would change nothing: no proposals" in done.stdout
    assert refs_and_bytes(repo) == before
    assert cli("proposals", "--repo", str(repo.path)).stdout.startswith("no proposals")


def test_an_unreadable_proposals_file_is_one_line_and_discard_drops_it(repo: Repo, cli) -> None:
    build(repo)
    broken = repo.path / ".git" / "memactors" / "proposals.json"
    broken.parent.mkdir(exist_ok=True)
    broken.write_text('{"version": 1, "run_id": "x", "ite')
    for args in (("proposals",), ("proposals", "--apply")):
        done = cli(*args, "--repo", str(repo.path))
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert "cannot be read" in done.stderr and "memactors proposals --discard" in done.stderr
    dropped = cli("proposals", "--discard", "--repo", str(repo.path))
    assert dropped.returncode == 0 and not broken.exists()
    assert not any(r.startswith("refs/notes/mem-") for r in repo.refs())
