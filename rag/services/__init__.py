"""Write-side knowledge operations: add documents (`adding`); re-run, replace, delete and reclaim them, release a
quarantined chunk (`changes`); switch a workspace's embedding models (`embedding_models`).

Every path that queues ingestion does so through `queue.documents_ingest_enqueue`: after commit, once the
rows it names exist.
"""

from rag.services.adding import (
    TRANSCRIPTION_MISSING,
    NewFile,
    document_create,
    documents_create,
    documents_create_from_paths,
)
from rag.services.changes import (
    chunk_release,
    document_delete,
    document_file_replace,
    document_rerun,
    documents_reclaim_stuck,
)
from rag.services.embedding_models import workspace_embedding_model_set

__all__ = [
    "TRANSCRIPTION_MISSING",
    "NewFile",
    "chunk_release",
    "document_create",
    "document_delete",
    "document_file_replace",
    "document_rerun",
    "documents_create",
    "documents_create_from_paths",
    "documents_reclaim_stuck",
    "workspace_embedding_model_set",
]
