"""Keeping Django's middleware chain in one thread under ASGI.

Django runs a sync-capable middleware in async mode whenever the handler below it is async, and a
`MiddlewareMixin` in async mode moves each of its `process_request` and `process_response` calls to
the request's thread and back: with WhiteNoise (sync only) in the middle of the stack, a request
crossed between the event loop and its thread about twenty times before reaching the view. Each
crossing wakes a thread, which on an idle machine (a VM's vCPU asleep) costs a millisecond or more.
This middleware, last in the stack, is sync only: Django then runs the whole chain synchronously,
entered once from the event loop (bench/api: the first SSE event of a streamed rag_search).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase


class SyncChainMiddleware:
    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)
