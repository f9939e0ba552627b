"""The command line as a user runs it: a fresh process against real repositories."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.actors.test_semantic_pipeline import store_of_facts  # noqa: F401 - fixture
from tests.conftest import Repo, git, run_cli
from tests.fake_openai import HungServer

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


def test_a_bad_memory_ref_is_skipped_by_name_and_the_other_namespaces_are_consolidated(populated: Repo) -> None:
    blob = git(populated.path, "hash-object", "-w", "--stdin", input="not a commit").stdout.strip()
    git(populated.path, "update-ref", "refs/notes/mem/weird", blob)
    tree = git(populated.path, "rev-parse", "HEAD^{tree}").stdout.strip()
    git(populated.path, "update-ref", "refs/notes/mem/odd", tree)
    result = run_cli("consolidate", "--json", "--repo", str(populated.path))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["memories_processed"] == 6 and report["persisted"]
    for ref in ("refs/notes/mem/weird", "refs/notes/mem/odd"):
        said = [e for e in report["errors"] if e.startswith(ref)]
        assert len(said) == 1 and f"git update-ref -d {ref}" in said[0]
    assert "refs/notes/mem/weird skipped: " in result.stderr and "Traceback" not in result.stderr


def test_hostile_front_matter_costs_bounded_memory_and_never_crashes_the_run(repo: Repo) -> None:
    """An alias bomb (459 bytes, gigabytes once expanded) and 30,000 levels of nesting (which crash
    libyaml's composer): each skipped by reason, under a 2 GiB address-space limit."""
    import resource

    head = "---\ntype: decisions\ntimestamp: '2024-01-01T00:00:00+00:00'\nsummary: {}\n"
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    bomb = head.format("bomb") + "\n".join(lines) + "\ntags: *i\n---\n"
    assert len(bomb.encode()) < 600
    deep = head.format("deep") + "tags: " + "[" * 30_000 + "]" * 30_000 + "\n---\n"
    for hostile in (bomb, deep):
        git(repo.path, "notes", "--ref=refs/notes/mem/decisions", "append", "-m", hostile, "HEAD")
    repo.capture("decisions", "Use SQLite for storage")
    before = repo.originals()

    def limited() -> None:  # the bomb alone would need hundreds of gigabytes
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    result = subprocess.run([sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--json",
                             "--repo", str(repo.path)], capture_output=True, text=True, timeout=120,
                            preexec_fn=limited,
                            env={**os.environ, "MEMACTORS_EMBEDDINGS": "none", "MALLOC_ARENA_MAX": "2"})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["memories_skipped"] == {"yaml_alias": 1, "yaml_too_deep": 1}
    assert report["memories_processed"] == 1
    assert repo.originals() == before


def test_four_parallel_capture_loops_store_every_memory(repo: Repo) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def loop(worker: int) -> list[subprocess.CompletedProcess]:
        return [run_cli("capture", "--repo", str(repo.path), "--namespace", "decisions",
                        "--summary", f"worker {worker} decision {n}", "--content", "") for n in range(20)]

    with ThreadPoolExecutor(4) as pool:
        results = [r for batch in pool.map(loop, range(4)) for r in batch]
    assert [r.returncode for r in results] == [0] * 80, [r.stderr for r in results if r.returncode][:3]
    assert not any("Traceback" in r.stderr for r in results)
    note = repo.note("refs/notes/mem/decisions")
    stored = {line.removeprefix("summary: ") for line in note.splitlines() if line.startswith("summary: ")}
    assert stored == {f"worker {w} decision {n}" for w in range(4) for n in range(20)}


def test_a_capture_waits_for_a_ref_lock_another_process_holds_briefly(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite")
    lock = repo.path / ".git" / "refs" / "notes" / "mem" / "decisions.lock"
    lock.write_text("")  # git notes append, mid-write
    capture = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "capture", "--repo", str(repo.path),
                                "--namespace", "decisions", "--summary", "Waited for the lock", "--content", ""],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # long enough for the capture to meet the lock
    lock.unlink()
    out, err = capture.communicate(timeout=60)
    assert capture.returncode == 0, err
    assert "summary: Waited for the lock" in repo.note("refs/notes/mem/decisions")


def test_a_capture_against_a_lock_held_too_long_exits_3_and_writes_nothing(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite")
    lock = repo.path / ".git" / "refs" / "notes" / "mem" / "decisions.lock"
    lock.write_text("")  # a git process that never lets go
    before = repo.originals()
    result = run_cli("capture", "--repo", str(repo.path), "--namespace", "decisions", "--summary", "blocked",
                     env={"MEMACTORS_LOCK_WAIT_SECONDS": "0.5"})
    assert result.returncode == 3
    assert "decisions.lock" in one_line_error(result)
    lock.unlink()
    assert repo.originals() == before


@pytest.fixture
def read_only(populated: Repo, tmp_path: Path):
    """The populated store, consolidated once, behind a read-only bind mount."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    mount = tmp_path / "read-only"
    mount.mkdir()
    if subprocess.run(["mount", "--bind", str(populated.path), str(mount)], capture_output=True).returncode:
        pytest.skip("bind mounts are not allowed here")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(mount)], check=True, capture_output=True)
        yield Repo(mount)
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def test_a_read_only_repository_costs_one_line_and_a_dry_run_still_works(read_only: Repo) -> None:
    before = read_only.originals()
    for command in (["consolidate"], ["consolidate", "--full"],
                    ["capture", "--namespace", "decisions", "--summary", "x", "--content", ""]):
        result = run_cli(*command, "--repo", str(read_only.path))
        assert result.returncode == 2, (command, result.stderr)
        assert "read-only file system" in one_line_error(result)
    dry = run_cli("consolidate", "--dry-run", "--json", "--repo", str(read_only.path))
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["memories_processed"] == 6 and "Traceback" not in dry.stderr
    assert read_only.originals() == before


def test_a_hung_llm_server_costs_a_few_timeouts_then_the_run_completes_offline(store_of_facts: Repo) -> None:
    with HungServer() as hung:
        result = run_cli("consolidate", "--json", "--repo", str(store_of_facts.path), env={
            "MEMORY_CONSOLIDATION_LLM_PROVIDER": "lmstudio", "MEMORY_CONSOLIDATION_LLM_BASE_URL": hung.base_url,
            "MEMACTORS_LLM_TIMEOUT": "0.5"})
        connections = hung.settled_connections()
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["persisted"] and set(report["providers"]) == {"offline"}
    usage = report["token_usage"]
    assert 0 < connections <= 8 and usage["llm_calls"] == usage["llm_failed"] == connections
    assert "Traceback" not in result.stderr


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


def test_show_an_unknown_id_exits_2_naming_the_repository(populated: Repo) -> None:
    result = run_cli("show", "--repo", str(populated.path), "decisions:deadbeef:0")
    assert result.returncode == 2 and "no memory" in one_line_error(result)
    assert f"in {populated.path.resolve()}" in result.stderr


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
        winner = next(p for p in procs if p.returncode == 0)
        assert f"a one-shot `memactors consolidate` (pid {winner.pid}) holds this repository" in loser.stderr.read()
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


def test_sigint_stops_the_run_at_once_with_130_and_leaves_the_state_whole(big_store: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--json", "-v", "--repo", str(big_store)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "started" in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out.strip() == ""
    _state_is_whole(big_store)  # refs at the old run or the new, never half of one
    finish = run_cli("consolidate", "--json", "--repo", str(big_store))
    assert finish.returncode == 0 and json.loads(finish.stdout)["phase"] == "completed"


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
    # seen at once, before any run: recall marks it replaced and the session's context no longer offers it
    hits = json.loads(run_cli("recall", "Redis for session caching", "--json", "--no-track", "--mode", "exhaustive",
                              "--repo", str(repo.path)).stdout)
    loser = next(h for h in hits if h["id"] == conflict["target_id"])
    assert loser["superseded_by"] == conflict["source_id"]
    assert [h["id"] for h in hits].index(conflict["source_id"]) < [h["id"] for h in hits].index(conflict["target_id"])
    hook = json.dumps({"session_id": "s", "cwd": str(repo.path), "hook_event_name": "SessionStart"})
    block = run_cli("context", "--block", "--repo", str(repo.path), input=hook).stdout
    assert "Do not use Redis for session caching" in block
    assert not any(line.endswith("] Use Redis for session caching") for line in block.splitlines())
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


def test_show_and_tiers_give_a_fragment_its_title_from_the_body_and_explain_its_quality(repo: Repo) -> None:
    window = ("...died with the capture process, leaving the index half written. After comparing the options we "
              "decided on this. Indexing now runs in a detached subprocess that outlives the hook that star...")
    repo.capture("decisions", window[:97] + "...", window, tags=["auto-captured", "pre-compact"])
    repo.capture("decisions", "Run the indexer as a detached subprocess",
                 "## Decision\nIndexing runs in a detached subprocess.\n\n## Rationale\nIt outlives the hook.")
    assert run_cli("consolidate", "--repo", str(repo.path), env={"MEMACTORS_EMBEDDINGS": "none"}).returncode == 0
    tiers = json.loads(run_cli("tiers", "--json", "--repo", str(repo.path)).stdout)["tiers"]
    listed = {item["summary"]: item for items in tiers.values() for item in items}
    fragment = listed[window[:97] + "..."]
    assert fragment["title"] == "After comparing the options we decided on this." and fragment["quality"] < 0.5
    assert fragment["id"] not in [item["id"] for item in tiers["hot"]]
    shown = json.loads(run_cli("show", "--json", "--repo", str(repo.path), fragment["id"]).stdout)
    assert shown["summary"] == window[:97] + "..." and shown["title"] == fragment["title"]
    assert shown["quality"]["auto_captured"] and shown["quality"]["cut"] and shown["quality"]["readable"]
    assert shown["retention"]["quality"] == shown["quality"]["score"]
    text = run_cli("show", "--repo", str(repo.path), fragment["id"]).stdout
    assert "title      After comparing the options" in text and "cut from a transcript" in text
