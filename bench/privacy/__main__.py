"""Personal-data redaction: precision and recall per kind (e-mail, phone, IBAN, card) and the time per
message, Parley's redactor (core.redaction) beside a naive regex redactor, in one run.

    nice -n 10 .venv/bin/python -m bench.privacy bench/privacy/tune.txt bench/privacy/report.txt \
        [--corpora /work/shared/corpora]

Sets: tune.txt (looked at while the redactor was written) and report.txt (written with it, never
used to change the redactor: only reported); see bench/privacy/README.md. A predicted span counts
as right when it overlaps a labelled span of its kind; a labelled span counts as found when spans of
its kind cover every letter and digit of it (a half-redacted card number is a leak, not a find).

With --corpora, the redactors also read public questions that hold no personal data (the shared
corpora's queries: covid-faq-en, xquad-dev in en/de/es, spf-fr) and the spf-fr fiches: every span
found there in a question is a false positive; in the fiches, the spans are printed to be judged
(service phone numbers and addresses are real ones, not visitors').
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from bench.privacy.baseline import naive_find
from core.redaction import DEFAULT_PHONE_REGIONS, PiiKind, pii_find

_MARK = re.compile(r"\{\{(email|phone|iban|card):(.+?)\}\}")
Span = tuple[int, int, str]
Finder = Callable[[str], list[Span]]


@dataclass(frozen=True)
class Message:
    language: str
    text: str
    gold: list[Span]


def messages_read(path: Path) -> list[Message]:
    """One message a line, "<language>\\t<text>", personal data marked {{kind:value}}."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        language, marked = line.split("\t", 1)
        text, gold, cursor = "", [], 0
        for match in _MARK.finditer(marked):
            text += marked[cursor : match.start()]
            gold.append((len(text), len(text) + len(match.group(2)), match.group(1)))
            text += match.group(2)
            cursor = match.end()
        text += marked[cursor:]
        found.append(Message(language, text, gold))
    return found


def parley_find(text: str) -> list[Span]:
    return [(s.start, s.end, s.kind.value) for s in pii_find(text, regions=DEFAULT_PHONE_REGIONS)]


def _covered(gold: Span, predicted: list[Span], text: str) -> bool:
    start, end, kind = gold
    spans = [(s, e) for s, e, k in predicted if k == kind]
    return all(any(s <= i < e for s, e in spans) for i in range(start, end) if text[i].isalnum())


@dataclass
class Tally:
    predicted: Counter[str]
    right: Counter[str]
    gold: Counter[str]
    found: Counter[str]
    misses: list[str]
    false: list[str]


def score(messages: Iterable[Message], finder: Finder) -> tuple[Tally, list[float]]:
    tally = Tally(
        predicted=Counter(), right=Counter(), gold=Counter(), found=Counter(), misses=[], false=[]
    )
    times = []
    for message in messages:
        started = time.perf_counter()
        predicted = finder(message.text)
        times.append((time.perf_counter() - started) * 1000)
        for start, end, kind in predicted:
            tally.predicted[kind] += 1
            if any(k == kind and start < e and s < end for s, e, k in message.gold):
                tally.right[kind] += 1
            else:
                tally.false.append(f"{kind}: {message.text[start:end]!r} in {message.text!r}")
        for gold in message.gold:
            tally.gold[gold[2]] += 1
            if _covered(gold, predicted, message.text):
                tally.found[gold[2]] += 1
            else:
                tally.misses.append(f"{gold[2]}: {message.text[gold[0] : gold[1]]!r}")
    return tally, times


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "  -  "


def report(name: str, messages: list[Message], show: bool) -> None:
    gold_total = sum(len(m.gold) for m in messages)
    print(f"\n== {name}: {len(messages)} messages, {gold_total} labelled spans ==")
    print(f"{'method':<10} {'kind':<6} {'gold':>5} {'precision':>10} {'recall':>8}")
    for label, finder in (("parley", parley_find), ("naive", naive_find)):
        finder(messages[0].text)  # warm the phone metadata and regexes
        tally, times = score(messages, finder)
        for kind in PiiKind:
            k = kind.value
            print(
                f"{label:<10} {k:<6} {tally.gold[k]:>5} "
                f"{_ratio(tally.right[k], tally.predicted[k]):>10} "
                f"{_ratio(tally.found[k], tally.gold[k]):>8}"
            )
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
        print(
            f"{label:<10} time per message: mean {statistics.mean(times):.2f} ms, p95 {p95:.2f} ms"
        )
        if show:
            for line in tally.false:
                print(f"    false positive  {line}")
            for line in tally.misses:
                print(f"    missed          {line}")


def corpora_report(root: Path) -> None:
    """Spans found in public questions (none hold personal data) and in the spf-fr fiches."""
    sources: list[tuple[str, list[str]]] = []
    for name in ("covid-faq-en", "xquad-dev", "spf-fr"):
        path = root / name / "queries.jsonl"
        if path.exists():
            rows = [json.loads(line) for line in path.open(encoding="utf-8")]
            sources.append((f"{name} questions", [row["text"] for row in rows]))
    fiches = root / "spf-fr" / "corpus.jsonl"
    if fiches.exists():
        rows = [json.loads(line) for line in fiches.open(encoding="utf-8")]
        sources.append(("spf-fr fiches", [row["text"] for row in rows]))
    print("\n== public text (shared corpora): spans found; in questions, every one is wrong ==")
    for name, texts in sources:
        found: dict[str, set[tuple[int, str, str]]] = {}
        for label, finder in (("parley", parley_find), ("naive", naive_find)):
            started = time.perf_counter()
            kinds: Counter[str] = Counter()
            spans: set[tuple[int, str, str]] = set()
            for index, text in enumerate(texts):
                for start, end, kind in finder(text):
                    kinds[kind] += 1
                    spans.add((index, kind, text[start:end]))
            elapsed = (time.perf_counter() - started) * 1000 / max(len(texts), 1)
            counts = ", ".join(f"{k} {kinds[k.value]}" for k in PiiKind)
            print(f"{name:<22} {label:<7} {len(texts):>5} texts: {counts} ({elapsed:.2f} ms/text)")
            found[label] = spans
        # What one finds and the other does not, to be judged by eye.
        for label, other in (("parley", "naive"), ("naive", "parley")):
            only = sorted(found[label] - found[other])
            shown = [f"{kind}:{text!r}" for _, kind, text in only[:12]]
            print(f"    only {label} ({len(only)}): {', '.join(shown)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sets", nargs="+", type=Path, help="set files; the last is the reported one"
    )
    parser.add_argument("--corpora", type=Path, help="the shared corpora's folder")
    parser.add_argument("--show", action="store_true", help="print each false positive and miss")
    args = parser.parse_args()
    for path in args.sets:
        report(path.name, messages_read(path), args.show)
    if args.corpora:
        corpora_report(args.corpora)


if __name__ == "__main__":
    main()
