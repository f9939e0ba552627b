"""Where the memory refs stand now, read the cheap way for the hooks. Standard library only, no typing.

A hook asks "has anything been captured since the last run?" on every turn: reading a handful of ref files
answers that in well under a millisecond; git itself (a process) is asked only for a reftable repository or
a symbolic ref.
"""

from __future__ import annotations

import os

NOTES_PREFIX = "refs/notes/mem/"
GIT_TIMEOUT = 2.0


def memory_tips(common: str | os.PathLike[str], refs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """The tips of `refs` (those that exist), from the ref files; `git for-each-ref` for a reftable repository.
    Raises OSError when git must be asked and cannot say."""
    common = os.fspath(common)
    if os.path.isdir(os.path.join(common, "reftable")):
        return _tips_by_git(common, refs)
    tips: dict[str, str] = {}
    packed: dict[str, str] | None = None
    for ref in refs:
        try:
            with open(os.path.join(common, ref), encoding="ascii") as handle:
                value = handle.read().strip()
        except FileNotFoundError:
            if packed is None:
                packed = _packed_refs(common)
            if ref in packed:
                tips[ref] = packed[ref]
            continue
        except (OSError, UnicodeDecodeError):
            return _tips_by_git(common, refs)
        if value.startswith("ref:"):
            return _tips_by_git(common, refs)
        tips[ref] = value
    return tips


def memory_refs(common: str | os.PathLike[str], known: tuple[str, ...] | list[str] = ()) -> tuple[str, ...]:
    """`known` and every loose or packed ref under refs/notes/mem/ (a namespace first written since a run)."""
    common = os.fspath(common)
    found = dict.fromkeys(known)
    try:
        for name in sorted(os.listdir(os.path.join(common, NOTES_PREFIX))):
            found.setdefault(NOTES_PREFIX + name, None)
    except OSError:
        pass
    for ref in _packed_refs(common):
        found.setdefault(ref, None)
    return tuple(found)


def _packed_refs(common: str) -> dict[str, str]:
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return {}
    found = {}
    for line in text.splitlines():
        if line and line[0] not in "#^":
            sha, _, name = line.partition(" ")
            if name.startswith(NOTES_PREFIX):
                found[name.strip()] = sha
    return found


def git(common: str | os.PathLike[str], *args: str, data: bytes | None = None) -> bytes:
    """stdout of git in `common`; raises OSError when git fails or takes longer than GIT_TIMEOUT."""
    import subprocess  # here: a hook that finds nothing moved never starts a process

    try:
        done = subprocess.run(["git", f"--git-dir={os.fspath(common)}", *args], input=data, capture_output=True,
                              timeout=GIT_TIMEOUT, check=False, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    except (subprocess.SubprocessError, OSError) as exc:
        raise OSError(f"git {args[0]}: {exc}") from None
    if done.returncode != 0:
        raise OSError(f"git {args[0]}: {done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout


def _tips_by_git(common: str, refs: tuple[str, ...] | list[str]) -> dict[str, str]:
    out = git(common, "for-each-ref", "--format=%(refname) %(objectname)", *refs).decode()
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
