"""Deleting a document while its ingestion commits new chunks neither fails nor leaves orphans."""

from __future__ import annotations

import threading
import time
import uuid

import psycopg
import pytest

from rag.models import Chunk, Document
from rag.services import document_delete
from tests.support.processes import child_database_url


@pytest.mark.django_db(transaction=True)
def test_delete_waits_for_a_chunk_swap_in_flight(make_document) -> None:
    document = make_document("guide.txt", "Charge the battery indoors.")
    errors: list[BaseException] = []
    with psycopg.connect(child_database_url()) as ingestion:
        # The ingestion's swap: the guarded UPDATE locks the row, then chunks are written.
        ingestion.execute("UPDATE rag_document SET progress = 100 WHERE id = %s", (document.pk,))

        def delete() -> None:
            try:
                document_delete(document_id=document.pk)
            except BaseException as exc:  # recorded for the assertion below
                errors.append(exc)

        deleter = threading.Thread(target=delete)
        deleter.start()
        time.sleep(0.5)  # the delete is now waiting on the row lock
        assert deleter.is_alive()
        ingestion.execute(
            "INSERT INTO rag_chunk (id, document_id, workspace_id, ordinal, text, heading_path, bbox, metadata,"
            " token_count, embedding, embedding_model, embedding_dims, search_config, page_number, start_time,"
            " end_time) VALUES (%s, %s, %s, 0, 'late chunk', '[]', '[]', '{}', 2, '[1,0,0]',"
            " 'local/all-MiniLM-L6-v2', 3, 'english', NULL, NULL, NULL)",
            (uuid.uuid4(), document.pk, document.workspace_id),
        )
        ingestion.commit()
        deleter.join(timeout=30)
    assert errors == []
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Chunk.objects.filter(document_id=document.pk).exists()
