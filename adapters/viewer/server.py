"""Serve the viewer on 127.0.0.1 with Hypercorn's trio worker; print the URL (with its token) on stdout.

The browser is opened on a private file that redirects to the URL (as Jupyter's servers do), never on the URL
itself: a command line is visible to every user of the machine in `ps`, and the URL carries the token.
"""

from __future__ import annotations

import html
import logging
import os
import secrets
import shutil
import socket
import sys
import tempfile
import webbrowser
from pathlib import Path
from typing import Any, TextIO

import trio

from memactors.adapters.operations.warm_model import WarmModel
from memactors.adapters.viewer.app import create_app
from memactors.adapters.viewer.security import Guard


#: The largest request head (request line and headers) read: a longer address gets a short page saying so from the
#: viewer (anything past this, Hypercorn's empty 431).
MAX_HEAD_BYTES = 1024 * 1024
REDIRECT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0; url={url}">
<title>memactors view</title></head>
<body><p>Opening the viewer: <a href="{url}">continue</a>.</p></body></html>
"""


class PortUnavailable(OSError):
    """The viewer's port cannot be bound (in use, or below 1024 without the right): its text is one line."""


def build(repo: Path, port: int, token: str | None = None, warm: WarmModel | None = None) -> tuple[Guard, str]:
    """(the guarded app, the URL to open) for `repo` on 127.0.0.1:`port`."""
    token = token or secrets.token_urlsafe(24)
    guard = Guard(create_app(repo, warm=warm), token=token, port=port)
    return guard, f"http://127.0.0.1:{port}/?token={token}"


def redirect_file(url: str) -> Path:
    """A page that redirects to `url`, readable by this user only (the file 0600 in a new 0700 directory)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(tempfile.mkdtemp(prefix="memactors-view-", dir=runtime if runtime and os.path.isdir(runtime)
                                   else None))
    page = folder / "open.html"
    descriptor = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(REDIRECT.format(url=html.escape(url, quote=True)))
    return page


def open_browser_on(page: Path) -> None:
    """Open the user's browser on `page` (its path: the command line names a file, never the token)."""
    webbrowser.open(page.as_uri())


def import_server() -> None:
    """Import what serving needs (Hypercorn; Jinja came with this module) now rather than inside `serve`."""
    import hypercorn.config  # noqa: F401
    import hypercorn.trio  # noqa: F401


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
    config.h11_max_incomplete_size = MAX_HEAD_BYTES
    config.errorlog = logging.getLogger("memactors.viewer.server")
    opened: Path | None = None
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(lambda task_status: hypercorn_serve(app, config, task_status=task_status))
            print(f"memactors view: {url}", file=out, flush=True)
            print("  (this URL holds the key to your memories: do not share it; Ctrl-C stops the viewer)", file=out,
                  flush=True)
            task_status.started(url)
            if open_browser:
                opened = redirect_file(url)
                nursery.start_soon(trio.to_thread.run_sync, open_browser_on, opened)
            nursery.start_soon(warm.load)
    finally:
        if opened is not None:  # the key does not outlive the viewer
            shutil.rmtree(opened.parent, ignore_errors=True)
