"""`memactors surface`: the memories that matter at this moment of a Claude Code session. Standard library only.

Reads Claude Code's hook JSON on stdin and prints the hook's JSON answer
with `additionalContext`, or nothing when nothing is worth saying:

- `PostToolUse` of Read / Edit / MultiEdit / Write: up to three memories
  about that file (`tool_input.file_path`, made relative to the work tree),
  decisions and blockers first;
- `PostToolUseFailure` of Bash (Claude Code reports a failed command as its
  own event): past blockers and learnings that hold most of the error's words;
- `UserPromptSubmit`: memories that hold most of the prompt's words, above a
  stricter bar — silence is better than noise.

A memory whose commit is not merged into HEAD weighs `UNMERGED_PENALTY` (0.85) times its signal and its
line names its branch; the run that wrote the index decided both (no git here).
Never a memory twice in a session, what SessionStart injected included
(adapters/claude/session_seen.py), and at most `MEMACTORS_SURFACING_MAX`
per session. It reads only the surfacing index the last run wrote
(adapters/reading/surfacing_index.py): no model, no pipeline. Always exit 0:
any failure is silence plus one line in `<common dir>/memactors/surface.log`.
`MEMACTORS_SURFACING_ENABLED=false` (or `MEMACTORS_SURFACING=off`, or the hooks-off marker) makes it a no-op.
"""

from __future__ import annotations

import json
import os
import sys
import time
import zlib

from memactors.adapters.claude.git_dirs import common_dir_of, relative_to_work_tree
from memactors.adapters.claude.hook_switch import SURFACING_SWITCH, hooks_off, switched_off
from memactors.adapters.claude.session_seen import SessionSeen
from memactors.adapters.reading.surfacing_index import (
    SURFACING_FILE,
    fresh_for_file,
    fresh_for_text,
    for_file,
    for_text,
    open_index,
)

TYPE_CHECKING = False  # typing and pathlib cost this hook milliseconds on every tool call
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memactors.adapters.reading.surfacing_index import FreshSubject, Surfaced

FILE_TOOLS = frozenset({"Read", "Edit", "MultiEdit", "Write"})
PER_EVENT = 3
#: The file signal's weight a memory needs for a file (a memory alone on a commit touching ≤ 8 files reaches it).
FILE_BAR = 0.35
#: Share of an error's words (IDF-weighted) a blocker or learning must hold.
ERROR_BAR = 0.5
#: Share of a prompt's words a memory must hold (unknown words weigh less: see UNKNOWN_WEIGHT).
PROMPT_BAR = 0.5
#: Namespaces shown first for a file: what was decided about it and what blocked it.
FIRST = ("decisions", "blockers")
LOG_FILE = "surface.log"


