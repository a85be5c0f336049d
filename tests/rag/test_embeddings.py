"""Embedding providers: the real openai client against a local OpenAI-compatible server, model switches that
re-embed without mixing models or dimensions, and the per-dimension HNSW index actually used by a query."""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection
from django.test import override_settings

from rag.errors import TransientIngestError
from rag.ingestion import document_ingest
from rag.models import Chunk, Document
from rag.selectors import chunks_by_vector_distance, workspace_embedding_model
from rag.services import workspace_embedding_model_set
from textmodels.embeddings import embed_query

DIMS = 8


class _EmbeddingsServer(BaseHTTPRequestHandler):
    mode = "ok"  # ok | unavailable | refuse | refuse_marked (refuse inputs that contain MARKED)
    calls: list[dict] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append(body)
        marked = any("MARKED" in text for text in body["input"])
        if self.mode in {"unavailable", "refuse"} or (self.mode == "refuse_marked" and marked):
            status = 503 if self.mode == "unavailable" else 400
            self._reply(status, {"error": {"message": f"mode {self.mode}", "type": "test"}})
            return
        data = [
            {"object": "embedding", "index": i, "embedding": _vector(text)}
            for i, text in enumerate(body["input"])
        ]
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        self._reply(200, {"object": "list", "data": data, "model": body["model"], "usage": usage})

    def _reply(self, status: int, payload: dict) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


def _vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [byte / 255 + 0.01 for byte in digest[:DIMS]]


