"""Knowledge state: documents (`documents`), their chunks and passages (`chunks`), and each workspace's model
choices and full-text statistics (`workspace`)."""

from rag.models.chunks import (
    INDEXED_DIMENSIONS,
    Chunk,
    ChunkPassages,
    embedding_as,
    embedding_half,
)
from rag.models.documents import Document, document_upload_to
from rag.models.workspace import (
    CorpusStat,
    TermStat,
    WorkspaceEmbedding,
    WorkspaceFusion,
    WorkspaceMediaModels,
)

__all__ = [
    "INDEXED_DIMENSIONS",
    "Chunk",
    "ChunkPassages",
    "CorpusStat",
    "Document",
    "TermStat",
    "WorkspaceEmbedding",
    "WorkspaceFusion",
    "WorkspaceMediaModels",
    "document_upload_to",
    "embedding_as",
    "embedding_half",
]
