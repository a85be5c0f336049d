"""The installed prose the document task scorer learns as "not a task" (guard.prose): several
kinds of source, chunk-sized documents, no code examples, no duplicates, the same on every run."""

from __future__ import annotations

from collections import Counter

from guard.prose import DOCUMENT_CHARS, prose_documents
from guard.tasks import text_units


def test_prose_documents_come_from_every_kind_of_source() -> None:
    documents = prose_documents()
    kinds = Counter(source.split(":")[0] for source, _ in documents)

    assert set(kinds) == {"pydoc", "doc", "dataset", "licence", "readme"}
    assert min(kinds.values()) >= 5
    assert len({text for _, text in documents}) == len(documents)


def test_prose_documents_are_chunk_sized_prose_without_code() -> None:
    documents = prose_documents()

    for _, text in documents:
        assert ">>>" not in text and "```" not in text
        # A document is paragraphs joined up to about a chunk: only a single long paragraph exceeds it.
        assert len(text) <= DOCUMENT_CHARS or "\n" not in text
    # Several sentences each on average: the scorer reads documents sentence by sentence.
    assert sum(len(text_units(text)) for _, text in documents) >= 3 * len(documents)


def test_prose_documents_are_stable() -> None:
    first = prose_documents()
    prose_documents.cache_clear()

    assert prose_documents() == first
