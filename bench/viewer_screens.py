"""Screenshots of every page of the viewer at 1280 and 420 px, rendered by the distribution's headless Chromium.

Run by hand: `python bench/viewer_screens.py [--out bench/results/viewer]`. It builds the browser tests' store in
a temporary git repository (a supersession chain, a memory captured three times, a conflict, a hostile memory,
proposed memories waiting), serves it with `memactors view` on 127.0.0.1 as a user starts it, and saves
`<page>-<width>.png` for the overview, the timeline (listed, searched, archived), a chain, a replaced memory,
the runs, a run, the conflicts, the review and a missing memory. Needs chromium and playwright; fetches nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.adapters.viewer.conftest import build_viewer_store  # noqa: E402
from tests.conftest import NOW, Repo, git, run_cli  # noqa: E402

WIDTHS = (1280, 420)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


def make_store(where: Path) -> Repo:
    """The browser tests' store, plus a decision captured three times that replaces an older one."""
    home = where / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Screens\n\temail = screens@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    os.environ.update({"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": str(home / ".config")})
    for key in [k for k in os.environ if k.startswith(("MEMACTORS_", "MEMORY_"))]:
        del os.environ[key]
    path = where / "project"
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    repo = Repo(path)
    repo.commit("initial")
    repo.capture("decisions", "Run the test suite with pytest and hypothesis",
                 "Plain unittest was replaced; property tests cover the retention bounds.",
                 when=NOW - timedelta(days=40))
    for day in (8, 7, 6):
        repo.commit(f"work on day {day}")
        repo.capture("decisions", "Run the tests with pytest, hypothesis and the real Chromium for the viewer",
                     "The viewer's browser tests drive Debian's Chromium through Playwright.",
                     when=NOW - timedelta(days=day))
    return build_viewer_store(repo, run_cli, where / "sessions")


def shoot(repo: Repo, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "view", "--no-open", "--repo",
                                str(repo.path)], stdout=subprocess.PIPE, text=True)
    saved = []
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", process.stdout.readline())[0]
        base = url.split("/?")[0]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(url)
                page.goto(base + "/timeline")
                titles = {a.inner_text(): a.get_attribute("href") for a in page.locator("a.title").all()}
                page.goto(base + "/runs")
                runs = [a.get_attribute("href") for a in page.locator("table.runs a").all()]
                pages = {"overview": "/", "timeline": "/timeline", "search": "/timeline?q=storage",
                         "archived": "/timeline?tier=archived",
                         "chain": titles["Switch storage from SQLite to PostgreSQL"],
                         "replaced": titles["Use SQLite for storage"],
                         "copies": titles["Run the tests with pytest, hypothesis and the real Chromium for the viewer"],
                         "hostile": next(v for k, v in titles.items() if k.startswith("<script>")),
                         "runs": "/runs", "run": runs[-1], "conflicts": "/conflicts", "review": "/review",
                         "missing": "/memory/no-such-memory"}
                for name, path in pages.items():
                    page.goto(base + path)
                    target = out / f"{name}-{width}.png"
                    page.screenshot(path=str(target), full_page=True)
                    saved.append(target)
                page.close()
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "viewer")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as where:
        repo = make_store(Path(where))
        git(repo.path, "log", "--oneline")
        for saved in shoot(repo, args.out):
            print(saved.relative_to(ROOT) if saved.is_relative_to(ROOT) else saved)


if __name__ == "__main__":
    main()
