"""The viewer as a user starts it: real `memactors view` processes on 127.0.0.1, real HTTP clients, and the
command line it opens a browser with."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.conftest import Repo, git


def new_repo(path: Path) -> Repo:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.com")
    made = Repo(path)
    made.commit("initial")
    made.capture("decisions", f"Use SQLite for storage in {path.name}", "One file is enough.")
    return made


@contextmanager
def viewer(repo: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """`memactors view` started as a user starts it: (the URL it printed, the process)."""
    process = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "view", "--repo", str(repo), *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    try:
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
        assert found, (line, process.stderr.read() if process.poll() is not None else "")
        yield found[0], process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_two_viewers_on_two_ports_keep_their_sessions_in_one_cookie_jar(tmp_path: Path, git_env) -> None:
    first, second = new_repo(tmp_path / "alpha"), new_repo(tmp_path / "beta")
    with viewer(first.path, "--no-open") as (url_a, _), viewer(second.path, "--no-open") as (url_b, _):
        base_a, base_b = url_a.split("/?")[0], url_b.split("/?")[0]
        with httpx.Client(timeout=60) as browser:  # one cookie jar for every port, as a browser keeps them
            for url in (url_a, url_b):
                opened = browser.get(url)
                assert opened.status_code == 303
                cookie = opened.headers["set-cookie"]
                assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
                assert browser.get(url.split("/?")[0] + opened.headers["location"]).status_code == 200
            # each still authorised after the other was opened, each showing its own repository
            for base, name in ((base_a, "alpha"), (base_b, "beta"), (base_a, "alpha")):
                page = browser.get(base + "/timeline")
                assert page.status_code == 200, (base, page.text[:200])
                assert f"Use SQLite for storage in {name}" in page.text
            names = sorted(c.name for c in browser.cookies.jar)
            assert len(names) == 2 and names == sorted({f"memactors_session_{b.rsplit(':', 1)[1]}"
                                                        for b in (base_a, base_b)})
            # a cookie of one viewer opens nothing on the other
            stranger = httpx.Client(timeout=60)
            for c in browser.cookies.jar:
                if c.name.endswith(base_a.rsplit(":", 1)[1]):
                    stranger.cookies.set(c.name, c.value, domain=c.domain, path=c.path)
            assert stranger.get(base_a + "/").status_code == 200
            assert stranger.get(base_b + "/").status_code == 403
            stranger.close()


def test_the_browser_opens_a_private_file_and_its_command_line_holds_no_token(repo: Repo, tmp_path: Path) -> None:
    record = tmp_path / "browser-argv.json"
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\nimport json, sys\n"
                       f"open({str(record)!r} + '.part', 'w').write(json.dumps(sys.argv))\n"
                       f"import os; os.replace({str(record)!r} + '.part', {str(record)!r})\n")
    browser.chmod(0o755)
    with viewer(repo.path, env={"BROWSER": str(browser)}) as (url, process):
        token = url.split("token=", 1)[1]
        deadline = time.monotonic() + 60
        while not record.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        argv = json.loads(record.read_text())
        assert argv[0] == str(browser) and len(argv) == 2, argv
        assert not any(token in arg for arg in argv), argv
        opened = Path(argv[1].removeprefix("file://"))
        assert opened.suffix == ".html" and opened.is_file(), argv
        assert opened.stat().st_mode & 0o777 == 0o600
        assert opened.parent.stat().st_mode & 0o777 == 0o700
        text = opened.read_text()
        assert f'content="0; url={url}"' in text and f'href="{url}"' in text
        with httpx.Client(timeout=60, follow_redirects=True) as client:  # the file leads to the viewer
            assert "<h1>Overview</h1>" in client.get(url).text
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    assert not opened.exists() and not opened.parent.exists()  # the key does not outlive the viewer


def test_a_100_kb_address_gets_a_short_readable_answer(repo: Repo) -> None:
    import http.client
    from urllib.parse import quote

    repo.capture("decisions", "Use SQLite for storage", "One file is enough.")
    with viewer(repo.path, "--no-open") as (url, _):
        base = url.split("/?")[0]
        with httpx.Client(timeout=60, follow_redirects=True) as client:
            assert client.get(url).status_code == 200
            cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)

            def get(path: str) -> tuple[int, str]:  # http.client: httpx refuses to send an address this long
                connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
                try:
                    connection.request("GET", path, headers={"Cookie": cookie})
                    answer = connection.getresponse()
                    return answer.status, answer.read().decode()
                finally:
                    connection.close()

            status, text = get("/timeline?q=" + quote("storage " * 12_800))
            assert status == 414, (status, text[:200])
            assert "too long" in text and 'href="/timeline"' in text and len(text) < 5_000
            status, text = get("/timeline?format=json&q=" + "x" * 100_000)
            assert status == 414 and "too long" in json.loads(text)["error"]
            assert client.get(base + "/timeline?q=storage").status_code == 200  # the server goes on
