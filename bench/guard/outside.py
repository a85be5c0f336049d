"""bench/guard's outside sets: public data nobody here wrote, in their validation parts (guard.public:
never trained or tuned on), scored with the bands, beside the written rounds in one table.

- wildguard-benign, validation part: benign requests that sound risky, the share each band takes;
- deepset-train out of fold: from the model's meta (the training's grouped 5-fold report);
- indirect-train, validation part: e-mail, table and code contexts, clean and with one unseen attack
  inserted, cut into chunk-sized windows as ingestion would and quarantined when any window is flagged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Column:
    source: str
    n: int
    cells: dict[str, float | None]


ROWS = (
    ("attacks refused", "refused"),
    ("attacks refused or watched", "detected"),
    ("benign refused", "benign_refused"),
    ("benign in the watch band", "benign_watched"),
    ("attacked docs quarantined", "attacked_quarantined"),
    ("clean docs quarantined", "clean_quarantined"),
    # A task finding (guard.tasks) at or above the borderline band: quarantined or recorded.
    ("attacked docs, task recorded", "attacked_task"),
    ("clean docs, task recorded", "clean_task"),
)


def wildguard_column(
    root: Path, threshold: float, watch: float, old: Callable[[str], bool]
) -> tuple[Column, Column]:
    from guard.detector import injection_detect_batch
    from guard.public import wildguard_benign

    texts = wildguard_benign(root=root, part="validation")
    scores = [d.score for d in injection_detect_batch(texts=texts)]
    refused = sum(score >= threshold for score in scores) / len(texts)
    watched = sum(watch <= score < threshold for score in scores) / len(texts)
    baseline = sum(map(old, texts)) / len(texts)
    return (
        Column("wildguard val (old)", len(texts), {"benign_refused": baseline}),
        Column("wildguard val", len(texts), {"benign_refused": refused, "benign_watched": watched}),
    )


def deepset_column() -> Column | None:
    from guard.classifier import classifier_model

    model = classifier_model()
    report = model.meta.get("out_of_fold_detector") if model else None
    if not isinstance(report, dict) or "deepset-train attacks" not in report:
        return None
    attacks, benign = report["deepset-train attacks"], report.get("deepset-train benign", {})
    return Column(
        "deepset oof",
        int(attacks["n"]) + int(benign.get("n", 0)),
        {
            "refused": attacks["flagged"],
            "detected": attacks.get("watched_or_flagged"),
            "benign_refused": benign.get("flagged"),
            "benign_watched": (benign["watched_or_flagged"] - benign["flagged"])
            if "watched_or_flagged" in benign
            else None,
        },
    )


def indirect_columns(
    root: Path, threshold: float, old: Callable[[str], bool], *, misses: bool = False
) -> list[Column]:
    from guard.detector import LABEL_TASK, injection_detect_batch
    from guard.public import INDIRECT_KINDS, context_windows, indirect_contexts

    contexts = indirect_contexts(root=root, part="validation")
    columns = []
    for kind in INDIRECT_KINDS:
        chosen = [context for context in contexts if context.kind == kind]
        windows = [context_windows(context.text) for context in chosen]
        detections = []
        for pieces in windows:
            detections += injection_detect_batch(
                texts=pieces, documents=True, sources=[0] * len(pieces)
            )
        verdicts, tasks, offset = [], [], 0
        for context, pieces in zip(chosen, windows, strict=True):
            found = detections[offset : offset + len(pieces)]
            offset += len(pieces)
            verdicts.append(any(d.flagged(threshold) for d in found))
            tasks.append(any(d.label == LABEL_TASK for d in found))
            if misses and verdicts[-1] != bool(context.attack):
                top = max(found, key=lambda d: d.score)
                what = "missed" if context.attack else "quarantined"
                print(f"   {what} {kind} {top.score:.2f} {context.attack or top.excerpt!r}"[:220])
        attacked = [v for v, c in zip(verdicts, chosen, strict=True) if c.attack]
        clean = [v for v, c in zip(verdicts, chosen, strict=True) if not c.attack]
        attacked_task = [t for t, c in zip(tasks, chosen, strict=True) if c.attack]
        clean_task = [t for t, c in zip(tasks, chosen, strict=True) if not c.attack]
        baseline_attacked = [old(c.text) for c in chosen if c.attack]
        baseline_clean = [old(c.text) for c in chosen if not c.attack]
        columns.append(
            Column(
                f"{kind} val (old)",
                len(chosen),
                {
                    "attacked_quarantined": _mean(baseline_attacked),
                    "clean_quarantined": _mean(baseline_clean),
                },
            )
        )
        columns.append(
            Column(
                f"{kind} val",
                len(chosen),
                {
                    "attacked_quarantined": _mean(attacked),
                    "clean_quarantined": _mean(clean),
                    "attacked_task": _mean(attacked_task),
                    "clean_task": _mean(clean_task),
                },
            )
        )
    return columns


def columns_print(columns: list[Column]) -> None:
    """One column per source, one row per measure ("–": the measure does not apply)."""
    width = max(14, *(len(column.source) + 1 for column in columns))
    print(f"{'':30}" + "".join(f"{column.source:>{width}}" for column in columns))
    print(f"{'n':30}" + "".join(f"{column.n:>{width}}" for column in columns))
    for title, key in ROWS:
        cells = [column.cells.get(key) for column in columns]
        if all(cell is None for cell in cells):
            continue
        print(
            f"{title:30}" + "".join(f"{'–' if c is None else f'{c:.3f}':>{width}}" for c in cells)
        )


def _mean(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None
