"""rag's admin, a module a concern: documents (multi-file upload, status, re-run and delete, the
quarantined chunks with their release), chunks with their highlighted source preview, the
workspace's embedding and media models, and its fusion calibration (a panel of the workspace's page).

Django's autodiscovery imports this package: importing the modules registers their admins.
"""

from rag.admin.chunks import ChunkAdmin
from rag.admin.documents import DocumentAdmin
from rag.admin.fusion import WorkspaceFusionAdmin
from rag.admin.workspace_models import WorkspaceEmbeddingAdmin, WorkspaceMediaModelsAdmin

__all__ = [
    "ChunkAdmin",
    "DocumentAdmin",
    "WorkspaceEmbeddingAdmin",
    "WorkspaceFusionAdmin",
    "WorkspaceMediaModelsAdmin",
]
