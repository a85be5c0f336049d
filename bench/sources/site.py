"""A temporary copy of a published static site, served on 127.0.0.1 the way static hosts serve it:
a folder answers with its index.html, an unknown path with the site's 404.html and status 404, ETag and
Last-Modified from the file. The production origin its sitemaps and canonical links name is rewritten to
the local one while serving (the copy's files keep it), and the bench edits or deletes files of the copy."""

from __future__ import annotations

import contextlib
import email.utils
import gzip
import hashlib
import shutil
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".txt": "text/plain; charset=utf-8",
    ".css": "text/css",
    ".js": "application/javascript",
    ".json": "application/json",
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}


class LocalSite:
    def __init__(self, *, source: Path, production: str, host: str) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="parley-bench-site-")
        self.root = Path(self.tmp.name) / "site"
        shutil.copytree(source, self.root)
        self.production = production.rstrip("/")
        self.host = host
        self.requests = 0
        self.lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                site.serve(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.tmp.cleanup()

    def file_for(self, path: str) -> Path | None:
        relative = unquote(urlsplit(path).path).lstrip("/")
        candidate = (self.root / relative).resolve()
        if not candidate.is_relative_to(self.root.resolve()):
            return None
        if candidate.is_dir():
            candidate = candidate / "index.html"
        return candidate if candidate.is_file() else None

    def _body(self, file: Path) -> bytes:
        data = file.read_bytes()
        old, new = self.production.encode(), self.origin.encode()
        if file.suffix == ".gz":
            return gzip.compress(gzip.decompress(data).replace(old, new), mtime=0)
        if file.suffix in (".html", ".xml", ".txt"):
            return data.replace(old, new)
        return data

    def serve(self, handler: BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.requests += 1
        file = self.file_for(handler.path)
        status = 200
        if file is None:
            status, file = 404, self.root / "404.html"
        body = self._body(file)
        stat = file.stat()
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        modified = email.utils.formatdate(stat.st_mtime, usegmt=True)
        if status == 200 and handler.headers.get("If-None-Match") == etag:
            handler.send_response(304)
            handler.send_header("ETag", etag)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        handler.send_response(status)
        handler.send_header("Content-Type", TYPES.get(file.suffix, "application/octet-stream"))
        handler.send_header("Content-Length", str(len(body)))
        if status == 200:
            handler.send_header("ETag", etag)
            handler.send_header("Last-Modified", modified)
        handler.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client went away
            handler.wfile.write(body)
