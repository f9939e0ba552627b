"""Text in, text out: any argv or stdin bytes either make a memory that reads back or are refused in one line."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memactors.adapters.cli.dispatch import main
from tests.conftest import Repo, git, run_cli


def _in_process(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's own usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def _fresh_repo(root: Path) -> Path:
    path = Path(tempfile.mkdtemp(dir=root))
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    return path


def _note(path: Path, namespace: str) -> bytes:
    result = git(path, "notes", f"--ref=refs/notes/mem/{namespace}", "show", "HEAD", check=False)
    return result.stdout.encode() if result.returncode == 0 else b""


#: argv as Python hands it over: any text, undecodable bytes as lone surrogates, control characters.
_argv_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=60) | st.sampled_from(
    ["---", "- item", "key: value", "yes", "null", "~", "&anchor", "*alias", "!tag x", "# hash", "%TAG",
     "'quoted'", '"double"', "[a, b]", "{a: b}", "@at", "`tick`", "|", ">", "Caf\udce9", "\udcff\udcfe",
     "a\x00b", "tab\there", "\u2028sep", "\ufeffbom", "...", "? q"])
_body = st.text(max_size=200) | st.sampled_from(
    ["a\n\n---\n\nb", "---\ntype: decisions\n---", "x\n\n---\ntype: learnings\ntimestamp: 2024-01-01T00:00:00Z\n"
     "summary: fake\n---\n\nfake body", "```\n---\n```", "body \udcff\udcfe", "nul\x00here", "cr\r\nlf\rmix"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(summary=_argv_text, tags=st.lists(_argv_text, max_size=3), body=_body)
def test_any_capture_either_reads_back_through_scan_and_show_or_is_refused_in_one_line(
        tmp_path: Path, git_env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        summary: str, tags: list[str], body: str) -> None:
    monkeypatch.setenv("MEMACTORS_EMBEDDINGS", "none")  # the scan is the point, not the vectors
    path = _fresh_repo(tmp_path)
    code, out, err = _in_process("capture", "--repo", str(path), "--json", "--namespace", "learnings",
                                 f"--summary={summary}", f"--tags={','.join(tags)}", f"--content={body}")
    assert "Traceback" not in err
    if code != 0:
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert _note(path, "learnings") == b""  # nothing written
        return
    captured = json.loads(out)
    code, shown, err = _in_process("show", "--repo", str(path), "--json", captured["id"])
    assert code == 0, err
    memory = json.loads(shown)
    assert memory["summary"] == captured["summary"]
    code, report, err = _in_process("consolidate", "--repo", str(path), "--json", "--dry-run")
    scanned = json.loads(report)
    assert scanned["memories_skipped"] == {} and scanned["memories_processed"] == 1, scanned
    clean = not any(0xD800 <= ord(c) <= 0xDFFF or ord(c) < 32 or 0x7F <= ord(c) <= 0x9F
                    or c in "\u2028\u2029\ufeff" for c in summary)
    if clean and "\n" not in summary:
        assert memory["summary"] == summary.strip()  # nothing to clean: stored exactly
    assert "\ufffd" not in memory["summary"] or "\ufffd" in summary or any(
        0xD800 <= ord(c) <= 0xDFFF for c in summary)


def test_invalid_bytes_in_summary_and_tags_are_replaced_said_and_read_back(repo: Repo) -> None:
    code, out, err = _in_process("capture", "--repo", str(repo.path), "--namespace", "learnings",
                                 "--summary", "Caf\udce9 latin1 summary", "--tags", "a,\udce9", "--content", "x")
    assert code == 0
    assert "2 invalid bytes replaced by U+FFFD in --summary, --tags" in err
    code, shown, _ = _in_process("show", "--repo", str(repo.path), "--json", out.strip())
    memory = json.loads(shown)
    assert (memory["summary"], memory["tags"]) == ("Caf\ufffd latin1 summary", ["a", "\ufffd"])


def test_a_binary_body_on_stdin_is_captured_as_text(repo: Repo) -> None:
    result = subprocess.run(["python", "-m", "memactors.adapters.cli", "capture", "--repo", str(repo.path),
                             "--namespace", "learnings", "--summary", "Binary body"],
                            input=b"body \xff\xfe and more", capture_output=True)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr and b"2 invalid bytes replaced" in result.stderr
    shown = run_cli("show", "--repo", str(repo.path), "--json", result.stdout.decode().strip())
    assert json.loads(shown.stdout)["body"] == "body \ufffd\ufffd and more"


def test_a_body_that_would_read_as_a_second_entry_is_refused_and_nothing_written(repo: Repo) -> None:
    body = "x\n\n---\ntype: learnings\ntimestamp: 2024-01-01T00:00:00Z\nsummary: fake\n---\n\nfake body"
    code, _, err = _in_process("capture", "--repo", str(repo.path), "--namespace", "learnings",
                               "--summary", "Real one", "--content", body)
    assert code == 2 and "nothing was written" in err and len(err.strip().splitlines()) == 1
    assert _note(repo.path, "learnings") == b""


@pytest.mark.parametrize("summary", ["---", "-x starts with a dash", "-1"])
def test_a_summary_that_starts_with_a_dash_is_a_value_not_an_option(repo: Repo, summary: str) -> None:
    code, out, err = _in_process("capture", "--repo", str(repo.path), "--json", "--namespace", "decisions",
                                 "--summary", summary, "--content", "body")
    assert code == 0, err
    assert json.loads(out)["summary"] == summary


def test_a_missing_value_is_still_a_usage_error_not_swallowed_as_text(repo: Repo) -> None:
    result = run_cli("capture", "--repo", str(repo.path), "--namespace", "decisions", "--summary", "--json")
    assert result.returncode == 2 and "expected one argument" in result.stderr


def test_a_query_with_undecodable_bytes_gets_results_or_one_line(populated: Repo) -> None:
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    code, out, err = _in_process("recall", "--repo", str(populated.path), "--no-track", "caf\udce9 \x00 storage")
    assert code == 0 and "Traceback" not in err
    assert "results for" in out


def test_an_unknown_namespace_names_the_valid_ones(populated: Repo) -> None:
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    for command in (["recall", "storage", "--namespace", "nosuch"], ["consolidate", "--namespace", "nosuch"]):
        result = run_cli(*command, "--repo", str(populated.path))
        assert result.returncode == 2
        assert "unknown namespace 'nosuch'; use one of: inception" in result.stderr and "decisions" in result.stderr


def test_capture_waiting_on_an_open_pipe_says_what_it_waits_for(repo: Repo) -> None:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "capture", "--namespace", "decisions",
                             "--summary", "Use uv for dependencies", "--repo", str(repo.path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None and proc.stdin is not None
    said = proc.stderr.readline()  # the pipe stays open: the command must say so, not wait silently
    assert "waiting for the memory's content on standard input" in said and "--content" in said
    proc.stdin.write("uv resolves in seconds.")
    proc.stdin.close()
    assert proc.stdout is not None and proc.wait(timeout=120) == 0
    assert proc.stdout.read().startswith("decisions:")
