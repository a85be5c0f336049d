"""Fit the relevance estimate's two models on the tune halves (`python -m bench.answer fit`).

For each workspace, its own tune-half questions (answerable) and tune-half questions of other sets, in its
language and in another (unanswerable), are searched as a turn searches (`chunks_for_question`, the bot's
settings), and the estimate's features are read through the product's own code
(`rag.relevance.service.retrieved_inputs`, `rag.relevance.estimate.chunks_features`).

- Passage model: among the first `DECIDING_CHUNKS` chunks retrieved, one of an answerable question is
  positive when its document is a gold one or another paragraph of the gold article (a chunk on the
  question's topic); one of an unanswerable question is negative (a turn decides on its best chunk, and
  an unanswerable question's best is among the first); other chunks of answerable questions are left
  out (partly on topic, they would blur the labels). Classes are balanced.
- Unit model: each unit of the first `UNIT_CHUNKS` chunks of an answerable question with gold spans is
  positive when it holds a span.
Both are scikit-learn's logistic regression (L2, C=1); the weights go to rag/relevance/weights.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bench.answer.plan import WorkspacePlan
from bench.answer.scoring import holds_span

UNIT_CHUNKS = 4
# A turn answers on its best chunk: the first chunks are those an unanswerable question's best is among.
DECIDING_CHUNKS = 3
POOL = 20  # rag.retrieval's FusionSettings.rerank_pool
TURN_K = 6  # the chunks a turn keeps (the bots' default top k)


@dataclass
class Rows:
    passage_x: list[tuple[float, ...]] = field(default_factory=list)
    passage_y: list[int] = field(default_factory=list)
    # A unit's features (its chunk's probability left out), its chunk's passage features, its label.
    units: list[tuple[tuple[float, ...], tuple[float, ...], int]] = field(default_factory=list)
    # Per question: (workspace and set, answerable, the passage features of a turn's first chunks).
    turns: list[tuple[str, bool, list[tuple[float, ...]]]] = field(default_factory=list)


def _article(doc_id: str) -> str:
    return doc_id.rsplit("-", 1)[0]


def rows_collect(plans: list[WorkspacePlan], *, limit: int | None) -> Rows:
    from rag.relevance.estimate import chunks_features
    from rag.relevance.service import retrieved_inputs
    from rag.retrieval import chunks_retrieve
    from rag.selectors import workspace_multilingual_model

    rows = Rows()
    for plan in plans:
        multi = workspace_multilingual_model(workspace_id=plan.workspace_id)
        for name, questions, answerable in plan.questions(half="tune", limit=limit):
            for question in questions:
                # The pool retrieval estimates: its fused candidates before the top k.
                result = chunks_retrieve(
                    scope=plan.scope,
                    question=question.text,
                    top_k=POOL,
                    language=plan.settings.rules.locale.split("-")[0],
                )
                chunks = result.hits
                if not chunks:
                    continue
                inputs = retrieved_inputs(
                    question=question.text,
                    chunks=chunks,
                    model_id=result.model_id,
                    multi_model_id=multi,
                )
                features = chunks_features(
                    question=question.text,
                    question_language=question.language,
                    question_vector=inputs.question_vector,
                    chunks=inputs.chunks,
                    scale=inputs.scale,
                )
                rows.turns.append(
                    (f"{plan.corpus} <- {name}", answerable, [f.passage for f in features[:TURN_K]])
                )
                articles = {_article(doc) for doc in question.gold}
                for place, (chunk, found) in enumerate(zip(chunks, features, strict=True)):
                    doc = plan.set_ids.get(chunk.document_id, "")
                    on_topic = doc in question.gold or _article(doc) in articles
                    if place < DECIDING_CHUNKS and (not answerable or on_topic):
                        rows.passage_x.append(found.passage)
                        rows.passage_y.append(int(answerable))
                if not (answerable and question.answers):
                    continue
                # The composer scores the units of its first chunks alone (their probabilities are
                # the pool's).
                # ... the most relevant first, as retrieval estimated them.
                order = sorted(range(min(TURN_K, len(chunks))), key=lambda i: -chunks[i].score)
                order = order[:UNIT_CHUNKS]
                quoted = chunks_features(
                    question=question.text,
                    question_language=question.language,
                    question_vector=inputs.question_vector,
                    chunks=[inputs.chunks[i] for i in order],
                    scale=inputs.scale,
                )
                for pooled, found in zip([features[i] for i in order], quoted, strict=True):
                    for _, text, _, unit in found.units:
                        held = int(holds_span(text, question.answers))
                        rows.units.append((unit, pooled.passage, held))
    return rows


def models_fit(rows: Rows, *, fitted_on: str):  # type: ignore[no-untyped-def]
    """The fitted weights (rag.relevance.model.RelevanceWeights)."""
    from sklearn.linear_model import LogisticRegression

    from rag.relevance.estimate import unit_features_with
    from rag.relevance.model import PASSAGE_FEATURES, UNIT_FEATURES, Logistic, RelevanceWeights

    def fitted(x: np.ndarray, y: np.ndarray, names: tuple[str, ...], balanced: bool) -> Logistic:
        model = LogisticRegression(
            C=1.0, max_iter=5000, class_weight="balanced" if balanced else None
        ).fit(x, y)
        return Logistic(names, tuple(float(c) for c in model.coef_[0]), float(model.intercept_[0]))

    passage = fitted(np.asarray(rows.passage_x), np.asarray(rows.passage_y), PASSAGE_FEATURES, True)
    unit_x = [
        unit_features_with(features, passage.probability(chunk))
        for features, chunk, _ in rows.units
    ]
    unit = fitted(
        np.asarray(unit_x), np.asarray([label for _, _, label in rows.units]), UNIT_FEATURES, False
    )
    threshold = answer_threshold(rows, passage)
    return RelevanceWeights(
        passage=passage, unit=unit, fitted_on=fitted_on, answer_threshold=threshold
    )


MAX_REFUSED = 0.10  # issue 48's bar: answerable questions refused, per set


def answer_threshold(rows: Rows, passage) -> float:  # type: ignore[no-untyped-def]
    """The least best-chunk probability a turn answers from: on the tune questions, the highest
    threshold at which no set refuses more than MAX_REFUSED of its answerable questions (answering a
    question the documents hold comes first; declining the others is what that threshold leaves),
    and the lowest of the grid when none does."""
    best: dict[str, list[float]] = {}
    for group, answerable, features in rows.turns:
        if answerable:
            top = max((passage.probability(f) for f in features), default=0.0)
            best.setdefault(group, []).append(top)

    def refused(threshold: float) -> float:
        return max(sum(top < threshold for top in tops) / len(tops) for tops in best.values())

    grid = [round(0.3 + 0.01 * step, 2) for step in range(61)]
    within = [threshold for threshold in grid if refused(threshold) <= MAX_REFUSED]
    return max(within, default=grid[0])


def neutral_weights():  # type: ignore[no-untyped-def]
    """Weights that read no feature (every probability 0.5), for a fit after the features changed."""
    from rag.relevance.model import PASSAGE_FEATURES, UNIT_FEATURES, Logistic, RelevanceWeights

    return RelevanceWeights(
        passage=Logistic(PASSAGE_FEATURES, (0.0,) * len(PASSAGE_FEATURES), 0.0),
        unit=Logistic(UNIT_FEATURES, (0.0,) * len(UNIT_FEATURES), 0.0),
        fitted_on="neutral",
    )
