"""Pages that need JavaScript, rendered in Debian's Chromium through Playwright. Every request the page
makes is answered by the source's checked client (route interception), so the address checks, the
resolver and the credentials rule hold for scripts and XHR too; Chromium itself resolves nothing
(every name maps to NOTFOUND) and opens no WebSocket or service worker. Playwright's sync API belongs
to one thread: the browser lives in a thread of its own, and the fetching threads queue pages to it."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field

from django.conf import settings
from playwright.sync_api import Browser, Error, Route, WebSocketRoute, sync_playwright

from sources.website.client import FetchFailed, SafeClient

logger = logging.getLogger(__name__)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing reaches the network except through the route
]
_HOP_HEADERS = {
    "content-encoding",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
}


@dataclass
class _Job:
    url: str
    html: str
    future: Future[str] = field(default_factory=Future)


class Renderer:
    def __init__(self, *, client: SafeClient, limit: int) -> None:
        self.client = client
        self.limit = limit
        self.timeout = float(settings.PARLEY_SOURCES_RENDER_TIMEOUT_SECONDS)
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="parley-source-render", daemon=True)
        self._thread.start()

    def render(self, *, url: str, html: str) -> str:
        """The page's HTML once its scripts ran (the fetched `html` is served for `url` itself)."""
        job = _Job(url=url, html=html)
        self._jobs.put(job)
        try:
            return job.future.result(timeout=self.timeout * 2 + 30)
        except TimeoutError as exc:
            raise FetchFailed(f"{url}: rendering took too long", code="render_timeout") from exc
        except Error as exc:
            code = "render_timeout" if "Timeout" in str(exc) else "render_failed"
            raise FetchFailed(f"{url}: rendering failed ({exc.message})", code=code) from exc

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=30)

    def _run(self) -> None:
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
                )
                try:
                    while (job := self._jobs.get()) is not None:
                        try:
                            job.future.set_result(self._render(browser, job))
                        except Exception as exc:  # handed to the fetching thread, which records it
                            job.future.set_exception(exc)
                finally:
                    browser.close()
        except Exception as exc:  # the browser could not start: every queued page fails with it
            logger.exception("website source: Chromium could not be started")
            while True:
                try:
                    pending = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if pending is not None:
                    pending.future.set_exception(exc)

    def _render(self, browser: Browser, job: _Job) -> str:
        context = browser.new_context(service_workers="block", user_agent=self.client.user_agent)
        try:
            page = context.new_page()
            served_page = False

            def handle(route: Route) -> None:
                nonlocal served_page
                request = route.request
                if (
                    not served_page
                    and request.resource_type == "document"
                    and request.url.rstrip("/") == job.url.rstrip("/")
                ):
                    served_page = True
                    route.fulfill(
                        status=200, body=job.html, content_type="text/html; charset=utf-8"
                    )
                    return
                if not request.url.startswith(("http://", "https://")):
                    route.abort("blockedbyclient")
                    return
                try:
                    response = self.client.get(
                        request.url,
                        limit=self.limit,
                        headers={"Accept": request.headers.get("accept", "*/*")},
                        method=request.method,
                        content=request.post_data_buffer,
                    )
                except FetchFailed as exc:
                    logger.info(
                        "website source: rendering %s: %s refused (%s)",
                        job.url,
                        request.url,
                        exc.code,
                    )
                    route.abort("blockedbyclient")
                    return
                headers = {
                    k: v for k, v in response.headers.items() if k.lower() not in _HOP_HEADERS
                }
                route.fulfill(status=response.status, headers=headers, body=response.body)

            def refuse_socket(socket: WebSocketRoute) -> None:
                socket.close(code=1008, reason="not allowed while rendering a source's page")

            page.route("**/*", handle)
            page.route_web_socket("**/*", refuse_socket)
            page.goto(job.url, wait_until="load", timeout=self.timeout * 1000)
            # A page that keeps polling never goes idle: what it shows by then is what it says.
            with contextlib.suppress(Error):
                page.wait_for_load_state("networkidle", timeout=self.timeout * 1000)
            return page.content()
        finally:
            context.close()
