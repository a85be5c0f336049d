"""Injection guard: detection and false-positive rates, the old regex guard vs the scored detector, side by side.

    nice -n 10 .venv/bin/python -m bench.guard [--corpora ../shared/corpora] [--threshold 0.6]
        [--watch 0.3] [--misses] [--latency-samples 300] [--chunks 3000] [--ingest-documents 200]

Each row prints the old regex guard's rate, the detector's refusal band ("new", score >= threshold) and
refusal plus watch band ("+watch", score >= watch). The outside sets (bench/guard/outside.py: the
validation parts of wildguard-benign and indirect-train, deepset out of fold) close the run in one
table with the corpora documents and the written rounds, one column per source.

Sets (bench/guard/sets, written apart from the training examples in training-data/guard): held-out attacks
per language (EN FR DE ES IT PT) and benign look-alikes that use trigger words (attacks/lookalikes.txt:
looked at while the patterns were written; *_late.txt: written after a first freeze, measured, then
tuned on; *_fresh.txt: written after the second freeze, its misses read in issue 18's second pass;
*_blind.txt: written and committed before that pass's retraining, in styles the training data
avoids, its misses read in the third pass; *_round5.txt: written by an engineer who never saw the
detector, its training data or its misses, its totals (never its lines) watched during the third
pass; *_round6.txt: written by another engineer who never saw the detector, its training data, its
misses or the fifth round, after the third pass's tuning, never tuned on), every question of the
shared corpora's queries.jsonl as ordinary benign traffic, the shared corpora's documents scored as
chunks, and the training rows scored out of fold (the public deepset set's included: the nearest
figure to its unseen test split).
Latency: what the detector adds to a turn once its embedding of the message is reused by retrieval
(p50/p95 over the corpora questions); per document, the ingest screen's time and the ingestion
throughput ratio with the screen on vs off (bench/guard/ingest.py, scifact-en's abstracts).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bench.guard.outside import (
    Column,
    columns_print,
    deepset_column,
    indirect_columns,
    wildguard_column,
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

LANGUAGES = ("en", "fr", "de", "es", "it", "pt")
# (heading, file suffix, row name) of each held-out round, oldest first.
ROUNDS = (
    ("", "", ""),
    (
        "second round: written after the first freeze, measured (0.567 detection), then tuned on",
        "_late",
        "late ",
    ),
    (
        "third round: written after the second freeze, measured (0.583 detection); its misses were"
        " read in issue 18's second pass",
        "_fresh",
        "fresh ",
    ),
    (
        "fourth round: written blind before the second pass's retraining (0.804 detection after"
        " it); its misses were read in issue 18's third pass",
        "_blind",
        "blind ",
    ),
    (
        "fifth round: written by an engineer who never saw the detector, its training data or its"
        " misses; its totals, never its lines, were watched during issue 18's third pass",
        "_round5",
        "round5 ",
    ),
    (
        "sixth round: written blind by another engineer after the third pass's tuning; never"
        " tuned on",
        "_round6",
        "round6 ",
    ),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=None, help="Folder of BEIR corpora.")
    parser.add_argument("--threshold", type=float, default=None, help="Default: the detector's.")
    parser.add_argument("--watch", type=float, default=None, help="Default: the detector's.")
    parser.add_argument("--latency-samples", type=int, default=300, help="0: skip latency.")
    parser.add_argument(
        "--chunks", type=int, default=3000, help="Documents per corpus scored as chunks (0: skip)."
    )
    parser.add_argument(
        "--ingest-documents",
        type=int,
        default=200,
        help="scifact-en documents chunked, embedded and screened for the throughput ratio (0: skip).",
    )
    parser.add_argument(
        "--misses", action="store_true", help="Print each missed attack and flagged look-alike."
    )
    args = parser.parse_args()
    import django

    django.setup()
    from bench.guard.baseline import baseline_flags
    from bench.guard.sets import corpora_dir, corpora_questions, labelled_lines
    from guard.detector import DEFAULT_THRESHOLD, DEFAULT_WATCH, injection_detect

    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    watch = DEFAULT_WATCH if args.watch is None else args.watch
    root = args.corpora or corpora_dir()
    questions = corpora_questions(root)

    def new(text: str) -> bool:
        return injection_detect(text=text).flagged(threshold)

    def watched(text: str) -> bool:
        return injection_detect(text=text).flagged(watch)

    def report(title: str, lines: list[tuple[str, str]]) -> None:
        _rows(title, lines, baseline_flags, new, watched)
        if args.misses:
            attack = title.startswith("detection")
            for language, text in lines:
                if new(text) != attack:
                    detection = injection_detect(text=text)
                    print(
                        f"   {'missed' if attack else 'flagged'} {language} {detection.score:.2f} {text!r}"
                    )

    print(f"threshold {threshold}, watch band from {watch}")
    print(f"{'set':40} {'n':>5} {'old':>7} {'new':>7} {'+watch':>7}")
    written_attacks: list[tuple[str, str]] = []
    written_lookalikes: list[tuple[str, str]] = []
    for heading, suffix, name in ROUNDS:
        if heading:
            print(f"-- {heading}:")
        attacks = labelled_lines(f"attacks{suffix}.txt")
        lookalikes = labelled_lines(f"lookalikes{suffix}.txt")
        written_attacks += attacks
        written_lookalikes += lookalikes
        report(f"detection, {name}attacks", attacks)
        report(f"false positives, {name}look-alikes", lookalikes)
    print("-- the six written rounds together:")
    report("detection, all rounds' attacks", written_attacks)
    _out_of_fold(root, baseline_flags)
    print("-- ordinary questions:")
    for corpus, texts in questions.items():
        _row(f"false positives, {corpus} questions", texts, baseline_flags, new, watched)
    every = [text for texts in questions.values() for text in texts]
    _row("false positives, all corpora questions", every, baseline_flags, new, watched)
    columns: list[Column] = []
    print("-- outside sets (validation parts, never trained or tuned on), one column per source:")
    columns += wildguard_column(root, threshold, watch, baseline_flags)
    if (deepset := deepset_column()) is not None:
        columns.append(deepset)
    columns += indirect_columns(root, threshold, baseline_flags, misses=args.misses)
    if args.chunks:
        for corpus, (n, old_rate, new_rate, task_rate) in _chunks(
            root, args.chunks, baseline_flags, threshold
        ).items():
            if corpus.startswith("scifact"):
                columns.append(Column(f"{corpus} (old)", n, {"clean_quarantined": old_rate}))
                columns.append(
                    Column(corpus, n, {"clean_quarantined": new_rate, "clean_task": task_rate})
                )
    columns += _written_columns(written_attacks, written_lookalikes, baseline_flags, new, watched)
    columns_print(columns)
    if args.latency_samples:
        _latency(every[: args.latency_samples])
    if args.ingest_documents:
        from bench.guard.ingest import ingest_throughput

        ingest_throughput(root, corpus="scifact-en", limit=args.ingest_documents)


def _written_columns(
    attacks: list[tuple[str, str]],
    lookalikes: list[tuple[str, str]],
    old: Callable[[str], bool],
    new: Callable[[str], bool],
    watched: Callable[[str], bool],
) -> list[Column]:
    attack_texts = [text for _, text in attacks]
    benign_texts = [text for _, text in lookalikes]
    n = len(attack_texts) + len(benign_texts)

    def rate(texts: list[str], test: Callable[[str], bool]) -> float:
        return sum(map(test, texts)) / len(texts)

    return [
        Column(
            "written (old)",
            n,
            {"refused": rate(attack_texts, old), "benign_refused": rate(benign_texts, old)},
        ),
        Column(
            "written rounds",
            n,
            {
                "refused": rate(attack_texts, new),
                "detected": rate(attack_texts, watched),
                "benign_refused": rate(benign_texts, new),
                "benign_watched": rate(benign_texts, watched) - rate(benign_texts, new),
            },
        ),
    ]


def _rows(
    title: str,
    lines: list[tuple[str, str]],
    old: Callable[[str], bool],
    new: Callable[[str], bool],
    watched: Callable[[str], bool],
) -> None:
    for language in LANGUAGES:
        texts = [text for lang, text in lines if lang == language]
        if texts:
            _row(f"{title} {language}", texts, old, new, watched)
    _row(f"{title} all", [text for _lang, text in lines], old, new, watched)


def _row(
    title: str,
    texts: list[str],
    old: Callable[[str], bool],
    new: Callable[[str], bool],
    watched: Callable[[str], bool],
) -> None:
    old_rate = sum(map(old, texts)) / len(texts)
    new_rate = sum(map(new, texts)) / len(texts)
    watch_rate = sum(map(watched, texts)) / len(texts)
    print(f"{title:40} {len(texts):>5} {old_rate:>7.3f} {new_rate:>7.3f} {watch_rate:>7.3f}")


def _out_of_fold(root: Path, old: Callable[[str], bool]) -> None:
    """The training data's rows scored out of fold (guard.training.out_of_fold_detector, in the
    model's meta): the public set's attacks and benign rows as an unseen split would meet them."""
    from guard.classifier import classifier_model
    from guard.training import examples_jsonl

    model = classifier_model()
    report = model.meta.get("out_of_fold_detector") if model else None
    if not isinstance(report, dict):
        return
    public = {
        path.stem: examples_jsonl(path=path)
        for path in sorted(root.glob("injection-train/*.jsonl"))
    }
    print("-- training rows out of fold (grouped 5-fold: a classifier that never saw the row):")
    for name, figures in report.items():
        source, _, kind = name.rpartition(" ")
        rows = [e.text for e in public.get(source, []) if e.label == (kind == "attacks")]
        old_rate = f"{sum(map(old, rows)) / len(rows):>7.3f}" if rows else f"{'':>7}"
        title = f"{'detection' if kind == 'attacks' else 'false positives'}, {source} {kind}"
        both = figures.get("watched_or_flagged", figures["flagged"])
        print(f"{title:40} {figures['n']:>5} {old_rate} {figures['flagged']:>7.3f} {both:>7.3f}")


def _chunks(
    root: Path, limit: int, old: Callable[[str], bool], threshold: float
) -> dict[str, tuple[int, float, float, float]]:
    """Ordinary documents cut and scored as ingestion cuts and scores them: the share of documents
    quarantine would touch (one chunk is enough), by corpus (n, old, new, share with a task finding
    recorded below quarantine)."""
    from bench.guard.sets import corpora_chunks, ingestion_chunks
    from guard.detector import LABEL_TASK, injection_detect_batch

    print(
        "-- ordinary documents cut into ingestion's chunks (the share quarantined; task recorded):"
    )
    rates = {}
    for corpus, texts in corpora_chunks(root, limit=limit).items():
        flagged = recorded = 0
        for text in texts:
            chunks = ingestion_chunks(text) or [text]
            detections = injection_detect_batch(
                texts=chunks, documents=True, sources=[0] * len(chunks)
            )
            flagged += any(detection.flagged(threshold) for detection in detections)
            recorded += any(detection.label == LABEL_TASK for detection in detections)
        old_rate = sum(map(old, texts)) / len(texts)
        print(
            f"{'quarantined, ' + corpus + ' documents':40} {len(texts):>5} {old_rate:>7.3f} "
            f"{flagged / len(texts):>7.3f} {recorded / len(texts):>7.3f}"
        )
        rates[corpus] = (len(texts), old_rate, flagged / len(texts), recorded / len(texts))
    return rates


def _latency(texts: list[str]) -> None:
    """Per question: the retrieval embed alone (a fresh text) vs detector + retrieval embed (a cache hit)."""
    from guard.detector import detection_cache_clear, injection_detect
    from textmodels.embeddings import LOCAL_MODEL_ID, embed_query, query_cache_clear

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
