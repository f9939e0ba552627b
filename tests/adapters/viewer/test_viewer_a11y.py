"""Every page of the viewer checked by axe-core in the real Chromium: no serious or critical WCAG 2.2 A/AA violation.

axe-core's script is the one the `axe-playwright-python` test extra ships (installed from PyPI with the tests,
never fetched at test time). The viewer's Content-Security-Policy forbids every script, so this test's browser
context alone bypasses it to inject axe; the pages themselves run none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from tests.adapters.viewer.browser import CHROMIUM, FLAGS
from tests.adapters.viewer.test_viewer_browser import served  # noqa: F401  (the fixture)
from tests.adapters.viewer.conftest import HOSTILE
from tests.conftest import Repo

#: The rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices (landmarks, a skip link...).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def _axe_script() -> str:
    from axe_playwright_python.base import AXE_FILE_PATH

    return AXE_FILE_PATH.read_text(encoding="utf-8")


def _pages(base: str, page) -> list[str]:
    """Every kind of page: from the overview, the timeline (listed and searched), memories, runs, problems."""
    paths = ["/", "/timeline", "/timeline?q=storage", "/timeline?tier=archived", "/runs", "/conflicts",
             "/review", "/memory/no-such-memory"]
    page.goto(base + "/timeline")
    titles = {a.inner_text(): a.get_attribute("href") for a in page.locator("a.title").all()}
    paths += [titles["Use SQLite for storage"], titles["Switch storage from PostgreSQL to CockroachDB"],
              titles[HOSTILE]]
    page.goto(base + "/runs")
    paths += [a.get_attribute("href") for a in page.locator("table.runs a").all()[:2]]
    return paths


@pytest.mark.parametrize("width", [1280, 420])
def test_every_page_has_no_serious_or_critical_accessibility_violation(served: str, width: int) -> None:  # noqa: F811
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "chromium is required here (MEMACTORS_REQUIRE_BROWSER=1): apt-get install chromium"
    base = served.split("/?")[0]
    script = _axe_script()
    found: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
        page = context.new_page()
        page.goto(served)
        paths = _pages(base, page)
        for path in paths:
            page.goto(base + path)
            page.add_script_tag(content=script)
            result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags},"
                                   " resultTypes: ['violations']})", TAGS)
            problems = [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
                        for v in result["violations"] if v["impact"] in ("serious", "critical")]
            # the first thing a keyboard reaches is the way past the header, and it leads to the main content
            page.keyboard.press("Tab")
            focused = page.evaluate("() => [document.activeElement.textContent,"
                                    " document.activeElement.getAttribute('href')]")
            if focused != ["Skip to the content", "#main"]:
                problems.append(f"the first Tab reaches {focused}, not the skip link")
            labels = page.evaluate("() => [...document.querySelectorAll('nav')]"
                                   ".map(n => n.getAttribute('aria-label'))")
            if not all(labels) or len(set(labels)) != len(labels):
                problems.append(f"navigation landmarks labelled {labels}")
            # drawings scale to the window and wide tables scroll in a region of their own: the page never sideways
            wide = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
            if wide[0] > wide[1]:
                problems.append(f"scrolls sideways: {wide[0]} px wide in a {wide[1]} px window")
            if problems:
                found[path] = problems
        browser.close()
    assert len(paths) >= 12
    assert found == {}, json.dumps(found, indent=1)
