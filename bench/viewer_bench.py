"""Benchmark: how long the viewer's pages take on large stores, and what they look like.

Run by hand: `python bench/viewer_bench.py [--sizes 10000,100000] [--runs 10] [--json] [--screenshots]`.

Builds the semantic benchmark's synthetic store of each size, consolidates it once (local MiniLM, offline),
then requests each page through the viewer's ASGI app on trio (the same app `memactors view` serves, with its
guard): once cold (the first request reads the store), then each page once more (first) and `--runs` times
(warm: the store's view is kept until a ref moves), p50 in milliseconds; beside them the stylesheet (the HTTP
stack alone) as the baseline.
`--screenshots` also saves each page, rendered by the distribution's headless Chromium, to
bench/results/viewer/ (needs chromium and playwright).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.semantic_bench import NOW, build_store  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from memactors.adapters.viewer.server import build  # noqa: E402

PORT = 8124


async def measure(path: Path, runs: int) -> dict[str, dict[str, float]]:
    app, url = build(path, PORT)
    base = f"http://127.0.0.1:{PORT}"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base, timeout=600) as client:
        await client.get(url.removeprefix(base))
        start = time.perf_counter()
        first = (await client.get("/timeline?format=json")).json()
        cold = time.perf_counter() - start
        memory = first["memories"][0]["id"]
        last = first["pages"]
        pages = {"stylesheet (baseline)": "/static/style.css", "overview": "/", "timeline": "/timeline",
                 f"timeline, last page ({last})": f"/timeline?page={last}", "timeline, hot only": "/timeline?tier=hot",
                 "timeline, search": "/timeline?q=deploy+pipeline", "memory": f"/memory/{memory}",
                 "conflicts": "/conflicts"}
        results: dict[str, dict[str, float]] = {"cold: the store read, first timeline": {
            "first_ms": round(cold * 1000, 1), "p50_ms": round(cold * 1000, 1)}}
        for name, page in pages.items():
            times = []
            for _ in range(runs + 1):
                start = time.perf_counter()
                answer = await client.get(page)
                times.append(time.perf_counter() - start)
                assert answer.status_code == 200, (page, answer.text[:200])
            results[name] = {"first_ms": round(times[0] * 1000, 1),
                             "p50_ms": round(statistics.median(times[1:]) * 1000, 1)}
    return results


def screenshots(path: Path, out: Path) -> None:
    import re
    import subprocess

    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "view", "--no-open", "--repo",
                                str(path)], stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+", process.stdout.readline())[0]
        base = url.split("/?")[0]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox", "--disable-gpu",
                                                       "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url, timeout=600_000)
            page.screenshot(path=str(out / "overview.png"), full_page=True)
            for name, where in (("timeline", "/timeline"), ("conflicts", "/conflicts"), ("review", "/review"),
                                ("runs", "/runs")):
                page.goto(base + where, timeout=600_000)
                page.screenshot(path=str(out / f"{name}.png"), full_page=True)
            page.goto(base + "/timeline")
            page.locator("ul.memories a.title").first.click()
            page.screenshot(path=str(out / "memory.png"), full_page=True)
            browser.close()
    finally:
        process.terminate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--screenshots", action="store_true")
    args = parser.parse_args()
    report: dict[str, object] = {"machine": machine()}
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "store"
            build_store(path, size)
            services = build_services(MemoryStore(GitStore(path)), Settings(), FixedClock(NOW))
            started = time.perf_counter()
            trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
            consolidated = time.perf_counter() - started
            pages = trio.run(measure, path, args.runs)
            report[str(size)] = {"consolidated_s": round(consolidated, 1), "pages": pages}
            if args.screenshots and size == int(args.sizes.split(",")[0]):
                screenshots(path, ROOT / "bench" / "results" / "viewer")
        if not args.json:
            print(f"{size} memories (consolidated in {consolidated:.1f} s)")
            for name, figures in pages.items():
                print(f"  {name:<28} first {figures['first_ms']:>9.1f} ms   p50 {figures['p50_ms']:>8.1f} ms")
    if args.json:
        print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
