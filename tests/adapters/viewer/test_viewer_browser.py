"""The viewer in a real browser: the distribution's headless Chromium, driven by Playwright (no browser download).

`.ci/run` installs Debian's chromium when it is missing and sets MEMACTORS_REQUIRE_BROWSER=1, so there a missing
browser fails these tests; on a machine without one they are skipped with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.viewer.conftest import HOSTILE
from tests.conftest import Repo

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("MEMACTORS_REQUIRE_BROWSER") != "1":
    pytest.skip("no chromium on this machine (apt-get install chromium)", allow_module_level=True)
#: Flags for a closed network: no background connections that the machine would refuse.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture
def served(viewer_store: Repo) -> Iterator[str]:
    """`memactors view` started as a user starts it; the URL it printed."""
    process = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "view", "--no-open",
                                "--repo", str(viewer_store.path)], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
        assert found, line
        yield found[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_user_follows_a_memory_to_its_chain_and_resolves_a_conflict(served: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "chromium is required here (MEMACTORS_REQUIRE_BROWSER=1): apt-get install chromium"
    base = served.split("/?")[0]
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("dialog", lambda dialog: problems.append(f"a script ran: {dialog.message}"))
        page.goto(served)
        assert page.url == base + "/" and page.locator("h1").inner_text() == "Overview"
        page.screenshot(path=str(tmp_path / "overview.png"), full_page=True)
        page.get_by_role("link", name="Timeline").first.click()
        assert page.get_by_text(HOSTILE).count() == 1  # shown as text: the script is words on the page
        page.screenshot(path=str(tmp_path / "timeline.png"), full_page=True)
        page.get_by_role("link", name="Use SQLite for storage").click()
        assert page.locator("svg.chain rect").count() == 3
        page.screenshot(path=str(tmp_path / "memory.png"), full_page=True)
        page.locator("svg.chain a").nth(2).click()
        assert "CockroachDB" in page.locator("h1").inner_text()
        page.get_by_role("link", name="Conflicts").first.click()
        page.screenshot(path=str(tmp_path / "conflicts.png"), full_page=True)
        page.get_by_role("button", name="Both stand").click()
        assert page.url.startswith(base + "/conflicts?decided=")
        assert page.get_by_text("No conflict waits for you").is_visible()
        page.get_by_role("link", name="Runs").first.click()
        page.locator("table.runs a").first.click()
        assert page.locator("h1").inner_text().startswith("Run ")
        page.screenshot(path=str(tmp_path / "run.png"), full_page=True)
        page.get_by_role("link", name="Review").first.click()
        page.screenshot(path=str(tmp_path / "review.png"), full_page=True)
        browser.close()
    assert problems == []
    assert all((tmp_path / f"{name}.png").stat().st_size > 5_000
               for name in ("overview", "timeline", "memory", "conflicts", "run", "review"))


def test_a_page_opened_without_the_token_shows_nothing(served: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        answer = page.goto(served.split("?")[0] + "timeline")
        assert answer is not None and answer.status == 403 and "no session" in page.content()
        browser.close()
