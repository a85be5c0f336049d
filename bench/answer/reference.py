"""The plain extractive reference: the top document, cut into sentences, the closest few kept, no threshold.

The top document is bm25s's (Lucene's BM25 with PyStemmer's Snowball stemmer and bm25s's stop words for
the language) when the question and the documents share a language, and the packaged multilingual USE v3
model's (cosine) when they do not. Its sentences (pysbd) are ranked by USE v3 cosine to the question, the
best `limit` kept in the document's order. It never refuses.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bench.answer.scoring import sentences
from bench.answer.sets import Document

_STEMMERS = {"en": "english", "fr": "french", "de": "german", "es": "spanish"}


class Reference:
    def __init__(self, documents: Sequence[Document], *, language: str) -> None:
        import bm25s
        import Stemmer

        from textmodels.embeddings.multilingual import MultilingualEncoder

        self.documents = list(documents)
        self.language = language
        self._stemmer = Stemmer.Stemmer(_STEMMERS.get(language, "english"))
        texts = [f"{d.title.replace('_', ' ')}\n{d.text}" for d in self.documents]
        self._bm25 = bm25s.BM25()
        self._bm25.index(
            bm25s.tokenize(texts, stopwords=language, stemmer=self._stemmer, show_progress=False),
            show_progress=False,
        )
        self._encoder = MultilingualEncoder(threads=1)
        self._document_vectors = self._encoder.encode(texts)

    def top_document(self, question: str, *, language: str) -> Document:
        if language == self.language:
            import bm25s

            tokens = bm25s.tokenize(
                [question], stopwords=self.language, stemmer=self._stemmer, show_progress=False
            )
            if tokens.vocab and any(tokens.ids[0]):
                results, _ = self._bm25.retrieve(tokens, k=1, show_progress=False)
                return self.documents[int(results[0][0])]
        scores = self._document_vectors @ self._encoder.encode([question])[0]
        return self.documents[int(np.argmax(scores))]

    def answer(self, question: str, *, language: str, limit: int) -> str:
        document = self.top_document(question, language=language)
        parts = sentences(document.text, self.language)
        if len(parts) > limit:
            vectors = self._encoder.encode(parts)
            scores = vectors @ self._encoder.encode([question])[0]
            keep = sorted(np.argsort(-scores)[:limit])
            parts = [parts[index] for index in keep]
        return " ".join(parts)
