"""Serve the viewer on 127.0.0.1 with Hypercorn's trio worker; print the URL (with its token) on stdout."""

from __future__ import annotations

import logging
import secrets
import socket
import sys
import webbrowser
from pathlib import Path
from typing import Any, TextIO

import trio

from memactors.adapters.models.warm_model import WarmModel
from memactors.adapters.viewer.app import create_app
from memactors.adapters.viewer.security import Guard


class PortUnavailable(OSError):
    """The viewer's port cannot be bound (in use, or below 1024 without the right): its text is one line."""


def build(repo: Path, port: int, token: str | None = None, warm: WarmModel | None = None) -> tuple[Guard, str]:
    """(the guarded app, the URL to open) for `repo` on 127.0.0.1:`port`."""
    token = token or secrets.token_urlsafe(24)
    guard = Guard(create_app(repo, warm=warm), token=token, port=port)
    return guard, f"http://127.0.0.1:{port}/?token={token}"


async def serve(repo: Path, *, port: int = 0, open_browser: bool = True, out: TextIO = sys.stdout,
                task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Serve until cancelled. `task_status.started(url)` once it listens (for `memactors run --view`)."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    # bound here, not by Hypercorn: a port in use is a plain OSError before anything starts, and port 0 is
    # the free port the kernel gives (no probe-then-bind race)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.bind(("127.0.0.1", port))
    except OSError as exc:
        listener.close()
        why = exc.strerror or str(exc)
        if isinstance(exc, PermissionError) and port < 1024:
            why += " (ports below 1024 need privileges)"
        raise PortUnavailable(exc.errno, f"cannot listen on 127.0.0.1:{port}: {why}") from None
    listener.set_inheritable(True)
    port = int(listener.getsockname()[1])
    warm = WarmModel()
    app, url = build(repo, port, warm=warm)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("memactors.viewer.server")
    async with trio.open_nursery() as nursery:
        await nursery.start(lambda task_status: hypercorn_serve(app, config, task_status=task_status))
        print(f"memactors view: {url}", file=out, flush=True)
        print("  (this URL holds the key to your memories: do not share it; Ctrl-C stops the viewer)", file=out,
              flush=True)
        task_status.started(url)
        if open_browser:
            nursery.start_soon(trio.to_thread.run_sync, webbrowser.open, url)
        nursery.start_soon(warm.load)
