"""`memactors decay`: the preview says what the next run does when the clock moves and nothing is used."""

from __future__ import annotations

import json
from datetime import timedelta

import trio

from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.adapters.operations.decay import decay
from memactors.adapters.system.clock import FixedClock
from memactors.adapters.runtime.pipeline import RunOptions, Services, consolidate
from memactors.adapters.runtime.settings import Settings
from tests.conftest import NOW, Repo, run_cli


def _run(repo: Repo, at) -> dict[str, str]:
    store = MemoryStore(GitStore(repo.path))
    services = Services(store=store, settings=Settings(_env_file=None), clock=FixedClock(at))
    assert trio.run(lambda: consolidate(services, RunOptions())).phase == "completed"
    state = store.load_state()
    return {m.id: state.meta[m.key].tier.value for m in store.scan(None).memories}


def test_the_preview_is_what_the_run_does_once_the_store_clock_moved(repo: Repo) -> None:
    for days, namespace, summary in ((2, "progress", "Milestone 1 reached"), (3, "reviews", "Review of the parser"),
                                     (5, "decisions", "Use SQLite for storage"), (9, "learnings", "Cache keys need a version"),
                                     (40, "research", "Compared three queue libraries")):
        repo.capture(namespace, summary, "Details follow in the body.", when=NOW - timedelta(days=days))
    before = _run(repo, NOW)
    preview = decay(repo.path, days=45).document
    assert preview["clock"] == "store" and preview["moves"], preview
    # the project goes on for 45 days: one new capture moves the store's clock; nothing old is used
    repo.capture("progress", "Milestone 2 reached", when=NOW - timedelta(days=2) + timedelta(days=45))
    after = _run(repo, NOW + timedelta(days=45))
    moved = {row["id"]: row["becomes"] for row in preview["moves"]}
    for memory_id, tier in before.items():
        assert after[memory_id] == moved.get(memory_id, tier), (memory_id, tier, moved)
    assert all(row["recency"] < 0.5 for row in preview["moves"])


def test_a_used_memory_stays_and_the_threshold_lists_what_falls_below(repo: Repo) -> None:
    repo.capture("progress", "Milestone 1 reached", "Details.", when=NOW - timedelta(days=1))
    repo.capture("progress", "Compared three queue libraries", "Details.", when=NOW - timedelta(days=3))
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    cold = decay(repo.path, days=120, threshold=0.3).document
    assert {r["summary"] for r in cold["below_threshold"]} == {"Milestone 1 reached", "Compared three queue libraries"}
    for _ in range(3):  # the user keeps asking about one of them
        run_cli("recall", "Milestone 1 reached", "--repo", str(repo.path))
    warm = decay(repo.path, days=120, threshold=0.3).document
    listed = {r["summary"] for r in warm["moves"] + warm["below_threshold"]}
    assert "Milestone 1 reached" not in listed  # its uses keep it where it is
    assert "Compared three queue libraries" in {r["summary"] for r in warm["below_threshold"]}


def test_decay_through_the_cli(repo: Repo) -> None:
    repo.capture("progress", "Milestone 1 reached", "Details.", when=NOW - timedelta(days=1))
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    done = run_cli("decay", "--days", "200", "--json", "--repo", str(repo.path))
    assert done.returncode == 0 and json.loads(done.stdout)["moves"][0]["becomes"] in ("cold", "archived")
    text = run_cli("decay", "--days", "200", "--repo", str(repo.path)).stdout
    assert "memory moves to a colder tier" in text and "recency" in text
    for args, says in ((["--days", "-1"], "--days"), (["--threshold", "2"], "--threshold")):
        bad = run_cli("decay", *args, "--repo", str(repo.path))
        assert bad.returncode == 2 and says in bad.stderr