def run(stdin: Any = None, stdout: Any = None, environ: Mapping[str, str] | None = None) -> int:
    """The hook's whole job; always 0."""
    env = os.environ if environ is None else environ
    if hooks_off(env) or switched_off(SURFACING_SWITCH, env):
        return 0
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    common = None
    try:
        common = common_dir_of(os.getcwd())
        raw = stdin.read() if stdin is not None and not stdin.isatty() else ""
        hook = json.loads(raw) if raw.strip() else None
        if not isinstance(hook, dict):
            return 0  # nothing to answer: silence
        cwd = hook["cwd"] if isinstance(hook.get("cwd"), str) else os.getcwd()
        common = common_dir_of(cwd)
        if common is None:
            return 0
        answer = respond(hook, cwd, common, env)
        if answer:
            stdout.write(answer + "\n")
    except Exception as exc:  # noqa: BLE001 - a hook never breaks the session
        _log(common, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    return 0


#: How many candidates --explain lists, those below the bar included.
EXPLAIN_LIMIT = 20
#: How many above-the-bar candidates the hook weighs before choosing (the index's answer).
CONSIDERED = 12


def offered(hook: Mapping[str, Any], cwd: str | os.PathLike[str], common: str | os.PathLike[str], *,
            everything: bool = False) -> tuple[str, str, float, list[Surfaced]]:
    """(heading, signal, bar, candidates) for `hook`: what the index offers, in the order the hook weighs them.
    `everything` also returns candidates below the bar (up to EXPLAIN_LIMIT); ('', '', 0, []) when the event
    is not one surfacing answers."""
    event = hook.get("hook_event_name")
    tool = hook.get("tool_name")
    tool_input = hook.get("tool_input") if isinstance(hook.get("tool_input"), dict) else {}
    index = os.path.join(os.fspath(common), "memactors", SURFACING_FILE)
    db = None
    limit = EXPLAIN_LIMIT if everything else CONSIDERED
    try:
        if event == "PostToolUse" and tool in FILE_TOOLS:
            target = tool_input.get("file_path")
            path = relative_to_work_tree(target, os.fspath(cwd)) if isinstance(target, str) and target else None
            if path is None or (db := open_index(index)) is None:
                return "", "", 0.0, []
            bar = 0.0 if everything else FILE_BAR
            found = fresh_for_file(_fresh(db, common), path, bar) + for_file(db, path, bar, limit)
            return f"Memories about {path} (memactors):", f"file {path}", FILE_BAR, _weighed(found, FILE_BAR)
        if event == "PostToolUseFailure" and tool == "Bash":
            error = str(hook.get("error") or "")[:4000]
            if not error.strip() or (db := open_index(index)) is None:
                return "", "", 0.0, []
            bar, kinds = 0.0 if everything else ERROR_BAR, ("blockers", "learnings")
            found = fresh_for_text(db, _fresh(db, common), error, bar, kinds) + for_text(db, error, bar, kinds, limit)
            return ("Past blockers and learnings that match this error (memactors):", "error words", ERROR_BAR,
                    found[:limit])
        if event == "UserPromptSubmit":
            prompt = str(hook.get("prompt") or "")[:4000]
            if not prompt.strip() or (db := open_index(index)) is None:
                return "", "", 0.0, []
            bar = 0.0 if everything else PROMPT_BAR
            found = fresh_for_text(db, _fresh(db, common), prompt, bar, None) + for_text(db, prompt, bar, None, limit)
            return "Memories that may answer this (memactors):", "prompt words", PROMPT_BAR, found[:limit]
        return "", "", 0.0, []
    finally:
        if db is not None:
            db.close()


def _fresh(db: Any, common: str | os.PathLike[str]) -> list[FreshSubject]:
    """Memories captured since the index's run (adapters/claude/fresh_surfacing.py: a few ref files when
    nothing was); [] and a line in the log when git cannot say."""
    from memactors.adapters.claude.fresh_surfacing import fresh_subjects

    try:
        return fresh_subjects(db, os.fspath(common))
    except OSError as exc:
        _log(os.fspath(common), f"memories captured since the last run not read: {exc}")
        return []


def _line(s: Surfaced) -> str:
    """One memory as the hook prints it; one captured since the last run says so, one not merged into HEAD
    names its branch ("from feature/x, not merged")."""
    notes = (", new since the last run" if s.new else "") + (f", {s.branch}" if s.branch else "")
    return f"- [{s.namespace} {s.date}{notes}] {s.title} ({s.id})"


def _weighed(found: list[Surfaced], bar: float) -> list[Surfaced]:
    """A file's memories as the hook weighs them: the strongest CONSIDERED above the bar, decisions and blockers
    first, those captured since the last run first among them; then (for --explain) the rest in their order."""
    above = [s for s in found if s.strength >= bar][:CONSIDERED]
    above.sort(key=lambda s: (s.namespace not in FIRST, not s.new, -s.strength))
    return above + [s for s in found if s not in above]


def respond(hook: Mapping[str, Any], cwd: str | os.PathLike[str], common: str | os.PathLike[str],
            env: Mapping[str, str]) -> str:
    """The hook JSON to print for `hook`, or ''."""
    heading, _signal, _bar, found = offered(hook, cwd, common)
    if not found:
        return ""
    event = hook.get("hook_event_name")
    shown = _unseen(hook, event, found, os.fspath(common), _session_cap(env))
    if not shown:
        return ""
    lines = [heading, *(_line(s) for s in shown)]
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": "\n".join(lines)}})


def explain(hook: Mapping[str, Any], cwd: str | os.PathLike[str], common: str | os.PathLike[str],
            env: Mapping[str, str]) -> dict[str, Any]:
    """What `respond` would answer for `hook` and why, without recording anything: every candidate (those below
    the bar too) with its signal weight, whether it clears the bar, was already shown this session, and would
    be shown now."""
    heading, signal, bar, found = offered(hook, cwd, common, everything=True)
    considered = [s for s in found if s.strength >= bar][:CONSIDERED]
    session = str(hook.get("session_id") or "")
    seen_ids: set[str] = set()
    answered = False
    room = PER_EVENT
    if session:
        prompt = str(hook.get("prompt", ""))
        key = str(hook.get("tool_use_id") or "") or f"{hook.get('hook_event_name')}:{zlib.crc32(prompt.encode())}:{len(prompt)}"
        seen = SessionSeen(os.fspath(common), session).peek()
        seen_ids, answered = set(seen.ids), key in seen.events
        room = max(0, min(PER_EVENT, _session_cap(env) - seen.shown))
    shown = [] if answered else [s for s in considered if s.id not in seen_ids][:room]
    rows = [{"id": s.id, "namespace": s.namespace, "date": s.date, "title": s.title,
             "weight": round(s.strength, 4), "above_bar": s.strength >= bar, "new_since_last_run": s.new,
             **({"branch": s.branch} if s.branch else {}),
             "seen_this_session": s.id in seen_ids,
             "would_show": s in shown} for s in found]
    return {"event": hook.get("hook_event_name"), "signal": signal, "bar": bar, "candidates": rows,
            "already_answered": answered,
            "would_print": "\n".join([heading, *(_line(s) for s in shown)])
            if shown else ""}


def _unseen(hook: Mapping[str, Any], event: Any, found: list[Surfaced], common: str, cap: int) -> list[Surfaced]:
    """Up to PER_EVENT memories this session has not been shown, recorded as shown; none for an event
    already answered (the same hook installed twice) or past the session's cap."""
    session = str(hook.get("session_id") or "")
    if not session:
        return found[:PER_EVENT]
    prompt = str(hook.get("prompt", ""))
    key = str(hook.get("tool_use_id") or "") or f"{event}:{zlib.crc32(prompt.encode())}:{len(prompt)}"
    with SessionSeen(common, session).locked() as seen:
        if key in seen.events or seen.shown >= cap:
            return []
        shown = [s for s in found if s.id not in seen.ids][:min(PER_EVENT, cap - seen.shown)]
        if shown:
            seen.add(key, (s.id for s in shown), str(event))
        return shown


def _session_cap(env: Mapping[str, str]) -> int:
    try:
        return max(0, int(env.get("MEMACTORS_SURFACING_MAX", "20")))
    except ValueError:
        return 20


def _log(common: str | None, line: str) -> None:
    """One line in the surface log (or stderr when there is no repository to log in)."""
    text = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {line}\n"
    try:
        if common is None:
            raise OSError
        os.makedirs(os.path.join(common, "memactors"), exist_ok=True)
        with open(os.path.join(common, "memactors", LOG_FILE), "a", encoding="utf-8") as log:
            log.write(text)
    except OSError:
        sys.stderr.write(f"memactors surface: {line}\n")


def main() -> None:
    """`python -m memactors.adapters.claude.surface_hook`."""
    sys.exit(run())


if __name__ == "__main__":
    main()
