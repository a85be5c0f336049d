"""Train the document task scorer (rag.guard.tasks) from the tuning parts of the public sets and
Parley's own rows, and write tasks.npz.

Sentences addressed to an assistant (label 1): the indirect set's tuning attacks, Parley's written
attacks, the last sentence of deepset's messages and of wildguard's tuning prompts (all requests to an
assistant, benign or not). Document prose (label 0): the sentences of the tuning contexts, Parley's
procedures (data/procedures.txt), the installed background text and the installed documentation
prose of rag.guard.prose (without it the sentence model read scientific abstracts as requests). The
chunk combiner and its cut are then fitted on the tuning contexts, clean and attacked, scored with
out-of-fold sentence probabilities.
The validation parts (rag.guard.public) are never read here.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression

from rag.guard.classifier import hashed_features
from rag.guard.normalise import text_fold
from rag.guard.prose import prose_documents
from rag.guard.public import (
    Context,
    context_windows,
    indirect_attacks,
    indirect_contexts,
    wildguard_benign,
)
from rag.guard.tasks import (
    CANDIDATE_PROBABILITY,
    TASKS_PATH,
    TaskModel,
    combiner_row,
    cosine,
    task_model_save,
    text_units,
)
from rag.guard.validation import folds_assign

DATA_DIR = Path(__file__).with_name("data")
REGULARISATION = 4.0
EMBEDDING_REGULARISATION = 1.0
# Share of the clean tuning contexts the cut may quarantine (the bar is 0.02 on validation).
CLEAN_TARGET = 0.015
QUARANTINE_THRESHOLD = 0.6  # rag.guard.DEFAULT_THRESHOLD: the cut is mapped onto it


def task_units(*, root: Path) -> tuple[list[str], list[int], list[str]]:
    """(units, labels, groups): each unit once (the first label seen wins), grouped by the item it
    came from so a fold never sees another sentence of the same attack, prompt or context."""
    from rag.guard.training import examples_background, examples_jsonl, examples_own

    items: list[tuple[list[str], int, str]] = []
    for _category, attack in indirect_attacks(root=root, part="tuning"):
        items.append((text_units(attack)[:2], 1, f"attack:{attack[:60]}"))
    for example in examples_own():
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
    for line in (DATA_DIR / "procedures.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("##"):
            items.append(([line.strip()], 0, f"procedure:{line[:60]}"))
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


def task_train(*, root: Path, output: Path = TASKS_PATH) -> TaskModel:
    from rag.embeddings import LOCAL_MODEL_ID, embed_texts

    units, label_list, groups = task_units(root=root)
    labels = np.asarray(label_list)
    features = hashed_features([text_fold(unit) for unit in units])
    vectors = np.asarray(embed_texts(units, model_id=LOCAL_MODEL_ID), dtype=np.float32)
    fold = folds_assign(groups=groups)
    hashed_logits = _out_of_fold(features, labels, fold, REGULARISATION)
    embedded_logits = _out_of_fold(vectors, labels, fold, EMBEDDING_REGULARISATION)
    index_of = {unit: i for i, unit in enumerate(units)}
    # The chunk combiner: each tuning context cut as ingestion would, its most request-like sentence.
    rows: list[tuple[int, int, int, str]] = []  # (context, attacked window, unit index, window)
    contexts = indirect_contexts(root=root, part="tuning")
    for number, context in enumerate(contexts):
        attack_units = set(text_units(context.attack)) if context.attack else set()
        for window in context_windows(context.text):
            window_units = [unit for unit in text_units(window) if unit in index_of]
            if not window_units:
                continue
            top = max(window_units, key=lambda unit: hashed_logits[index_of[unit]])
            if 1 / (1 + math.exp(-hashed_logits[index_of[top]])) >= CANDIDATE_PROBABILITY:
                attacked = int(bool(attack_units & set(window_units)))
                rows.append((number, attacked, index_of[top], window))
    windows = embed_texts([row[3] for row in rows], model_id=LOCAL_MODEL_ID)
    matrix = np.asarray(
        [
            combiner_row(
                float(1 / (1 + np.exp(-hashed_logits[unit]))),
                float(embedded_logits[unit]),
                cosine(vectors[unit], window),
            )
            for (_, _, unit, _), window in zip(rows, windows, strict=True)
        ]
    )
    combiner = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)
    combiner.fit(matrix, np.asarray([row[1] for row in rows]))
    logits = matrix @ combiner.coef_[0] + combiner.intercept_[0]
    cut, report = _cut(contexts, [row[0] for row in rows], logits)
    weights, bias = _fit(features, labels)
    embedding_weights, embedding_bias = _fit(vectors, labels, EMBEDDING_REGULARISATION)
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


def _cut(
    contexts: list[Context], numbers: list[int], logits: NDArray[np.float64]
) -> tuple[float, dict[str, object]]:
    """The lowest logit quarantining at most CLEAN_TARGET of the clean tuning contexts, and what it
    quarantines of them and of the attacked ones."""
    clean_max: dict[int, float] = {}
    for number, logit in zip(numbers, logits, strict=True):
        if not contexts[number].attack:
            clean_max[number] = max(clean_max.get(number, -math.inf), float(logit))
    clean_total = sum(1 for context in contexts if not context.attack)
    ranked = sorted(clean_max.values(), reverse=True)
    allowed = math.floor(CLEAN_TARGET * clean_total)
    cut = float(np.nextafter(ranked[allowed], np.inf)) if allowed < len(ranked) else -math.inf
    if not math.isfinite(cut):
        cut = float(np.min(logits))
    hit = {number for number, logit in zip(numbers, logits, strict=True) if logit >= cut}
    attacked = [i for i, context in enumerate(contexts) if context.attack]
    return cut, {
        "combiner_rows": len(numbers),
        "tuning_attacked_quarantined": round(sum(i in hit for i in attacked) / len(attacked), 4),
        "tuning_clean_quarantined": round(len(hit & set(clean_max)) / clean_total, 4),
    }
