"""The append-only log of what recall returned, folded into `mem-meta` by the next run.

One JSON-lines file per recall under `<git common dir>/memactors/activations/`,
written to a temporary name and renamed, so concurrent recalls never
interleave and a reader never sees half a file. A run reads every file;
once it completed, the files it read are removed. Folding counts only uses
newer than a memory's recorded last access, so a file a crashed run
already folded is never counted twice. Standard library only.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path


class ActivationLog:
    """`record` appends a file of uses; `read` returns uses by memory key; `consumed` removes what was read."""

    def __init__(self, common_dir: Path) -> None:
        self.directory = common_dir / "memactors" / "activations"
        self._read: list[Path] = []

    def record(self, keys: Iterable[str], at: datetime) -> Path | None:
        """One use of each memory key at `at` (aware); None when there was nothing to record."""
        lines = [json.dumps({"key": key, "at": at.astimezone(timezone.utc).isoformat()}) for key in dict.fromkeys(keys)]
        if not lines:
            return None
        self.directory.parent.mkdir(exist_ok=True)  # never parents above: a vanished repository is not recreated
        self.directory.mkdir(exist_ok=True)
        name = f"{at.astimezone(timezone.utc):%Y%m%dT%H%M%S%f}-{os.getpid()}-{secrets.token_hex(3)}.jsonl"
        target = self.directory / name
        tmp = self.directory / f".{name}.tmp"
        tmp.write_text("\n".join(lines) + "\n")
        os.replace(tmp, target)
        return target

    def read(self) -> dict[str, tuple[datetime, ...]]:
        """Every recorded use, by memory key (unreadable lines are skipped: uses are a hint, not data)."""
        uses: dict[str, list[datetime]] = {}
        self._read = []
        try:
            files = sorted(p for p in self.directory.iterdir() if p.suffix == ".jsonl" and not p.name.startswith("."))
        except OSError:
            return {}
        for path in files:
            try:
                text = path.read_text()
            except OSError:
                continue
            self._read.append(path)
            for line in text.splitlines():
                try:
                    record = json.loads(line)
                    at = datetime.fromisoformat(record["at"])
                    key = record["key"]
                except (ValueError, KeyError, TypeError):
                    continue
                if isinstance(key, str) and at.tzinfo is not None:
                    uses.setdefault(key, []).append(at)
        return {key: tuple(sorted(times)) for key, times in uses.items()}

    def consumed(self) -> None:
        """A run that read the log completed: its files can go (failures leave them; folding is idempotent)."""
        for path in self._read:
            try:
                path.unlink()
            except OSError:
                pass
        self._read = []
