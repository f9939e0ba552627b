"""A stand-in `claude` executable: Claude Code's print mode as its CLI reference and `claude --help` describe it.

`install(directory)` writes an executable named `claude` there (put the
directory first on PATH). It reads the prompt on stdin, answers through the
JSON schema given with --json-schema, and prints the result envelope that
`claude -p --output-format json` prints (its fields as Claude Code 2.1.197
printed them here, logged out). FAKE_CLAUDE_MODE picks a behaviour:
ok, text-json (no structured_output, the answer as result), invalid,
not-logged-in, exit, garbage, hang, recurse (runs `memactors publish
session-end` as a hook inside the sub-session would, for FAKE_CLAUDE_REPO),
trace (leaves a file in its working directory). FAKE_CLAUDE_LOG, when set,
gets one JSON line per call: argv, cwd, pid, the marker variables, prompt.
FAKE_CLAUDE_LATENCY adds seconds before answering; FAKE_CLAUDE_RUNDIR, when set, is where each call
marks itself running (the log's `running` counts the calls under way). Standard library only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COST_PER_CALL = 0.0012
MODEL_ID = "claude-haiku-4-5-20251001"


def install(directory: Path) -> Path:
    """Write the stand-in as `directory/claude`; return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "claude"
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                    "from tests.fake_claude import main\nmain()\n")
    path.chmod(0o755)
    return path


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else None


def _envelope(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "type": "result", "subtype": "success", "is_error": False, "duration_ms": 812, "duration_api_ms": 640,
        "num_turns": 1, "result": "", "stop_reason": "end_turn", "session_id": "00000000-0000-4000-8000-000000000000",
        "total_cost_usd": 0.0, "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0,
                                         "cache_read_input_tokens": 0, "output_tokens": 0},
        "modelUsage": {}, "permission_denials": [], "uuid": "00000000-0000-4000-8000-000000000001"}
    base.update(fields)
    return base


def main() -> None:
    from tests.cooperative_model import cooperative

    argv = sys.argv[1:]
    mode = os.environ.get("FAKE_CLAUDE_MODE", "ok")
    prompt = sys.stdin.read()
    rundir = os.environ.get("FAKE_CLAUDE_RUNDIR")
    running = Path(rundir) / f"running-{os.getpid()}" if rundir else None
    if running is not None:
        running.write_text("")
    if os.environ.get("FAKE_CLAUDE_LOG"):
        with open(os.environ["FAKE_CLAUDE_LOG"], "a") as log:
            log.write(json.dumps({"argv": argv, "cwd": os.getcwd(), "listing": sorted(os.listdir(".")),
                                  "running": len(list(running.parent.glob("running-*"))) if running else 0,
                                  "pid": os.getpid(), "MEMACTORS_HOOKS": os.environ.get("MEMACTORS_HOOKS"),
                                  "HOOK_ENABLED": os.environ.get("HOOK_ENABLED"), "prompt": prompt}) + "\n")
    time.sleep(float(os.environ.get("FAKE_CLAUDE_LATENCY", "0")))
    if running is not None:
        running.unlink()
    if mode == "hang":
        time.sleep(600)
    if mode == "exit":
        print("Error: the API returned 529 Overloaded", file=sys.stderr)
        sys.exit(2)
    if mode == "garbage":
        print("Welcome to Claude Code! Press Enter to continue")
        return
    if mode == "not-logged-in":  # what 2.1.197 printed here, logged out
        print(json.dumps(_envelope(is_error=True, result="Not logged in · Please run /login", duration_ms=26,
                                   stop_reason="stop_sequence")))
        sys.exit(1)
    if mode == "recurse":
        hook = {"session_id": "sub-session", "hook_event_name": "SessionEnd", "cwd": os.environ["FAKE_CLAUDE_REPO"]}
        subprocess.run([sys.executable, "-m", "memactors.adapters.cli", "publish", "session-end"],
                       input=json.dumps(hook), text=True, check=False)
    if mode == "trace":
        Path("trace.txt").write_text("a sub-session wrote this")
    schema = json.loads(_option(argv, "--json-schema") or "{}")
    request = {"messages": [{"role": "system", "content": _option(argv, "--system-prompt") or ""},
                            {"role": "user", "content": prompt}],
               "response_format": {"json_schema": {"name": schema.get("title", "")}}}
    answer = json.loads(cooperative(request))
    if mode == "invalid":
        answer = {"status": "maybe"}
    usage = {"input_tokens": len(prompt) // 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
             "output_tokens": len(json.dumps(answer)) // 4}
    fields: dict[str, object] = {"usage": usage, "total_cost_usd": COST_PER_CALL,
                                 "modelUsage": {MODEL_ID: {"inputTokens": usage["input_tokens"],
                                                           "outputTokens": usage["output_tokens"],
                                                           "costUSD": COST_PER_CALL}}}
    if mode == "text-json":
        fields["result"] = json.dumps(answer)
    else:
        fields["structured_output"] = answer
    print(json.dumps(_envelope(**fields)))
