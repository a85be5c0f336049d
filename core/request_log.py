"""A refused request (403) in one log line: who, which path, which permission was missing.

Django's ``django.request`` logger records every PermissionDenied with its traceback (about sixty
lines in the run log for a page a role may not open, issue 51). A refusal is an expected outcome, not
a fault: the filter below keeps the record, drops the traceback, and names the permission.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied

# The admin's URL names end with the view; the verb each one needs (Django's admin checks these).
_ADMIN_VIEW_VERBS = {
    "changelist": "view",
    "change": "change",  # "view" for a GET, below
    "add": "add",
    "delete": "delete",
    "history": "view",
}


def forbidden_permission(*, exception: BaseException, request: Any) -> str:
    """The permission a refused request lacked: the one the exception names (``role_view`` and the
    admins that check one name it, e.g. "prompts.change_bot"), else the one the admin URL implies
    ("bots.view_bot" for the bots list), else "unknown"."""
    named = str(exception).strip()
    if named:
        return named
    match = getattr(request, "resolver_match", None)
    url_name = getattr(match, "url_name", None) or ""
    if getattr(match, "namespace", "") == "admin" and url_name.count("_") >= 2:
        app_label, model, view = url_name.split("_", 2)
        verb = _ADMIN_VIEW_VERBS.get(view)
        if verb == "change" and request.method in ("GET", "HEAD"):
            verb = "view"  # a read-only change page is what a GET needs
        if verb is not None:
            return f"{app_label}.{verb}_{model}"
    return "unknown"


class ForbiddenOneLine(logging.Filter):
    """On ``django.request``: a PermissionDenied record becomes "Forbidden: user=… path=… missing=…",
    without its traceback. Every other record passes unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc_info = record.exc_info
        exception = exc_info[1] if exc_info else None
        if not isinstance(exception, PermissionDenied):
            return True
        request = getattr(record, "request", None)
        user = getattr(request, "user", None)
        username = (
            (user.get_username() or "?") if user is not None and user.is_authenticated else "-"
        )
        record.msg = "Forbidden: user=%s path=%s missing=%s"
        record.args = (
            username,
            getattr(request, "path", "?"),
            forbidden_permission(exception=exception, request=request),
        )
        record.exc_info = None
        record.exc_text = None
        return True
