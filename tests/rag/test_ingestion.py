"""The pipeline, run in-process: chunks land whole, re-runs are idempotent, bad input fails with a clear reason."""

from __future__ import annotations

import json
import random

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test import override_settings

from rag.ingestion import document_ingest
from rag.models import Chunk, Document
from rag.services import (
    NewFile,
    document_create,
    document_file_replace,
    document_rerun,
    documents_create,
)
from rag.tasks import document_ingest_task
from tests.rag import files

FRENCH = "La batterie du vélo se recharge en quatre heures avec le chargeur fourni. Rangez-la à mi-charge en hiver."


def _ingest(document: Document, claim: str = "claim-1") -> Document:
    document_ingest(document_id=str(document.pk), claim_id=claim)
    document.refresh_from_db()
    return document


@pytest.mark.django_db
def test_a_document_becomes_ready_with_embedded_searchable_chunks(make_document) -> None:
    document = _ingest(make_document("charge.txt", FRENCH))
    assert (document.status, document.progress, document.language) == ("ready", 100, "fr")
    assert document.embedding_model == "local/all-MiniLM-L6-v2" and len(document.checksum) == 64
    chunk = Chunk.objects.get(document=document)
    assert chunk.embedding_dims == 384 and len(chunk.embedding) == 384
    assert chunk.search_config == "french"
    assert chunk.metadata == {"filename": "charge.txt", "languages": ["fra"], "modality": "text"}
    # French stemming: "recharger" finds "recharge" through the french configuration.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM rag_chunk WHERE id = %s AND search_vector @@ plainto_tsquery('french', 'recharger')",
            [chunk.pk],
        )
        assert cursor.fetchone()[0] == 1


@pytest.mark.django_db
def test_stored_chunks_keep_every_field_and_the_full_text_vector_of_heading_and_text(
    make_document,
) -> None:
    markdown = (
        "# Entretien\n\n## Batterie\n\n"
        + FRENCH
        + "\n\n## Pneus « été »\n\nGonflez les pneus chaque mois.\n"
    )
    document = _ingest(make_document("guide.md", markdown))
    chunks = list(Chunk.objects.filter(document=document).order_by("ordinal"))
    assert [chunk.ordinal for chunk in chunks] == list(range(len(chunks))) and len(chunks) >= 2
    assert chunks[-1].heading_path == ["Entretien", "Pneus « été »"]
    assert all(
        chunk.token_count > 0 and chunk.bbox == [] and chunk.page_number is None for chunk in chunks
    )
    # The INSERT's tsvector is SearchVector(heading path, A) + SearchVector(text, B) through parley_tsvector:
    # the french configuration, then accents folded (the analysis BM25's query gets too).
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT search_vector::text, search_vector = setweight(parley_tsvector('french', %s), 'A')"
            " || setweight(parley_tsvector('french', %s), 'B') FROM rag_chunk WHERE id = %s",
            [
                json.dumps(chunks[-1].heading_path, ensure_ascii=False),
                chunks[-1].text,
                chunks[-1].pk,
            ],
        )
        vector, same = cursor.fetchone()
    assert same and "'pneus':" in vector and "'gonfl':" in vector


@pytest.mark.django_db
def test_an_unchanged_file_and_model_is_skipped(make_document) -> None:
    document = _ingest(make_document("notes.txt", FRENCH))
    chunk_ids = list(Chunk.objects.filter(document=document).values_list("pk", flat=True))
    assert document_rerun(document_id=document.pk, force=False)
    assert document_ingest(document_id=str(document.pk), claim_id="claim-2") == "skipped"
    assert list(Chunk.objects.filter(document=document).values_list("pk", flat=True)) == chunk_ids
    assert document_rerun(document_id=document.pk, force=True)
    assert document_ingest(document_id=str(document.pk), claim_id="claim-3") == "ready"
    assert Chunk.objects.filter(document=document).count() == len(chunk_ids)
    assert not Chunk.objects.filter(pk__in=chunk_ids).exists()  # replaced, never duplicated


