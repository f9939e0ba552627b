"""The claude-code provider: the user's logged-in `claude` CLI, one print-mode subprocess per question.

Each question runs `claude -p --output-format json --json-schema SCHEMA`
with the prompt on stdin, in a fresh empty temporary directory outside
any repository, with tools, hooks, plugins, MCP servers, slash commands
and session persistence off (the flags Claude Code 2.1 documents in
`claude --help`), and with the environment marker that turns memactors'
own hook commands into no-ops plus the git-notes-memory plugin's master
switch off: the sub-session leaves no trace and captures nothing. The
answer, its tokens and its cost come from the CLI's result envelope.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable
from typing import Any, TypeVar

import pydantic
import trio
from pydantic import BaseModel

from memactors.actors.ports import Completion, InvalidAnswer, LLMUnavailable
from memactors.adapters.claude.git_dirs import common_dir_of
from memactors.adapters.claude.hook_switch import HOOKS_SWITCH, OFF
from memactors.adapters.models.circuit_breaker import CircuitBreaker
from memactors.adapters.models.llm_config import ProviderConfig
from memactors.adapters.models.redaction import redact

T = TypeVar("T", bound=BaseModel)

#: What the sub-session is told so that nothing in it runs, loads or persists.
QUIET_FLAGS = ("--tools", "", "--safe-mode", "--no-session-persistence", "--strict-mcp-config",
               "--disable-slash-commands", "--settings", json.dumps({"disableAllHooks": True}))
#: The sub-session's environment on top of ours: memactors' hooks and the plugin's hooks off.
QUIET_ENV = {HOOKS_SWITCH: OFF, "HOOK_ENABLED": "false"}
#: More output than any answer needs: a CLI printing past this is stopped.
MAX_OUTPUT = 4 * 1024 * 1024
_LOGIN_WORDS = ("not logged in", "/login", "log in", "login", "oauth", "authentication", "invalid api key",
                "expired")


class ClaudeCodeLLM:
    """One `claude` subprocess per question, at most `concurrency` at once.

    Raises LLMUnavailable when the CLI is missing, not logged in, exits
    without its envelope, prints something else, or gives no answer within
    `timeout` seconds (the process group is killed); InvalidAnswer when the
    answer does not fit the schema. The breaker opens at once on a missing
    CLI or a login problem, after `breaker_threshold` other failures in a row.
    """

    def __init__(self, config: ProviderConfig, *, timeout: float = 60.0, concurrency: int = 1,
                 breaker_threshold: int = 3, breaker_cooldown: float = 300.0) -> None:
        self.config = config
        self.provider = config.name
        self.model = config.model
        self.mode = config.structured
        self.command = config.base_url
        self._timeout = timeout
        self._limiter = trio.CapacityLimiter(concurrency)
        self.breaker = CircuitBreaker(config.name, threshold=breaker_threshold, cooldown=breaker_cooldown)
        self.redactions = 0
        #: Called once a request has its slot, just before the CLI starts (the chain's caps); raises LLMUnavailable.
        self.admit: Callable[[], None] | None = None

    def argv(self, system: str, schema: type[BaseModel]) -> list[str]:
        return [self.command, "-p", "--output-format", "json", "--model", self.model,
                "--json-schema", json.dumps(schema.model_json_schema()), "--system-prompt", system, *QUIET_FLAGS]

    async def complete(self, system: str, user: str, schema: type[T], *,
                       deadline: float | None = None) -> Completion[T]:
        self.breaker.refuse_if_open()
        system, hidden_a = redact(system)
        user, hidden_b = redact(user)
        self.redactions += hidden_a + hidden_b
        with trio.move_on_at(math.inf if deadline is None else deadline):
            async with self._limiter:
                self.breaker.refuse_if_open()
                if self.admit is not None:
                    self.admit()
                with self.breaker.guard():
                    return await self._ask(system, user, schema)
                raise LLMUnavailable(f"{self.provider}: circuit opened while this request was in flight", requests=1)
        raise LLMUnavailable(f"{self.provider}: the run's LLM deadline (MEMACTORS_LLM_DEADLINE) passed", requests=1)

    async def _ask(self, system: str, user: str, schema: type[T]) -> Completion[T]:
        outcome = None
        with tempfile.TemporaryDirectory(prefix="memactors-llm-") as empty:
            if common_dir_of(empty) is not None:  # the repository finder the hooks use, bare ones included
                why = (f"the temporary directory {empty} is inside a git repository; point TMPDIR elsewhere so "
                       "the sub-session runs outside it")
                self.breaker.failed(fatal=why)
                raise LLMUnavailable(f"{self.provider}: {why}", requests=0)
            with trio.move_on_after(self._timeout):
                outcome = await _run(self.argv(system, schema), user.encode(), cwd=empty,
                                     env={**os.environ, **QUIET_ENV})
        if outcome is None:
            self.breaker.failed()
            raise LLMUnavailable(f"{self.provider}: no answer within {self._timeout:g} s (MEMACTORS_LLM_TIMEOUT); "
                                 "the claude process was stopped", requests=1)
        return self._answer(outcome, schema)

    def _answer(self, outcome: _Outcome, schema: type[T]) -> Completion[T]:
        if outcome.missing:
            why = (f"`{self.command}` was not found on PATH; install Claude Code (npm install -g "
                   "@anthropic-ai/claude-code) or set MEMACTORS_CLAUDE_COMMAND")
            self.breaker.failed(fatal=why)
            raise LLMUnavailable(f"{self.provider}: {why}", requests=0)
        if outcome.overflow:
            self.breaker.failed()
            raise LLMUnavailable(f"{self.provider}: printed more than {MAX_OUTPUT // (1024 * 1024)} MiB; stopped",
                                 requests=1)
        envelope = _envelope(outcome.stdout)
        if envelope is None:
            self.breaker.failed()
            said = _first_line(outcome.stdout) or _first_line(outcome.stderr) or "nothing"
            status = f"exited with status {outcome.status}" if outcome.status else "exited"
            raise LLMUnavailable(f"{self.provider}: {status} without its JSON envelope (printed: {said})",
                                 requests=1)
        tokens_in, tokens_out, cost = _spend(envelope)
        if envelope.get("is_error") or envelope.get("subtype") != "success":
            said = str(envelope.get("result") or envelope.get("subtype") or "an error")
            if envelope.get("subtype") == "error_max_structured_output_retries":
                raise InvalidAnswer("the CLI gave up on answering in the schema's shape", raw=said[:2000],
                                    tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost)
            line = _first_line(said.encode())
            if any(word in said.lower() for word in _LOGIN_WORDS):
                why = f"not logged in or the login expired ({line}); run `claude` once and /login"
                self.breaker.failed(fatal=why)
                raise LLMUnavailable(f"{self.provider}: {why}", requests=1)
            self.breaker.failed()
            raise LLMUnavailable(f"{self.provider}: {line}", requests=1)
        value = _structured(envelope, schema, tokens_in, tokens_out, cost)
        self.breaker.succeeded()
        usage = envelope.get("modelUsage")
        model = next(iter(usage), self.model) if isinstance(usage, dict) and usage else self.model
        return Completion(value=value, provider=self.provider, model=str(model), tokens_in=tokens_in,
                          tokens_out=tokens_out, cost_usd=cost, requests=1)

    async def aclose(self) -> None:
        return None


class _Outcome:
    """What one subprocess did: exit status, bounded output, or that the command was missing."""

    def __init__(self, status: int = 0, stdout: bytes = b"", stderr: bytes = b"", *, missing: bool = False,
                 overflow: bool = False) -> None:
        self.status, self.stdout, self.stderr = status, stdout, stderr
        self.missing, self.overflow = missing, overflow


async def _run(argv: list[str], stdin: bytes, *, cwd: str, env: dict[str, str]) -> _Outcome:
    """Run `argv` in its own process group, feeding `stdin`; a cancelled run kills the group and reaps it."""
    try:
        process = await trio.lowlevel.open_process(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                   stderr=subprocess.PIPE, cwd=cwd, env=env, start_new_session=True)
    except (FileNotFoundError, PermissionError, NotADirectoryError):
        return _Outcome(missing=True)
    out, err = bytearray(), bytearray()
    overflow = False

    async def feed() -> None:
        assert process.stdin is not None
        try:
            await process.stdin.send_all(stdin)
            await process.stdin.aclose()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # it exited without reading its prompt: its envelope or status says why

    async def drain(stream: Any, into: bytearray) -> None:
        nonlocal overflow
        while True:
            chunk = await stream.receive_some(65536)
            if not chunk:
                return
            into += chunk
            if len(into) > MAX_OUTPUT:
                overflow = True
                _kill(process)
                return

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(feed)
            nursery.start_soon(drain, process.stdout, out)
            nursery.start_soon(drain, process.stderr, err)
        status = await process.wait()
    finally:
        if process.returncode is None:
            _kill(process)
            with trio.CancelScope(shield=True):
                await process.wait()
    return _Outcome(status, bytes(out), bytes(err), overflow=overflow)


def _kill(process: trio.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def _envelope(stdout: bytes) -> dict[str, Any] | None:
    """The result envelope: the JSON object whose type is "result" (the last such line, for safety)."""
    text = stdout.decode("utf-8", "replace").strip()
    candidates = [text, *reversed(text.splitlines())]
    for candidate in candidates:
        try:
            document = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(document, dict) and document.get("type") == "result":
            return document
    return None


def _spend(envelope: dict[str, Any]) -> tuple[int, int, float]:
    usage = envelope.get("usage") if isinstance(envelope.get("usage"), dict) else {}

    def count(name: str) -> int:
        value = usage.get(name, 0)
        return value if isinstance(value, int) and value >= 0 else 0

    tokens_in = count("input_tokens") + count("cache_creation_input_tokens") + count("cache_read_input_tokens")
    cost = envelope.get("total_cost_usd", 0.0)
    cost = float(cost) if isinstance(cost, (int, float)) and cost >= 0 else 0.0
    return tokens_in, count("output_tokens"), round(cost, 6)


def _structured(envelope: dict[str, Any], schema: type[T], tokens_in: int, tokens_out: int, cost: float) -> T:
    """`structured_output` validated; failing that, a `result` that is itself JSON of the right shape."""
    error = "the envelope has no structured_output: the schema was ignored"
    if "structured_output" in envelope:
        try:
            return schema.model_validate(envelope["structured_output"])
        except pydantic.ValidationError as exc:
            error = f"structured_output does not match the schema: {str(exc).splitlines()[0]}"
    try:
        return schema.model_validate_json(str(envelope.get("result", "")))
    except (pydantic.ValidationError, ValueError):
        raise InvalidAnswer(error, raw=str(envelope.get("result", ""))[:2000], tokens_in=tokens_in,
                            tokens_out=tokens_out, cost_usd=cost) from None


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    line = text.splitlines()[0] if text else ""
    line, _hidden = redact(line[:200])
    return line
