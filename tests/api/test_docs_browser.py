"""With the network cut (every request to another host aborted), Chromium renders /api/docs/ from Parley's own
static files (drf-spectacular-sidecar) and lists the API's operations. /favicon.ico, which browsers ask for on
every page, answers with Parley's icon."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.test import Client
from playwright.sync_api import Page, Request, Response, Route, expect

from tests.support.browser import artifact_path

LOCAL_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}


def _offline(page: Page) -> tuple[list[str], list[str], list[str]]:
    """Abort every non-local request; return the lists the aborted, the failed (4xx/5xx) and the served
    URLs fill."""
    blocked: list[str] = []
    failed: list[str] = []
    served: list[str] = []

    def route(route: Route, request: Request) -> None:
        if urlsplit(request.url).hostname in LOCAL_HOSTS:
            served.append(request.url)
            route.continue_()
        else:
            blocked.append(request.url)
            route.abort("internetdisconnected")

    def response(response: Response) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.url}")

    page.route("**/*", route)
    page.on("response", response)
    return blocked, failed, served


@pytest.mark.browser
@pytest.mark.django_db
@pytest.mark.timeout(120)
def test_the_api_docs_render_without_internet(page: Page, live_server: object) -> None:
    base = live_server.url  # type: ignore[attr-defined]
    blocked, failed, served = _offline(page)

    page.goto(f"{base}/api/docs/")

    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Parley API")
    operations = page.locator(".opblock-summary-path")
    expect(operations.first).to_be_visible()
    paths = set(operations.all_inner_texts())
    assert {"/api/v1/sessions", "/api/v1/rag_search"} <= {p.replace("\u200b", "") for p in paths}
    page.screenshot(path=str(artifact_path("api-docs-offline.png")), full_page=False)
    assert blocked == [], f"the docs asked for other hosts: {blocked}"
    assert failed == [], failed
    # Swagger UI itself came from the installed package, a pinned version, through Parley's static files.
    sidecar = [url for url in served if "/static/drf_spectacular_sidecar/swagger-ui-dist/" in url]
    assert any(url.endswith(".js") for url in sidecar) and any(
        url.endswith(".css") for url in sidecar
    )
    html = page.content()
    assert "cdn.jsdelivr" not in html and "@latest" not in html


@pytest.mark.django_db
def test_the_favicon_is_an_svg_icon() -> None:
    response = Client().get("/favicon.ico")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg") and b"</svg>" in response.content
