"""Each stage of a run has a switch (MEMACTORS_<STAGE>_ENABLED): a stage switched off does not run, writes
nothing, drops nothing earlier runs wrote, and the run's report says so. Real repositories, the real CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

from memactors.adapters.git.memory_store import EDGES_REF, META_REF, SUMMARIES_REF, MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.events.edge import EdgeType
from memactors.events.tier import Tier
from tests.actors.test_semantic_pipeline import store_of_facts  # noqa: F401 - fixture
from tests.conftest import NOW, Repo, run_cli

FAST = {"MEMACTORS_EMBEDDINGS": "none"}  # tiers, surfacing and capture need no embeddings


def consolidate(repo: Repo, *args: str, **env: str) -> dict:
    result = run_cli("consolidate", "--json", "--repo", str(repo.path), *args, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def text_report(repo: Repo, **env: str) -> str:
    result = run_cli("consolidate", "--repo", str(repo.path), env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def state(repo: Repo):
    return MemoryStore(GitStore(repo.path)).load_state()


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# --- forgetting ---------------------------------------------------------------------------------------------


def test_forgetting_off_moves_no_memory_between_tiers_and_says_so(populated: Repo) -> None:
    consolidate(populated, **FAST)
    faded = {k: m.tier for k, m in state(populated).meta.items()}
    assert set(faded.values()) - {Tier.HOT}, "the fixture has memories that faded"
    meta_tip = populated.refs()[META_REF]
    populated.capture("decisions", "Deploy from the main branch only", when=NOW - timedelta(days=300))
    off = {**FAST, "MEMACTORS_FORGETTING_ENABLED": "false", "MEMACTORS_TIER_HOT_THRESHOLD": "0.95"}
    report = consolidate(populated, **off)
    after = state(populated).meta
    assert {k: m.tier for k, m in after.items() if k in faded} == faded  # earlier tiers kept, not recomputed
    assert [m.tier for k, m in after.items() if k not in faded] == [Tier.HOT]  # a 300-day-old newcomer: hot
    assert report["tier_transitions"] == {"new->hot": 1}
    assert report["stages_off"] == {"forgetting": "MEMACTORS_FORGETTING_ENABLED=false"}
    assert populated.refs()[META_REF] != meta_tip  # the newcomer's record, nothing else
    assert "forgetting: off (MEMACTORS_FORGETTING_ENABLED=false)" in text_report(populated, **off)
    on = consolidate(populated, **FAST)  # switched on again, the next run tiers as usual
    assert on["stages_off"] == {} and sum(on["tier_transitions"].values()) >= 1


# --- consolidation and linking ------------------------------------------------------------------------------


def test_consolidation_off_clusters_summarizes_judges_and_links_nothing_and_keeps_what_earlier_runs_wrote(
        store_of_facts: Repo) -> None:  # noqa: F811 - fixture
    off = {"MEMACTORS_CONSOLIDATION_ENABLED": "false"}
    report = consolidate(store_of_facts, **off)
    refs = store_of_facts.refs()
    assert SUMMARIES_REF not in refs and EDGES_REF not in refs
    assert all(m.cluster_id is None and m.superseded_by is None for m in state(store_of_facts).meta.values())
    assert report["clusters_found"] == report["pairs_found"] == report["summaries_created"] == 0
    assert report["memories_embedded"] == 0 and report["supersessions_detected"] == 0
    assert report["stages_off"] == {
        "consolidation": "MEMACTORS_CONSOLIDATION_ENABLED=false",
        "linking": "MEMACTORS_CONSOLIDATION_ENABLED=false: links need its clusters"}

    on = consolidate(store_of_facts)  # the stage on: summaries, verdicts, links
    assert on["summaries_created"] >= 1 and on["supersessions_detected"] >= 1 and on["stages_off"] == {}
    kept = state(store_of_facts)
    written = store_of_facts.refs()
    again = consolidate(store_of_facts, "--full", **off)  # off again: nothing earlier runs wrote is dropped
    assert again["summaries_created"] == 0
    after = state(store_of_facts)
    assert after.summaries == kept.summaries and after.edges == kept.edges
    assert {k: (m.cluster_id, m.consolidated_into, m.superseded_by) for k, m in after.meta.items()} == {
        k: (m.cluster_id, m.consolidated_into, m.superseded_by) for k, m in kept.meta.items()}
    assert store_of_facts.refs()[SUMMARIES_REF] == written[SUMMARIES_REF]
    assert store_of_facts.refs()[EDGES_REF] == written[EDGES_REF]
    text = text_report(store_of_facts, **off)
    assert "consolidation: off (MEMACTORS_CONSOLIDATION_ENABLED=false)" in text
    assert "linking: off (MEMACTORS_CONSOLIDATION_ENABLED=false: links need its clusters)" in text


def test_linking_off_finds_no_link_but_still_consolidates(store_of_facts: Repo, tmp_path: Path) -> None:  # noqa: F811
    import shutil

    twin = Repo(tmp_path / "twin")
    shutil.copytree(store_of_facts.path, twin.path)
    with_links = consolidate(twin)
    assert any(e.is_link for e in state(twin).edges.values()), "the fixture has links to find"

    report = consolidate(store_of_facts, MEMACTORS_LINKING_ENABLED="0")
    edges = state(store_of_facts).edges.values()
    assert not any(e.is_link for e in edges)
    assert any(e.edge_type is EdgeType.SUPERSEDES for e in edges)
    assert report["summaries_created"] == with_links["summaries_created"] >= 1
    assert report["stages_off"] == {"linking": "MEMACTORS_LINKING_ENABLED=0"}
    assert "linking: off (MEMACTORS_LINKING_ENABLED=0)" in text_report(store_of_facts, MEMACTORS_LINKING_ENABLED="0")


# --- surfacing ----------------------------------------------------------------------------------------------


def test_surfacing_off_builds_no_index_and_the_hook_is_silent(repo: Repo) -> None:
    path = repo.path / "src" / "pool.py"
    path.parent.mkdir(parents=True)
    path.write_text("pool\n")
    subprocess.run(["git", "-C", str(repo.path), "add", "-A"], check=True)
    repo.commit("pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    index = repo.path / ".git" / "memactors" / "surfacing.sqlite"
    consolidate(repo, **FAST)
    assert index.exists()
    hook = json.dumps({"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "PostToolUse",
                       "tool_name": "Edit", "tool_input": {"file_path": str(path)}, "tool_use_id": "t1"})
    assert "Pool exhaustion" in run_cli("surface", input=hook, cwd=repo.path).stdout

    repo.capture("learnings", "Job sessions must be closed in a finally block", "Or the pool leaks.")
    off = {**FAST, "MEMACTORS_SURFACING_ENABLED": "false"}
    report = consolidate(repo, **off)
    assert not index.exists()  # not built, and the earlier one gone rather than stale
    assert report["stages_off"] == {"surfacing": "MEMACTORS_SURFACING_ENABLED=false"}
    assert run_cli("surface", input=hook, cwd=repo.path, env=off).stdout == ""
    assert "surfacing: off (MEMACTORS_SURFACING=off)" in text_report(repo, **FAST, MEMACTORS_SURFACING="off")


# --- implicit capture ---------------------------------------------------------------------------------------


def test_implicit_capture_off_queues_and_reads_no_transcript(repo: Repo, tmp_path: Path) -> None:
    from memactors.adapters.claude.review_queue import ReviewQueue
    from memactors.adapters.claude.transcript_queue import queue_transcript, queued
    from memactors.adapters.system.clock import SystemClock
    from tests.session_transcripts import s01

    common = repo.path / ".git"
    transcript = s01().write(tmp_path)
    off = {**FAST, "MEMACTORS_IMPLICIT_CAPTURE_ENABLED": "false"}
    end = json.dumps({"session_id": "0b6c1c1e-0001", "transcript_path": str(transcript), "cwd": str(repo.path),
                      "hook_event_name": "SessionEnd"})
    assert run_cli("publish", "session-end", input=end, cwd=repo.path, env=off).returncode == 0
    assert queued(common) == []  # the hook queued nothing

    queue_transcript(common, str(transcript), "0b6c1c1e-0001", "SessionEnd")  # queued while it was on
    report = consolidate(repo, **off)
    assert len(queued(common)) == 1  # not read, not dropped
    assert ReviewQueue(common).load(SystemClock().now()).pending == []
    assert report["stages_off"] == {"implicit_capture": "MEMACTORS_IMPLICIT_CAPTURE_ENABLED=false"}
    assert "implicit capture: off (MEMACTORS_IMPLICIT_CAPTURE_ENABLED=false)" in text_report(repo, **off)

    consolidate(repo, **FAST)  # on again: the queued session is read into proposals
    assert queued(common) == []
    assert ReviewQueue(common).load(SystemClock().now()).pending


# --- thresholds and their validation ------------------------------------------------------------------------


def test_the_design_names_of_the_thresholds_set_the_tiers_and_the_old_names_still_work(populated: Repo) -> None:
    default = consolidate(populated, "--dry-run", **FAST)["tier_counts"]
    assert default["archived"] < 6
    for name in ("MEMACTORS_ARCHIVE_THRESHOLD", "MEMACTORS_TIER_COLD_THRESHOLD"):
        counts = consolidate(populated, "--dry-run", **FAST, **{name: "0.97", "MEMACTORS_WARM_THRESHOLD": "0.98",
                                                                "MEMACTORS_HOT_THRESHOLD": "0.99"})["tier_counts"]
        assert counts["archived"] == 6, name


def test_thresholds_out_of_order_or_range_and_a_bad_switch_are_one_line_and_exit_2(populated: Repo) -> None:
    cases = {
        ("MEMACTORS_HOT_THRESHOLD", "0.2"): "invalid configuration: MEMACTORS_HOT_THRESHOLD=0.2 must be above "
                                            "MEMACTORS_WARM_THRESHOLD=0.3 (allowed: 0 <= archive < warm < hot <= 1)",
        ("MEMACTORS_TIER_COLD_THRESHOLD", "0.3"): "invalid configuration: MEMACTORS_WARM_THRESHOLD=0.3 must be above "
                                                  "MEMACTORS_TIER_COLD_THRESHOLD=0.3",
        ("MEMACTORS_ARCHIVE_THRESHOLD", "1.5"): "invalid configuration MEMACTORS_ARCHIVE_THRESHOLD=1.5: must be from "
                                                "0 to 1",
        ("MEMACTORS_FORGETTING_ENABLED", "maybe"): "invalid configuration MEMACTORS_FORGETTING_ENABLED=maybe: must be "
                                                   "true or false",
        ("MEMACTORS_INTERVAL_HOURS", "0"): "invalid configuration MEMACTORS_INTERVAL_HOURS=0: must be more than 0",
    }
    before = populated.refs()
    for (name, value), said in cases.items():
        result = run_cli("consolidate", "--repo", str(populated.path), env={**FAST, name: value})
        assert result.returncode == 2, (name, result.stderr)
        assert one_line_error(result).startswith(f"memactors: {said}"), one_line_error(result)
    assert populated.refs() == before


# --- interval hours -----------------------------------------------------------------------------------------


def test_the_daemon_runs_on_the_schedule_interval_hours_sets_and_logs_a_stage_switched_off(populated: Repo) -> None:
    env = {**os.environ, **FAST, "MEMACTORS_INTERVAL_HOURS": str(2 / 3600),  # every 2 s
           "MEMACTORS_FORGETTING_ENABLED": "off"}
    daemon = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(populated.path)],
                              stderr=subprocess.PIPE, text=True, env=env)
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(iter(daemon.stderr.readline, "")), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("(schedule)" in line for line in said):
            time.sleep(0.2)
    finally:
        daemon.send_signal(signal.SIGINT)
        daemon.wait(timeout=60)
        reader.join(timeout=10)
    assert any("(schedule)" in line for line in said), "".join(said)
    assert any("forgetting off (MEMACTORS_FORGETTING_ENABLED=off)" in line for line in said), "".join(said)


def test_decay_and_show_say_no_run_moves_a_memory_while_forgetting_is_off(populated: Repo) -> None:
    consolidate(populated, **FAST)
    stricter = {**FAST, "MEMACTORS_HOT_THRESHOLD": "0.97", "MEMACTORS_WARM_THRESHOLD": "0.96",
                "MEMACTORS_ARCHIVE_THRESHOLD": "0.95"}  # every memory's retention now says it should move
    off = {**stricter, "MEMACTORS_FORGETTING_ENABLED": "false"}
    tiers = json.loads(run_cli("tiers", "--json", "--repo", str(populated.path), env=FAST).stdout)
    hot = tiers["tiers"]["hot"][0]["id"]
    shown = json.loads(run_cli("show", hot, "--json", "--repo", str(populated.path), env=stricter).stdout)
    assert shown["next_tier"] == "archived"
    shown_off = run_cli("show", hot, "--json", "--repo", str(populated.path), env=off)
    assert shown_off.returncode == 0 and json.loads(shown_off.stdout)["next_tier"] is None
    preview = run_cli("decay", "--repo", str(populated.path), env=off)
    assert preview.returncode == 0, preview.stderr
    assert preview.stdout.startswith("forgetting is off (MEMACTORS_FORGETTING_ENABLED=false): runs move none of "
                                     "these until it is on")
    document = json.loads(run_cli("decay", "--json", "--repo", str(populated.path), env=off).stdout)
    assert document["forgetting_off"] == "MEMACTORS_FORGETTING_ENABLED=false"
