"""The API's edge for every /api/ request: CORS, the body size cap and JSON-only errors.

Whatever produced an error under /api/ (a DRF view, Django's URL resolver, a plain view,
an unhandled exception, DEBUG pages), the client gets the {"code", "message", "extra"} shape.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin
from django.views import defaults

from api.cors import cors_decorate, cors_is_preflight, cors_preflight_response
from api.errors import ErrorCode, error_code_for_status
from api.exceptions import api_exception_handler, error_response

API_PREFIX = "/api/"
_KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIX)


class ApiEdgeMiddleware(MiddlewareMixin):
    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        if not is_api_path(request.path):
            return None
        # Refusals a visitor reads (a message past the length limit…) in the language the client
        # asks for: the widget sends its own. Only under /api/: the admin stays in English.
        translation.activate(translation.get_language_from_request(request))
        if cors_is_preflight(request):
            return cors_preflight_response(request)
        return None

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., HttpResponse],
        view_args: object,
        view_kwargs: object,
    ) -> HttpResponse | None:
        """The body cap, checked once the view is known, before anything reads the body."""
        if not is_api_path(request.path):
            return None
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_response(ErrorCode.INVALID_REQUEST, "Content-Length is not a number.")
        limit = request_body_limit(view_func)
        if length > limit:
            return error_response(ErrorCode.PAYLOAD_TOO_LARGE, extra={"max_bytes": limit})
        return None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_api_path(request.path):
            return None
        return api_exception_handler(exception, {"request": request, "view": None})

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if not is_api_path(request.path):
            return response
        if response.status_code >= 400 and not response.streaming and not _is_json(response):
            # A Django 404/405/500 page, or a DEBUG technical page: the API never answers HTML.
            replacement = error_response(
                error_code_for_status(response.status_code), status=response.status_code
            )
            for name in _KEPT_HEADERS:
                if response.has_header(name):
                    replacement[name] = response[name]
            response = replacement
        cors_decorate(request, response)
        translation.deactivate()
        return response


def request_body_limit(view_func: Callable[..., HttpResponse]) -> int:
    """API_MAX_REQUEST_BODY_BYTES, unless the view class names a larger cap for itself.

    A view opts in with ``max_request_body_bytes``: a callable returning bytes, read per
    request so settings overrides apply (the document upload endpoint does).
    """
    view_class = getattr(view_func, "view_class", None) or getattr(view_func, "cls", None)
    override = getattr(view_class, "max_request_body_bytes", None)
    return int(override()) if callable(override) else settings.API_MAX_REQUEST_BODY_BYTES


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


def not_found_handler(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's handler404: JSON on /api/ paths, the regular page elsewhere."""
    if is_api_path(request.path):
        return error_response(ErrorCode.NOT_FOUND)
    return defaults.page_not_found(request, exception)


def server_error_handler(request: HttpRequest) -> HttpResponse:
    if is_api_path(request.path):
        return error_response(ErrorCode.INTERNAL_ERROR)
    return defaults.server_error(request)
