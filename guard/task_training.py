"""Train the document task scorer (guard.tasks) from the tuning parts of the public sets and
Parley's own rows, and write tasks.npz.

Sentences addressed to an assistant (label 1): the indirect set's tuning attacks, Parley's written
attacks and requests (training-data/guard/requests.txt), the last sentence of deepset's messages and of wildguard's
tuning prompts (all requests to an assistant, benign or not). Document prose (label 0): the sentences
of the tuning contexts, Parley's procedures and other reader-addressed document sentences
(training-data/guard/procedures.txt), the installed background text and the installed documentation prose of
guard.prose (without it the sentence model read scientific abstracts as requests). The chunk
combiner and its cut are then fitted on the tuning contexts (clean and attacked), the public FAQ
collections' tuning part and the installed prose documents, scored with out-of-fold sentence
probabilities.
The validation parts (guard.public) are never read here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression

from guard.prose import prose_documents
from guard.public import (
    Context,
    context_windows,
    faq_contexts,
    indirect_attacks,
    indirect_contexts,
    wildguard_benign,
)
from guard.tasks import (
    TASKS_PATH,
    TaskModel,
    candidate_rest,
    combiner_row,
    cosine,
    document_neighbours,
    task_model_save,
    text_units,
    unit_features,
)
from guard.validation import folds_assign

REGULARISATION = 4.0
EMBEDDING_REGULARISATION = 1.0
# Share of the clean tuning contexts of each kind the cut may quarantine (the bar is 0.02 on
# validation), except ordinary documents (FAQ entries, installed prose), of which it may quarantine none:
# a quarantined FAQ answer is a customer's content gone from every answer.
CLEAN_TARGET = 0.015
DOCUMENT_KINDS = {"faq": 0.002, "prose": 0.002}
QUARANTINE_THRESHOLD = 0.6  # guard.detector.DEFAULT_THRESHOLD: the cut is mapped onto it


def task_units(*, root: Path, data: Path) -> tuple[list[str], list[int], list[str]]:
    """(units, labels, groups) from the shared corpora (`root`) and Parley's written rows (`data`):
    each unit once (the first label seen wins), grouped by the item it came from so a fold never sees
    another sentence of the same attack, prompt or context."""
    from guard.training import examples_background, examples_jsonl, examples_own

    items: list[tuple[list[str], int, str]] = []
    for _category, attack in indirect_attacks(root=root, part="tuning"):
        items.append((text_units(attack)[:2], 1, f"attack:{attack[:60]}"))
    for example in examples_own(data=data):
        if example.label == 1:
            items.append(
                (text_units(example.text) or [example.text], 1, f"own:{example.text[:60]}")
            )
    # A public message's last sentence is its request; the sentences before it set a scene, and
    # taught as requests they would make ordinary prose read as one.
    for example in examples_jsonl(path=root / "injection-train" / "deepset-train.jsonl"):
        items.append(
            ((text_units(example.text) or [example.text])[-1:], 1, f"deepset:{example.text[:60]}")
        )
    for prompt in wildguard_benign(root=root, part="tuning"):
        items.append(((text_units(prompt) or [prompt])[-1:], 1, f"wild:{prompt[:60]}"))
    for context in indirect_contexts(root=root, part="tuning"):
        if not context.attack:
            items.append((text_units(context.text), 0, f"context:{context.text[:60]}"))
    # Parley's written rows: tasks given to an assistant (the public requests are mostly questions,
    # so without them an imperative task read as prose) and their look-alikes in documents.
    for name, label in (("requests.txt", 1), ("procedures.txt", 0)):
        for line in (data / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("##"):
                items.append(([line.strip()], label, f"{name}:{line[:60]}"))
    for example in examples_background():
        items.append(
            (text_units(example.text) or [example.text], 0, f"background:{example.text[:60]}")
        )
    for source, document in prose_documents():
        items.append((text_units(document), 0, f"prose:{source}"))
    seen: dict[str, tuple[int, str]] = {}
    for units, label, group in items:
        for unit in units:
            seen.setdefault(unit, (label, group))
    texts = list(seen)
    return texts, [seen[t][0] for t in texts], [seen[t][1] for t in texts]


def _fit(
    features: object, labels: NDArray[np.int_], regularisation: float = REGULARISATION
) -> tuple[NDArray[np.float64], float]:
    fitted = LogisticRegression(
        C=regularisation, class_weight="balanced", max_iter=2000, solver="liblinear"
    )
    fitted.fit(features, labels)
    return fitted.coef_[0], float(fitted.intercept_[0])


def _out_of_fold(
    features: Any, labels: NDArray[np.int_], fold: NDArray[np.int_], regularisation: float
) -> NDArray[np.float64]:
    """Each row's logit from the model fitted on the other folds."""
    logits = np.zeros(len(labels))
    for held in np.unique(fold):
        weights, bias = _fit(features[fold != held], labels[fold != held], regularisation)
        logits[fold == held] = features[fold == held] @ weights + bias
    return logits


