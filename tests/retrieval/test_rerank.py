"""The optional reranker against a real HTTP server (TEI and Cohere-style answers), and its fallback on errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bots.models import Bot
from core.models import Workspace
from rag.retrieval import RetrievalScope, chunks_retrieve
from tests.support.knowledge import document_ingested
from tests.support.processes import free_port

pytestmark = pytest.mark.django_db


class _Reranker(BaseHTTPRequestHandler):
    mode = "tei"
    requests: list[dict] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Reranker.requests.append({"path": self.path, **body})
        # Scores prefer the text mentioning "helmet", whatever the fused order was.
        scores = [1.0 if "helmet" in text else 0.1 for text in body["texts"]]
        if _Reranker.mode == "error":
            self.send_response(500)
            self.end_headers()
            return
        if _Reranker.mode == "cohere":
            payload: object = {
                "results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]
            }
        else:
            payload = [{"index": i, "score": s} for i, s in enumerate(scores)]
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def reranker(settings) -> Iterator[type[_Reranker]]:
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _Reranker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.RERANKER_URL = f"http://127.0.0.1:{server.server_address[1]}"
    _Reranker.requests = []
    try:
        yield _Reranker
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("mode", ["tei", "cohere", "error"])
def test_reranker_reorders_or_falls_back_to_the_fused_order(reranker, mode: str) -> None:
    workspace = Workspace.objects.create(name="rr", slug="rr")
    bot = Bot.objects.create(workspace=workspace, name="rr")
    text = (
        "# Prices\n\nA day rental of a bike costs 25 euros.\n\n"
        "# Extras\n\nEvery bike rental includes a free helmet and a lock."
    )
    document_ingested(workspace=workspace, text=text, bots=[bot])
    reranker.mode = mode
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    result = chunks_retrieve(
        scope=scope, question="How much does a day rental of a bike cost?", top_k=5
    )
    assert reranker.requests and reranker.requests[0]["path"] == "/rerank"
    assert reranker.requests[0]["query"] == "How much does a day rental of a bike cost?"
    if mode == "error":
        assert not result.reranked and result.hits[0].rerank_score is None
        assert [h.fused_score for h in result.hits] == sorted(
            (h.fused_score for h in result.hits), reverse=True
        )
    else:
        assert (
            result.reranked
            and "helmet" in result.hits[0].text
            and result.hits[0].rerank_score == 1.0
        )
        assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
