"""Merged beyond ancestry: real repositories where a branch is rebased (cherry-picked), squash-merged, left
unmerged or deleted unmerged, and what readers and the tierer make of each."""

from __future__ import annotations

import json
from datetime import timedelta

import pygit2

from memactors.adapters.git.branches import UNMERGED_PENALTY, BranchMap
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.adapters.reading.surfacing_index import Surfaceable, for_file, for_text, open_index, write_surfacing_index
from memactors.events.memory import Memory
from tests.conftest import NOW, Repo, git, run_cli

FAST = {"MEMACTORS_EMBEDDINGS": "none"}

BASE = ["from __future__ import annotations", "", "import json", "", "def load(path):",
        "    with open(path) as handle:", "        return json.load(handle)", ""]


def _write(repo: Repo, path: str, lines: list[str], message: str) -> str:
    """Commit `path` holding `lines`; its sha."""
    target = repo.path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n")
    git(repo.path, "add", path)
    git(repo.path, "commit", "-q", "-m", message)
    return git(repo.path, "rev-parse", "HEAD").stdout.strip()


def _lines(word: str, count: int = 6) -> list[str]:
    return [f"def {word}_{n}(value):\n    return value * {n} + len({word!r})" for n in range(count)]


def _base(repo: Repo) -> None:
    _write(repo, "src/app.py", BASE, "base")


def _placement(repo: Repo, sha: str):
    return BranchMap(pygit2.Repository(str(repo.path))).placement(sha)


def test_a_rebased_commit_is_merged_by_its_patch_id(repo: Repo) -> None:
    _base(repo)
    git(repo.path, "checkout", "-q", "-b", "feature/r")
    picked = _write(repo, "src/app.py", BASE + _lines("retry"), "retries")
    git(repo.path, "checkout", "-q", "main")
    _write(repo, "README.md", ["The app."], "readme")
    git(repo.path, "cherry-pick", picked)  # a rebase copies the same way: a new commit, the same patch
    placement = _placement(repo, picked)
    assert not placement.on_head and placement.merged == "rebase" and not placement.unmerged
    assert placement.label() == "" and placement.penalty == 1.0 and placement.state == "merged into HEAD by rebase"


def test_a_squash_merged_branchs_commits_are_merged_by_content_and_not_abandoned(repo: Repo) -> None:
    _base(repo)
    git(repo.path, "checkout", "-q", "-b", "feature/cache")
    first = _write(repo, "src/cache.py", _lines("cache"), "cache: first cut")
    repo.capture("decisions", "Cache parsed notes by blob id", "Blobs never change.")
    _write(repo, "src/cache.py", _lines("cache") + _lines("evict", 2), "cache: eviction")
    git(repo.path, "checkout", "-q", "main")
    _write(repo, "README.md", ["The app."], "readme")
    git(repo.path, "merge", "-q", "--squash", "feature/cache")
    git(repo.path, "commit", "-q", "-m", "Cache parsed notes (#12)")
    git(repo.path, "branch", "-q", "-D", "feature/cache")  # what GitHub's "delete branch" leaves
    placement = _placement(repo, first)
    assert placement.merged == "squash" and not placement.orphaned and placement.label() == ""
    store = MemoryStore(GitStore(repo.path))
    assert store.abandoned(store.scan(None).memories) == set()


def test_an_unmerged_branch_is_not_merged_though_some_of_its_lines_are_in_head(repo: Repo) -> None:
    _base(repo)
    shared = ["import hashlib", "import logging", "LOG = logging.getLogger(__name__)"]
    git(repo.path, "checkout", "-q", "-b", "feature/x")
    # three of the nine lines it adds, HEAD added too (the same imports); the rest is HEAD's nowhere
    unmerged = _write(repo, "src/app.py", shared + BASE + _lines("bloom", 3), "bloom filter")
    git(repo.path, "checkout", "-q", "main")
    _write(repo, "src/app.py", shared + BASE + _lines("trie", 3), "a trie instead")
    placement = _placement(repo, unmerged)
    assert placement.unmerged and placement.merged == "no" and placement.branches == ("feature/x",)
    assert placement.label() == "from feature/x, not merged" and placement.penalty == UNMERGED_PENALTY


def test_a_commit_missing_from_the_clone_is_unknown_and_never_demoted(repo: Repo) -> None:
    _base(repo)
    placement = _placement(repo, "0123456789abcdef0123456789abcdef01234567")
    assert not placement.known and not placement.unmerged and not placement.orphaned
    assert placement.label() == "" and placement.penalty == 1.0
    gone = Memory(key="k" * 32, namespace="decisions", commit="0123456789abcdef0123456789abcdef01234567", index=0,
                  upstream_index=0, timestamp=NOW, summary="On a commit this clone lacks")
    assert MemoryStore(GitStore(repo.path)).abandoned([gone]) == set()


def _head_and_branch(repo: Repo, title_head: str, title_branch: str, *, delete: bool = False) -> None:
    """One memory on HEAD's line and an equally good one on an unmerged branch captured a day later (so, left
    alone, it ranks first); the branch deleted when `delete`."""
    _base(repo)
    _write(repo, "src/head.py", _lines("head"), "head work")
    repo.capture("decisions", title_head, "Measured on the real store.", when=NOW - timedelta(days=1))
    git(repo.path, "checkout", "-q", "-b", "feature/x")
    _write(repo, "src/branch.py", _lines("branch"), "branch work")
    repo.capture("decisions", title_branch, "Measured on the real store.")
    git(repo.path, "checkout", "-q", "main")
    if delete:
        git(repo.path, "branch", "-q", "-D", "feature/x")


