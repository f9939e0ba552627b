"""`memactors surface` as Claude Code runs it: a fresh process, the hook's JSON on stdin, real repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import NOW, Repo, git, run_cli
from tests.surfacing_store import build_surfacing_store, evaluate, scores

FAST = {"MEMACTORS_EMBEDDINGS": "none"}  # the file and word signals need no embeddings


def change(repo: Repo, files: list[str], message: str = "work") -> str:
    """A commit that changes `files` (created as needed); its sha."""
    for name in files:
        path = repo.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as handle:
            handle.write(f"{message}\n")
    git(repo.path, "add", "-A")
    git(repo.path, "commit", "-q", "-m", message)
    return git(repo.path, "rev-parse", "HEAD").stdout.strip()


def consolidate(repo: Repo, env: dict[str, str] | None = None) -> None:
    result = run_cli("consolidate", "--repo", str(repo.path), env={**FAST, **(env or {})})
    assert result.returncode == 0, result.stdout + result.stderr


def read(repo: Repo, name: str, session: str = "s1", tool_use: str = "toolu_1", **extra) -> dict | None:
    hook = {"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(repo.path),
            "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {"file_path": str(repo.path / name)},
            "tool_response": {}, "tool_use_id": tool_use, **extra}
    return surface(repo, hook)


def surface(repo: Repo, hook: dict | str, env: dict[str, str] | None = None) -> dict | None:
    result = run_cli("surface", input=hook if isinstance(hook, str) else json.dumps(hook), cwd=repo.path, env=env)
    assert result.returncode == 0 and result.stderr == ""
    return json.loads(result.stdout) if result.stdout.strip() else None


def shown(answer: dict | None) -> str:
    return answer["hookSpecificOutput"]["additionalContext"] if answer else ""


def test_a_memory_alone_on_a_commit_that_touched_the_file_is_surfaced_for_it(repo: Repo) -> None:
    change(repo, ["src/billing/webhooks.py", "tests/test_webhooks.py"], "idempotent webhooks")
    repo.capture("decisions", "Use the Stripe event id as idempotency key", "Stripe retries deliveries.")
    change(repo, ["docs/index.md"], "docs")
    consolidate(repo)
    answer = read(repo, "src/billing/webhooks.py")
    assert answer["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "Use the Stripe event id as idempotency key" in shown(answer) and "decisions" in shown(answer)
    assert read(repo, "docs/index.md", session="s2") is None  # nothing is about that file


def test_one_of_many_memories_on_a_commit_is_not_surfaced_for_every_file_it_touched(repo: Repo) -> None:
    change(repo, ["src/api/routes.py", "src/api/errors.py", "README.md"], "api work")
    for topic in range(60):  # a long session on one HEAD: the plugin hangs everything there
        repo.capture("learnings", f"Learned how service {topic} handles its retries and timeouts",
                     f"Service {topic} retries three times with backoff.")
    consolidate(repo)
    assert read(repo, "src/api/routes.py") is None
    assert read(repo, "README.md", session="s2") is None


def test_a_path_the_memory_names_is_surfaced_even_from_a_crowded_commit(repo: Repo) -> None:
    change(repo, ["src/jobs/retry.py", "src/jobs/queue.py"], "jobs")
    for topic in range(30):
        repo.capture("progress", f"Looked at module {topic} of the reporting pipeline", "Nothing found there.")
    repo.capture("learnings", "Job retries need jitter", "Fixed-interval retries in src/jobs/retry.py hammered the "
                 "API after an outage.")
    consolidate(repo)
    assert "Job retries need jitter" in shown(read(repo, "src/jobs/retry.py"))
    assert read(repo, "src/jobs/queue.py", session="s2") is None


def test_a_fragment_is_never_surfaced(repo: Repo) -> None:
    change(repo, ["src/search/index.py"], "search")
    repo.capture("progress", "...so I looked at the index and then the", "...the output shows that the ───")
    consolidate(repo)
    assert read(repo, "src/search/index.py") is None


def test_a_replaced_decision_is_never_surfaced(repo: Repo) -> None:
    change(repo, ["src/auth/session.py"], "jwt sessions")
    repo.capture("decisions", "Use JWT for sessions", "Stateless sessions.", when=NOW - timedelta(days=30))
    change(repo, ["src/auth/session.py"], "opaque sessions")
    repo.capture("decisions", "Switch sessions from JWT to opaque tokens", "Replaces the JWT decision: revocation.")
    result = run_cli("consolidate", "--repo", str(repo.path))  # the judge needs embeddings
    assert result.returncode == 0, result.stderr
    text = shown(read(repo, "src/auth/session.py"))
    assert "opaque tokens" in text and "Use JWT for sessions" not in text


def test_the_same_memory_is_not_repeated_in_a_session_nor_the_same_event_answered_twice(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    assert shown(read(repo, "src/db/pool.py", tool_use="toolu_1"))
    assert read(repo, "src/db/pool.py", tool_use="toolu_1") is None  # the plugin and settings hook, same event
    assert read(repo, "src/db/pool.py", tool_use="toolu_2") is None  # already shown this session
    assert shown(read(repo, "src/db/pool.py", session="another", tool_use="toolu_3"))


def test_parallel_tool_calls_show_a_memory_once(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    hooks = [json.dumps({"session_id": "par", "cwd": str(repo.path), "hook_event_name": "PostToolUse",
                         "tool_name": "Read", "tool_input": {"file_path": str(repo.path / "src/db/pool.py")},
                         "tool_use_id": f"toolu_{i}"}) for i in range(8)]
    running = [subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "surface"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, cwd=repo.path) for _ in hooks]
    outputs = [process.communicate(hook, timeout=60)[0] for process, hook in zip(running, hooks)]
    assert sum("Pool exhaustion" in out for out in outputs) == 1


def test_what_session_start_showed_is_not_surfaced_and_compaction_starts_afresh(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    start = {"session_id": "s9", "cwd": str(repo.path), "hook_event_name": "SessionStart", "source": "startup"}
    block = run_cli("context", input=json.dumps(start), cwd=repo.path)
    assert "Pool exhaustion" in block.stdout
    assert read(repo, "src/db/pool.py", session="s9") is None
    compacted = run_cli("context", input=json.dumps({**start, "source": "compact"}), cwd=repo.path)
    assert "Pool exhaustion" in compacted.stdout
    # after compaction the model saw the block again, not the earlier surfacing: the list restarts with it
    assert read(repo, "src/db/pool.py", session="s9", tool_use="toolu_9") is None


def test_a_failed_command_gets_the_blocker_its_error_matches_and_other_errors_silence(repo: Repo) -> None:
    change(repo, ["ci/pipeline.yml"], "ci")
    repo.capture("blockers", "CI image lacked libgit2: pygit2 failed to import",
                 "ImportError: libgit2.so.1.7: cannot open shared object file. Installed libgit2-dev.")
    repo.capture("decisions", "CI caches the pip download directory", "Cut CI from 9 to 4 minutes.")
    consolidate(repo)
    failure = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "PostToolUseFailure",
               "tool_name": "Bash", "tool_input": {"command": "pytest"}, "tool_use_id": "toolu_1",
               "error": "Exit code 1\nImportError: libgit2.so.1.7: cannot open shared object file", "is_interrupt": False}
    answer = surface(repo, failure)
    assert answer["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    assert "libgit2" in shown(answer) and "pip download" not in shown(answer)
    other = {**failure, "session_id": "s2", "error": "Exit code 1\nnpm ERR! code ERESOLVE unable to resolve tree"}
    assert surface(repo, other) is None


def test_a_prompt_gets_memories_only_above_the_bar(repo: Repo) -> None:
    change(repo, ["src/billing/webhooks.py"], "webhooks")
    repo.capture("decisions", "Use the Stripe event id as idempotency key for webhooks",
                 "Stripe retries deliveries; duplicates were charged twice.")
    repo.capture("learnings", "Invoice listing needed an index on customer_id", "2 s to 40 ms.")
    consolidate(repo)
    prompt = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "UserPromptSubmit",
              "prompt": "Why don't webhook retries charge customers twice?"}
    answer = surface(repo, prompt)
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "idempotency key" in shown(answer) and "Invoice" not in shown(answer)
    assert surface(repo, {**prompt, "session_id": "s2", "prompt": "Please fix the typo in the README"}) is None


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"hook_event_name": "PostToolUse"}',
                                   '{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": 3}'])
def test_bad_or_empty_stdin_is_silence_and_exit_0(repo: Repo, stdin: str) -> None:
    consolidate(repo)
    result = run_cli("surface", input=stdin, cwd=repo.path)
    assert (result.returncode, result.stdout) == (0, "")
    assert "Traceback" not in result.stderr


def test_no_read_model_yet_and_a_file_outside_the_repository_are_silence(repo: Repo, tmp_path: Path) -> None:
    assert read(repo, "src/anything.py") is None  # never consolidated
    consolidate(repo)
    outside = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "PostToolUse", "tool_name": "Read",
               "tool_input": {"file_path": str(tmp_path / "elsewhere.py")}, "tool_use_id": "t"}
    assert surface(repo, outside) is None


def test_surfacing_off_is_silence(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    hook = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(repo.path / "src/db/pool.py")}, "tool_use_id": "t1"}
    assert surface(repo, hook, env={"MEMACTORS_SURFACING": "off"}) is None
    assert surface(repo, hook) is not None


def test_a_worktree_path_is_normalised_to_the_repository(repo: Repo, tmp_path: Path) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    worktree = tmp_path / "feature"
    git(repo.path, "worktree", "add", "-q", str(worktree))
    hook = {"session_id": "s1", "cwd": str(worktree / "src"), "hook_event_name": "PostToolUse",
            "tool_name": "MultiEdit", "tool_input": {"file_path": str(worktree / "src" / "db" / "pool.py")},
            "tool_use_id": "t1"}
    assert "Pool exhaustion" in shown(surface(repo, hook))


def test_surfacing_is_not_a_use(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    assert read(repo, "src/db/pool.py")
    memactors = repo.path / ".git" / "memactors"
    assert not (memactors / "activations.jsonl").exists() and not list(memactors.glob("activation*"))
    assert json.loads((memactors / "surfaced" / "s1.jsonl").read_text().splitlines()[0])["ids"]
    end = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "SessionEnd", "reason": "exit"}
    run_cli("publish", "session-end", input=json.dumps(end), cwd=repo.path)
    assert not (memactors / "surfaced" / "s1.jsonl").exists()
    assert "s1" in (memactors / "surfaced.log").read_text()  # one append for the whole session


def test_the_surface_path_imports_only_the_standard_library(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    hook = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "PostToolUse", "tool_name": "Read",
            "tool_input": {"file_path": str(repo.path / "src/db/pool.py")}, "tool_use_id": "t1"}
    code = ("import io, sys; sys.stdin = io.StringIO(sys.argv[1]); from memactors.adapters.cli import main; "
            "main(['surface']); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'trio', 'pydantic', 'pygit2', 'numpy', 'openai', "
            "'yaml', 'onnxruntime', 'tenacity', 'argparse'}))")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(hook)], capture_output=True, text=True, check=True)
    assert "Pool exhaustion" in out.stdout and out.stdout.strip().splitlines()[-1] == "[]"


def test_on_the_labelled_store_most_of_what_is_surfaced_is_relevant(tmp_path: Path, git_env) -> None:
    from memactors.adapters.claude.inbox import find_common_dir
    from memactors.adapters.claude.surface_hook import respond

    store = build_surfacing_store(tmp_path / "project")
    result = run_cli("consolidate", "--repo", str(store.path))
    assert result.returncode == 0, result.stderr
    common = find_common_dir(store.path)
    outcome = scores(evaluate(store, lambda hook: respond(hook, store.path, common, {})))
    assert outcome["precision"] >= 0.8 and outcome["silent_when_nothing_relevant"] >= 0.7


def explain(repo: Repo, hook: dict) -> dict:
    result = run_cli("surface", "--explain", "--json", input=json.dumps(hook), cwd=repo.path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_explain_agrees_with_what_surface_prints_and_shows_what_stayed_below_the_bar(repo: Repo) -> None:
    change(repo, ["src/billing/webhooks.py"], "webhooks")
    repo.capture("decisions", "Use the Stripe event id as idempotency key for webhooks",
                 "Stripe retries deliveries; duplicates were charged twice.")
    repo.capture("learnings", "Invoice listing needed an index on customer_id", "2 s to 40 ms.")
    repo.capture("learnings", "Webhook payloads are signed and checked before parsing", "Reject unsigned ones.")
    consolidate(repo)
    prompt = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "UserPromptSubmit",
              "prompt": "Why don't webhook retries charge customers twice?"}
    before = explain(repo, prompt)
    assert before["signal"] == "prompt words" and before["bar"] == 0.5
    would = [row for row in before["candidates"] if row["would_show"]]
    below = [row for row in before["candidates"] if not row["above_bar"]]
    assert would and below  # the signed-payload learning shares words, not enough of them
    assert all(row["weight"] >= before["bar"] for row in would) and all(r["weight"] < before["bar"] for r in below)
    printed = shown(surface(repo, prompt))
    assert printed == before["would_print"]
    assert all(row["id"] in printed for row in would) and not any(row["id"] in printed for row in below)
    after = explain(repo, prompt)  # explain records nothing; surface did
    assert after["already_answered"] and after["would_print"] == ""
    assert all(row["seen_this_session"] for row in after["candidates"] if row["id"] in printed)
    read_hook = {"session_id": "s2", "cwd": str(repo.path), "hook_event_name": "PostToolUse", "tool_name": "Read",
                 "tool_input": {"file_path": str(repo.path / "src/billing/webhooks.py")}, "tool_use_id": "t9"}
    file_explained = explain(repo, read_hook)
    assert file_explained["signal"] == "file src/billing/webhooks.py"
    assert shown(surface(repo, read_hook)) == file_explained["would_print"]


def test_explain_without_a_hook_says_what_to_give(repo: Repo) -> None:
    result = run_cli("surface", "--explain", input="", cwd=repo.path)
    assert result.returncode == 2 and "hook's JSON on stdin" in result.stderr
    other = run_cli("surface", "--explain", cwd=repo.path,
                    input=json.dumps({"hook_event_name": "Stop", "cwd": str(repo.path)}))
    assert other.returncode == 0 and "this event gets nothing" in other.stdout


def test_memories_captured_since_the_last_run_are_surfaced_marked_new(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    change(repo, ["src/billing/webhooks.py", "tests/test_webhooks.py"], "idempotent webhooks")
    repo.capture("decisions", "Use the Stripe event id as idempotency key for webhooks",
                 "Stripe retries deliveries; duplicates were charged twice.")
    answer = read(repo, "src/billing/webhooks.py")
    assert "idempotency key" in shown(answer) and "new since the last run" in shown(answer)
    prompt = {"session_id": "s2", "cwd": str(repo.path), "hook_event_name": "UserPromptSubmit",
              "prompt": "Why don't webhook retries charge customers twice?"}
    assert "idempotency key" in shown(surface(repo, prompt))
    # a later capture moves the refs again: the kept reading is not reused
    repo.capture("blockers", "Webhook signature check fails with libgit2 missing on CI",
                 "The runner image lacks libgit2; pip download fails.")
    failure = {"session_id": "s3", "cwd": str(repo.path), "hook_event_name": "PostToolUseFailure",
               "tool_name": "Bash", "tool_input": {"command": "pytest"}, "tool_use_id": "t9",
               "error": "Exit code 1\nlibgit2 missing: signature check fails"}
    assert "libgit2" in shown(surface(repo, failure))
    # once a run has read them they are the index's own, no longer new
    consolidate(repo)
    assert "new since the last run" not in shown(read(repo, "src/billing/webhooks.py", session="s4"))


def test_of_the_memories_captured_since_the_last_run_a_copy_or_a_fragment_is_not_surfaced(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    change(repo, ["src/db/pool.py"], "pool again")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    repo.capture("progress", "ok", "")
    repo.capture("learnings", "Job sessions must be closed in a finally block", "Leaks exhaust the pool.")
    hook = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "PostToolUse", "tool_name": "Read",
            "tool_input": {"file_path": str(repo.path / "src/db/pool.py")}, "tool_use_id": "t1"}
    result = explain(repo, hook)
    assert [c["title"] for c in result["candidates"] if c["new_since_last_run"]] == [
        "Job sessions must be closed in a finally block"]
    assert "Pool exhaustion" in result["would_print"]


def test_nothing_captured_since_the_last_run_reads_no_note(repo: Repo) -> None:
    change(repo, ["src/db/pool.py"], "pool")
    repo.capture("learnings", "Pool exhaustion came from leaked job sessions", "Close every job session.")
    consolidate(repo)
    assert "Pool exhaustion" in shown(read(repo, "src/db/pool.py"))
    assert not (repo.path / ".git" / "memactors" / "surfacing-fresh.json").exists()
    repo.capture("learnings", "Job sessions must be closed in a finally block", "Leaks exhaust the pool.")
    read(repo, "src/db/pool.py", session="s2")
    assert (repo.path / ".git" / "memactors" / "surfacing-fresh.json").exists()


def commit_starting_with(repo: Repo, nibble: str) -> str:
    """An empty commit whose id starts with `nibble` (git files a note under its commit's first hex digits)."""
    assert len(nibble) <= 2  # about 16**len tries
    tries = 0
    while True:
        tries += 1
        git(repo.path, "commit", "-q", "--allow-empty", "-m", f"{nibble} {tries}")
        sha = git(repo.path, "rev-parse", "HEAD").stdout.strip()
        if sha.startswith(nibble):
            return sha


def test_captures_that_make_git_fan_the_notes_out_are_still_read_as_new(repo: Repo) -> None:
    # git moves every note of a ref into fan-out directories in one commit once each first hex digit holds two
    # notes: that commit deletes and adds every note, and the notes that really changed must still be found
    # every first digit twice but "e" once: the next note on an "e" commit fans the ref out
    for n, nibble in enumerate("0123456789abcdf" * 2 + "e"):
        sha = commit_starting_with(repo, nibble)
        repo.capture("decisions", f"Decision number {n} about module m{n}", f"Keep module m{n} small.", commit=sha)
    assert "tree" not in git(repo.path, "ls-tree", "refs/notes/mem/decisions").stdout
    consolidate(repo)
    # a note filed last in the fan-out commit's listing (after the 32 others), then the fan-out
    repo.capture("decisions", "Serve webhooks through the Stripe event queue", "Retries arrive out of order.",
                 commit=commit_starting_with(repo, "ff"))
    repo.capture("decisions", "Decision about module last", "Keep module last small.",
                 commit=commit_starting_with(repo, "e"))
    assert "tree" in git(repo.path, "ls-tree", "refs/notes/mem/decisions").stdout  # fanned out since the run
    prompt = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": "UserPromptSubmit",
              "prompt": "How do we serve webhooks from the Stripe event queue?"}
    assert "Stripe event queue" in shown(surface(repo, prompt))
