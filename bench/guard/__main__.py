"""Injection guard: detection and false-positive rates, the old regex guard vs the scored detector, side by side.

    nice -n 10 .venv/bin/python -m bench.guard [--corpora ../shared/corpora] [--threshold 0.6]

Sets (bench/guard/sets, written apart from the training examples in rag/guard/data): held-out attacks
per language (EN FR DE ES IT PT) and benign look-alikes that use trigger words (attacks/lookalikes.txt:
looked at while the patterns were written; *_late.txt: written after a first freeze, measured, then
tuned on; *_fresh.txt: written after the second freeze and never tuned on), and every question of
the shared corpora's queries.jsonl as ordinary benign traffic.
Latency: what the detector adds to a turn once its embedding of the message is reused by retrieval
(p50/p95 over the corpora questions).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

LANGUAGES = ("en", "fr", "de", "es", "it", "pt")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=None, help="Folder of BEIR corpora.")
    parser.add_argument("--threshold", type=float, default=None, help="Default: the detector's.")
    parser.add_argument("--latency-samples", type=int, default=300)
    args = parser.parse_args()
    import django

    django.setup()
    from bench.guard.baseline import baseline_flags
    from bench.guard.sets import corpora_dir, corpora_questions, labelled_lines
    from rag.guard import DEFAULT_THRESHOLD, injection_detect

    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    attacks = labelled_lines("attacks.txt")
    lookalikes = labelled_lines("lookalikes.txt")
    late_attacks = labelled_lines("attacks_late.txt")
    late_lookalikes = labelled_lines("lookalikes_late.txt")
    fresh_attacks = labelled_lines("attacks_fresh.txt")
    fresh_lookalikes = labelled_lines("lookalikes_fresh.txt")
    questions = corpora_questions(args.corpora or corpora_dir())

    def new(text: str) -> bool:
        return injection_detect(text=text).flagged(threshold)

    print(f"threshold {threshold}")
    print(f"{'set':34} {'n':>5} {'old':>7} {'new':>7}")
    _rows("detection, attacks", attacks, baseline_flags, new)
    _rows("false positives, look-alikes", lookalikes, baseline_flags, new)
    print(
        "-- second round: written after the first freeze, measured (0.567 detection), then tuned on:"
    )
    _rows("detection, late attacks", late_attacks, baseline_flags, new)
    _row("false positives, late look-alikes", [t for _l, t in late_lookalikes], baseline_flags, new)
    print("-- third round: written after the second freeze, measured once, never tuned on:")
    _rows("detection, fresh attacks", fresh_attacks, baseline_flags, new)
    _row(
        "false positives, fresh look-alikes", [t for _l, t in fresh_lookalikes], baseline_flags, new
    )
    print("-- ordinary questions:")
    for corpus, texts in questions.items():
        _row(f"false positives, {corpus} questions", texts, baseline_flags, new)
    every = [text for texts in questions.values() for text in texts]
    _row("false positives, all corpora questions", every, baseline_flags, new)
    _latency(every[: args.latency_samples])


def _rows(
    title: str,
    lines: list[tuple[str, str]],
    old: Callable[[str], bool],
    new: Callable[[str], bool],
) -> None:
    for language in LANGUAGES:
        texts = [text for lang, text in lines if lang == language]
        if texts:
            _row(f"{title} {language}", texts, old, new)
    _row(f"{title} all", [text for _lang, text in lines], old, new)


def _row(
    title: str, texts: list[str], old: Callable[[str], bool], new: Callable[[str], bool]
) -> None:
    old_rate = sum(map(old, texts)) / len(texts)
    new_rate = sum(map(new, texts)) / len(texts)
    print(f"{title:34} {len(texts):>5} {old_rate:>7.3f} {new_rate:>7.3f}")


def _latency(texts: list[str]) -> None:
    """Per question: the retrieval embed alone (a fresh text) vs detector + retrieval embed (a cache hit)."""
    from rag.embeddings import LOCAL_MODEL_ID, embed_query, query_cache_clear
    from rag.guard import detection_cache_clear, injection_detect

    embed_query("warm-up", model_id=LOCAL_MODEL_ID)
    injection_detect(text="warm-up question")
    added, detector_only = [], []
    for text in texts:
        query_cache_clear()
        detection_cache_clear()
        started = time.perf_counter()
        embed_query(text, model_id=LOCAL_MODEL_ID)
        plain = time.perf_counter() - started
        query_cache_clear()
        started = time.perf_counter()
        injection_detect(text=text)
        embed_query(text, model_id=LOCAL_MODEL_ID)
        guarded = time.perf_counter() - started
        added.append((guarded - plain) * 1000)
        vector = embed_query(text, model_id=LOCAL_MODEL_ID)
        started = time.perf_counter()
        injection_detect(text=text + " ", embedding=vector)
        detector_only.append((time.perf_counter() - started) * 1000)
    print(
        f"latency over {len(texts)} questions: detector with the embedding reused "
        f"p50 {statistics.median(detector_only):.2f} ms, p95 {_p95(detector_only):.2f} ms; "
        f"turn-level added (guard + retrieval embed hit - retrieval embed alone) "
        f"p50 {statistics.median(added):.2f} ms, p95 {_p95(added):.2f} ms"
    )


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


if __name__ == "__main__":
    main()
