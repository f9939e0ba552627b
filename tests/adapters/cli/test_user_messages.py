"""What a new user reads: version, help, counts that add up, where skipped entries sit, what a copy is, what
a resolution does next, a demo that explains itself, and an install that says what to do next."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from tests.conftest import NOW, Repo, entry, git, run_cli


def test_version_is_printed() -> None:
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.startswith("memactors ") and result.stdout.split()[1][0].isdigit()


def test_capture_help_says_what_a_namespace_is() -> None:
    result = run_cli("capture", "--help")
    assert "decisions, learnings, blockers, progress" in " ".join(result.stdout.split())


def test_a_negative_tier_limit_is_a_usage_error_and_zero_lists_counts_only(populated: Repo) -> None:
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    bad = run_cli("tiers", "--limit", "-1", "--repo", str(populated.path))
    assert bad.returncode == 2 and "--limit must be 0 or more" in bad.stderr
    counts = run_cli("tiers", "--limit", "0", "--repo", str(populated.path))
    assert counts.returncode == 0
    assert all(line.split()[0].isupper() or line.startswith("  …") for line in counts.stdout.splitlines())


def test_status_after_a_run_that_found_nothing_says_there_is_nothing_yet(repo: Repo) -> None:
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    status = run_cli("status", "--repo", str(repo.path))
    assert "nothing to consolidate yet" in status.stdout and "no run yet" not in status.stdout


def test_status_verbose_names_the_note_that_holds_each_skipped_entry(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    sha = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    git(repo.path, "notes", "--ref=refs/notes/mem/decisions", "append", "-m",
        "---\ntype: decisions\nsummary: no timestamp here\n---\n\nbody", "HEAD")
    plain = run_cli("status", "--repo", str(repo.path))
    assert "missing_timestamp 1" in plain.stdout and "`memactors status --verbose` lists them" in plain.stdout
    verbose = run_cli("status", "--verbose", "--repo", str(repo.path))
    assert re.search(rf"1 missing_timestamp +refs/notes/mem/decisions on {sha[:12]}", verbose.stdout), verbose.stdout
    doc = json.loads(run_cli("status", "--json", "--repo", str(repo.path)).stdout)
    assert doc["skipped_notes"] == [{"ref": "refs/notes/mem/decisions", "commit": sha,
                                     "reason": "missing_timestamp", "entries": 1}]


def test_show_calls_a_copy_a_copy_and_says_what_a_memory_replaces(tmp_path: Path, git_env) -> None:
    demo = tmp_path / "demo"
    assert run_cli("demo", str(demo), "--memories", "150").returncode == 0
    tiers = json.loads(run_cli("tiers", "--json", "--repo", str(demo)).stdout)
    ids = [m["id"] for items in tiers["tiers"].values() for m in items]
    # one `show` process a memory, read lazily: the search stops at the first copy and the first replacement
    shown = (json.loads(run_cli("show", "--json", "--repo", str(demo), i).stdout) for i in ids)
    seen: list[dict] = []

    def first(wanted: str) -> dict:
        found = next((s for s in seen if s[wanted]), None)
        while found is None:
            seen.append(s := next(shown))
            found = s if s[wanted] else None
        return found

    copy = first("copy_of")
    text = run_cli("show", "--repo", str(demo), copy["id"]).stdout
    assert "copy of" in text and "superseded by" not in text
    replacing = first("replaces")
    text = run_cli("show", "--repo", str(demo), replacing["id"]).stdout
    assert "  replaces   " in text
    replaced = json.loads(run_cli("show", "--json", "--repo", str(demo), replacing["replaces"][0]).stdout)
    assert replaced["meta"]["superseded_by"] == replacing["key"]


def test_after_resolve_show_says_the_next_run_applies_it(repo: Repo) -> None:
    repo.capture("decisions", "Use Redis for session caching", "Fast and simple.", when=NOW - timedelta(days=3))
    repo.capture("decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                 when=NOW - timedelta(days=1))
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    [conflict] = json.loads(run_cli("conflicts", "--json", "--repo", str(repo.path)).stdout)
    waiting = run_cli("show", "--repo", str(repo.path), conflict["target_id"]).stdout
    assert "waiting for you" in waiting
    resolved = run_cli("resolve", conflict["conflict_id"][:8], "--keep", conflict["source_id"], "--repo", str(repo.path))
    assert "the next `memactors consolidate` applies it" in resolved.stdout
    loser = run_cli("show", "--repo", str(repo.path), conflict["target_id"]).stdout
    assert "resolved, you kept the other" in loser
    before = json.loads(run_cli("show", "--json", "--repo", str(repo.path), conflict["target_id"]).stdout)
    if before["next_tier"]:
        assert "next run   moves it to" in loser
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    after = json.loads(run_cli("show", "--json", "--repo", str(repo.path), conflict["target_id"]).stdout)
    assert after["next_tier"] is None and after["tier"] == (before["next_tier"] or before["tier"])


def test_the_demo_explains_its_counts_leaves_a_clean_work_tree_and_a_conflict_to_try(tmp_path: Path,
                                                                                     git_env) -> None:
    demo = tmp_path / "demo"
    result = run_cli("demo", str(demo))
    assert result.returncode == 0, result.stderr
    assert "repeats (the same fact captured again later)" in result.stdout and "how to read it" in result.stdout
    assert git(demo, "status", "--porcelain").stdout == ""
    assert len(json.loads(run_cli("conflicts", "--json", "--repo", str(demo)).stdout)) >= 1
    built = json.loads(run_cli("demo", str(tmp_path / "again"), "--json").stdout)
    report = built["report"]
    # the counts explain each other: copies collapsed are about the repeats; superseded covers them
    assert abs(report["duplicates_collapsed"] - built["built"]["repeats"]) <= 0.1 * built["built"]["repeats"]
    assert report["supersessions_detected"] >= report["duplicates_collapsed"]


def test_hooks_install_warns_when_memactors_resolves_only_through_an_activated_venv(repo: Repo,
                                                                                   tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    tool = venv / "bin" / "memactors"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    env = {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    result = run_cli("hooks", "install", "--claude", "--repo", str(repo.path), env=env)
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stdout.split())
    assert f"found only through the activated virtual environment {venv}" in said
    # memactors is on no package index: the advice names the checkout it was installed from, and ensurepath
    checkout = Path(__file__).resolve().parents[3]
    assert f"pipx install {checkout}" in said and "pipx ensurepath" in said and "--local" in said
    assert "pipx install memactors" not in said
    assert "next: the hooks only queue events" in said and "memactors run --repo" in said
    elsewhere = run_cli("hooks", "install", "--git", "--repo", str(repo.path),
                        env={"PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "VIRTUAL_ENV": ""})
    assert "virtual environment" not in elsewhere.stdout and "next: the hooks only queue events" in elsewhere.stdout


def test_embedding_progress_shows_on_a_terminal_and_never_in_a_pipe_or_json(repo: Repo) -> None:
    entries = [entry("learnings", f"Learning {i}: the cache key for service {i} must include version {i % 7}",
                     f"Found while fixing bug {i}; service {i} talks to store {i * 13 % 97}.",
                     when=NOW - timedelta(minutes=i)) for i in range(3000)]  # the counter speaks every 2 s
    notes = repo.path / "notes.txt"
    notes.write_text("\n\n".join(entries))
    git(repo.path, "notes", "--ref=refs/notes/mem/learnings", "add", "-F", str(notes), "HEAD")
    command = [sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--dry-run", "--repo", str(repo.path)]
    piped = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert piped.returncode == 0 and "embedding" not in piped.stderr
    leader, follower = pty.openpty()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=follower, text=True)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=600)
    os.close(leader)
    assert proc.returncode == 0
    assert b"embedding " in seen and b"memories (" in seen and b"s left" in seen, seen[-2000:]