def task_train(*, root: Path, data: Path, output: Path = TASKS_PATH) -> TaskModel:
    from textmodels.embeddings import LOCAL_MODEL_ID, embed_texts

    units, label_list, groups = task_units(root=root, data=data)
    labels = np.asarray(label_list)
    features = unit_features(units)
    vectors = np.asarray(embed_texts(units, model_id=LOCAL_MODEL_ID), dtype=np.float32)
    fold = folds_assign(groups=groups)
    weights, bias = _fit(features, labels)
    embedding_weights, embedding_bias = _fit(vectors, labels, EMBEDDING_REGULARISATION)
    # A training sentence is read by the models fitted without its fold; any other sentence (an FAQ
    # entry's) by the models fitted on everything, as ingestion will read it.
    known = _UnitReadings(
        index_of={unit: i for i, unit in enumerate(units)},
        hashed=_out_of_fold(features, labels, fold, REGULARISATION),
        embedded=_out_of_fold(vectors, labels, fold, EMBEDDING_REGULARISATION),
        vectors=vectors,
    )
    contexts = [
        *indirect_contexts(root=root, part="tuning"),
        *faq_contexts(root=root, part="tuning"),
        *(
            Context(kind="prose", text=text, attack="", category="", position="")
            for _, text in prose_documents()
        ),
    ]
    windows = [context_windows(context.text) for context in contexts]
    readings = known.extended(
        [unit for pieces in windows for window in pieces for unit in text_units(window)],
        hashed=lambda texts: unit_features(texts) @ weights + bias,
        embed=lambda texts: np.asarray(embed_texts(texts, model_id=LOCAL_MODEL_ID)),
        embedded=lambda matrix: matrix @ embedding_weights + embedding_bias,
    )
    # The chunk combiner: each tuning context cut as ingestion would, its most request-like sentence
    # compared with the rest of its window, under the rule of guard.tasks.tasks_find (candidate_rest).
    rows: list[tuple[int, int, int, str]] = []  # (context, attacked window, unit index, the rest)
    for number, (context, pieces) in enumerate(zip(contexts, windows, strict=True)):
        attack_units = set(text_units(context.attack)) if context.attack else set()
        for window, around in zip(
            pieces, document_neighbours(pieces, [number] * len(pieces)), strict=True
        ):
            window_units = text_units(window)
            if not window_units:
                continue
            top = max(window_units, key=lambda unit: readings.hashed[readings.index_of[unit]])
            probability = 1 / (1 + math.exp(-readings.hashed[readings.index_of[top]]))
            rest = candidate_rest(window, top, probability, around)
            if rest is not None:
                attacked = int(bool(attack_units & set(window_units)))
                rows.append((number, attacked, readings.index_of[top], rest))
    rests = embed_texts([row[3] for row in rows], model_id=LOCAL_MODEL_ID)
    matrix = np.asarray(
        [
            combiner_row(
                float(1 / (1 + np.exp(-readings.hashed[unit]))),
                float(readings.embedded[unit]),
                cosine(readings.vectors[unit], rest),
            )
            for (_, _, unit, _), rest in zip(rows, rests, strict=True)
        ]
    )
    combiner = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)
    combiner.fit(matrix, np.asarray([row[1] for row in rows]))
    logits = matrix @ combiner.coef_[0] + combiner.intercept_[0]
    cut, report = _cut(contexts, [row[0] for row in rows], logits)
    coefficients = [float(value) for value in combiner.coef_[0]]
    model = TaskModel(
        weights=weights.astype(np.float32),
        bias=bias,
        embedding_weights=embedding_weights.astype(np.float32),
        embedding_bias=embedding_bias,
        combiner=(coefficients[0], coefficients[1], coefficients[2]),
        offset=float(combiner.intercept_[0])
        + math.log(QUARANTINE_THRESHOLD / (1 - QUARANTINE_THRESHOLD))
        - cut,
        meta={"units": len(units), "requests": int(labels.sum()), **report},
    )
    task_model_save(model=model, path=output)
    return model


