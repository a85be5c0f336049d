"""A real local website for the website kind's tests: a threaded HTTP server on 127.0.0.1 whose pages a
test sets, changes, removes and breaks, that answers conditional GETs, streams bodies, and records every
request (and the most requests it served at once)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "docs.example.test"


@dataclass
class Page:
    body: bytes | Callable[[], Iterator[bytes]] = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    length: bool = True  # send Content-Length (streamed bodies never do)


@dataclass(frozen=True)
class Seen:
    path: str
    headers: dict[str, str]


def html(
    title: str,
    body: str,
    head: str = "",
    nav: str = "<a href='/'>Home</a> <a href='/about/'>About</a>",
) -> bytes:
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head>"
        f"<body><nav>{nav}</nav>"
        f"<main>{body}</main><footer>Copyright Example Ltd. Cookies: we use them.</footer></body></html>"
    ).encode()


def prose(topic: str, sentences: int = 12) -> str:
    """A paragraph of distinct text about a topic (enough words to be knowledge)."""
    return (
        "<p>"
        + " ".join(
            f"Sentence {n} explains how {topic} works in step {n} with detail number {n * 7}."
            for n in range(sentences)
        )
        + "</p>"
    )


class TestSite:
    __test__ = False  # not a test class, whatever its name

    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.requests: list[Seen] = []
        self.not_found = Page(status=404, body=html("Not found", "<h1>Not found</h1>"))
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.bytes_sent = 0
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                site.serve(self)

            def do_POST(self) -> None:
                site.serve(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str = "/", host: str = HOST) -> str:
        return f"http://{host}:{self.port}{path}"

    def start(self) -> TestSite:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def paths(self) -> list[str]:
        with self.lock:
            return [seen.path for seen in self.requests]

    def serve(self, handler: BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.requests.append(Seen(path=handler.path, headers=dict(handler.headers.items())))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self._answer(handler)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading (a page past its size limit)
        finally:
            with self.lock:
                self.in_flight -= 1

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        page = self.pages.get(handler.path, self.not_found)
        if page.delay:
            time.sleep(page.delay)
        etag = page.headers.get("ETag")
        if etag and handler.headers.get("If-None-Match") == etag and page.status == 200:
            handler.send_response(304)
            handler.send_header("ETag", etag)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        handler.send_response(page.status)
        if page.content_type:
            handler.send_header("Content-Type", page.content_type)
        for name, value in page.headers.items():
            handler.send_header(name, value)
        if callable(page.body):
            handler.send_header("Connection", "close")
            handler.end_headers()
            for chunk in page.body():
                handler.wfile.write(chunk)
                with self.lock:
                    self.bytes_sent += len(chunk)
            handler.close_connection = True
            return
        if page.length:
            handler.send_header("Content-Length", str(len(page.body)))
        handler.end_headers()
        handler.wfile.write(page.body)
