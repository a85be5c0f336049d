"""The documents a search may read (the scope CTE every retrieval statement starts from), and their languages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection

# The documents in scope; shared by the plan statement and the query, so both read the same boundary.
SCOPE_CTE = """
scope AS (
    SELECT d.id, d.language, d.chunk_count, d.chunks_apart FROM rag_document AS d
    WHERE d.workspace_id = %(workspace_id)s AND d.status = 'ready'
      AND (%(external_user_id)s::text IS NULL OR d.external_user_id IN ('', %(external_user_id)s::text))
      AND (%(document_ids)s::uuid[] IS NULL OR d.id = ANY(%(document_ids)s::uuid[]))
      AND (
        (d.conversation_id IS NULL AND (%(bot_ids)s::uuid[] IS NULL OR EXISTS (
            SELECT 1 FROM rag_document_bots AS db
            WHERE db.document_id = d.id AND db.bot_id = ANY(%(bot_ids)s::uuid[]))))
        OR d.conversation_id = %(conversation_id)s::uuid
      )
)"""


# The languages of the documents in scope, for a question asked in another one (`scope_languages`).
_LANGUAGES_SQL = (
    "WITH"
    + SCOPE_CTE
    + """
SELECT DISTINCT language FROM scope WHERE language <> '' ORDER BY language
"""
)


def scope_languages(
    *,
    workspace_id: str,
    bot_ids: Sequence[str] | None,
    conversation_id: str | None,
    external_user_id: str | None,
    document_ids: Sequence[str] | None,
) -> list[str]:
    """The ISO 639-1 languages of the ready documents in scope (the same boundary as a search)."""
    values: dict[str, Any] = {
        "workspace_id": workspace_id,
        "bot_ids": list(bot_ids) if bot_ids is not None else None,
        "conversation_id": conversation_id,
        "external_user_id": external_user_id,
        "document_ids": list(document_ids) if document_ids is not None else None,
    }
    with connection.cursor() as cursor:
        cursor.execute(_LANGUAGES_SQL, values)
        return [language for (language,) in cursor.fetchall()]
