"""The single sign-on edges: the redirect to the provider and its callback, whose refusals are pages.

Both are mozilla-django-oidc's views (state, nonce and the PKCE verifier kept in the session); the
callback turns every refusal (a token that fails a check, no workspace, a provider that errs) into a
page saying why, with the reason's stable code, instead of a bare redirect or a 500.
"""

from __future__ import annotations

import logging

import requests
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from core.errors import ParleyError
from sso.errors import SsoMisconfigured, SsoRefused

logger = logging.getLogger(__name__)


def _enabled() -> None:
    if not settings.OIDC_RP_CLIENT_ID:
        raise Http404("single sign-on is not configured")


class SsoLoginView(OIDCAuthenticationRequestView):  # type: ignore[misc]  # mozilla-django-oidc ships no type hints
    def get(self, request: HttpRequest) -> HttpResponse:
        _enabled()
        response: HttpResponse = super().get(request)
        return response


class SsoCallbackView(OIDCAuthenticationCallbackView):  # type: ignore[misc]  # mozilla-django-oidc ships no type hints
    def get(self, request: HttpRequest) -> HttpResponse:
        _enabled()
        try:
            response: HttpResponse = super().get(request)
        except (SsoRefused, SsoMisconfigured) as exc:
            return refusal_page(request, error=exc)
        except SuspiciousOperation as exc:
            # State or nonce not matching the session's: a replayed or forged callback.
            return refusal_page(
                request,
                error=SsoRefused(str(exc), code="sso_token_invalid", extra={"reason": "state"}),
            )
        except requests.RequestException as exc:
            # The token request refused (a wrong PKCE verifier, an expired code) or the provider down.
            return refusal_page(
                request,
                error=SsoRefused(
                    "The identity provider did not complete the sign-in.",
                    code="sso_provider_error",
                    extra={"status": getattr(exc.response, "status_code", None)},
                ),
            )
        return response

    def login_failure(self) -> HttpResponse:
        request = self.request
        description = request.GET.get("error_description") or request.GET.get("error")
        return refusal_page(
            request,
            error=SsoRefused(
                description or "The sign-in did not complete: start again from the login page.",
                code="sso_provider_error" if description else "sso_refused",
            ),
        )


def refusal_page(request: HttpRequest, *, error: ParleyError) -> HttpResponse:
    """Why single sign-on refused this person, as a page of the admin's look (403, or 500 for
    Parley's own misconfiguration), and the failed sign-in signalled as Django's own failures are."""
    logger.warning("single sign-on refused: %s (%s)", error.code, error.message)
    user_login_failed.send(
        sender=__name__, credentials={"method": "oidc", "code": error.code}, request=request
    )
    context = {
        **admin.site.each_context(request),
        "is_nav_sidebar_enabled": False,  # no one is signed in: the admin's app list means nothing
        "title": "Single sign-on refused",
        "error": error,
        "reason": error.extra.get("reason", ""),
        "local_passwords": settings.PARLEY_LOCAL_PASSWORDS,
    }
    return render(request, "sso/refused.html", context, status=error.http_status)