@pytest.mark.django_db
def test_the_task_is_enqueued_only_after_commit(
    workspace, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        document = document_create(
            workspace=workspace, file=ContentFile(b"hello there", name="a.txt")
        )
    assert len(callbacks) == 1
    assert Document.objects.get(pk=document.pk).status == "pending"


BAD_INPUTS = [
    (
        "corrupt.pdf",
        b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without xref",
        "corrupt_pdf",
        "damaged",
    ),
    (
        "locked.pdf",
        files.pdf_bytes(pages=[["Secret line."]], encrypt="s3cret"),
        "encrypted_pdf",
        "password",
    ),
    ("empty.txt", b"", "empty_file", "empty"),
    ("blank.md", b"  \n\n ", "empty_file", "empty"),
    ("archive.exe", b"MZ\x90\x00binary", "unsupported_type", "not supported"),
    (
        "noise.txt",
        random.Random(7).randbytes(4096).replace(b"\x00", b"\x01"),
        "unknown_encoding",
        "encoding",
    ),
    (
        "binary.txt",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
        "unknown_encoding",
        "binary",
    ),
    ("fake.docx", b"PK not really a zip", "corrupt_docx", "damaged"),
    ("scan.pdf", files.pdf_bytes(pages=[[]], heading=""), "no_text", "ocr"),
]


class _BrokenFile(ContentFile):
    def chunks(self, chunk_size=None):  # type: ignore[no-untyped-def]
        raise OSError("the upload was cut")


@pytest.mark.django_db
def test_a_batch_of_files_lands_whole_or_not_at_all(
    workspace, bot, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    good = [
        NewFile(file=ContentFile(f"Note {n}.".encode(), name=f"note-{n}.txt")) for n in range(3)
    ]
    with django_capture_on_commit_callbacks() as callbacks:
        documents = documents_create(workspace=workspace, files=good, bots=[bot])
    sent: list[str] = []
    monkeypatch.setattr(
        document_ingest_task, "apply_async", lambda args, **options: sent.append(args[0])
    )
    for (
        callback
    ) in callbacks:  # after commit, through one broker connection: one message per document
        callback()
    assert sorted(sent) == sorted(str(d.pk) for d in documents)
    assert {d.pk for d in bot.documents.all()} == {d.pk for d in documents}
    assert all(default_storage.exists(d.file.name) for d in documents)
    before = set(Document.objects.values_list("pk", flat=True))
    with pytest.raises(OSError, match="cut"), django_capture_on_commit_callbacks() as callbacks:
        documents_create(
            workspace=workspace, files=[*good, NewFile(file=_BrokenFile(b"x", name="cut.txt"))]
        )
    assert not callbacks and set(Document.objects.values_list("pk", flat=True)) == before
    folder = f"documents/{workspace.pk}"
    on_disk = {
        f"{folder}/{sub}/{name}"
        for sub in default_storage.listdir(folder)[0]
        for name in default_storage.listdir(f"{folder}/{sub}")[1]
    }
    assert on_disk == {
        d.file.name for d in documents
    }  # the files of the failed batch were removed again


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "data", "code", "phrase"), BAD_INPUTS, ids=[case[2] for case in BAD_INPUTS]
)
def test_bad_input_fails_with_a_clear_reason_and_no_chunks(
    make_document, name, data, code, phrase
) -> None:
    good = _ingest(
        make_document("good.txt", "Inflate the tyres to the pressure printed on their side.")
    )
    bad = _ingest(make_document(name, data))
    assert (bad.status, bad.error_code) == ("failed", code)
    assert phrase in bad.error.lower()
    assert not Chunk.objects.filter(document=bad).exists() and bad.chunk_count == 0
    good.refresh_from_db()
    assert good.status == "ready" and Chunk.objects.filter(document=good).count() == 1


@pytest.mark.django_db
@override_settings(PARLEY_UPLOAD_MAX_BYTES=1024)
def test_a_file_over_the_size_limit_is_refused_and_not_stored(make_document) -> None:
    document = make_document("big.txt", "word " * 1000)
    assert (document.status, document.error_code) == ("failed", "file_too_large")
    assert "1,024-byte limit" in document.error
    assert not document.file


