"""What the viewer's browser tests share: the distribution's headless Chromium, `memactors view` started as a user
starts it, and a page that records what went wrong in it.

Importing this from a test module skips that module on a machine without Chromium, unless
MEMACTORS_REQUIRE_BROWSER=1 (as `.ci/run` sets): there a missing browser fails the tests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("MEMACTORS_REQUIRE_BROWSER") != "1":
    pytest.skip("no chromium on this machine (apt-get install chromium)", allow_module_level=True)
#: Flags for a closed network: no background connections that the machine would refuse.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


@contextmanager
def serving(repo: Path) -> Iterator[str]:
    """`memactors view --no-open` on `repo`, as a user starts it; the URL (with its token) it printed."""
    process = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "view", "--no-open",
                                "--repo", str(repo)], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
        assert found, line
        yield found[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def chromium_page(url: str, *, dialogs_are_problems: bool = False) -> Iterator[tuple[Any, list[str]]]:
    """A 1200x900 Chromium page opened at `url`, and the list its console errors and script errors (and, when
    asked, any dialog a script opened) are appended to as they happen."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "chromium is required here (MEMACTORS_REQUIRE_BROWSER=1): apt-get install chromium"
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: problems.append(str(error)))
            if dialogs_are_problems:
                page.on("dialog", lambda dialog: problems.append(f"a script ran: {dialog.message}"))
            page.goto(url)
            yield page, problems
        finally:
            browser.close()
