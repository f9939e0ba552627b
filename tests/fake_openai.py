"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions and embeddings wire format.

Behaviour is scripted per request (answers, invalid JSON, truncation,
429/500, slowness); when the script is empty a `responder` builds the
answer from the request. Every request body is recorded.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Responder = Callable[[dict[str, Any]], str]


#: How the server answers chat requests: "openai" honours response_format; "anthropic" behaves like
#: Anthropic's OpenAI-compatible endpoint (response_format ignored: a forced function call gets the answer
#: as its arguments, anything else gets prose); "anthropic-text" answers in text even when a call is forced.
Mode = Literal["openai", "anthropic", "anthropic-text"]


class FakeOpenAI:
    """`with FakeOpenAI() as server:` ... `server.base_url` ends in /v1."""

    def __init__(self, *, latency: float = 0.0, responder: Responder | None = None,
                 embedding_dimensions: int = 8, mode: Mode = "openai") -> None:
        self.mode = mode
        self.latency = latency
        self.responder: Responder = responder or (lambda request: "{}")
        self.embedding_dimensions = embedding_dimensions
        self.script: deque[tuple[Any, ...]] = deque()
        self.embedding_script: deque[int] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # --- scripting ---------------------------------------------------------------------

    def answer(self, content: str | dict[str, Any]) -> None:
        self.script.append(("content", content if isinstance(content, str) else json.dumps(content), "stop"))

    def truncated(self, content: str) -> None:
        self.script.append(("content", content, "length"))

    def fail(self, status: int, retry_after: float | None = None) -> None:
        self.script.append(("status", status, retry_after))

    def slow(self, seconds: float) -> None:
        self.script.append(("slow", seconds))

    def script_embeddings_failure(self, status: int) -> None:
        self.embedding_script.append(status)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- serving ---------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append({"path": self.path, "body": body,
                                          "authorization": self.headers.get("Authorization", "")})
                if fake.latency:
                    time.sleep(fake.latency)
                if self.path.endswith("/embeddings"):
                    self._embeddings(body)
                else:
                    self._chat(body)

            def _embeddings(self, body: dict[str, Any]) -> None:
                with fake._lock:
                    status = fake.embedding_script.popleft() if fake.embedding_script else None
                if status:
                    self._send(status, {"error": {"message": "scripted", "type": "server_error"}},
                               {"Retry-After": "0"})
                    return
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = []
                for i, text in enumerate(inputs):
                    digest = hashlib.sha256(str(text).encode()).digest()
                    data.append({"object": "embedding", "index": i,
                                 "embedding": [b / 255 - 0.5 for b in digest[: fake.embedding_dimensions]]})
                self._send(200, {"object": "list", "data": data, "model": body.get("model", "x"),
                                 "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})

            def _chat(self, body: dict[str, Any]) -> None:
                with fake._lock:
                    step = fake.script.popleft() if fake.script else None
                while step is not None and step[0] == "slow":
                    time.sleep(step[1])
                    with fake._lock:
                        step = fake.script.popleft() if fake.script else None
                if step is not None and step[0] == "status":
                    headers = {"Retry-After": str(step[2])} if step[2] is not None else {}
                    self._send(step[1], {"error": {"message": f"scripted {step[1]}", "type": "error",
                                                   "code": None, "param": None}}, headers)
                    return
                if step is None:
                    content, finish = fake.responder(body), "stop"
                else:
                    content, finish = step[1], step[2]
                prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
                message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
                if fake.mode != "openai":
                    if fake.mode == "anthropic" and _forced_function(body) and finish != "length":
                        message = {"role": "assistant", "content": "", "tool_calls": [{
                            "id": "toolu_fake", "type": "function",
                            "function": {"name": _forced_function(body), "arguments": content}}]}
                        finish = "tool_calls"
                    else:  # response_format is ignored: the model talks
                        message = {"role": "assistant", "content": f"Here is what I found: {content}"}
                self._send(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", "fake"),
                    "choices": [{"index": 0, "finish_reason": finish, "logprobs": None, "message": message}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": len(content) // 4,
                              "total_tokens": prompt + len(content) // 4},
                })

        return Handler


def _forced_function(body: dict[str, Any]) -> str | None:
    """The function name a request forces through tool_choice, if it offers that tool."""
    choice = body.get("tool_choice")
    if not isinstance(choice, dict) or choice.get("type") != "function":
        return None
    name = choice.get("function", {}).get("name")
    offered = {t.get("function", {}).get("name") for t in body.get("tools", []) if isinstance(t, dict)}
    return name if name in offered else None


class HungServer:
    """A TCP server on 127.0.0.1 that accepts connections, reads, and never answers.

    `connections` counts the connections it accepted (each one request the client sent).
    """

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.2)
        self._open: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self.connections = 0

    @property
    def base_url(self) -> str:
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}/v1"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._open.append(connection)  # held open, never answered

    def settled_connections(self, quiet: float = 0.5, limit: float = 10.0) -> int:
        """`connections` once no new one has arrived for `quiet` seconds: a client that gave up may have left
        its connection in the backlog for the accept thread (slow on a loaded machine) to count."""
        deadline = time.monotonic() + limit
        seen, since = self.connections, time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - since < quiet:
            time.sleep(0.05)
            if self.connections != seen:
                seen, since = self.connections, time.monotonic()
        return self.connections

    def __enter__(self) -> HungServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        for connection in self._open:
            connection.close()
        self._socket.close()
