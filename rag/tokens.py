"""Token counting with the local model's own tokenizer: chunk sizes are measured in the units the model truncates at."""

from __future__ import annotations

import functools

from tokenizers import Tokenizer

from textmodels.embeddings.local import MODEL_DIR


@functools.cache
def _tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def token_counts(texts: list[str]) -> list[int]:
    """Word-piece counts without the [CLS]/[SEP] markers."""
    if not texts:
        return []
    return [
        len(encoding.ids) for encoding in _tokenizer().encode_batch(texts, add_special_tokens=False)
    ]


def token_count(text: str) -> int:
    # The text splitter measures every word and separator it tries, many times over: short texts are memoised.
    if len(text) <= _MEMOISED_CHARS:
        return _short_token_count(text)
    return token_counts([text])[0]


_MEMOISED_CHARS = 40


@functools.lru_cache(maxsize=50_000)
def _short_token_count(text: str) -> int:
    return token_counts([text])[0]
