"""The viewer in a real browser: the distribution's headless Chromium, driven by Playwright (no browser download).

`.ci/run` installs Debian's chromium when it is missing and sets MEMACTORS_REQUIRE_BROWSER=1, so there a missing
browser fails these tests; on a machine without one they are skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.viewer.browser import CHROMIUM, FLAGS, chromium_page, serving
from tests.adapters.viewer.conftest import HOSTILE
from tests.conftest import Repo


@pytest.fixture
def served(viewer_store: Repo) -> Iterator[str]:
    """`memactors view` started as a user starts it; the URL it printed."""
    with serving(viewer_store.path) as url:
        yield url


def test_a_user_follows_a_memory_to_its_chain_and_resolves_a_conflict(served: str, tmp_path: Path) -> None:
    base = served.split("/?")[0]
    with chromium_page(served, dialogs_are_problems=True) as (page, problems):
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
