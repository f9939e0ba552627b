"""The viewer's guard, as ASGI middleware: only this user's browser, on this machine, may read or change anything.

- The Host header must name the address the viewer listens on (127.0.0.1 or localhost with its port): a page
  elsewhere that rebinds its DNS name to 127.0.0.1 gets 400.
- The first request carries the random token printed with the URL; it sets a session cookie (HttpOnly,
  SameSite=Strict) and redirects to the same page without the token. Every other request needs the cookie:
  403 without it. Browsers keep cookies by host, not by port: the cookie's name carries the viewer's port, so
  viewers of two repositories (two ports) each keep their own session and none overwrites another's.
- A POST needs the page's CSRF token (derived from the session), and an Origin, when the browser sends one,
  of the viewer itself.
- No CORS header is ever sent; every answer says not to cache, sniff, frame or send a referrer elsewhere, and allows only
  the viewer's own scripts and styles.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The session cookie's name is this with the viewer's port after it (one cookie per viewer on 127.0.0.1).
COOKIE = "memactors_session"
HEADERS = [
    (b"content-security-policy", b"default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; "
                                 b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # "no-referrer" makes Chromium send `Origin: null` on POSTs
    (b"cache-control", b"no-store"),
    (b"x-frame-options", b"DENY"),
]


class Guard:
    """Wraps the viewer's app; `token` is what the printed URL carries, `port` where it listens."""

    def __init__(self, app: ASGIApp, *, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.session = secrets.token_urlsafe(32)
        self.cookie = f"{COOKIE}_{port}"
        self.hosts = {f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()}

    def csrf_token(self) -> str:
        return hmac.new(self.session.encode(), b"csrf", hashlib.sha256).hexdigest()

    def origin_ok(self, origin: bytes | None) -> bool:
        return origin is None or any(origin == b"http://" + host for host in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if headers.get(b"host") not in self.hosts:
            await _plain(send, 400, "bad Host header: open the viewer at the address `memactors view` printed")
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        if "token" in query:
            if not hmac.compare_digest(query["token"], self.token):
                await _plain(send, 403, "wrong token: use the URL `memactors view` printed")
                return
            rest = urlencode({k: v for k, v in query.items() if k != "token"})
            location = scope["path"] + (f"?{rest}" if rest else "")
            await _respond(send, 303, b"", [(b"location", location.encode()), (b"set-cookie", (
                f"{self.cookie}={self.session}; HttpOnly; SameSite=Strict; Path=/").encode())])
            return
        if not hmac.compare_digest(_cookie(headers.get(b"cookie", b""), self.cookie), self.session):
            await _plain(send, 403, "no session: open the viewer with the URL (and token) `memactors view` printed")
            return
        if scope["method"] not in ("GET", "HEAD", "POST"):
            await _plain(send, 405, "method not allowed")
            return
        if scope["method"] == "POST" and not self.origin_ok(headers.get(b"origin")):
            await _plain(send, 403, "cross-origin request refused")
            return
        scope["memactors.csrf"] = self.csrf_token()

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [h for h in message.get("headers", [])
                                      if h[0].lower() != b"access-control-allow-origin"] + HEADERS
            await send(message)

        await self.app(scope, receive, secured)


def _cookie(raw: bytes, wanted: str) -> str:
    for part in raw.decode("latin-1").split(";"):
        name, _, value = part.strip().partition("=")
        if name == wanted:
            return value
    return ""


async def _plain(send: Send, status: int, text: str) -> None:
    await _respond(send, status, (text + "\n").encode(), [(b"content-type", b"text/plain; charset=utf-8")])


async def _respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": headers + HEADERS + [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
