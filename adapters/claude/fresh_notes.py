"""Decisions, learnings and blockers captured since the last run, read for the SessionStart hook.

Standard library and the git CLI only (the hook imports nothing else), with a bounded cost:
- the memory refs' tips are read from the ref files (git only for a reftable repository) and compared
  with the tips the last run recorded in `context.json`; when none moved, nothing else happens;
- otherwise one `git log` walks the notes commits written since, newest first, at most
  `MAX_FRESH_COMMITS` of them, and one `git cat-file --batch` reads the notes they changed (at most
  `MAX_FRESH_NOTES`, each up to `MAX_NOTE_BYTES`) and what those notes held before;
- the entries a note gained are parsed with the front matter reader the scanner uses first
  (adapters/git/note_blocks.py; an entry only full YAML can read waits for the run), at most
  `MAX_FRESH_ENTRIES` of them, and judged like the run judges a memory (its title, whether it reads,
  the threat screen, quality at the default weights: events/content_quality.py).
What it finds is a candidate like the run's, marked `fresh`; nothing is written.
"""

from __future__ import annotations

from memactors.adapters.claude.note_tips import NOTES_PREFIX as _REF_PREFIX
from memactors.adapters.claude.note_tips import git as _git
from memactors.adapters.claude.note_tips import memory_tips

TYPE_CHECKING = False  # typing and dataclasses cost the per-turn surfacing hook milliseconds
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

#: The namespaces a session needs at once: what was decided, learned, and what blocks the work.
FRESH_NAMESPACES = ("decisions", "learnings", "blockers")
#: Notes commits walked since the last run (one per capture), newest first, all namespaces together.
MAX_FRESH_COMMITS = 32
#: Notes read; a larger one is left for the run.
MAX_FRESH_NOTES = 32
MAX_NOTE_BYTES = 1 << 20
#: New entries judged, the last written first: three times what the block shows (some do not read, some the run
#: already knows by title).
MAX_FRESH_ENTRIES = 24
#: Of a memory's body, what `with_text` keeps for matching words (the surfacing hook's prompts and errors).
MAX_TEXT = 2000


class FreshMemories:
    """The candidates found, newest first, and whether more were written than were read."""

    __slots__ = ("candidates", "more")

    def __init__(self, candidates: list[dict[str, Any]] | None = None, more: bool = False) -> None:
        self.candidates = [] if candidates is None else candidates
        self.more = more


def fresh_memories(common: Path | str, document: Mapping[str, Any], namespaces: tuple[str, ...] = FRESH_NAMESPACES,
                   *, with_text: bool = False, current: Mapping[str, str] | None = None) -> FreshMemories:
    """What was captured in `namespaces` since the run that wrote `document` (see the module); `with_text`
    adds each candidate's `text` (summary and body, at most MAX_TEXT) and `tags`; `current` are the refs' tips
    when the caller has read them already.

    Nothing when the document records no tips (a cache from before they were recorded). Raises OSError
    when git cannot say (the caller notes it and shows the block without them)."""
    recorded = document.get("memory_tips")
    if not isinstance(recorded, dict):
        return FreshMemories()
    refs = tuple(_REF_PREFIX + namespace for namespace in namespaces)
    current = memory_tips(common, refs) if current is None else current
    moved = [ref for ref in refs if ref in current and current[ref] != recorded.get(ref)]
    if not moved:
        return FreshMemories()
    cut, notes = _changed_notes(common, moved, recorded)
    found = FreshMemories(more=cut)
    blobs = _read_blobs(common, {b for note in notes for b in note[2:] if b})
    for ref, commit, new, old in notes:
        if new not in blobs:  # too large to read here
            found.more = True
            continue
        before = set(_entries(blobs[old])) if old in blobs else set()
        gained = [e for e in _entries(blobs[new]).items() if e[0] not in before]
        for text, index in reversed(gained):  # the last appended first
            if len(found.candidates) >= MAX_FRESH_ENTRIES:
                found.more = True
                break
            candidate = _candidate(ref[len(_REF_PREFIX):], commit, index, text, with_text)
            if candidate is not None:
                found.candidates.append(candidate)
    found.candidates.sort(key=lambda c: -c["anchor"])
    return found


