"""Asking a running daemon instead of loading the model: the client side of the query socket. Standard library only.

`memactors run` listens on a Unix socket only its user can open (a folder of mode 0700 under the temporary
directory, named for the repository's git common dir, so the path stays short and every worktree finds the
same one). One request is one JSON line, one answer is one JSON line. A client that finds no socket, cannot
connect, or waits too long answers None and the caller does the work itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
from typing import Any

#: How long a client waits for the daemon's answer before doing the work itself.
TIMEOUT_SECONDS = 10.0
MAX_ANSWER_BYTES = 16 * 1024 * 1024


def socket_path(common_dir: str | os.PathLike[str]) -> str:
    """Where the daemon serving the repository with this common dir listens."""
    digest = hashlib.sha256(os.path.realpath(os.fspath(common_dir)).encode("utf-8", "surrogatepass")).hexdigest()
    return os.path.join(tempfile.gettempdir(), f"memactors-{os.getuid()}", f"{digest[:20]}.sock")


def ask(common_dir: str | os.PathLike[str], request: dict[str, Any],
        timeout: float = TIMEOUT_SECONDS) -> dict[str, Any] | None:
    """The daemon's answer to `request`, or None when no daemon answers (the caller then works alone)."""
    path = socket_path(common_dir)
    if not os.path.exists(path):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout)
            client.connect(path)
            client.sendall(json.dumps(request).encode() + b"\n")
            chunks: list[bytes] = []
            size = 0
            while True:
                chunk = client.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if chunk.endswith(b"\n") or size > MAX_ANSWER_BYTES:
                    break
        answer = json.loads(b"".join(chunks))
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) and "code" in answer else None
