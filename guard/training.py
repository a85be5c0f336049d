"""Train the detector's classifier: the deepset set (or any JSON lines of text/label) plus Parley's own
examples in six languages (training-data/guard, read by path: written lines and the templates' expansion), embedded with
MiniLM, calibrated on out-of-fold scores (guard.validation), written to model.npz.

Run by `manage.py guard_train`; bench/guard's held-out sets are never read here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from guard.classifier import (
    MODEL_PATH,
    ClassifierModel,
    classifier_features,
    classifier_fit,
    classifier_save,
)
from guard.normalise import text_fold
from guard.stacking import stack_calibrate
from guard.validation import FOLDS, classifier_calibrate, folds_assign

# Below this many examples of either class a k-fold split says nothing: the model is saved as fitted.
CALIBRATION_MIN_PER_CLASS = 10 * FOLDS
# The benign examples written as look-alikes (the calibration's false-positive target is on them).
LOOKALIKE_SOURCES = ("parley-", "templates-")
WILDGUARD_SOURCE = "wildguard-benign"


@dataclass(frozen=True)
class Example:
    text: str
    label: int  # 1 injection, 0 benign
    source: str
    # Examples sharing a group (one template's fillings) stay in the same validation fold, so the
    # calibration sees templates the fold's model never saw; "" is a group of its own.
    group: str = ""


def examples_own(*, data: Path) -> list[Example]:
    """Parley's written examples: `data`/attacks*.txt (label 1) and `data`/benign*.txt (label 0), e.g.
    benign_triggers.txt, everyday messages using trigger words in their ordinary sense."""
    examples = []
    files = [(path, 1) for path in sorted(data.glob("attacks*.txt"))]
    files += [(path, 0) for path in sorted(data.glob("benign*.txt"))]
    for path, label in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            language, _, text = line.partition("|")
            examples.append(Example(text.replace("\\n", "\n"), label, f"parley-{language}"))
    return examples


def examples_augmented(*, data: Path) -> list[Example]:
    """The templates' attacks and look-alikes in each language (`data`/templates, guard.augment),
    grouped by template."""
    from guard.augment import templates_expand, templates_load

    examples = []
    for language, templates in templates_load(directory=data / "templates").items():
        expanded = templates_expand(templates=templates)
        for label, text, template in expanded:
            examples.append(Example(text, label, f"templates-{language}", f"{language}-{template}"))
    return examples


def examples_background(*, per_language: int = 200) -> list[Example]:
    """Benign text of other styles than questions, in the six languages, from what is installed: Django's
    translated messages (imperative UI sentences: "Enter a valid value.") and the standard library's
    docstrings (declarative statements). Without them the classifier learns "not a question" as an attack.
    """
    import django

    root = Path(django.__file__).parent
    catalogues = (
        "conf/locale",
        "contrib/admin/locale",
        "contrib/auth/locale",
        "contrib/sites/locale",
    )
    examples = []
    for language in ("fr", "de", "es", "it", "pt"):
        ids, strings = [], []
        for folder in catalogues:
            path = root / folder / language / "LC_MESSAGES" / "django.po"
            if path.exists():
                pairs = _po_pairs(path.read_text(encoding="utf-8"))
                ids += [msgid for msgid, _ in pairs]
                strings += [msgstr for _, msgstr in pairs]
        examples += [
            Example(text, 0, f"django-{language}") for text in _spread(strings, per_language)
        ]
        if language == "fr":
            examples += [Example(text, 0, "django-en") for text in _spread(ids, per_language)]
    examples += [
        Example(text, 0, "python-docstrings") for text in _spread(_docstrings(), per_language)
    ]
    return examples


def _po_pairs(source: str) -> list[tuple[str, str]]:
    """Single-line (msgid, msgstr) pairs of a .po catalogue, long enough to be sentences."""
    pairs = re.findall(r'^msgid "(.+)"\nmsgstr "(.+)"$', source, flags=re.MULTILINE)
    return [
        (msgid, msgstr)
        for msgid, msgstr in pairs
        if len(msgstr) >= 25 and "%" not in msgstr and "{" not in msgstr
    ]


def _docstrings() -> list[str]:
    import importlib
    import inspect

    texts = []
    for name in (
        "os",
        "shutil",
        "json",
        "datetime",
        "collections",
        "statistics",
        "pathlib",
        "textwrap",
        "string",
        "random",
        "heapq",
        "bisect",
        "fractions",
        "decimal",
        "calendar",
        "zipfile",
    ):
        module = importlib.import_module(name)
        for _, member in inspect.getmembers(module, callable):
            doc = inspect.getdoc(member) or ""
            first = " ".join(doc.split("\n\n")[0].split())
            if 25 <= len(first) <= 300 and ">>>" not in first:
                texts.append(first)
    return sorted(set(texts))


def _spread(texts: list[str], count: int) -> list[str]:
    """`count` texts taken evenly through the list (deterministic, unlike a random sample)."""
    unique = sorted(set(texts))
    if len(unique) <= count:
        return unique
    step = len(unique) / count
    return [unique[int(index * step)] for index in range(count)]


def examples_jsonl(*, path: Path, limit: int | None = None) -> list[Example]:
    """Rows of {"text", "label"} from a JSON-lines file (e.g. deepset-train.jsonl)."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                rows.append(Example(str(row["text"]), int(row["label"]), path.stem))
    return rows[:limit] if limit is not None else rows


