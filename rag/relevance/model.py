"""The fitted part of the relevance estimate: two logistic models and the features they read.

- The passage model: P(a retrieved chunk is about what the question asks), from the best multilingual
  cosine between the question and the chunk's units, the chunk's lexical support (content words in the
  question's language, names and numbers, word beginnings shared across languages) and whether the
  question and the chunk share a language.
- The unit model: how likely one unit (a sentence or a table row) of a retrieved chunk is the one that
  answers, from its own cosine and lexical support, its distance to the best unit's cosine, and its
  chunk's place and probability.

The weights are fitted on the tune halves of public sets (`python -m bench.answer fit`, which writes
`weights.json` beside this file; docs/decisions/answer-relevance.md). Every feature is a cosine of the
multilingual model or a share in [0, 1], so one set of weights serves every language pair.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WEIGHTS_FILE = Path(__file__).with_name("weights.json")

PASSAGE_FEATURES = (
    "best_similarity",  # the best unit's multilingual cosine to the question
    "peak",  # that cosine less the median of the chunk's units' (a chunk that answers has a peak)
    "terms",  # content words of the question held by the chunk (same language only)
    "rare_terms",  # the question's lexemes the chunk holds, weighted by their idf in the workspace
    "same_language",
    "same_language_similarity",  # same_language x best_similarity
    "above_pool",  # best_similarity less the median of the retrieved pool's (0 for a small pool)
    "sides_agree",  # two of retrieval's sides rank the chunk among their first three
)
UNIT_FEATURES = (
    "similarity",  # the unit's multilingual cosine to the question
    "below_best",  # that cosine less the best cosine among every candidate unit
    "terms",
    "anchors",
    "chunk_probability",  # the passage model's estimate for the unit's chunk
    "chunk_first",  # 1 / the chunk's place among the candidates
    "same_language",
    "states_asked_quantity",  # the question asks how long, many or much, or when, and the unit says a number
)


@dataclass(frozen=True)
class Logistic:
    names: tuple[str, ...]
    coefficients: tuple[float, ...]
    intercept: float

    def probability(self, features: Sequence[float]) -> float:
        return 1.0 / (1.0 + math.exp(-self.logit(features)))

    def logit(self, features: Sequence[float]) -> float:
        return self.intercept + sum(c * x for c, x in zip(self.coefficients, features, strict=True))

    def as_dict(self) -> dict[str, object]:
        return {
            "features": list(self.names),
            "coefficients": list(self.coefficients),
            "intercept": self.intercept,
        }


@dataclass(frozen=True)
class RelevanceWeights:
    passage: Logistic
    unit: Logistic
    fitted_on: str  # what the weights were fitted on, for the record
    # The least probability of a turn's best chunk that an answer is given from, when the bot sets
    # none: chosen with the fit (bench/answer/fit.py `answer_threshold`).
    answer_threshold: float = 0.5


def _logistic(data: dict[str, Any], names: tuple[str, ...]) -> Logistic:
    features = tuple(str(name) for name in data["features"])
    if features != names:
        raise ValueError(f"weights for {features}, the code reads {names}: fit them again")
    return Logistic(
        names=names,
        coefficients=tuple(float(c) for c in data["coefficients"]),
        intercept=float(data["intercept"]),
    )


@functools.cache
def weights_load(path: Path = WEIGHTS_FILE) -> RelevanceWeights:
    data = json.loads(path.read_text(encoding="utf-8"))
    return RelevanceWeights(
        passage=_logistic(data["passage"], PASSAGE_FEATURES),
        unit=_logistic(data["unit"], UNIT_FEATURES),
        fitted_on=str(data.get("fitted_on", "")),
        answer_threshold=float(data.get("answer_threshold", 0.5)),
    )


def weights_write(weights: RelevanceWeights, path: Path = WEIGHTS_FILE) -> None:
    data = {
        "fitted_on": weights.fitted_on,
        "answer_threshold": weights.answer_threshold,
        "passage": weights.passage.as_dict(),
        "unit": weights.unit.as_dict(),
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    weights_load.cache_clear()
