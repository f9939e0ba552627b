"""The daemon's query socket: `recall` answered by a process whose model is already loaded.

Serves one JSON line per connection: {"op": "recall", "args": {...}} -> {"code", "document", "text", "notes"}
(or {"code": 2, "error": "..."} for a request it cannot answer). Each request is answered by the function the
daemon was given (the recall operation the CLI runs, adapters/operations/recall.py), in a worker thread, with
the daemon's warm embedding model. The socket file is made in a folder only
this user can enter (mode 0700) and removed when the daemon stops.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from pathlib import Path
from collections.abc import Callable
from typing import Any

import trio

from memactors.adapters.runtime.query_client import MAX_ANSWER_BYTES, socket_path

log = logging.getLogger("memactors.daemon")


#: What answers one request: (repository, warm embedder, the decoded request) -> the answer's JSON document.
Answer = Callable[[Path, Any, Any], dict[str, Any]]


async def serve_queries(repo: Path, common_dir: Path, embedder: Any, answer: Answer, *,
                        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Listen until cancelled, each request answered by `answer` in a worker thread, one at a time; the socket
    file goes when it stops."""
    path = socket_path(common_dir)
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)  # an older folder of ours with looser bits is tightened
    if os.path.exists(path):
        os.unlink(path)  # a daemon that died left it; the daemon lock says we are the only one now
    listener = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
    limiter = trio.CapacityLimiter(1)
    try:
        await listener.bind(path)
        os.chmod(path, 0o600)
        listener.listen(16)
        task_status.started()
        async with trio.open_nursery() as nursery:
            while True:
                connection, _ = await listener.accept()
                nursery.start_soon(_serve_one, connection, repo, embedder, answer, limiter)
    finally:
        listener.close()
        try:
            os.unlink(path)
        except OSError:
            pass


async def _serve_one(connection: trio.socket.SocketType, repo: Path, embedder: Any, answer: Answer,
                     limiter: trio.CapacityLimiter) -> None:
    stream = trio.SocketStream(connection)
    async with stream:
        try:
            data = b""
            with trio.move_on_after(5):
                while not data.endswith(b"\n") and len(data) < 1_000_000:
                    chunk = await stream.receive_some(65536)
                    if not chunk:
                        break
                    data += chunk
            try:
                request = json.loads(data)
            except ValueError:
                request = None
            document = await trio.to_thread.run_sync(functools.partial(answer, repo, embedder, request),
                                                     limiter=limiter)
            payload = json.dumps(document, default=str).encode()
            if len(payload) > MAX_ANSWER_BYTES:
                payload = json.dumps({"code": 2, "error": "answer too large"}).encode()
            await stream.send_all(payload + b"\n")
        except Exception as exc:  # noqa: BLE001 - one bad query never stops the daemon
            log.warning("query socket: %s: %s", type(exc).__name__, exc)
