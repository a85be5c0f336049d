"""What the local platform servers (Slack, WhatsApp, Telegram, Teams) share: a threaded HTTP server on
a free port, started and stopped with the test session, and a request handler that reads a JSON (or
form) body and answers JSON, bytes or an error with headers."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs

from tests.support.processes import free_port


class PlatformHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def body(self) -> dict[str, Any]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if "json" in self.headers.get("Content-Type", "json"):
            loaded: dict[str, Any] = json.loads(raw or b"{}")
            return loaded
        return {k: v[0] for k, v in parse_qs(raw.decode()).items()}

    def bearer(self) -> str:
        return self.headers.get("Authorization", "").removeprefix("Bearer ").strip()

    def reply(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        """``payload``: bytes as they are, anything else as JSON."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        if not isinstance(payload, bytes):
            self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class PlatformServer:
    """Subclasses give ``handler()``, the PlatformHandler subclass answering for them."""

    def __init__(self) -> None:
        self.port = free_port()
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def base_url(self) -> str:
        """The API's base URL, as a channel's ``api_base_url``."""
        return self.root_url

    def handler(self) -> type[PlatformHandler]:
        raise NotImplementedError

    def start(self) -> Self:
        server = ThreadingHTTPServer(("127.0.0.1", self.port), self.handler())
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._server = server
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