@pytest.fixture
def openai_server() -> Iterator[type[_EmbeddingsServer]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _EmbeddingsServer.mode = "ok"
    _EmbeddingsServer.calls = []
    with override_settings(
        PARLEY_EMBEDDING_OPENAI_BASE_URL=f"http://127.0.0.1:{server.server_port}/v1"
    ):
        yield _EmbeddingsServer
    server.shutdown()


def _model() -> str:
    return f"openai/fake-{uuid.uuid4().hex[:6]}"  # a fresh name: providers are cached per process


@pytest.mark.django_db
def test_switching_a_workspace_model_re_embeds_in_the_background_without_mixing(
    openai_server, make_document, workspace, django_capture_on_commit_callbacks
) -> None:
    document = make_document(
        "guide.txt", "Charge the battery indoors. Store it half charged in winter."
    )
    document_ingest(document_id=str(document.pk), claim_id="c1")
    model = _model()
    with django_capture_on_commit_callbacks() as callbacks:
        assert workspace_embedding_model_set(workspace=workspace, embedding_model=model) == 1
    assert len(callbacks) == 1 and workspace_embedding_model(workspace_id=workspace.pk) == model
    assert document_ingest(document_id=str(document.pk), claim_id="c2") == "ready"
    chunks = Chunk.objects.filter(document=document)
    assert set(chunks.values_list("embedding_model", "embedding_dims")) == {(model, DIMS)}
    assert openai_server.calls[-1]["model"] == model.removeprefix("openai/")
    query = embed_query("battery in winter", model_id=model)
    assert len(query) == DIMS
    scope = Chunk.objects.filter(workspace=workspace)
    found = chunks_by_vector_distance(chunks=scope, model_id=model, query_vector=query)
    assert [chunk.document_id for chunk in found] == [document.pk]
    old = chunks_by_vector_distance(
        chunks=Chunk.objects.all(),
        model_id="local/all-MiniLM-L6-v2",
        query_vector=embed_query("battery"),
    )
    assert not old.filter(
        workspace=workspace
    ).exists()  # nothing of the old model is left to mix in


@pytest.mark.django_db
@override_settings(PARLEY_INGEST_MAX_ATTEMPTS=2, LLM_MAX_RETRIES=1, LLM_RETRY_BACKOFF=0.01)
def test_an_unavailable_endpoint_is_retried_then_fails_with_its_reason(
    openai_server, make_document, workspace
) -> None:
    from rag.models import WorkspaceEmbedding

    WorkspaceEmbedding.objects.create(workspace=workspace, embedding_model=_model())
    openai_server.mode = "unavailable"
    document = make_document("guide.txt", "Charge the battery indoors.")
    with pytest.raises(TransientIngestError):
        document_ingest(document_id=str(document.pk), claim_id="task-1")
    assert len(openai_server.calls) == 2  # the gateway's own retry, before the task's
    document.refresh_from_db()
    assert (
        document.status == "pending" and document.claim_id == "" and "Retrying" in document.error
    )  # claim released
    assert document_ingest(document_id=str(document.pk), claim_id="task-1") == "failed"
    document.refresh_from_db()
    assert (document.status, document.error_code) == ("failed", "gave_up")
    assert "Gave up after 2 attempts" in document.error and "unavailable" in document.error


@pytest.mark.django_db
def test_a_refused_request_fails_at_once(openai_server, make_document, workspace) -> None:
    from rag.models import WorkspaceEmbedding

    WorkspaceEmbedding.objects.create(workspace=workspace, embedding_model=_model())
    openai_server.mode = "refuse"
    document = make_document("guide.txt", "Charge the battery indoors.")
    assert document_ingest(document_id=str(document.pk), claim_id="task-1") == "failed"
    assert len(openai_server.calls) == 1  # a permanent error is not retried
    document.refresh_from_db()
    assert document.error_code == "embedding_failed" and "refused" in document.error


@pytest.mark.django_db
def test_vector_search_uses_the_partial_hnsw_index_of_its_dimension(
    make_document, workspace
) -> None:
    for n in range(3):
        document = make_document(f"d{n}.txt", f"Paragraph {n} about tyres, brakes and batteries.")
        document_ingest(document_id=str(document.pk), claim_id=f"c{n}")
    assert Document.objects.filter(workspace=workspace, status="ready").count() == 3
    query = chunks_by_vector_distance(
        chunks=Chunk.objects.filter(workspace=workspace, shared_indexed=True),
        model_id="local/all-MiniLM-L6-v2",
        query_vector=embed_query("brakes"),
    )[:5]
    with connection.cursor() as cursor:
        # On a handful of rows the planner may prefer the workspace index plus a sort; forbid both
        # so the plan shows whether the partial HNSW index can serve this query's ordering at all.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        plan = query.explain()
    assert "chunk_embedding_half_384" in plan
    assert len(list(query)) == 3


@pytest.mark.django_db
def test_a_refused_batch_is_embedded_one_document_at_a_time(
    openai_server, make_document, workspace
) -> None:
    from rag.models import WorkspaceEmbedding

    WorkspaceEmbedding.objects.create(workspace=workspace, embedding_model=_model())
    openai_server.mode = "refuse_marked"
    texts = [
        "Charge the battery indoors.",
        "MARKED text the endpoint refuses.",
        "Oil the chain.",
        "Check the brakes.",
    ]
    documents = [make_document(f"d{n}.txt", text) for n, text in enumerate(texts)]
    assert (
        document_ingest(document_id=str(documents[0].pk), claim_id="task-1", batch_limit=8)
        == "ready"
    )
    states = {
        d.filename: (d.status, d.error_code) for d in Document.objects.filter(workspace=workspace)
    }
    # The batch (the first three) failed as a whole; alone, only the refused document fails.
    assert states == {
        "d0.txt": ("ready", ""),
        "d1.txt": ("failed", "embedding_failed"),
        "d2.txt": ("ready", ""),
        "d3.txt": ("pending", ""),
    }
    calls = [call["input"] for call in openai_server.calls]
    # Chunks are embedded with their title ("d0\n\n…"); each stored document's passages follow it
    # (rag.passages, made at ingestion), the refused document's never.
    assert [len(texts) for texts in calls if "\n\n" in texts[0]] == [3, 1, 1, 1]
    passages = [texts for texts in calls if "\n\n" not in texts[0]]
    assert passages == [["Charge the battery indoors."], ["Oil the chain."]]


def test_the_local_query_vector_is_the_batch_vector_bit_for_bit() -> None:
    from textmodels.embeddings import LOCAL_MODEL_ID, embedding_provider_get

    provider = embedding_provider_get(model_id=LOCAL_MODEL_ID)
    texts = [
        "How long does the virus survive on surfaces?",
        "",
        "Ça va ? 你好 🙂 \n\t",
        "word " * 600,  # past the model's 256 tokens: truncated the same way
    ]
    for text in texts:
        assert provider.embed_query(text) == provider.embed_texts([text])[0]


def test_bfloat16_vectors_are_float32_ones_to_five_decimals_and_the_setting_decides() -> None:
    """textmodels.embeddings.precision: on a CPU without native bfloat16 the product stays in float32; "on"
    still works there (emulated, only slower), so the comparison below runs on every machine."""
    import numpy as np

    from textmodels.embeddings import LOCAL_MODEL_ID, embedding_provider_get
    from textmodels.embeddings.precision import bf16_native, embedding_bf16

    for choice, expected in (("on", True), ("off", False), ("auto", bf16_native())):
        with override_settings(PARLEY_EMBEDDING_BF16=choice):
            assert embedding_bf16() is expected
    provider = embedding_provider_get(model_id=LOCAL_MODEL_ID)
    texts = ["How long does the virus survive on surfaces?", "Ça va ? 你好 🙂", "word " * 600, ""]
    chosen = provider.bf16
    try:
        vectors = {}
        for bf16 in (False, True):
            provider.bf16 = bf16
            vectors[bf16] = np.asarray(provider.embed_texts(texts))
            # The question's path and a batch's give one vector, in both precisions.
            for text in texts:
                assert provider.embed_query(text) == provider.embed_texts([text])[0]
    finally:
        provider.bf16 = chosen
    assert vectors[True].shape == (4, 384)
    assert not np.array_equal(vectors[True], vectors[False])  # bfloat16 did run
    # The weights cast once on load give what autocast alone gives, casting them on every call.
    assert np.array_equal(vectors[True], _autocast_only_vectors(texts))
    cosines = (vectors[True] * vectors[False]).sum(axis=1)
    assert cosines.min() > 0.9999, cosines
    assert np.allclose(np.linalg.norm(vectors[True], axis=1), 1.0, atol=1e-5)


def _autocast_only_vectors(texts: list[str]) -> object:
    import torch
    from sentence_transformers import SentenceTransformer

    from rag.tokens import MODEL_DIR

    model = SentenceTransformer(str(MODEL_DIR), device="cpu", local_files_only=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)


_THREAD_LIMIT_CHILD = """
import json, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
import numpy as np
import textmodels.embeddings.local as local
from textmodels.embeddings import LOCAL_MODEL_ID
from textmodels.embeddings.precision import BF16_PROBE_TEXTS

def provider():
    return local.LocalProvider(model_id=LOCAL_MODEL_ID, batch_size=32, threads=2, bf16=True)

capped = provider()
fast = np.asarray(capped.embed_texts(list(BF16_PROBE_TEXTS)))
capped.bf16 = False
exact = np.asarray(capped.embed_texts(list(BF16_PROBE_TEXTS)))
local.openmp_thread_limit = lambda: 0  # the cap taken away: the load's own check must see it
uncapped = provider()
print(json.dumps({"cosine": float((fast * exact).sum(axis=1).min()), "uncapped_bf16": uncapped.bf16}))
"""


def test_bfloat16_under_an_openmp_thread_limit_gives_float32_vectors_or_is_turned_off() -> None:
    """OCR sets OMP_THREAD_LIMIT=1 for Tesseract, so the ingestion worker's OpenMP runs one thread while
    torch was told two: oneDNN's bfloat16 kernels then left part of their work undone (cosine 0.27 to
    float32). Torch's threads are capped at the limit, and a model whose bfloat16 vectors still differ
    turns bfloat16 off on load."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "PARLEY_EMBEDDING_BF16": "on"}
    result = subprocess.run(
        [sys.executable, "-c", _THREAD_LIMIT_CHILD],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["cosine"] > 0.9999, figures
    from textmodels.embeddings.precision import bf16_native

    if bf16_native():  # the fault was seen with the hardware's kernels; emulation may not have it
        assert figures["uncapped_bf16"] is False, result.stderr[-2000:]
        assert "bfloat16 vectors differ from float32 ones" in result.stderr