def _changed_notes(common: Path, moved: list[str], recorded: Mapping[str, Any]
                   ) -> tuple[bool, list[tuple[str, str, str, str | None]]]:
    """(whether a cap cut the walk, [(ref, annotated commit, newest blob, blob before the walk or None)]), the
    notes changed most recently first."""
    since = [f"^{recorded[ref]}" for ref in moved if isinstance(recorded.get(ref), str)]
    out = _git(common, "log", "--first-parent", "-m", "--raw", "--no-renames", "--no-abbrev",
               f"-n{MAX_FRESH_COMMITS}", "--format=%x01%S", *moved, *since, "--").decode("utf-8", "replace")
    walked, cut = 0, False
    order: list[tuple[str, str]] = []
    newest: dict[tuple[str, str], str] = {}
    before: dict[tuple[str, str], str | None] = {}

    def take(ref: str, changes: dict[str, list[str]]) -> None:
        nonlocal cut
        for path, (old, new) in changes.items():
            if old == new:
                continue  # a note moved between fan-out directories, unchanged
            key = (ref, path)
            if key not in newest:
                if len(order) >= MAX_FRESH_NOTES:
                    cut = True
                    continue
                order.append(key)
                newest[key] = new
            before[key] = old  # the walk goes back in time: the last one seen is the oldest

    ref, changes = "", {}
    for line in out.splitlines():
        if line.startswith("\x01"):
            take(ref, changes)
            walked += 1
            ref, changes = line[1:].strip(), {}
        elif line.startswith(":") and "\t" in line:
            fields, path = line[1:].split("\t", 1)
            parts = fields.split()
            if len(parts) < 4:
                continue
            # a fan-out change shows one note deleted at a/bcd... and added at ab/cd...: one path, both sides
            change = changes.setdefault(path.replace("/", ""), ["0" * 40, "0" * 40])
            if not _null(parts[2]):
                change[0] = parts[2]
            if not _null(parts[3]):
                change[1] = parts[3]
    take(ref, changes)
    notes = [(r, c, newest[(r, c)], None if _null(before[(r, c)]) else before[(r, c)])
             for r, c in order if not _null(newest[(r, c)])]
    return cut or walked >= MAX_FRESH_COMMITS, notes


def _null(sha: str | None) -> bool:
    """No blob: a note added (before) or removed (after)."""
    return not sha or not sha.strip("0")


def _read_blobs(common: Path, blobs: set[str]) -> dict[str, str]:
    """The text of each blob up to `MAX_NOTE_BYTES` (larger ones and missing ones are left out)."""
    if not blobs:
        return {}
    names = sorted(blobs)
    out = _git(common, "cat-file", "--batch", data="".join(f"{b}\n" for b in names).encode())
    found: dict[str, str] = {}
    at = 0
    while at < len(out):
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # "<name> missing"
        size = int(header[2])
        if size <= MAX_NOTE_BYTES:
            found[header[0].decode()] = out[at: at + size].decode("utf-8", "replace")
        at += size + 1
    return found


def _entries(text: str) -> dict[str, int]:
    """Each entry of a note (its exact text) -> its position, counted as the scanner counts it."""
    from memactors.adapters.git.note_blocks import _find_blocks

    lines = text.split("\n")
    blocks = _find_blocks(lines)
    entries: dict[str, int] = {}
    for index, block in enumerate(blocks):
        end = blocks[index + 1].start if index + 1 < len(blocks) else len(lines)
        entries.setdefault("\n".join(lines[block.start:end]).rstrip(), index)
    return entries


def _candidate(namespace: str, commit: str, index: int, text: str, with_text: bool = False
               ) -> dict[str, Any] | None:
    """A context candidate for one entry, as the run would build it; None when it cannot be read here or does
    not read as a statement."""
    from datetime import datetime, timezone  # here: a hook with nothing new never imports it

    from memactors.adapters.git.note_blocks import _fast_front_matter, _find_blocks
    from memactors.events.content_quality import QualityWeights, content_traits, quality_score

    lines = text.split("\n")
    block = _find_blocks(lines)[0]
    front = _fast_front_matter(lines[block.start + 1: block.close])
    if front is None:
        return None  # only full YAML reads it: the run will
    try:
        moment = datetime.fromisoformat(str(front.get("timestamp", "")).strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    body = "\n".join(lines[block.close + 1:]).strip("\n").rstrip()
    summary = str(front.get("summary") or "")
    if not summary.strip():
        summary = next((line.strip() for line in body.split("\n") if line.strip()), "")[:100]
    raw_tags = front.get("tags") or ()
    tags = tuple(raw_tags) if isinstance(raw_tags, list) else tuple(
        t.strip() for t in str(raw_tags).split(",") if t.strip())
    traits = content_traits(summary=summary, body=body, tags=tags)
    if not traits.readable or not summary.strip():
        return None
    quality = quality_score(QualityWeights(), traits)
    found = {"kind": "memory", "id": f"{namespace}:{commit}:{index}", "namespace": namespace, "title": traits.title,
             "quality": quality, "timestamp": moment.isoformat(), "anchor": moment.timestamp(), "score": quality,
             "activation_count": 0, "terms": [], "fresh": True}
    if with_text:
        found["text"] = f"{summary}\n{body}"[:MAX_TEXT]
        found["tags"] = list(tags)
    return found