def examples_public(*, root: Path) -> list[Example]:
    """The public rows training may read: deepset's whole train split (reported out of fold) and the
    tuning part of wildguard's benign prompts (its validation part is bench/guard's)."""
    from guard.public import DEEPSET_FILE, wildguard_benign

    rows = examples_jsonl(path=root / DEEPSET_FILE)
    return rows + [
        Example(text, 0, WILDGUARD_SOURCE) for text in wildguard_benign(root=root, part="tuning")
    ]


def guard_train(*, examples: list[Example], output: Path = MODEL_PATH) -> ClassifierModel:
    """Embed, calibrate, fit and save; returns the model (its meta says what it was trained on and
    how it did out of fold). Sets too small for a k-fold split (tiny runs) are saved uncalibrated."""
    from guard.detector import DEFAULT_THRESHOLD, DEFAULT_WATCH, injection_cues
    from textmodels.embeddings import LOCAL_MODEL_ID, embed_texts

    labels = np.asarray([example.label for example in examples])
    if len(set(labels.tolist())) < 2:
        raise ValueError("Training needs both injections (label 1) and benign texts (label 0).")
    embeddings = np.asarray(
        embed_texts([example.text for example in examples], model_id=LOCAL_MODEL_ID),
        dtype=np.float32,
    )
    features = classifier_features(
        folded=[text_fold(example.text) for example in examples], embeddings=embeddings
    )
    sources: dict[str, int] = {}
    for example in examples:
        sources[example.source] = sources.get(example.source, 0) + 1
    meta: dict[str, object] = {
        "embedding_model": LOCAL_MODEL_ID,
        "examples": len(examples),
        "injections": int(labels.sum()),
        "sources": sources,
        "calibration": None,
    }
    regularisation = 4.0
    if min(int(labels.sum()), int((labels == 0).sum())) >= CALIBRATION_MIN_PER_CLASS:
        lookalike = np.asarray(
            [example.source.startswith(LOOKALIKE_SOURCES) for example in examples]
        )
        wildguard = np.asarray([example.source == WILDGUARD_SOURCE for example in examples])
        groups = [example.group for example in examples]
        calibration = classifier_calibrate(
            features=features, labels=labels, groups=groups, lookalike=lookalike | wildguard
        )
        regularisation = calibration.regularisation
        meta["calibration"] = {
            "regularisation": calibration.regularisation,
            "cut": round(calibration.cut, 4),
            "out_of_fold_detection": round(calibration.detection, 4),
            "out_of_fold_false_positives_lookalikes": round(calibration.false_positives, 4),
            "out_of_fold_false_positives_all_benign": round(calibration.false_positives_all, 4),
        }
        # The cue weights and the bands, learnt on the classifier's out-of-fold probabilities.
        stacked = stack_calibrate(
            cues=[injection_cues(example.text) for example in examples],
            probabilities=calibration.scores,
            labels=labels,
            fold=folds_assign(groups=groups),
            wildguard=wildguard,
            lookalike=lookalike,
            refuse_score=DEFAULT_THRESHOLD,
            watch_score=DEFAULT_WATCH,
        )
        meta["stack"] = stacked.stack.as_json()
        meta["bands"] = stacked.meta
        meta["out_of_fold_detector"] = out_of_fold_detector(
            examples=examples, scores=stacked.scores
        )
    weights, bias = classifier_fit(features=features, labels=labels, regularisation=regularisation)
    model = ClassifierModel(weights=weights, bias=bias, meta=meta)
    classifier_save(model=model, path=output)
    return model


def out_of_fold_detector(
    *, examples: list[Example], scores: NDArray[np.float64]
) -> dict[str, dict[str, float | int]]:
    """What the whole detector (cue weights and classifier that never saw the example) puts in each
    band per source and label: on the public sets' rows (deepset-train, wildguard's tuning part) this is
    a cross-validated figure, the nearest to their unseen splits."""
    from guard.detector import DEFAULT_THRESHOLD, DEFAULT_WATCH

    counts: dict[str, list[int]] = {}
    for example, score in zip(examples, scores, strict=True):
        kind = "attacks" if example.label else "benign"
        tally = counts.setdefault(f"{_family(example.source)} {kind}", [0, 0, 0])
        tally[0] += 1
        tally[1] += int(score >= DEFAULT_THRESHOLD)
        tally[2] += int(score >= DEFAULT_WATCH)
    return {
        name: {
            "n": total,
            "flagged": round(refused / total, 4),
            "watched_or_flagged": round(watched / total, 4),
        }
        for name, (total, refused, watched) in sorted(counts.items())
    }


def _family(source: str) -> str:
    """ "templates-fr" → "templates", "deepset-train" stays itself (the sources a report groups)."""
    prefix = source.split("-")[0]
    return prefix if prefix in {"templates", "parley", "django", "python"} else source
