"""The support check measured on public sets: changed answers caught, correct answers wrongly cut, the
added latency per turn, and the offline provider's answers as a control (they quote: nothing to flag).

    .venv/bin/python -m bench.faithfulness run [--root /work/shared/corpora] [--half tune|report] [--limit N]
    .venv/bin/python -m bench.faithfulness fit [--root ...] [--limit N]   # support/calibration.json

The cases come from bench/faithfulness/generate.py (committed before the checker): xquad-dev's English
questions and piaf-dev's French ones, split by article. Each answer is checked against the gold
paragraph and two other paragraphs of its article, prepared as ingestion prepares them (units and their
multilingual vectors, not timed). `fit` sets the whole-sentence support minimum on the tune half alone;
`run --half report` is run once, at the end.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path("/work/shared/corpora")
BAR_KINDS = ("number", "date", "unit", "name")
# The share of the tune half's correct sentences the support minimum may cut.
FIT_CUT = 0.01
# The share of gold sentences read against another article's passages that fall below the minimum.
UNRELATED_BELOW = 0.95


def _documents(root: Path) -> dict[str, dict[str, tuple[str, str]]]:
    from bench.answer.sets import spans_set

    return {
        "en": {
            d.doc_id: (d.title, d.text)
            for d in spans_set(root / "xquad-dev", language="en").documents
        },
        "fr": {d.doc_id: (d.title, d.text) for d in spans_set(root / "piaf-dev").documents},
    }


def _offline(
    question: str, language: str, ids: list[str], docs: dict[str, tuple[str, str]]
) -> str | None:
    from conversations.llm.offline import offline_answer
    from conversations.types import BotRules
    from rag.retrieval import RetrievedChunk
    from textmodels.embeddings import embed_texts

    chunks = [
        RetrievedChunk(
            id=doc_id,
            text=docs[doc_id][1],
            title=docs[doc_id][0],
            score=0.9 - 0.1 * rank,
            rank=rank + 1,
        )
        for rank, doc_id in enumerate(ids)
    ]
    answer = offline_answer(
        question=question,
        chunks=chunks,
        rules=BotRules(locale=language, confidence_threshold=0.0),
        embed=lambda texts: embed_texts(list(texts)),
    )
    return str(answer["answer"]) if answer.get("status") == "found_in_context" else None


def _collect(root: Path, *, half: str, limit: int | None, control: bool):  # type: ignore[no-untyped-def]
    import django

    django.setup()
    from bench.faithfulness.generate import cases
    from bench.faithfulness.run import (
        Tally,
        case_run,
        embedder,
        passages_prepare,
        siblings,
        unrelated_support,
    )
    from conversations.contract.support.numbers import unit_names

    unit_names()
    documents = _documents(root)
    prepared = {language: passages_prepare(docs, language) for language, docs in documents.items()}
    embed = embedder()
    embed(["warm up"])
    tally = Tally()
    previous: dict[str, list] = {}  # type: ignore[type-arg]
    for case in cases(root, half=half, limit=limit):  # type: ignore[arg-type]
        ids = siblings(case.doc_id, prepared[case.language])
        passages = [prepared[case.language][doc_id] for doc_id in ids]
        other = previous.get(case.language)
        if other and other[0].chunk_id.rsplit("-", 1)[0] != case.doc_id.rsplit("-", 1)[0]:
            unrelated_support(case, other, embed, tally)
        previous[case.language] = passages
        answer = (
            _offline(case.question, case.language, ids, documents[case.language])
            if control
            else None
        )
        case_run(case, passages, embed, tally, control_answer=answer)
    return tally


def _fit(root: Path, *, limit: int | None) -> None:
    from conversations.contract.support.calibration import CALIBRATION_FILE, calibration_load

    calibration_load.cache_clear()
    CALIBRATION_FILE.write_text(json.dumps({"support_min": 0.0, "fitted_on": "fitting"}) + "\n")
    tally = _collect(root, half="tune", limit=limit, control=False)
    supports = sorted(s for values in tally.supports.values() for s in values)
    unrelated = sorted(s for values in tally.unrelated.values() for s in values)
    # Above what most unrelated passages reach, below what nearly every correct sentence reaches.
    minimum = min(
        supports[int(FIT_CUT * len(supports))] if supports else 0.0,
        unrelated[int(UNRELATED_BELOW * (len(unrelated) - 1))] if unrelated else 0.0,
    )
    fitted_on = (
        f"tune halves of xquad-dev/en and piaf-dev (bench.faithfulness fit): {len(supports)} correct "
        f"sentences, {len(unrelated)} against another article's passages"
    )
    CALIBRATION_FILE.write_text(
        json.dumps({"support_min": round(minimum - 1e-4, 4), "fitted_on": fitted_on}, indent=2)
        + "\n"
    )
    print(
        f"support_min = {minimum:.4f} ({fitted_on}); correct sentences below: "
        f"{sum(s < minimum for s in supports) / max(1, len(supports)):.3f}; unrelated below: "
        f"{sum(s < minimum for s in unrelated) / max(1, len(unrelated)):.3f}"
    )


def _run(root: Path, *, half: str, limit: int | None, verbose: bool) -> None:
    from bench.faithfulness.generate import KINDS
    from bench.faithfulness.run import median, percentile, share
    from conversations.contract.support.calibration import calibration_load

    tally = _collect(root, half=half, limit=limit, control=True)
    print(
        f"\nhalf: {half}; support minimum {calibration_load().support_min} ({calibration_load().fitted_on})"
    )
    print(f"{'kind of change':<16} {'en caught':>18} {'fr caught':>18} {'all caught':>18}")
    for kind in KINDS:
        en, fr = tally.caught[("en", kind)], tally.caught[("fr", kind)]
        print(f"{kind:<16} {share(en):>18} {share(fr):>18} {share(en + fr):>18}")
    barred = [
        flag for (_, kind), flags in tally.caught.items() if kind in BAR_KINDS for flag in flags
    ]
    print(
        f"{'number+date+unit+name':<22} overall caught {share(barred)}  (bar >= 0.90; >= 0.80 per kind in en, fr)"
    )
    print(
        f"correct answers wrongly cut: en {share(tally.cut['en'])}, fr {share(tally.cut['fr'])}, "
        f"all {share(tally.cut['en'] + tally.cut['fr'])}  (bar <= 0.05)"
    )
    print(
        f"offline control flagged: en {share(tally.control['en'])}, fr {share(tally.control['fr'])}  (bar 0)"
    )
    print(
        f"added latency per turn (the check, {len(tally.latency_ms)} answers): "
        f"p50 {median(tally.latency_ms):.1f} ms, p95 {percentile(tally.latency_ms, 95):.1f} ms  (bar p50 <= 20 ms)"
    )
    if verbose:
        print("\nwrongly cut:", *tally.wrongly_cut[:40], sep="\n  ")
        print("\nmissed:", *tally.missed[:60], sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.faithfulness")
    parser.add_argument("command", choices=("run", "fit"))
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--half", choices=("tune", "report"), default="tune")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.command == "fit":
        _fit(args.root, limit=args.limit)
    else:
        _run(args.root, half=args.half, limit=args.limit, verbose=args.verbose)


if __name__ == "__main__":
    main()
