"""HTTP edges of the core app: the health check."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from core.selectors import health_report


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report.as_json(), status=200 if report.ok else 503)
