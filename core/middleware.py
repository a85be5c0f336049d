"""Parley's own middleware: the Content-Security-Policy of every response, and keeping Django's
middleware chain in one thread under ASGI.

Django runs a sync-capable middleware in async mode whenever the handler below it is async, and a
`MiddlewareMixin` in async mode moves each of its `process_request` and `process_response` calls to
the request's thread and back: with WhiteNoise (sync only) in the middle of the stack, a request
crossed between the event loop and its thread about twenty times before reaching the view. Each
crossing wakes a thread, which on an idle machine (a VM's vCPU asleep) costs a millisecond or more.
SyncChainMiddleware, last in the stack, is sync only: Django then runs the whole chain synchronously,
entered once from the event loop (bench/api: the first SSE event of a streamed rag_search).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase


class SyncChainMiddleware:
    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)


class CspNonce:
    """A request's CSP nonce, made on first use: only a page that renders it pays for it, and only
    such a page's policy names it (``<style nonce="{{ request.csp_nonce }}">``)."""

    def __init__(self) -> None:
        self._value: str | None = None

    @property
    def used(self) -> bool:
        return self._value is not None

    def __str__(self) -> str:
        if self._value is None:
            self._value = secrets.token_urlsafe(16)
        return self._value


# Pages (the admin, the demo page, the agent console) load scripts and styles from Parley's own
# origin only; an inline <style> or <script> needs the request's nonce. No page may be framed.
PAGE_POLICY = (
    "default-src 'self'",
    "script-src 'self'{nonce}",
    "style-src 'self'{nonce}",
    # a bot's avatar may live on the customer's own site; the widget shows a source's preview from a
    # fetched blob (the API wants the key in a header, which an <img src> cannot send)
    "img-src 'self' data: blob: https:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
)
# A JSON body is data, never a document: should a browser render one, it may load nothing.
DATA_POLICY = "default-src 'none'; frame-ancestors 'none'"
_JSON_TYPES = ("application/json", "application/problem+json")


def content_security_policy(*, content_type: str, nonce: CspNonce | None) -> str | None:
    """The Content-Security-Policy of a response of this type (None: it sends none)."""
    if content_type.startswith("text/html"):
        source = f" 'nonce-{nonce}'" if nonce is not None and nonce.used else ""
        return "; ".join(PAGE_POLICY).format(nonce=source)
    if content_type.startswith(_JSON_TYPES):
        return DATA_POLICY
    return None  # files (a document's PDF in the browser's viewer), SSE, static assets


class ContentSecurityPolicyMiddleware:
    """Gives each request a nonce (``request.csp_nonce``) and each response its policy.

    The one place Parley's CSP is written; a view that sets its own header keeps it. Sync only,
    like SyncChainMiddleware (see this module's docstring).
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        nonce = CspNonce()
        request.csp_nonce = nonce  # type: ignore[attr-defined]  # templates read it off the request
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            policy = content_security_policy(
                content_type=response.get("Content-Type", ""), nonce=nonce
            )
            if policy is not None:
                response["Content-Security-Policy"] = policy
        return response
