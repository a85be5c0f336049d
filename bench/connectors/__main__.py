"""How answers are cut for a platform's length limit, on public text nobody here wrote.

    python -m bench.connectors /work/shared/corpora/spf-fr /work/shared/corpora/scifact-en --limit 3000

Every document of each corpus (title and text) longer than the limit is cut three ways: Parley's
`connectors.text.text_split` (pysbd sentences, packed greedily), a hard cut every `limit` characters,
and a cut at the last space before the limit. For each: the pieces, the largest, whether joining
them gives the text back (but for whitespace at the cuts), and the share of cuts inside a sentence:
a cut is clean when it falls on a sentence end of pysbd run on the whole text.
Nothing is tuned: text_split has no setting but the platform's limit. The long documents are split
in two halves by position; the second (odd) half is the reported one.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import pysbd  # type: ignore[import-untyped]

from connectors.text import text_split


def _documents(folder: Path) -> list[str]:
    texts = []
    with (folder / "corpus.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            texts.append(" ".join(part for part in (row.get("title"), row.get("text")) if part))
    return texts


def _hard(text: str, limit: int) -> list[str]:
    return [text[i : i + limit] for i in range(0, len(text), limit)]


def _space(text: str, limit: int) -> list[str]:
    pieces, rest = [], text
    while len(rest) > limit:
        cut = rest.rfind(" ", 0, limit + 1)
        cut = cut if cut > 0 else limit
        pieces.append(rest[:cut])
        rest = rest[cut:].lstrip(" ")
    return [*pieces, rest]


def _sentence_ends(text: str, language: str) -> set[int]:
    """Character offsets where the reference segmentation ends a sentence (trailing spaces included)."""
    segmenter = pysbd.Segmenter(language=language, clean=False, char_span=True)
    ends = set()
    for span in segmenter.segment(text):
        ends.add(span.end)
        ends.add(len(text[: span.end].rstrip()))
    return ends


def _measure(
    texts: Iterable[str], cut: Callable[[str], list[str]], *, language: str
) -> dict[str, float]:
    pieces = cuts = inside = lost = 0
    largest = 0
    for text in texts:
        parts = cut(text)
        pieces += len(parts)
        largest = max(largest, *(len(p) for p in parts))
        ends = _sentence_ends(text, language)
        offset = 0
        for part in parts[:-1]:
            offset = text.index(part, offset) + len(part)
            cuts += 1
            inside += offset not in ends
        # Whitespace between two messages is not shown: every other character must come back.
        lost += "".join("".join(parts).split()) != "".join(text.split())
    return {
        "pieces": pieces,
        "largest": largest,
        "cuts": cuts,
        "cuts_inside_a_sentence": round(inside / cuts, 3) if cuts else 0.0,
        "texts_not_rebuilt": lost,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--limit", type=int, default=3000)
    args = parser.parse_args()
    for folder in args.corpora:
        language = "fr" if folder.name.endswith("-fr") else "en"
        long_texts = [t for t in _documents(folder) if len(t) > args.limit]
        for half, texts in (("tuning half", long_texts[0::2]), ("reported half", long_texts[1::2])):
            print(
                f"{folder.name} ({language}), limit {args.limit}, {half}: {len(texts)} texts over the limit"
            )
            for name, cut in (
                (
                    "parley text_split",
                    lambda t, lang=language: text_split(t, limit=args.limit, language=lang),
                ),
                ("hard cut", lambda t: _hard(t, args.limit)),
                ("last space", lambda t: _space(t, args.limit)),
            ):
                started = time.perf_counter()
                figures = _measure(texts, cut, language=language)
                figures["seconds"] = round(time.perf_counter() - started, 2)
                print(f"  {name:18} {figures}")


if __name__ == "__main__":
    main()
