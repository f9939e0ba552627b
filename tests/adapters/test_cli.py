"""The command line as a user runs it: a fresh process against real repositories."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Repo, git, run_cli

REPORT_KEYS = {"run_id", "started_at", "completed_at", "phase", "memories_processed", "memories_skipped",
               "clusters_found", "summaries_created", "supersessions_detected", "tier_counts",
               "tier_transitions", "errors"}


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_consolidate_json_reports_the_run_and_keeps_originals(populated: Repo) -> None:
    before = populated.originals()
    result = run_cli("consolidate", "--json", "--repo", str(populated.path))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert REPORT_KEYS <= set(report)
    assert report["memories_processed"] == 6 and report["phase"] == "completed"
    assert set(report["tier_counts"]) == {"hot", "warm", "cold", "archived"}
    assert populated.originals() == before


def test_consolidate_runs_from_inside_the_repository_by_default(populated: Repo) -> None:
    sub = populated.path / "src"
    sub.mkdir()
    result = run_cli("consolidate", cwd=sub)
    assert result.returncode == 0, result.stderr
    assert "scanned     6 memories" in result.stdout and "persisted" in result.stdout


def test_outside_a_repository_the_answer_is_one_line_and_exit_2(tmp_path: Path, git_env) -> None:
    for command in (["consolidate"], ["status"], ["tiers"], ["show", "x:y:0"]):
        result = run_cli(*command, "--repo", str(tmp_path))
        assert result.returncode == 2
        assert "not inside a git repository" in one_line_error(result)
    missing = run_cli("consolidate", "--repo", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "does not exist" in one_line_error(missing)


def test_an_unreadable_ref_is_named_and_exits_2(populated: Repo) -> None:
    blob = git(populated.path, "hash-object", "-w", "--stdin", input="not a commit").stdout.strip()
    git(populated.path, "update-ref", "refs/notes/mem/research", blob)
    result = run_cli("consolidate", "--repo", str(populated.path))
    assert result.returncode == 2
    assert "research" in one_line_error(result) or blob[:12] in result.stderr


def test_an_empty_store_gives_an_empty_report_and_exit_0(repo: Repo) -> None:
    result = run_cli("consolidate", "--json", "--repo", str(repo.path))
    assert result.returncode == 0
    assert json.loads(result.stdout)["memories_processed"] == 0
    assert repo.refs() == {}


def test_a_bare_mirror_is_consolidated(populated: Repo, tmp_path: Path) -> None:
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(populated.path), str(bare)], check=True)
    result = run_cli("consolidate", "--json", "--repo", str(bare))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["persisted"] is True
    assert json.loads(git(bare, "notes", "--ref=refs/notes/mem-meta", "show", "HEAD").stdout)["memories"]


def test_without_a_git_identity_state_is_signed_by_memactors(populated: Repo, tmp_path: Path) -> None:
    git(populated.path, "config", "--unset", "user.name")
    git(populated.path, "config", "--unset", "user.email")
    home = tmp_path / "empty-home"
    home.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    result = run_cli("consolidate", "--repo", str(populated.path), env=env)
    assert result.returncode == 0, result.stderr
    author = git(populated.path, "log", "-1", "--format=%an <%ae>", "refs/notes/mem-meta", env=env).stdout.strip()
    assert author == "memactors <memactors@localhost>"


def test_our_refs_are_added_to_notes_rewrite_ref_once_they_exist(populated: Repo) -> None:
    run_cli("consolidate", "--repo", str(populated.path))
    run_cli("consolidate", "--repo", str(populated.path))
    values = git(populated.path, "config", "--get-all", "notes.rewriteRef").stdout.split()
    assert "refs/notes/mem-summaries" not in populated.refs()  # no cluster of three here: nothing to summarize
    assert values == ["refs/notes/mem-meta", "refs/notes/mem-edges", "refs/notes/mem-runs"]
    amend = git(populated.path, "commit", "--amend", "-q", "--allow-empty", "-m", "amended")
    assert "invalid" not in amend.stderr


def test_capture_appends_like_git_notes_memory_and_prints_the_id(repo: Repo) -> None:
    repo.capture("decisions", "Written by git-notes-memory", "with a rule\n\n---\n\nbelow")
    head = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    result = run_cli("capture", "--repo", str(repo.path), "--namespace", "decisions",
                     "--summary", "Use trio for concurrency", "--tags", "arch, async",
                     input="Structured concurrency keeps cancellation sane.\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"decisions:{head}:2"  # upstream's index, drifted by the rule
    note = repo.note("refs/notes/mem/decisions")
    assert note.count("type: decisions") == 2 and "- arch\n- async" in note
    for memory_id in (f"decisions:{head}:2", f"decisions:{head[:7]}:1"):
        shown = run_cli("show", "--json", "--repo", str(repo.path), memory_id)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["summary"] == "Use trio for concurrency"


def test_capture_refuses_bad_input_without_writing(repo: Repo) -> None:
    for args in (["--namespace", "nonsense", "--summary", "x"],
                 ["--namespace", "decisions", "--summary", "x" * 101],
                 ["--namespace", "decisions", "--summary", "  "]):
        result = run_cli("capture", "--repo", str(repo.path), "--content", "", *args)
        assert result.returncode == 2
        one_line_error(result)
    assert repo.refs() == {}


def test_show_an_unknown_id_exits_1(populated: Repo) -> None:
    result = run_cli("show", "--repo", str(populated.path), "decisions:deadbeef:0")
    assert result.returncode == 1 and "no memory" in one_line_error(result)


def test_status_and_tiers_report_counts_after_a_run(populated: Repo) -> None:
    before = json.loads(run_cli("status", "--json", "--repo", str(populated.path)).stdout)
    assert before["last_run"] is None and before["tier_counts"] == {"untiered": 6}
    run_cli("consolidate", "--repo", str(populated.path))
    status = json.loads(run_cli("status", "--json", "--repo", str(populated.path)).stdout)
    assert status["memories"] == 6 and sum(status["tier_counts"].values()) == 6
    assert status["namespaces"]["learnings"] and status["last_run"]["memories_processed"] == 6
    tiers = json.loads(run_cli("tiers", "--json", "--repo", str(populated.path)).stdout)
    assert sum(len(items) for items in tiers["tiers"].values()) == 6
    hot = tiers["tiers"]["hot"]
    assert [item["score"] for item in hot] == sorted((item["score"] for item in hot), reverse=True)
    text = run_cli("tiers", "--repo", str(populated.path)).stdout
    assert text.startswith("HOT (")


def test_invalid_configuration_is_one_line_and_exit_2(populated: Repo) -> None:
    result = run_cli("consolidate", "--repo", str(populated.path),
                     env={"MEMACTORS_RETENTION_HALF_LIFE_DAYS": "-3"})
    assert result.returncode == 2
    assert "MEMACTORS_RETENTION_HALF_LIFE_DAYS" in one_line_error(result)


def test_help_explains_commands_and_exit_codes() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for word in ("consolidate", "capture", "show", "status", "tiers", "demo", "Exit codes"):
        assert word in result.stdout
    assert run_cli("frobnicate").returncode == 2


def test_demo_builds_a_store_and_consolidates_it(tmp_path: Path, git_env) -> None:
    result = run_cli("demo", "--json", str(tmp_path / "demo"), "--memories", "200")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["report"]["memories_processed"] > 150 and doc["report"]["persisted"]
    assert doc["report"]["memories_skipped"]["duplicate_entry"] == doc["built"]["duplicates"]
    namespaces = git(tmp_path / "demo", "for-each-ref", "--format=%(refname)", "refs/notes/mem/").stdout.split()
    assert len(namespaces) >= 6
    again = run_cli("demo", str(tmp_path / "demo"))
    assert again.returncode == 2 and "not empty" in one_line_error(again)
    misled = run_cli("demo", "--repo", str(tmp_path), str(tmp_path / "elsewhere"))  # DIR is where it goes
    assert misled.returncode == 2 and "--repo" in misled.stderr and not (tmp_path / "elsewhere").exists()


@pytest.fixture
def big_store(tmp_path: Path, git_env) -> Path:
    path = tmp_path / "big"
    result = run_cli("demo", str(path), "--memories", "4000")
    assert result.returncode == 0, result.stderr
    for ref in ("refs/notes/mem-meta", "refs/notes/mem-runs"):
        git(path, "update-ref", "-d", ref)
    cache = path / ".git" / "memactors" / "parse-cache.json"
    cache.unlink()
    return path


def _state_is_whole(path: Path) -> None:
    """Each state ref is absent or a commit whose every note is complete JSON."""
    for ref in ("refs/notes/mem-meta", "refs/notes/mem-runs"):
        if git(path, "rev-parse", "-q", "--verify", ref, check=False).returncode != 0:
            continue
        listing = git(path, "notes", f"--ref={ref}", "list").stdout.split()
        for commit in listing[1::2]:
            assert json.loads(git(path, "notes", f"--ref={ref}", "show", commit).stdout)["schema_version"] == 1


def test_two_racing_runs_never_leave_refs_half_written(big_store: Path) -> None:
    command = [sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--json", "--repo", str(big_store)]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    codes = sorted(p.wait(timeout=300) for p in procs)
    assert codes in ([0, 0], [0, 3])
    if codes == [0, 3]:
        loser = next(p for p in procs if p.returncode == 3)
        assert "another memactors run holds" in loser.stderr.read()
    _state_is_whole(big_store)


def test_a_killed_run_leaves_every_ref_at_its_old_or_new_commit(big_store: Path) -> None:
    command = [sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--repo", str(big_store)]
    before = git(big_store, "for-each-ref", "refs/notes/mem/").stdout
    for delay in (0.3, 0.8, 1.5):
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.kill()
        proc.wait()
        _state_is_whole(big_store)
    assert git(big_store, "for-each-ref", "refs/notes/mem/").stdout == before
    finish = run_cli("consolidate", "--json", "--repo", str(big_store))
    assert finish.returncode == 0
    _state_is_whole(big_store)


def test_sigint_finishes_the_run_in_flight_and_exits_0(big_store: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--json", "-v", "--repo", str(big_store)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "started" in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert json.loads(out)["phase"] == "completed" and json.loads(out)["persisted"] is True
    _state_is_whole(big_store)


def test_conflicts_wait_for_the_user_and_resolve_is_honoured(repo: Repo) -> None:
    from datetime import timedelta

    from tests.conftest import NOW

    repo.capture("decisions", "Use Redis for session caching", "Fast and simple.", when=NOW - timedelta(days=3))
    repo.capture("decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                 when=NOW - timedelta(days=1))
    first = json.loads(run_cli("consolidate", "--json", "--repo", str(repo.path)).stdout)
    assert first["contradictions_flagged"] == 1
    conflicts = json.loads(run_cli("conflicts", "--json", "--repo", str(repo.path)).stdout)
    assert len(conflicts) == 1 and conflicts[0]["edge_type"] == "contradicts"
    conflict = conflicts[0]
    assert run_cli("resolve", conflict["conflict_id"][:8], "--keep", "decisions:nope:0",
                   "--repo", str(repo.path)).returncode == 2
    resolved = run_cli("resolve", conflict["conflict_id"][:8], "--keep", conflict["source_id"],
                       "--repo", str(repo.path))
    assert resolved.returncode == 0, resolved.stderr
    assert json.loads(run_cli("conflicts", "--json", "--repo", str(repo.path)).stdout) == []
    older = json.loads(run_cli("show", "--json", "--repo", str(repo.path), conflict["target_id"]).stdout)
    assert older["meta"]["superseded_by"] and older["retention"]["superseded"] is True
    edges = json.loads(run_cli("edges", "--json", "--repo", str(repo.path), conflict["target_id"]).stdout)
    assert [e["resolution"] for e in edges if e["edge_type"] == "contradicts"] == [f"keep:{older['meta']['superseded_by']}"]
    for edge in edges:
        assert {"source_id", "target_id", "edge_type", "weight", "reason", "created_at", "consolidation_run_id"} <= set(edge)
    again = json.loads(run_cli("consolidate", "--json", "--repo", str(repo.path)).stdout)
    assert again["contradictions_flagged"] == 0
    text = run_cli("edges", "--repo", str(repo.path), conflict["source_id"]).stdout
    assert "contradicts" in text and "resolved" in text


def test_show_prints_a_summary_and_edges_lists_the_summary_link(tmp_path: Path, git_env) -> None:
    demo = tmp_path / "demo"
    assert run_cli("demo", str(demo), "--memories", "120").returncode == 0
    tiers = json.loads(run_cli("tiers", "--json", "--repo", str(demo)).stdout)
    some = [m["id"] for items in tiers["tiers"].values() for m in items]
    linked = None
    for memory_id in some:
        shown = json.loads(run_cli("show", "--json", "--repo", str(demo), memory_id).stdout)
        if shown["meta"] and shown["meta"]["consolidated_into"]:
            linked = shown
            break
    assert linked is not None
    summary = run_cli("show", "--json", "--repo", str(demo), "summary:" + linked["meta"]["consolidated_into"])
    doc = json.loads(summary.stdout)
    assert doc["kind"] == "summary" and linked["key"] in doc["source_keys"] and doc["provider"] == "offline"
    edges = run_cli("edges", "--repo", str(demo), linked["id"]).stdout
    assert "summarized in summary:" in edges
