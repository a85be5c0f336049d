"""HTTP edges of the core app: the health check and the favicon."""

from __future__ import annotations

import functools
from pathlib import Path

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from core.selectors import health_report

FAVICON = Path(__file__).resolve().parent / "static" / "core" / "favicon.svg"


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report.as_json(), status=200 if report.ok else 503)


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for on every page: Parley's icon (an SVG, which they all draw)."""
    response = HttpResponse(_favicon_bytes(), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response


@functools.cache
def _favicon_bytes() -> bytes:
    return FAVICON.read_bytes()