@dataclass(frozen=True)
class _UnitReadings:
    """Each sentence's n-gram logit, embedding logit and vector, by its index."""

    index_of: dict[str, int]
    hashed: NDArray[np.float64]
    embedded: NDArray[np.float64]
    vectors: NDArray[np.float32]

    def extended(
        self,
        units: list[str],
        *,
        hashed: Callable[[list[str]], NDArray[np.float64]],
        embed: Callable[[list[str]], NDArray[np.float32]],
        embedded: Callable[[NDArray[np.float32]], NDArray[np.float64]],
    ) -> _UnitReadings:
        """These readings and those of the `units` they lack, read by the given models."""
        new = [unit for unit in dict.fromkeys(units) if unit not in self.index_of]
        if not new:
            return self
        vectors = embed(new).astype(np.float32)
        return _UnitReadings(
            index_of={
                **self.index_of,
                **{unit: len(self.index_of) + i for i, unit in enumerate(new)},
            },
            hashed=np.concatenate([self.hashed, hashed(new)]),
            embedded=np.concatenate([self.embedded, embedded(vectors)]),
            vectors=np.concatenate([self.vectors, vectors]),
        )


def _cut(
    contexts: list[Context], numbers: list[int], logits: NDArray[np.float64]
) -> tuple[float, dict[str, object]]:
    """The lowest logit quarantining at most CLEAN_TARGET of the clean tuning contexts of each kind
    (e-mails, tables, code) and none of the ordinary documents (DOCUMENT_KINDS), and what it
    quarantines of the clean and the attacked ones."""
    clean_max: dict[int, float] = {}
    for number, logit in zip(numbers, logits, strict=True):
        if not contexts[number].attack:
            clean_max[number] = max(clean_max.get(number, -math.inf), float(logit))
    cut = float(np.min(logits))
    for kind in sorted({context.kind for context in contexts}):
        total = sum(1 for context in contexts if context.kind == kind and not context.attack)
        ranked = sorted(
            (logit for number, logit in clean_max.items() if contexts[number].kind == kind),
            reverse=True,
        )
        allowed = math.floor(DOCUMENT_KINDS.get(kind, CLEAN_TARGET) * total)
        if allowed < len(ranked):
            cut = max(cut, float(np.nextafter(ranked[allowed], np.inf)))
    hit = {number for number, logit in zip(numbers, logits, strict=True) if logit >= cut}
    attacked = [i for i, context in enumerate(contexts) if context.attack]
    clean_total = sum(1 for context in contexts if not context.attack)
    return cut, {
        "combiner_rows": len(numbers),
        "tuning_attacked_quarantined": round(sum(i in hit for i in attacked) / len(attacked), 4),
        "tuning_clean_quarantined": round(len(hit & set(clean_max)) / clean_total, 4),
    }