def test_recall_ranks_an_unmerged_branchs_memory_below_an_equally_scored_one_on_head(repo: Repo) -> None:
    _head_and_branch(repo, "Parse notes with a streaming reader", "Parse notes with a buffered reader")
    assert run_cli("consolidate", "--repo", str(repo.path), env=FAST).returncode == 0
    found = json.loads(run_cli("recall", "parse notes reader", "--json", "--repo", str(repo.path), env=FAST).stdout)
    titles = [r["title"] for r in found]
    assert titles.index("Parse notes with a streaming reader") < titles.index("Parse notes with a buffered reader")
    branch = next(r for r in found if r["title"] == "Parse notes with a buffered reader")
    assert branch["branch"] == "from feature/x, not merged"


def test_the_session_block_puts_an_unmerged_branchs_memory_below_an_equally_scored_one(repo: Repo) -> None:
    _head_and_branch(repo, "Parse notes with a streaming reader", "Parse notes with a buffered reader")
    assert run_cli("consolidate", "--repo", str(repo.path), env=FAST).returncode == 0
    hook = json.dumps({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": str(repo.path),
                       "hook_event_name": "SessionStart", "source": "startup"})
    block = json.loads(run_cli("context", input=hook, cwd=repo.path).stdout)["hookSpecificOutput"][
        "additionalContext"].splitlines()
    head = next(i for i, line in enumerate(block) if "streaming reader" in line)
    branch = next(i for i, line in enumerate(block) if "buffered reader" in line)
    assert head < branch and "from feature/x, not merged" in block[branch]
    context = json.loads((repo.path / ".git" / "memactors" / "context.json").read_text())
    penalties = {c["title"]: c.get("penalty") for c in context["candidates"]}
    assert penalties == {"Parse notes with a streaming reader": None,
                         "Parse notes with a buffered reader": UNMERGED_PENALTY}


def test_surfacing_ranks_an_unmerged_memory_lower_and_names_its_branch(tmp_path) -> None:
    path = tmp_path / "surfacing.sqlite"
    memories = [Surfaceable("decisions:aaaaaaa:0", "decisions", "2026-01-02", "Parse notes with a buffered reader",
                            "Parse notes with a buffered reader", branch="from feature/x, not merged",
                            factor=UNMERGED_PENALTY),
                Surfaceable("decisions:bbbbbbb:0", "decisions", "2026-01-01", "Parse notes with a streaming reader",
                            "Parse notes with a streaming reader")]
    write_surfacing_index(path, memories, {"src/notes.py": [(0, 0.5), (1, 0.5)]}, "run")
    db = open_index(path)
    assert db is not None
    by_file = for_file(db, "src/notes.py", 0.35, 5)
    assert [s.id for s in by_file] == ["decisions:bbbbbbb:0", "decisions:aaaaaaa:0"]
    assert by_file[1].strength == 0.5 * UNMERGED_PENALTY and by_file[1].branch == "from feature/x, not merged"
    by_words = for_text(db, "parse notes reader", 0.3, None, 5)
    assert [s.id for s in by_words] == ["decisions:bbbbbbb:0", "decisions:aaaaaaa:0"]


def test_the_surface_hook_names_the_branch_of_an_unmerged_memory(repo: Repo) -> None:
    _head_and_branch(repo, "Parse notes with a streaming reader", "Parse notes with a buffered reader")
    assert run_cli("consolidate", "--repo", str(repo.path), env=FAST).returncode == 0
    prompt = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "UserPromptSubmit",
              "prompt": "parse notes with a buffered reader"}
    result = run_cli("surface", input=json.dumps(prompt), cwd=repo.path)
    shown = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    line = next(line for line in shown.splitlines() if "buffered reader" in line)
    assert "from feature/x, not merged" in line


def test_a_memory_whose_branch_was_deleted_unmerged_decays_faster(repo: Repo) -> None:
    _head_and_branch(repo, "Parse notes with a streaming reader", "Parse notes with a buffered reader", delete=True)
    repo.capture("progress", "A newer capture moves the store clock", "Later.", when=NOW + timedelta(days=30))
    assert run_cli("consolidate", "--repo", str(repo.path), env=FAST).returncode == 0
    store = MemoryStore(GitStore(repo.path))
    memories = store.scan(None).memories
    abandoned = store.abandoned(memories)
    by_title = {m.summary: m for m in memories}
    assert abandoned == {by_title["Parse notes with a buffered reader"].key}
    meta = store.load_state().meta
    shown = {title: json.loads(run_cli("show", by_title[title].key, "--json", "--repo", str(repo.path),
                                       env=FAST).stdout) for title in by_title}
    head, gone = shown["Parse notes with a streaming reader"], shown["Parse notes with a buffered reader"]
    # captured a day later, it would keep more recency; at half the half-life it keeps less
    assert gone["retention"]["recency"] < head["retention"]["recency"]
    assert gone["retention"]["score"] < head["retention"]["score"]
    assert gone["next_tier"] is None  # `show` ages it as the run's tierer did
    assert meta[by_title["Parse notes with a buffered reader"].key].tier.value == gone["tier"]
    assert gone["branch"]["label"] == "from a deleted branch, not merged"
