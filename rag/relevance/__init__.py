"""The relevance estimate: how likely a retrieved chunk is about what a question asks, and which of its units
(sentences, table rows) answer it, on one scale for every embedding model and language pair.

- `rag.relevance.lexical`: lexical support (content words, names and numbers) in any language;
- `rag.relevance.model`: the two fitted logistic models and their features (weights.json);
- `rag.relevance.estimate`: the estimate on plain data;
- `rag.relevance.service`: the estimate for retrieved chunks, from their stored units and vectors.

Retrieval scores its chunks with it (`RetrievedChunk.score`), the offline composer chooses its sentences
with it, and a turn with an LLM leaves out the chunks below the bot's threshold and declines without a
model call when none reaches it. docs/decisions/answer-relevance.md has the measurements.
"""

from __future__ import annotations

from rag.relevance.model import weights_load


def answer_threshold_default() -> float:
    """The least probability of a turn's best chunk that a bot without a threshold of its own answers
    from (fitted with the weights on the tune halves of public sets)."""
    return weights_load().answer_threshold