@pytest.mark.django_db
@override_settings(PARLEY_UPLOAD_MAX_BYTES=512 * 1024)
def test_a_docx_zip_bomb_is_refused_before_inflating(make_document) -> None:
    bomb = files.zip_bomb_docx_bytes(expanded_bytes=16 * 1024 * 1024)
    assert len(bomb) < 512 * 1024  # it passes the upload limit...
    document = _ingest(make_document("bomb.docx", bomb))
    assert (document.status, document.error_code) == (
        "failed",
        "zip_bomb",
    )  # ...but not the expansion check
    assert "zip bomb" in document.error


@pytest.mark.django_db
def test_a_failed_document_can_be_fixed_and_rerun(make_document) -> None:
    document = _ingest(make_document("broken.pdf", b"%PDF-1.4 nothing useful"))
    assert document.status == "failed"
    document_file_replace(
        document=document, file=ContentFile(files.pdf_bytes(pages=[["Fixed."]]), name="fixed.pdf")
    )
    document = _ingest(document, claim="claim-fix")
    assert (document.status, document.error, document.filename) == ("ready", "", "fixed.pdf")
    assert Chunk.objects.get(document=document).page_number == 1


@pytest.mark.django_db
def test_a_ready_document_whose_new_file_is_bad_keeps_no_stale_chunks(make_document) -> None:
    document = _ingest(make_document("guide.txt", FRENCH))
    document_file_replace(document=document, file=ContentFile(b"", name="guide.txt"))
    document = _ingest(document, claim="claim-2")
    assert document.status == "failed" and not Chunk.objects.filter(document=document).exists()


@pytest.mark.django_db
def test_a_document_stuck_in_processing_is_reclaimed(
    make_document, django_capture_on_commit_callbacks
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from rag.services import documents_reclaim_stuck

    document = make_document("stuck.txt", FRENCH)
    long_ago = timezone.now() - timedelta(hours=2)
    Document.objects.filter(pk=document.pk).update(
        status="processing", claim_id="dead-task", heartbeat_at=long_ago
    )
    # A stale claim is taken over by another message.
    assert document_ingest(document_id=str(document.pk), claim_id="someone-else") == "ready"

    Document.objects.filter(pk=document.pk).update(
        status="processing", claim_id="dead-task", heartbeat_at=long_ago
    )
    with django_capture_on_commit_callbacks() as callbacks:
        assert documents_reclaim_stuck() == 1
    document.refresh_from_db()
    assert document.status == "pending" and len(callbacks) == 1


@pytest.mark.django_db
def test_a_live_claim_is_not_taken_by_a_second_message(make_document) -> None:
    from django.utils import timezone

    document = make_document("busy.txt", FRENCH)
    Document.objects.filter(pk=document.pk).update(
        status="processing", claim_id="live", heartbeat_at=timezone.now()
    )
    assert document_ingest(document_id=str(document.pk), claim_id="duplicate") == "not_claimed"


@pytest.mark.django_db
def test_the_ingest_command_inline_reads_folders_and_prints_a_summary(
    workspace, bot, tmp_path
) -> None:
    import io

    from django.core.management import call_command

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tyres.md").write_text(
        "# Tyres\n\nInflate them to the pressure printed on their side."
    )
    (tmp_path / "broken.pdf").write_bytes(b"not a pdf")
    out = io.StringIO()
    call_command(
        "ingest",
        str(tmp_path),
        "--workspace",
        workspace.slug,
        "--bot",
        bot.name,
        "--inline",
        stdout=out,
    )
    text = out.getvalue()
    assert (
        "1 ready, 1 not ready, of 2 documents." in text
        and "does not start with a PDF header" in text
    )
    assert Document.objects.get(filename="tyres.md").status == "ready"


def test_a_worker_loads_the_language_identifier_before_its_pool_forks() -> None:
    from rag.tasks import ingestion_preload
    from textmodels.language import language_identifier

    language_identifier.cache_clear()
    ingestion_preload()  # connected to worker_init: it runs in the worker's main process
    assert language_identifier.cache_info().currsize == 1
    assert (
        language_identifier.cache_info().hits == 0
    )  # loaded by the preload, not by a first document
