"""The product's URLs plus one bench-only endpoint that starts the scripted runner and answers SSE.

``POST /api/v1/bench/stream {"query": ...}`` has the shape a streamed rag_search or chat turn has:
authenticate, open a stream owned by the caller, enqueue the runner, relay the stream.
Served only under ``bench.api.settings``; the product never mounts it.
"""

from __future__ import annotations

import os

from django.http import HttpResponse
from django.urls import path
from rest_framework.request import Request
from rest_framework.views import APIView

from api.models import Scope
from api.runners import stream_runner_start
from api.sse import EventStreamRenderer, sse_response
from bench.api.runner import RUNNER_NAME
from config.urls import handler404, handler500
from config.urls import urlpatterns as product_urlpatterns

__all__ = ["handler404", "handler500", "urlpatterns"]


class BenchStreamView(APIView):
    required_scope = Scope.RAG_SEARCH
    renderer_classes = [EventStreamRenderer]

    def post(self, request: Request) -> HttpResponse:
        kwargs = {"query": str(request.data.get("query", "")), "llm_base_url": os.environ["BENCH_LLM_BASE_URL"]}
        stream_id = stream_runner_start(principal=request.auth, runner=RUNNER_NAME, kwargs=kwargs)
        return sse_response(stream_id=stream_id, last_event_id=None)


urlpatterns = [path("api/v1/bench/stream", BenchStreamView.as_view()), *product_urlpatterns]
